#!/bin/bash
# profiler-frames.sh - the recorder's own frames are dropped from every call
# stack, not only at its leaf: the C library allocates a new thread's TLS
# vector inside pthread_create, which the recorder wraps, and those sites
# showed "pthread_create (rlimit.c:329) [libmprof_preload.so]" between
# glibc's pthread_create and the program's caller (mprof-report(1): "The
# profiler's own frames are dropped").  Program and facts:
# tests/progs/thread_spawner.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/spawner" "$PROGS_DIR/thread_spawner.c" -pthread

mprof_run 60 "$WORK/t" -q -- "$WORK/spawner"
expect_eq "exit status" 0 "$RUN_STATUS"
report_json "$WORK/r.json" "$WORK/t" || hard_error "no report"
expect_site "$WORK/r.json" worker 15 11655 0 0
expect_eq "no frame of the recorder in any site" "" \
	"$(q "$WORK/r.json" modules | grep -F libmprof)"
expect_eq "glibc's pthread_create called from start_workers" "start_workers" \
	"$(q "$WORK/r.json" caller __pthread_create_2_1)"
expect_eq "sites with glibc's pthread_create in their stack: at least one" 1 \
	"$(( $(q "$WORK/r.json" sites __pthread_create_2_1) > 0 ))"
finish
