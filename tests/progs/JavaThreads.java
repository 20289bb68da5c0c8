// JavaThreads.java - a JVM program with threads: 4 threads each fill a
// HashMap and a StringBuilder (the Java heap: the JVM's own mmap'd memory)
// and allocate native memory through sun.misc.Unsafe, whose allocateMemory
// is the JVM's Unsafe_AllocateMemory0 -> os::malloc -> malloc of exactly the
// size asked (a multiple of 8; no header with native memory tracking off,
// the default).  The JVM itself mallocs for every thread it starts, for
// class loading and for the JIT.
//
// Expected facts (tests/e2e/real-jvm.sh):
//   Unsafe_AllocateMemory0, blocks of 4104 bytes: 4 x 250 = 1000
//   allocations (4104000 bytes); each thread frees all but one: 4 blocks
//   (16416 bytes) live at exit.
// stdout:
//   thread T: 20000 entries, 3000 keys, length 139999, native 250
//   (T = 0..3; 20000 numbers of 6 digits and 19999 commas)
//   threads 4 done
// and exit status 8.
import java.lang.reflect.Field;
import java.util.HashMap;
import sun.misc.Unsafe;

public class JavaThreads {
	static final int THREADS = 4;
	static final int ENTRIES = 20000;
	static final int NATIVE_BLOCKS = 250;
	static final long NATIVE_BYTES = 4104;
	static Unsafe unsafe;

	static int nativeBlocks() {
		long[] blocks = new long[NATIVE_BLOCKS];
		for (int i = 0; i < NATIVE_BLOCKS; i++) {
			blocks[i] = unsafe.allocateMemory(NATIVE_BYTES);
			unsafe.putLong(blocks[i], i);
		}
		int sum = 0;
		for (int i = 0; i < NATIVE_BLOCKS; i++) {
			sum += (int)unsafe.getLong(blocks[i]) == i ? 1 : 0;
			if (i > 0)
				unsafe.freeMemory(blocks[i]);
		}
		return sum;
	}

	static String work(int id) {
		HashMap<Integer, Integer> counts = new HashMap<>();
		StringBuilder text = new StringBuilder();
		for (int i = 0; i < ENTRIES; i++) {
			int key = (i * 7919 + id) % 3000;
			counts.merge(key, 1, Integer::sum);
			if (i > 0)
				text.append(',');
			text.append(100000 + key);
		}
		return ENTRIES + " entries, " + counts.size() + " keys, length " + text.length()
			+ ", native " + nativeBlocks();
	}

	public static void main(String[] args) throws Exception {
		Field field = Unsafe.class.getDeclaredField("theUnsafe");
		field.setAccessible(true);
		unsafe = (Unsafe)field.get(null);
		String[] results = new String[THREADS];
		Thread[] threads = new Thread[THREADS];
		for (int t = 0; t < THREADS; t++) {
			final int id = t;
			threads[t] = new Thread(() -> results[id] = work(id));
			threads[t].start();
		}
		for (int t = 0; t < THREADS; t++) {
			threads[t].join();
			System.out.println("thread " + t + ": " + results[t]);
		}
		System.out.println("threads " + THREADS + " done");
		System.exit(8);
	}
}
