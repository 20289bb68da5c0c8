#!/bin/bash
# reap-cancel.sh - a thread cancelled (pthread_cancel) inside a wrapped
# waitpid() or system().  The wrappers raise their reap table's waiting
# count before the call and lowered it only after a return, so the count
# stayed raised, and every later child of the process whose end nobody
# noted made the launcher wait REAP_AWAIT_LIMIT_NS (2 s) before finishing
# it, for a reap entry that would never come.  Now each call holds a waiter
# entry with its thread's id, which the launcher frees when it sees that
# thread gone.  The test raises that wait to 30 s (MPROF_TEST_REAP_AWAIT_MS,
# a testing aid), so that a launcher a loaded host ran late is not taken for
# one that waited (the check was "under 2 s").
# Program and facts: tests/progs/reap_cancel.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
PROG="$WORK/reap_cancel"
build_c "$PROG" "$PROGS_DIR/reap_cancel.c" -pthread

AWAIT_MS=30000
MPROF_TEST_REAP_AWAIT_MS=$AWAIT_MS RUN_NAME=cancel mprof_run 120 "$WORK/t" -q -- "$PROG"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "what the program saw" \
	"cancelled waitpid|waitpid child: signal 9|cancelled system|child: exit 5|child: signal 9|unnoted child: finished" \
	"$(paste -sd'|' "$RUN_OUT")"

# how each child that ran the program ended (by status: pids may wrap); the
# shell of the cancelled system() is left out (killed while starting, or
# after it executed sleep: either may be seen)
for t in "$WORK"/t.*; do
	[[ $t =~ /t\.[0-9]+$ ]] || continue
	line=$("$MPROF" report -n 0 "$t" 2>/dev/null | grep '^program:')
	[[ $line == "program:          $PROG (pid "* ]] && echo "${line##*), }"
done | sort >"$WORK/ends"
expect_eq "the children named with their real ends" \
	"ended without exit() (by _exit() or a signal: mprof could not see which)|exited with status 5|killed by signal 9 (SIGKILL)|killed by signal 9 (SIGKILL)" \
	"$(paste -sd'|' "$WORK/ends")"

# The launcher finished the child nobody reaped within a retire round or
# two (100 ms each), not after waiting the AWAIT_MS for a cancelled call's
# note (the program waits up to 60 s, so such a wait shows as 30000 or more).
delay=$(sed -n 's/^delay \([0-9]*\)$/\1/p' "$RUN_ERR")
echo "# the launcher finished the unnoted child $delay ms after it ended"
expect_range "ms from the unnoted child's end to its finishing" 0 $((AWAIT_MS - 1)) "$delay"
finish
