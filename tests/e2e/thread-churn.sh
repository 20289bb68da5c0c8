#!/bin/bash
# thread-churn.sh - threads that end leave their slots retired until the
# launcher drains them; when threads end faster than that (here the program
# stops the launcher for 500 ms while it starts threads 8 at a time, with
# 42 slots under an RLIMIT_AS), a new thread waits for a retired slot
# instead of going unrecorded: every allocation is counted, and no
# diagnostic says that more threads were alive at once than there are slots
# (at most 10 were).  Program and facts: tests/progs/thread_churn.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/thread_churn" "$PROGS_DIR/thread_churn.c" -pthread

# 700,000 KiB of address space: the recorder keeps its rings to a 128th of it,
# 42 slots of 128 KiB (preload/settings.c, preload_settings_slots).  The limit is set in the program's process
# (bash, then exec: its trace is trace.PID), not for mprof: an mprof built
# with AddressSanitizer cannot start under it.
MPROF_RING_KIB=128 mprof_run 120 "$WORK/trace" -- bash -c 'ulimit -v 700000 && exec "$@"' - "$WORK/thread_churn"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "threads 640" "$(cat "$WORK/run.out")"
report_json "$WORK/r.json" "$(ls "$WORK"/trace.[0-9]* | head -n 1)" || finish
R="$WORK/r.json"
expect_eq "thread slots" 42 "$(q "$R" summary meta.slots)"
expect_site "$R" thread_alloc 640 25600 0 0
expect_eq "unrecorded allocations" 0 "$(q "$R" summary quality.unrecorded_allocations)"
expect_eq "unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
# (bash's own line on what it gave back when it lowered the limit aside)
expect_no_match "no diagnostic about thread slots" 'thread slot' \
	"$(grep -v 'the program set RLIMIT_AS' "$WORK/run.err")"
finish
