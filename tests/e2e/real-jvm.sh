#!/bin/bash
# real-jvm.sh - Debian's JVM (which once hung under mprof as its first
# thread started): `java -version`, and a program whose 4 threads allocate
# on the Java heap and natively, keep output and exit status, end within
# the time limit, and leave whole traces; the native memory the threads
# take through Unsafe is counted exactly (libjvm.so keeps its .symtab, so
# Unsafe_AllocateMemory0 is named).  Program and facts:
# tests/progs/JavaThreads.java (compiled here with javac, not profiled).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
# Debian's own, explicitly (apt package default-jdk-headless)
JAVA=/usr/bin/java
JAVAC=/usr/bin/javac
[ -x "$JAVA" ] || skip "java is not installed ($JAVA; apt package default-jdk-headless)"
[ -x "$JAVAC" ] || skip "javac is not installed ($JAVAC; apt package default-jdk-headless)"
make_work
mkdir -p "$WORK/classes" || hard_error "cannot create $WORK/classes"
"$JAVAC" -nowarn -d "$WORK/classes" "$PROGS_DIR/JavaThreads.java" >"$WORK/build.log" 2>&1 ||
	{ cat "$WORK/build.log"; hard_error "cannot compile JavaThreads.java"; }

expect_as_native 60 version 0 "$WORK/version.trace" "$JAVA" -version
expect_match "java -version: prints the version on stderr" '^(openjdk|java) version ' \
	"$(cat "$WORK/mprof-version.err")"
expect_eq "java -version: one trace (no child process)" "$WORK/version.trace" \
	"$(ls -d "$WORK/version.trace"*)"
if report_json "$WORK/r-version.json" "$WORK/version.trace"; then
	expect_whole_trace "java -version" "$WORK/r-version.json" 0 "the JVM"
	expect_range "java -version: allocations" 1000 100000000 \
		"$(q "$WORK/r-version.json" summary allocations)"
	expect_range "java -version: sites under JNI_CreateJavaVM (.dynsym of libjvm.so)" 10 1000000 \
		"$(q "$WORK/r-version.json" sites-re '^JNI_CreateJavaVM$')"
	# HotSpot's C-heap wrappers are skipped: sites name who wanted the memory
	expect_eq "java -version: sites whose stack holds os::malloc or AllocateHeap" 0 \
		"$(q "$WORK/r-version.json" sites-re '^(os::malloc|AllocateHeap)\(')"
fi

expect_as_native 60 threads 8 "$WORK/threads.trace" "$JAVA" -cp "$WORK/classes" JavaThreads
for t in 0 1 2 3; do
	echo "thread $t: 20000 entries, 3000 keys, length 139999, native 250"
done >"$WORK/expected.out"
echo "threads 4 done" >>"$WORK/expected.out"
expect_file_eq "threads: stdout" "$WORK/expected.out" "$WORK/mprof-threads.out"
expect_eq "threads: one trace (no child process)" "$WORK/threads.trace" "$(ls -d "$WORK/threads.trace"*)"
report_json "$WORK/r.json" "$WORK/threads.trace" || finish
R="$WORK/r.json"
expect_whole_trace threads "$R" 8 "the JVM"
expect_range "threads: allocations" 1000 100000000 "$(q "$R" summary allocations)"
#                                              size allocations / bytes / leaked
expect_eq "Unsafe_AllocateMemory0: allocations of 4104 bytes" 1000 \
	"$(q "$R" sum-size allocations 4104 Unsafe_AllocateMemory0)"
expect_eq "Unsafe_AllocateMemory0: bytes of blocks of 4104 bytes" 4104000 \
	"$(q "$R" sum-size allocated_bytes 4104 Unsafe_AllocateMemory0)"
expect_eq "Unsafe_AllocateMemory0: blocks of 4104 bytes live at exit" 4 \
	"$(q "$R" sum-size leaked_blocks 4104 Unsafe_AllocateMemory0)"
finish
