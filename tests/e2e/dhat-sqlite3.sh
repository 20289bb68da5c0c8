#!/bin/bash
# dhat-sqlite3.sh - accuracy: on the same deterministic sqlite3 run, mprof's
# total allocations and bytes equal Valgrind DHAT's "Total:" line.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
command -v valgrind >/dev/null 2>&1 || skip "valgrind is not installed"
SQLITE3=$(command -v sqlite3) || skip "sqlite3 is not installed"
make_work
"$E2E_DIR/gen-sql.sh" 2000 >"$WORK/script.sql"
RUN_STDIN="$WORK/script.sql"

run_cmd 120 dhat valgrind --tool=dhat --dhat-out-file=/dev/null "$SQLITE3" :memory:
[ "$RUN_STATUS" -eq 0 ] || skip "valgrind cannot run sqlite3 here (status $RUN_STATUS)"
total=$(sed -n 's/^==[0-9]*== Total: *\([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 \2/p' "$RUN_ERR" | tr -d ,)
[ -n "$total" ] || hard_error "no 'Total:' line in DHAT's output: $(head -c 800 "$RUN_ERR")"
dhat_bytes=${total% *}
dhat_blocks=${total#* }
cp "$RUN_OUT" "$WORK/dhat-stdout"

mprof_run 120 "$WORK/trace" -- "$SQLITE3" :memory:
expect_eq "exit status" 0 "$RUN_STATUS"
expect_file_eq "stdout equals the stdout under DHAT" "$WORK/dhat-stdout" "$RUN_OUT"
report_json "$WORK/r.json" "$WORK/trace"
expect_eq "total allocations = DHAT's blocks" "$dhat_blocks" "$(q "$WORK/r.json" summary allocations)"
expect_eq "total bytes = DHAT's bytes" "$dhat_bytes" "$(q "$WORK/r.json" summary allocated_bytes)"
finish
