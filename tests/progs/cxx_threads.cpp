// cxx_threads.cpp - a C++ program with std::thread and thread_local: each of
// 4 threads builds a thread_local object whose constructor allocates (on the
// thread's first use) and whose destructor frees at the thread's exit (run
// by glibc's __call_tls_dtors, after the thread function returned), and
// churns new/delete in a function of its own.
//
// Expected facts (tests/e2e/real-cxx-threads.sh; "N / B" = allocations /
// bytes, "leak" = blocks / bytes live at exit):
//   tls_buffer_alloc   4 x new char[1000], one per thread,
//                      freed by the thread_local's destructor  4 / 4000    leak 0 / 0
//   churn              4 x 2500 x new Node (40 bytes), all
//                      deleted                                 10000 / 400000  leak 0 / 0
//   keep_one           4 x new Node (40 bytes), never deleted   4 / 160      leak 4 / 160
// stdout: "threads 4, nodes 10000, tls 4000, checksum 12499000\n" (per
// thread: the nodes hold 0 + 1 + ... + 2499 = 3123750, the buffer 1000 ones);
// exit status 0.
#include <cstdio>
#include <thread>
#include <vector>

#define NOINLINE __attribute__((noinline))

enum { THREADS = 4, NODES = 2500, TLS_BYTES = 1000 };

struct Node {
	long v[5];
};

NOINLINE static char *tls_buffer_alloc()
{
	char *p = new char[TLS_BYTES];
	for (int i = 0; i < TLS_BYTES; i++)
		p[i] = 1;
	return p;
}

struct TlsBuffer {
	char *bytes;
	TlsBuffer() : bytes(tls_buffer_alloc()) {}
	~TlsBuffer() { delete[] bytes; }
};

thread_local TlsBuffer tls_buffer;

// Allocates and deletes NODES nodes one by one; returns the sum of what
// they held.
NOINLINE static long churn(long base)
{
	long sum = 0;
	for (long i = 0; i < NODES; i++) {
		Node *n = new Node{{base + i, 0, 0, 0, 0}};
		// the pointer escapes, so the compiler cannot remove the
		// new/delete pair (GCC does at -O1 otherwise)
		asm volatile("" : : "g"(n) : "memory");
		sum += n->v[0];
		delete n;
	}
	return sum;
}

NOINLINE static Node *keep_one(long t)
{
	return new Node{{t, 0, 0, 0, 0}};
}

static Node *kept[THREADS];

static void worker(int t, long *result)
{
	long tls_sum = 0;
	for (int i = 0; i < TLS_BYTES; i++)
		tls_sum += tls_buffer.bytes[i];
	kept[t] = keep_one(t);
	*result = churn(0) + tls_sum;
}

int main()
{
	std::vector<std::thread> threads;
	long results[THREADS];
	for (int t = 0; t < THREADS; t++)
		threads.emplace_back(worker, t, &results[t]);
	long checksum = 0;
	for (int t = 0; t < THREADS; t++) {
		threads[t].join();
		checksum += results[t];
	}
	std::printf("threads %d, nodes %d, tls %d, checksum %ld\n", THREADS, THREADS * NODES,
		    THREADS * TLS_BYTES, checksum);
	return 0;
}
