#!/bin/bash
# ending-children.sh - processes of the run that are still running when the
# program ends.  Those that end by themselves within the wait (0.5 s) have
# whole traces: a child that reads its parent's pipe to its end and ends
# 100 ms later with its 50 allocations; Python's multiprocessing resource
# tracker (before, mprof said "1 process started by python3 was still
# running when it ended" and the tracker's trace was cut).  A daemon that
# lives on (a grandchild forked after the program ended, as nginx's double
# fork does) is recorded until the wait is over and named, and mprof
# returns while it runs; a stopped child is not waited for and is named
# apart.  A child busy on the processor is waited for while it is, up to
# 5 s.  The program's output ends when its processes let go of it, not
# when mprof exits.  Program and facts: tests/progs/ending_children.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/ending_children" "$PROGS_DIR/ending_children.c"
PROG="$WORK/ending_children"
TAIL="its trace holds what it recorded until then"

# still_notes: the lines of mprof's stderr about processes left running
still_notes() {
	grep -cE '^mprof: .*(still ran|still running|stopped when)' "$RUN_ERR"
}

# Cases 1 and 2 give the ending processes 30 s instead of 0.5 s
# (MPROF_TEST_ENDING_WAIT_MS, a testing aid): at a load of 14, Python's
# resource tracker took longer than 0.5 s to end (1 run in 3), and the
# check is that mprof waits for such a process, not how fast the host is.
ENDING_WAIT_MS=30000

# 1. a child that ends 100 ms after the program: a whole trace, no note
mkdir "$WORK/late"
MPROF_TEST_ENDING_WAIT_MS=$ENDING_WAIT_MS RUN_NAME=late mprof_run 60 "$WORK/late/t" -- "$PROG" late
expect_eq "late: exit status" 0 "$RUN_STATUS"
late=$(sed -n 's/^late:\([0-9]*\)$/\1/p' "$RUN_OUT")
expect_match "late: the child's pid" '^[0-9]+$' "$late"
expect_eq "late: no process said to be left running" 0 "$(still_notes)"
if report_json "$WORK/late.json" "$WORK/late/t.$late"; then
	expect_eq "late: the child's 50 allocations made after the program ended" 50 \
		"$(q "$WORK/late.json" sum allocations late_work)"
	expect_eq "late: the child's trace reaches its end" ended \
		"$(q "$WORK/late.json" summary end.process_state)"
	expect_eq "late: the child's exit status" 3 "$(q "$WORK/late.json" summary program.exit_status)"
fi

# 2. Python's multiprocessing: the resource tracker ends a few ms after
# the program closed its pipe
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || PY=
if [ -n "$PY" ]; then
	cat >"$WORK/mp.py" <<'PYEOF'
import multiprocessing
from multiprocessing import shared_memory

def square(x):
    return x * x

if __name__ == "__main__":
    with multiprocessing.Pool(2) as pool:
        print(sum(pool.map(square, range(10))))
    shm = shared_memory.SharedMemory(create=True, size=100)
    shm.buf[0] = 7
    shm.close()
    shm.unlink()
    print("done")
PYEOF
	mkdir "$WORK/py"
	MPROF_TEST_ENDING_WAIT_MS=$ENDING_WAIT_MS expect_as_native 120 py 0 "$WORK/py/t" "$PY" "$WORK/mp.py"
	expect_eq "python: no process said to be left running" 0 "$(still_notes)"
	tracker=
	for t in "$WORK"/py/t.*; do
		"$MPROF" report --format json "$t" >"$WORK/py.json" 2>/dev/null || continue
		case $(q "$WORK/py.json" summary program.cmdline) in
		*resource_tracker*) tracker=$t; break ;;
		esac
	done
	expect_ne "python: the resource tracker's trace" "" "$tracker"
	if [ -n "$tracker" ] && report_json "$WORK/tracker.json" "$tracker"; then
		expect_eq "python: the tracker's trace reaches its end" ended \
			"$(q "$WORK/tracker.json" summary end.process_state)"
		expect_eq "python: the tracker's exit status" 0 \
			"$(q "$WORK/tracker.json" summary program.exit_status)"
	fi
else
	echo "# python3 is not installed: the multiprocessing part is left out"
fi

# 3. a daemon forked 50 ms after the program ended, which lives on: its
# parent's trace is whole, its own ends with it running, mprof names it
# and returns while it runs (it sleeps 60 s, longer than the limit)
mkdir "$WORK/daemon"
RUN_NAME=daemon mprof_run 30 "$WORK/daemon/t" -- "$PROG" daemon "$WORK/daemon.pid"
expect_eq "daemon: exit status (124: mprof waited for the daemon)" 0 "$RUN_STATUS"
middle=$(sed -n 's/^daemon:\([0-9]*\)$/\1/p' "$RUN_OUT")
daemon=$(cat "$WORK/daemon.pid" 2>/dev/null)
expect_match "daemon: its pid" '^[0-9]+$' "$daemon"
expect_eq "daemon: still running after mprof returned" yes \
	"$(kill -0 "$daemon" 2>/dev/null && echo yes || echo no)"
expect_eq "daemon: named as left running, once" 1 \
	"$(grep -c "^mprof: process $daemon (.*), started by $PROG, still ran when mprof had waited 0.5 s for it to end; $TAIL (mprof waits no longer: run a server that daemonizes in the foreground to record it to its end)$" "$RUN_ERR")"
expect_eq "daemon: no other process said to be left running" 1 "$(still_notes)"
if report_json "$WORK/middle.json" "$WORK/daemon/t.$middle"; then
	expect_eq "daemon: the child that forked it ended, its trace whole" "ended 0" \
		"$(q "$WORK/middle.json" summary end.process_state) $(q "$WORK/middle.json" summary program.exit_status)"
fi
if report_json "$WORK/daemon.json" "$WORK/daemon/t.$daemon"; then
	expect_eq "daemon: its trace ends with it running" running \
		"$(q "$WORK/daemon.json" summary end.process_state)"
fi
[ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null

# 4. a stopped child is not waited for, and is named as stopped
mkdir "$WORK/stopped"
RUN_NAME=stopped mprof_run 30 "$WORK/stopped/t" -- "$PROG" stopped
stopped=$(sed -n 's/^stopped:\([0-9]*\)$/\1/p' "$RUN_OUT")
expect_eq "stopped: exit status" 0 "$RUN_STATUS"
expect_eq "stopped: named as stopped, once" 1 \
	"$(grep -c "^mprof: process $stopped (.*), started by $PROG, was stopped when the recording ended; $TAIL (mprof does not wait for a stopped process)$" "$RUN_ERR")"
expect_eq "stopped: no other process said to be left running" 1 "$(still_notes)"
if report_json "$WORK/stopped.json" "$WORK/stopped/t.$stopped"; then
	expect_eq "stopped: its 10 allocations" 10 "$(q "$WORK/stopped.json" sum allocations stopped_work)"
fi
[ -n "$stopped" ] && kill -KILL "$stopped" 2>/dev/null

# 5. the program's output ends when its processes let go of it, while mprof
# still waits for the daemon (before, only when mprof exited).  The
# launcher is held 5 s after that wait (MPROF_TEST_FINISH_DELAY_MS, a
# testing aid), as a loaded host may: the test, run late itself, found it
# gone after its 0.5 s.
mkfifo "$WORK/out.fifo"
mkdir "$WORK/eof"
MPROF_TEST_FINISH_DELAY_MS=5000 "$MPROF" run -q -o "$WORK/eof/t" -- sh -c "echo hi; sleep 30 </dev/null >/dev/null 2>&1 & echo \$! >'$WORK/eof.pid'" \
	>"$WORK/out.fifo" 2>"$WORK/eof.err" </dev/null &
launcher=$!
read_out=$(timeout 30 cat "$WORK/out.fifo")
state=$(sed -n 's/^[0-9]* (.*) \([A-Z]\) .*/\1/p' "/proc/$launcher/stat" 2>/dev/null)
expect_eq "output: the program's" hi "$read_out"
expect_eq "output: ended while mprof still ran (its state then; empty or Z: it had exited)" yes \
	"$([ -n "$state" ] && [ "$state" != Z ] && echo yes || echo "no ($state)")"
wait "$launcher"
expect_eq "output: mprof's exit status" 0 "$?"
kill -KILL "$(cat "$WORK/eof.pid" 2>/dev/null)" 2>/dev/null

# 6. a child that keeps the processor busy for 1.5 s after the program
# ended (as one woken to end on a loaded host waits for a processor):
# waited for past 0.5 s while it is runnable, so its trace is whole (with
# the default waits; before, it was named as still running after 0.5 s)
mkdir "$WORK/busy"
RUN_NAME=busy mprof_run 60 "$WORK/busy/t" -- "$PROG" busy 1.5
busy=$(sed -n 's/^busy:\([0-9]*\)$/\1/p' "$RUN_OUT")
expect_eq "busy: exit status" 0 "$RUN_STATUS"
expect_eq "busy: no process said to be left running" 0 "$(still_notes)"
if report_json "$WORK/busy.json" "$WORK/busy/t.$busy"; then
	expect_eq "busy: its trace ends with its exit, status 4" "ended 4" \
		"$(q "$WORK/busy.json" summary end.process_state) $(q "$WORK/busy.json" summary program.exit_status)"
	expect_eq "busy: its 30 allocations" 30 "$(q "$WORK/busy.json" sum allocations busy_work)"
fi

# 7. one that stays busy (30 s) is waited for 5 s in all, and named
mkdir "$WORK/spin"
RUN_NAME=spin mprof_run 25 "$WORK/spin/t" -- "$PROG" busy 30
spin=$(sed -n 's/^busy:\([0-9]*\)$/\1/p' "$RUN_OUT")
expect_eq "spin: exit status (124: mprof waited for the busy child)" 0 "$RUN_STATUS"
expect_eq "spin: named as left running after 5 s, once" 1 \
	"$(grep -c "^mprof: process $spin (.*), started by $PROG, still ran when mprof had waited 5.0 s for it to end; $TAIL" "$RUN_ERR")"
if report_json "$WORK/spin.json" "$WORK/spin/t.$spin"; then
	expect_eq "spin: its trace ends with it running" running \
		"$(q "$WORK/spin.json" summary end.process_state)"
fi
[ -n "$spin" ] && kill -KILL "$spin" 2>/dev/null
finish
