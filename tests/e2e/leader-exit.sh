#!/bin/bash
# leader-exit.sh - a process whose main thread leaves by pthread_exit()
# while another thread goes on is recorded to its end: /proc shows such a
# main thread as a zombie, which the launcher took for the end of the
# process, so it finalized the trace there, without the allocations made
# after (the trace said "exited with status 0" after 0.1 s).
# Program and facts: tests/progs/leader_exit.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/leader_exit" "$PROGS_DIR/leader_exit.c" -pthread

mprof_run 120 "$WORK/t" -- "$WORK/leader_exit"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "child exited 5" "$(cat "$RUN_OUT")"
expect_eq "program's stderr" "" "$(program_stderr "$RUN_ERR")"
child=$(ls "$WORK"/t.[0-9]* 2>/dev/null)
expect_eq "one child trace" 1 "$(printf '%s\n' "$child" | grep -c .)"
child=$(printf '%s\n' "$child" | head -n 1)
report_json "$WORK/child.json" "$child" || finish
expect_site "$WORK/child.json" leader_exit_alloc 1000 500000 1000 500000
expect_eq "child: exit status, not ended early" "5 None True" \
	"$(json_eval "$WORK/child.json" '"%s %s %s" % (d["summary"]["program"]["exit_status"], d["summary"]["ended_early"], d["summary"]["run_time_ns"] >= 2000000000)')"
run_cmd 60 text "$MPROF" report -n 0 "$child"
expect_match "child: text status" '^program: .* exited with status 5$' "$(grep '^program:' "$RUN_OUT")"
finish
