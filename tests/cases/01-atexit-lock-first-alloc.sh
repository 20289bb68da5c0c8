#!/bin/bash
# Hard case 01: the first allocation happens inside atexit() with libc's
# exit-handler lock held, and threads keep registering handlers while others
# allocate: no deadlock, exact counts, glibc's handler blocks not leaked.
# Program and facts: tests/progs/cases/01-atexit-lock-first-alloc.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 01-atexit-lock-first-alloc

build_c "$CASE_DIR/prog" "$CASE_SRC/01-atexit-lock-first-alloc.c" -pthread
mprof_run "$HANG_LIMIT" "$WORK/trace" -- "$CASE_DIR/prog"
expect_eq "1. no deadlock: finished with exit status 0 (in $RUN_MS ms)" 0 "$RUN_STATUS"
expect_eq "2. stdout" "$(printf 'handlers registered: 8044\nhandlers that ran: 8044')" "$(cat "$RUN_OUT")"
report_json "$WORK/r.json" "$WORK/trace" || finish
R="$WORK/r.json"
#                FUNCS                  allocs bytes    leak-blocks leak-bytes
# 3. 3 * 120000 * 24 + 3 * 600 * (0 + 1 + ... + 199) bytes
expect_site "$R" churn_step             360000 44460000 0 0
# 4.
expect_site "$R" keep_three             3      4500     3 4500
# 5. glibc's handler blocks, freed by exit() while it runs the handlers
expect_site "$R" registrar_loop         250    260000   0 0
expect_eq "5. registrar_loop: every allocation is 1040 bytes" 1040 "$(q "$R" sizes registrar_loop)"
# 6. the block allocated by the constructor, before main()
expect_site "$R" install_early_handlers 1      1040     0 0
expect_eq "6. the first allocation is recorded: summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
