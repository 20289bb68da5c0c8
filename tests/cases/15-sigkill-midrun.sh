#!/bin/bash
# Hard case 15: the program SIGKILLs itself right after its last
# allocation: mprof returns 137 and says "killed by signal 9", and the trace
# holds every event made before the kill, with nothing invented.
# Program and facts: tests/progs/cases/15-sigkill-midrun.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 15-sigkill-midrun

build_c "$CASE_DIR/prog" "$CASE_SRC/15-sigkill-midrun.c"
mprof_run "$HANG_LIMIT" "$WORK/trace" -- "$CASE_DIR/prog"
expect_eq "1. killed by SIGKILL: exit status of mprof run" 137 "$RUN_STATUS"
expect_match "1. killed by SIGKILL: mprof says so" \
	"^mprof: .* was killed by signal 9 \(SIGKILL\)" "$(cat "$RUN_ERR")"
expect_eq "1. stdout" "holding 20000 blocks of 100 bytes, raising SIGKILL" "$(cat "$RUN_OUT")"
expect_eq "2. the trace file exists" yes "$([ -s "$WORK/trace" ] && echo yes || echo no)"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_eq "2. summary: the program ended by signal" 9 "$(q "$R" summary program.exit_signal)"

# 3. EXPECT.md asks for at least 1000; mprof keeps every committed event.
#                   FUNCS          allocs bytes   leak-blocks leak-bytes
expect_site "$R" hold_record   20000  2000000 20000 2000000
expect_eq "3. hold_record: every block is 100 bytes" 100 "$(q "$R" sizes hold_record)"
expect_eq "3. hold_record: no block freed" 0 "$(q "$R" sum freed hold_record)"

# 4. Nothing after the kill, nothing invented: the churn is exact (bytes
#    50000 * 16 + 1000 * (0 + 1 + ... + 49)), no site is larger than it.
expect_site "$R" scratch_churn 50000  2025000 0     0
expect_no_site "$R" never_reached
expect_range "4. largest site in bytes (no garbage sizes)" 0 2025000 "$(q "$R" max allocated_bytes)"
# The program's 70000 calls plus the C library's own few (the stdout buffer).
expect_range "4. allocations in the whole report" 70000 70004 "$(q "$R" sum-all allocations)"
expect_eq "4. summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
