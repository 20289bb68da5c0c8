#!/bin/bash
# exec-peak-rss.sh - an image that executes another program at once (a
# shell's `exec`, a version manager's shim) has its own peak RSS: the
# recorder reads it (VmHWM) just before the exec, which leaves no exit
# note.  The launcher samples RSS every 100 ms, so such an image often had
# none ("-" in the table, null in JSON: 6 runs in 10 of `sh -c 'exec
# true'`), and a reading it did get was marked "at least: sampled".
# Program and facts: tests/progs/exec_at_once.c (prints the peak RSS it
# ends with).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/exec_at_once" "$PROGS_DIR/exec_at_once.c"

for i in 1 2 3; do
	RUN_NAME=at-once-$i mprof_run 60 "$WORK/t$i" -- "$WORK/exec_at_once" /bin/true
	expect_eq "run $i: exit status (true's)" 0 "$RUN_STATUS"
	expect_match "run $i: two readings" '^hwm [0-9]+$' "$(sed -n 2p "$RUN_OUT")"
	hwm=$(sed -n '2s/^hwm //p' "$RUN_OUT")
	report_json "$WORK/t$i.json" "$WORK/t$i"
	expect_eq "run $i: peak RSS (KiB) = the image's own at its exec" "$hwm" \
		"$(q "$WORK/t$i.json" summary peak_rss_kib)"
	expect_eq "run $i: not a sample" false "$(q "$WORK/t$i.json" summary peak_rss_sampled)"
done

# a shell that executes the program at once: its row of the table has a
# peak RSS, and its report is not "at least"
for i in 1 2 3; do
	RUN_NAME=sh-$i mprof_run 60 "$WORK/s$i" -- sh -c 'exec true'
	expect_eq "sh $i: exit status" 0 "$RUN_STATUS"
	expect_match "sh $i: the shell's row has a peak RSS" \
		"^mprof:   sh -c 'exec tru.* +[0-9]+ +[0-9]+ +[0-9.]+ [KMG]iB  $WORK/s$i\$" \
		"$(cat "$RUN_ERR")"
	report_json "$WORK/s$i.json" "$WORK/s$i"
	expect_eq "sh $i: not a sample" false "$(q "$WORK/s$i.json" summary peak_rss_sampled)"
done
finish
