#!/bin/bash
# slow-start.sh - a child whose recorder is slow to start is still recorded
# with all its allocations, by a test knob that makes the race deterministic:
# tests/progs/slow_start.c starts a child (vfork and exec) with
# MPROF_TEST_START_DELAY_MS=2500, so its process file stays "starting" for
# 2.5 s, longer than the launcher's 2 s limit; the child then makes its 50
# allocations and ends.
#  1. The program waits for the child: the child's trace holds its 50
#     allocations.  (Before, the launcher gave up on the file after 2 s
#     while the child ran on, and its allocations were lost.)
#  2. The program ends at once, and MPROF_TEST_FINISH_DELAY_MS=8000 holds
#     the launcher after its 2 s wait for starting processes, as a loaded
#     machine may: the child finishes starting (2.5 s), records and ends
#     meanwhile (with 5.5 s to spare: 0.5 s was too few on a loaded host),
#     and its trace holds its 50 allocations.  (Before, the launcher looked
#     at the file, then saw the process ended and named it "ended before its
#     recorder finished starting": 1 run in 12 of late-children.sh.)
#  3. The same without the launcher held, the child's start delayed 20 s:
#     mprof stops waiting while the child is still starting and names it;
#     there is no trace.  (With 2.5 s, a launcher that saw the file 0.5 s
#     late found the child started and recorded it.)  The test then kills
#     the child, still starting.
#  4. As 3, the child's start delayed 8 s and let finish: the launcher's
#     PROC_ABANDONED stays, the recorder does not record into the file
#     given up (no mapping is left).  (Before, the recorder stored RUNNING
#     over it and recorded on: "state 1".)
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/slow_start" "$PROGS_DIR/slow_start.c" -I"$abs_top_srcdir"

# child_recorded CASE TRACE PID: PID's trace holds its 50 allocations and
# mprof named no process as not recorded
child_recorded() {
	local t="$2.$3"

	expect_eq "$1: exit status" 0 "$RUN_STATUS"
	expect_no_match "$1: mprof names no process as not recorded" "is not recorded" \
		"$(cat "$RUN_ERR")"
	if [ -f "$t" ] && report_json "$t.json" "$t"; then
		expect_eq "$1: allocations of the child in child_work" 50 \
			"$(q "$t.json" sum allocations child_work)"
	else
		expect_eq "$1: the child's trace exists" yes no
	fi
}

mprof_run 60 "$WORK/wait" -- "$WORK/slow_start" wait 2500
child_recorded "waited for" "$WORK/wait" "$(tail -n 1 "$RUN_OUT")"

MPROF_TEST_FINISH_DELAY_MS=8000 mprof_run 60 "$WORK/held" -- "$WORK/slow_start" nowait 2500
child_recorded "launcher held" "$WORK/held" "$(tail -n 1 "$RUN_OUT")"

mprof_run 60 "$WORK/gone" -- "$WORK/slow_start" nowait 20000
pid=$(tail -n 1 "$RUN_OUT")
[[ $pid =~ ^[1-9][0-9]*$ ]] && kill -KILL "$pid" 2>/dev/null
expect_eq "not waited for: exit status" 0 "$RUN_STATUS"
expect_match "not waited for: mprof names the child" \
	"^mprof: warning: process $pid \(.*slow_start\) is not recorded: its recorder had not finished starting when mprof stopped waiting" \
	"$(cat "$RUN_ERR")"
expect_eq "not waited for: the child has no trace" no "$([ -e "$WORK/gone.$pid" ] && echo yes || echo no)"

mprof_run 60 "$WORK/late" -- "$WORK/slow_start" nowait 8000 "$WORK/late.state"
pid=$(tail -n 1 "$RUN_OUT")
expect_match "given up while starting: mprof names the child" \
	"^mprof: warning: process $pid \(.*slow_start\) is not recorded: its recorder had not finished starting when mprof stopped waiting" \
	"$(cat "$RUN_ERR")"
# the child ends about 8 s after its start; a bound, not a timing
for _ in $(seq 600); do
	[ -s "$WORK/late.state" ] && break
	sleep 0.1
done
expect_eq "given up while starting: the recorder keeps to the launcher's abandon" none \
	"$(cat "$WORK/late.state" 2>/dev/null)"
finish
