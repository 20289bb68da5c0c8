#!/bin/bash
# sparse-lifetimes.sh - lifetimes in ns are right in a program that
# allocates little: its blocks live 1.5 s and 0.2 s between two allocator
# calls.  (Time stamps taken only every 4096 events of a thread timed both
# frees at the thread's start: 0 ns.)
# Program and facts: tests/progs/sparse_lifetimes.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sparse_lifetimes" "$PROGS_DIR/sparse_lifetimes.c"

mprof_run 60 "$WORK/trace" -- "$WORK/sparse_lifetimes"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "ok" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
expect_site "$WORK/r.json" keep_block 2 200 0 0
# within one launcher time tick (10 ms) plus a loaded machine's delays
expect_range "keep_block: longest lifetime (ns)" 1500000000 2500000000 \
	"$(q "$WORK/r.json" sum lifetime_ns_max keep_block)"
expect_range "keep_block: shortest lifetime (ns)" 200000000 1200000000 \
	"$(q "$WORK/r.json" sum lifetime_ns_min keep_block)"
finish
