#!/bin/bash
# cxx-thread-local.sh - a C++ program with std::thread and thread_local
# objects that allocate on a thread's first use and free in their
# destructors at the thread's exit (after the thread function returned):
# output and exit status unchanged, a whole trace, and exact counts for the
# thread_local's buffers, the per-thread new/delete churn and the blocks
# kept.  Program and facts: tests/progs/cxx_threads.cpp.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_cxx "$WORK/cxx_threads" "$PROGS_DIR/cxx_threads.cpp" -pthread

expect_as_native 60 threads 0 "$WORK/trace" "$WORK/cxx_threads"
expect_eq "stdout" "threads 4, nodes 10000, tls 4000, checksum 12499000" \
	"$(cat "$WORK/mprof-threads.out")"
report_json "$WORK/r.json" "$WORK/trace" || finish
R="$WORK/r.json"
expect_whole_trace report "$R" 0 null
#                              allocs bytes  leak-blocks leak-bytes
expect_site "$R" tls_buffer_alloc 4     4000   0 0
expect_site "$R" churn            10000 400000 0 0
expect_site "$R" keep_one         4     160    4 160
expect_eq "tls_buffer_alloc: freed (by the thread_local's destructor)" 4 \
	"$(q "$R" sum freed tls_buffer_alloc)"
expect_eq "tls_buffer_alloc: called from the thread_local's constructor" TlsBuffer::TlsBuffer \
	"$(q "$R" caller tls_buffer_alloc)"
expect_eq "churn: every node freed by the very next allocator call (temporary)" 10000 \
	"$(q "$R" sum temporary churn)"
expect_eq "churn and keep_one: called from worker" "worker|worker" \
	"$(q "$R" caller churn)|$(q "$R" caller keep_one)"
finish
