#!/bin/bash
# no-children.sh - `mprof run --no-children` records the program's own
# process only: one trace, the fork child's allocations in none, and the
# parent's report says its forks were not recorded because of the option
# (it said "each child recorded has its own trace", with none recorded,
# and JSON forks_unrecorded 0).  Program: tests/progs/fork_after_threads.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/fork_after_threads" "$PROGS_DIR/fork_after_threads.c" -pthread -fno-builtin

RUN_NAME=nc mprof_run 60 "$WORK/n.trace" --no-children -- "$WORK/fork_after_threads"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "fork_after_threads forking" "$(cat "$RUN_OUT")"
expect_eq "one trace, no child's" "n.trace" "$(cd "$WORK" && ls n.trace*)"
report_json "$WORK/n.json" "$WORK/n.trace"
expect_eq "JSON: 1 fork, 1 not recorded" "1 1" \
	"$(json_eval "$WORK/n.json" '"%d %d" % (d["summary"]["forks"], d["summary"]["forks_unrecorded"])')"
expect_eq "the parent's own 400 blocks of thread_keep, no child_alloc" "400 0" \
	"$(json_eval "$WORK/n.json" '"%d %d" % (site("thread_keep")[0]["allocations"], len(site("child_alloc")))')"
run_cmd 60 nt "$MPROF" report -n 0 "$WORK/n.trace"
expect_eq "text: the forks line says why they were not recorded" \
	"forks:            1 (not recorded: $MPROF_HINT run --no-children)" \
	"$(grep '^forks:' "$RUN_OUT")"
finish
