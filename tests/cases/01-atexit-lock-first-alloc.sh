#!/bin/bash
# Shared case 01: the first allocation happens inside atexit() with libc's
# exit-handler lock held, and threads keep registering handlers while others
# allocate: no deadlock, exact counts, glibc's handler blocks not leaked.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 01-atexit-lock-first-alloc

mprof_run 10 "$WORK/trace" -- ./prog
expect_eq "1. no deadlock: finished within 10 s with exit status 0" 0 "$RUN_STATUS"
expect_eq "2. stdout" "$(printf 'registered: 8040\natexit handlers run: 8040')" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
expect_eq "3. churn_once: allocations" 400000 "$(q "$R" sum allocations churn_once)"
expect_eq "3. churn_once: bytes leaked" 0 "$(q "$R" sum leaked_bytes churn_once)"
expect_site "$R" main_leak - - 2 4444
expect_range "5. register_many: allocations" 249 251 "$(q "$R" sum allocations register_many)"
expect_eq "5. register_many: every allocation is 1040 bytes" 1040 "$(q "$R" sizes register_many)"
expect_eq "5. register_many: bytes leaked" 0 "$(q "$R" sum leaked_bytes register_many)"
expect_range "6. early_registration: 1040-byte allocations" 1 1000000 \
	"$(q "$R" sum-size allocations 1040 early_registration)"
finish
