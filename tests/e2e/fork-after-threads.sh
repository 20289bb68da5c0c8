#!/bin/bash
# fork-after-threads.sh - a fork child's report starts at its parent's last
# event before the fork, also when threads that made those events have
# ended: the recorder took the fork point only from the threads still
# running, so after four joined threads the child "forked at" an event
# among theirs and inherited only some of their live blocks (a different
# number from run to run).  Program and facts: tests/progs/fork_after_threads.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/fork_after_threads" "$PROGS_DIR/fork_after_threads.c" -pthread -fno-builtin

mprof_run 60 "$WORK/f.trace" -- "$WORK/fork_after_threads"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "fork_after_threads forking" "$(cat "$RUN_OUT")"
set -- "$WORK"/f.trace.*
expect_eq "one child trace" 1 "$#"
CHILD=$1
report_json "$WORK/p.json" "$WORK/f.trace"
report_json "$WORK/c.json" "$CHILD"
expect_eq "parent: thread_keep's 400 blocks of 40000 B live at exit" "400 40000" \
	"$(json_eval "$WORK/p.json" '"%d %d" % (site("thread_keep")[0]["leaked_blocks"], site("thread_keep")[0]["leaked_bytes"])')"
expect_eq "child: its own one allocation, child_alloc's 777 B" "1 1 777" \
	"$(json_eval "$WORK/c.json" '"%d %d %d" % (d["summary"]["allocations"], site("child_alloc")[0]["leaked_blocks"], site("child_alloc")[0]["leaked_bytes"])')"
# the parent makes no allocator call after the fork: its last event is the fork point
PARENT_EVENTS=$(json_eval "$WORK/p.json" 'd["summary"]["allocations"] + d["summary"]["frees"]')
expect_eq "child: inherits every block live in the parent at its end" \
	"$(json_eval "$WORK/p.json" '"%d %d" % (d["summary"]["leaked_blocks"], d["summary"]["leaked_bytes"])')" \
	"$(json_eval "$WORK/c.json" '"%d %d" % (d["summary"]["inherited"]["blocks"], d["summary"]["inherited"]["bytes"])')"
run_cmd 60 ct "$MPROF" report -n 0 "$CHILD"
expect_match "child text: forked at the parent's last event" \
	"^forked from: +.*f\.trace at its event $PARENT_EVENTS\$" "$(cat "$RUN_OUT")"
finish
