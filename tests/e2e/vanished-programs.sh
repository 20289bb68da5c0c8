#!/bin/bash
# vanished-programs.sh - a program whose file is deleted or replaced by
# another build while it runs, deleted after it ended (as `go run` deletes
# its binary) or never had a path (a memfd run by fexecve) keeps its
# function names and file:line: `mprof run` holds each program open from
# its process's start and its symbolize step reads it from there, matched
# by name and build-id.  Before, its frames were module+offset only
# ("?? (prog+0x1164)").
# Program and facts: tests/progs/vanished_program.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

# expect_named LABEL TRACE: vanished_alloc's site, named, with file:line.
expect_named() {
	local label=$1 trace=$2
	report_json "$WORK/$label.json" "$trace" || return
	expect_site "$WORK/$label.json" vanished_alloc 10 43210 10 43210
	expect_frame_at "$label" "$WORK/$label.json" vanished_alloc vanished_program.c
	expect_eq "$label: its caller" run "$(q "$WORK/$label.json" caller vanished_alloc)"
	run_cmd 60 "$label-text" "$MPROF" report "$trace"
	expect_match "$label: text report names it" '^    at vanished_alloc \(vanished_program\.c:[0-9]+\)' \
		"$(cat "$RUN_OUT")"
}

for mode in deleted replaced memfd after; do
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
	if [ "$mode" = memfd ] || [ "$mode" = after ]; then
		# the image fexecve started, or the child's: the trace with
		# the most allocations of vanished_alloc, among the others
		trace=$(traces_by_allocations vanished_alloc "$WORK/$mode/trace".* | tail -n 1)
		expect_ne "$mode: the executed image's trace" "" "$trace"
		[ "$mode" = after ] && expect_eq "after: prog is gone" no \
			"$([ -e "$WORK/$mode/prog" ] && echo yes || echo no)"
	else
		trace=$WORK/$mode/trace
		gone=$WORK/$mode/prog
		[ "$mode" = replaced ] && gone=$WORK/$mode/other # renamed onto prog
		expect_eq "$mode: $(basename "$gone") is gone" no "$([ -e "$gone" ] && echo yes || echo no)"
	fi
	[ -n "$trace" ] && expect_named "$mode" "$trace"
done
finish
