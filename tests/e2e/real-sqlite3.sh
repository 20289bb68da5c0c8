#!/bin/bash
# real-sqlite3.sh - a stock, stripped Debian program: sqlite3's output and
# exit status are unchanged under mprof (also when the script has an error),
# and the report names frames from .dynsym (sqlite3_* in libsqlite3).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
SQLITE3=$(command -v sqlite3) || skip "sqlite3 is not installed"
make_work
"$E2E_DIR/gen-sql.sh" 3000 >"$WORK/script.sql"
{ cat "$WORK/script.sql"; echo "SELECT * FROM no_such_table;"; } >"$WORK/bad.sql"

for script in script bad; do
	RUN_STDIN="$WORK/$script.sql"
	run_cmd 60 "native-$script" "$SQLITE3" :memory:
	native_status=$RUN_STATUS
	RUN_NAME="mprof-$script" mprof_run 120 "$WORK/trace-$script" -- "$SQLITE3" :memory:
	expect_eq "$script.sql: exit status unchanged" "$native_status" "$RUN_STATUS"
	expect_file_eq "$script.sql: stdout unchanged" "$WORK/native-$script.out" "$WORK/mprof-$script.out"
	program_stderr "$WORK/mprof-$script.err" >"$WORK/mprof-$script.progerr"
	expect_file_eq "$script.sql: stderr unchanged" "$WORK/native-$script.err" "$WORK/mprof-$script.progerr"
done
expect_match "bad.sql: the error is on stderr natively" "no such table" "$(cat "$WORK/native-bad.err")"

report_json "$WORK/r.json" "$WORK/trace-script"
R="$WORK/r.json"
expect_range "sites with a sqlite3_* frame (from .dynsym)" 1 1000000 "$(q "$R" sites-re '^sqlite3_')"
expect_eq "sqlite3_* frames lie in libsqlite3 (modules of other frames)" "" \
	"$(q "$R" frame-re '^sqlite3_' module | grep -v '^libsqlite3\.so')"
expect_match "frames in the stripped sqlite3 executable itself" '^sqlite3$' "$(q "$R" modules)"
# sqlite3Malloc is an allocator wrapper; the unnamed static helper it calls
# (sqlite3MemMalloc, stripped) goes with it: no site starts inside it
expect_eq "sites whose stack holds sqlite3Malloc" 0 "$(q "$R" sites sqlite3Malloc)"
expect_range "summary: allocations" 10000 100000000 "$(q "$R" summary allocations)"
expect_eq "summary: unmatched frees" 0 "$(q "$R" summary unmatched_frees)"
finish
