#!/bin/bash
# Shared case 26: the program chdir()s to /proc before allocating (run A),
# or mprof is started from /proc (run B): the trace goes where mprof said it
# would, or mprof refuses before starting with a clear error; the program's
# output and status never change.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_setup 26-unwritable-cwd
PROG="$CASE_DIR/prog"
WANT_OUT="working in /proc now, exiting with 5"

# mentioned_traces FILE: absolute paths named on mprof's stderr lines that
# are existing regular files.
mentioned_traces() {
	grep '^mprof: ' "$1" | grep -oE "/[^ \"':,]+" | sed 's/[.]$//' | sort -u |
		while read -r p; do [ -f "$p" ] && echo "$p"; done
	return 0
}

# Run A1: writable directory D, default output name.
mkdir "$WORK/D" "$WORK/D2"
cd "$WORK/D" || hard_error "cd"
RUN_NAME=a1 run_cmd 30 a1 "$MPROF" run "$PROG"
cd "$CASE_DIR" || hard_error "cd"
expect_eq "1. run A (default output): exit status" 5 "$RUN_STATUS"
expect_eq "1. run A (default output): stdout" "$WANT_OUT" "$(cat "$RUN_OUT")"
created=$(cd "$WORK/D" && ls)
expect_eq "2. run A (default output): exactly one trace created in D" 1 "$(printf '%s\n' "$created" | grep -c .)"
named=$(mentioned_traces "$RUN_ERR")
expect_eq "2. run A (default output): mprof named the trace it wrote" \
	"$WORK/D/$(printf '%s\n' "$created" | head -1)" "$(printf '%s\n' "$named" | grep -F "$WORK/D/" | head -1)"
f=$(printf '%s\n' "$created" | head -1)
if [ -n "$f" ] && report_json "$WORK/a1.json" "$WORK/D/$f"; then
	expect_site "$WORK/a1.json" leak_after_chdir 2 4000 2 4000
	expect_eq "2. run A: 100-byte allocations in main" 1000 "$(q "$WORK/a1.json" sum-size allocations 100 main)"
	expect_eq "2. run A: 100-byte allocations in main: live at exit" 0 \
		"$(q "$WORK/a1.json" sum-size leaked_bytes 100 main)"
fi

# Run A2: a relative -o resolves against D, not the program's new cwd.
cd "$WORK/D2" || hard_error "cd"
run_cmd 30 a2 "$MPROF" run -o rel.trace "$PROG"
cd "$CASE_DIR" || hard_error "cd"
expect_eq "1. run A (-o rel.trace): exit status" 5 "$RUN_STATUS"
expect_eq "1. run A (-o rel.trace): stdout" "$WANT_OUT" "$(cat "$RUN_OUT")"
expect_eq "2. run A (-o rel.trace): the trace is D/rel.trace" yes "$([ -s "$WORK/D2/rel.trace" ] && echo yes || echo no)"
if report_json "$WORK/a2.json" "$WORK/D2/rel.trace"; then
	expect_site "$WORK/a2.json" leak_after_chdir 2 4000 2 4000
fi

# Run B: from /proc.
cd /proc || hard_error "cd /proc"
run_cmd 30 b "$MPROF" run "$PROG"
cd "$CASE_DIR" || hard_error "cd"
if [ "$RUN_STATUS" -eq 5 ]; then
	expect_eq "1. run B: stdout" "$WANT_OUT" "$(cat "$RUN_OUT")"
	named=$(mentioned_traces "$RUN_ERR")
	expect_match "3. run B: mprof says where it wrote the trace instead (an existing file)" '^/' "$named"
	f=$(printf '%s\n' "$named" | head -1)
	if [ -n "$f" ] && report_json "$WORK/b.json" "$f"; then
		expect_site "$WORK/b.json" leak_after_chdir 2 4000 2 4000
	fi
else
	expect_range "1. run B: refused with a non-zero status" 1 255 "$RUN_STATUS"
	expect_eq "1. run B: refused before starting the program (no output)" "" "$(cat "$RUN_OUT")"
	expect_match "3. run B: the error names the location it could not write" '^mprof: .*/proc' "$(cat "$RUN_ERR")"
fi
finish
