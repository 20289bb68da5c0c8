#!/bin/bash
# Hard case 26: the program chdir()s to /proc, where nothing can be created,
# before allocating (run A, from a writable directory D), or mprof itself is
# started from /proc (run B): the trace goes where mprof said it would (D),
# or mprof refuses before starting with an error naming the place; the
# program's output and status never change.
# Program and facts: tests/progs/cases/26-unwritable-cwd.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 26-unwritable-cwd

PROG="$CASE_DIR/prog"
build_c "$PROG" "$CASE_SRC/26-unwritable-cwd.c"
WANT_OUT="cwd=/proc create-refused=yes leaving with 5"

# The premise, without mprof: the program really lands somewhere unwritable.
run_cmd "$HANG_LIMIT" plain "$PROG"
expect_eq "1. without mprof: exit status" 5 "$RUN_STATUS"
expect_eq "1. without mprof: stdout" "$WANT_OUT" "$(cat "$RUN_OUT")"

# check_report JSON TAG: the facts of 2 in one report.
check_report() {
	#                 FUNCS          allocs bytes  leak-blocks leak-bytes
	expect_site "$1" stash_in_proc 3      4500   3           4500
	expect_site "$1" scratch_loop  800    57600  0           0
	expect_eq "2. $2: scratch_loop: blocks freed" 800 "$(q "$1" sum freed scratch_loop)"
}

# Run A1: from D, default output name.
mkdir "$WORK/D" "$WORK/D2"
cd "$WORK/D" || hard_error "cd"
run_cmd "$HANG_LIMIT" a1 "$MPROF" run "$PROG"
cd "$CASE_DIR" || hard_error "cd"
expect_eq "1. run A (default output): exit status" 5 "$RUN_STATUS"
expect_eq "1. run A (default output): stdout" "$WANT_OUT" "$(cat "$RUN_OUT")"
created=$(cd "$WORK/D" && ls -A)
expect_eq "2. run A (default output): files created in D" 1 "$(printf '%s\n' "$created" | grep -c .)"
expect_match "2. run A (default output): the file is mprof.prog.PID.trace" \
	'^mprof\.prog\.[0-9]+\.trace$' "$created"
f=$(printf '%s\n' "$created" | head -1)
expect_match "2. run A (default output): mprof names D/$f" \
	"^mprof: trace written to $WORK/D/$f;" "$(cat "$RUN_ERR")"
if [ -n "$f" ] && report_json "$WORK/a1.json" "$WORK/D/$f"; then
	check_report "$WORK/a1.json" "run A (default output)"
fi

# Run A2: a relative -o resolves against D2, where mprof was started.
cd "$WORK/D2" || hard_error "cd"
run_cmd "$HANG_LIMIT" a2 "$MPROF" run -o rel.trace "$PROG"
cd "$CASE_DIR" || hard_error "cd"
expect_eq "1. run A (-o rel.trace): exit status" 5 "$RUN_STATUS"
expect_eq "1. run A (-o rel.trace): stdout" "$WANT_OUT" "$(cat "$RUN_OUT")"
expect_eq "2. run A (-o rel.trace): D2 holds exactly rel.trace" rel.trace "$(cd "$WORK/D2" && ls -A)"
expect_match "2. run A (-o rel.trace): mprof names it" \
	"^mprof: trace written to ($WORK/D2/)?rel\.trace;" "$(cat "$RUN_ERR")"
if report_json "$WORK/a2.json" "$WORK/D2/rel.trace"; then
	check_report "$WORK/a2.json" "run A (-o rel.trace)"
fi

# Run B: mprof started from /proc, default output name.
cd /proc || hard_error "cd /proc"
run_cmd "$HANG_LIMIT" b "$MPROF" run "$PROG"
cd "$CASE_DIR" || hard_error "cd"
echo "--- run B: mprof stderr:"
cat "$RUN_ERR"
if [ "$RUN_STATUS" -eq 5 ]; then
	expect_eq "1. run B: stdout" "$WANT_OUT" "$(cat "$RUN_OUT")"
	# It wrote elsewhere: the file it names must exist and be a full trace.
	f=$(sed -n 's/^mprof: trace written to \(\/[^;]*\);.*/\1/p' "$RUN_ERR" | head -1)
	expect_eq "3. run B: mprof names an existing trace elsewhere" yes \
		"$([ -n "$f" ] && [ -f "$f" ] && echo yes || echo no)"
	if [ -n "$f" ] && [ -f "$f" ] && report_json "$WORK/b.json" "$f"; then
		check_report "$WORK/b.json" "run B"
	fi
else
	expect_eq "1. run B: refused with mprof's own failure status" 125 "$RUN_STATUS"
	expect_eq "1. run B: refused before starting the program (no output)" "" "$(cat "$RUN_OUT")"
	expect_match "3. run B: the error names the trace it could not create in /proc" \
		'^mprof: cannot create trace /proc/mprof\.prog\.[0-9]+\.trace: ' "$(cat "$RUN_ERR")"
	expect_no_match "3. run B: no claim of a written trace" 'trace written' "$(cat "$RUN_ERR")"
fi
finish
