#!/bin/bash
# vanished-programs.sh - a program whose file is deleted, replaced by
# another build, or never had a path (a memfd run by fexecve) while it runs
# keeps its function names and file:line: `mprof run` holds such a program
# open while it runs and its symbolize step reads it from there, matched by
# build-id.  Before, its frames were module+offset only ("?? (prog+0x1164)").
# Program and facts: tests/progs/vanished_program.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

# expect_named LABEL TRACE: vanished_alloc's site, named, with file:line.
expect_named() {
	local label=$1 trace=$2
	report_json "$WORK/$label.json" "$trace" || return
	expect_site "$WORK/$label.json" vanished_alloc 10 43210 10 43210
	expect_eq "$label: vanished_alloc's file" vanished_program.c \
		"$(q "$WORK/$label.json" frame vanished_alloc file)"
	expect_eq "$label: its caller" run "$(q "$WORK/$label.json" caller vanished_alloc)"
	run_cmd 60 "$label-text" "$MPROF" report "$trace"
	expect_match "$label: text report names it" '^    at vanished_alloc \(vanished_program\.c:[0-9]+\)' \
		"$(cat "$RUN_OUT")"
}

for mode in deleted replaced memfd; do
	mkdir "$WORK/$mode"
	build_c "$WORK/$mode/prog" "$PROGS_DIR/vanished_program.c"
	set -- "$mode"
	if [ "$mode" = replaced ]; then
		# another build: the same code at other addresses, another build-id
		build_c "$WORK/$mode/other" "$PROGS_DIR/vanished_program.c" -O0
		set -- "$mode" "$WORK/$mode/other"
	fi
	RUN_NAME=$mode mprof_run 120 "$WORK/$mode/trace" -- "$WORK/$mode/prog" "$@"
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	expect_eq "$mode: stdout" "$mode done" "$(cat "$RUN_OUT")"
	expect_eq "$mode: program's stderr" "" "$(program_stderr "$RUN_ERR")"
	if [ "$mode" = memfd ]; then
		# the image fexecve started: its trace is the one other than -o's
		trace=$(ls "$WORK/$mode/trace".* 2>/dev/null | head -n 1)
		expect_ne "memfd: the executed image's trace" "" "$trace"
	else
		trace=$WORK/$mode/trace
		gone=$WORK/$mode/prog
		[ "$mode" = replaced ] && gone=$WORK/$mode/other # renamed onto prog
		expect_eq "$mode: $(basename "$gone") is gone" no "$([ -e "$gone" ] && echo yes || echo no)"
	fi
	[ -n "$trace" ] && expect_named "$mode" "$trace"
done
finish
