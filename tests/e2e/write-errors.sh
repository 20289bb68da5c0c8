#!/bin/bash
# write-errors.sh - a report or comparison that cannot be written (a full
# disk: /dev/full) ends with a one-line message and the documented status,
# in every format, to -o FILE and to standard output.  `mprof diff -o` left
# the error to fclose, which succeeds once a failed flush has emptied the
# buffer: it exited 0 (1 when a --fail-if held), the page or text lost, and
# a CI gate took it for a pass.
# Program and facts: tests/progs/small_leak.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ -w /dev/full ] || skip "no /dev/full"
build_c "$WORK/small_leak" "$PROGS_DIR/small_leak.c"
mprof_run 60 "$WORK/trace" -q -- "$WORK/small_leak"
expect_eq "run: exit status" 0 "$RUN_STATUS"

for f in text json folded flamegraph html; do
	run_cmd 60 "diff-o-$f" "$MPROF" diff "$WORK/trace" "$WORK/trace" -f "$f" -o /dev/full
	expect_eq "diff -f $f -o /dev/full: exit status" 2 "$RUN_STATUS"
	expect_eq "diff -f $f -o /dev/full: one line that says why" \
		"mprof: diff: cannot write /dev/full: No space left on device" \
		"$(cat "$RUN_ERR")"
	run_cmd 60 "diff-stdout-$f" sh -c '"$@" >/dev/full' sh \
		"$MPROF" diff "$WORK/trace" "$WORK/trace" -f "$f"
	expect_eq "diff -f $f >/dev/full: exit status" 2 "$RUN_STATUS"
done
# the gate's verdict is written, and the lost output still fails the run
run_cmd 60 diff-held "$MPROF" diff "$WORK/trace" "$WORK/trace" --fail-if 'leaked>0' -o /dev/full
expect_eq "diff, a condition held, -o /dev/full: exit status" 2 "$RUN_STATUS"
expect_match "diff, a condition held, -o /dev/full: the verdict" \
	"^mprof: diff: condition held: leaked>0" "$(cat "$RUN_ERR")"
expect_match "diff, a condition held, -o /dev/full: the error" \
	"^mprof: diff: cannot write /dev/full: No space left on device$" "$(cat "$RUN_ERR")"

for f in text json html folded flamegraph massif pprof dhat dhat-json speedscope; do
	run_cmd 60 "report-o-$f" "$MPROF" report "$WORK/trace" -f "$f" -o /dev/full
	expect_eq "report -f $f -o /dev/full: exit status" 1 "$RUN_STATUS"
	expect_match "report -f $f -o /dev/full: says why" \
		"^mprof: report: cannot write /dev/full: No space left on device$" "$(cat "$RUN_ERR")"
done
finish
