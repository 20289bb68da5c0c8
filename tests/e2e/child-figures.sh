#!/bin/bash
# child-figures.sh - each process image's trace has its own figures: the
# parent's peak RSS is its own, not that of the 64 MiB child it waited for
# (wait4 merges them); a child that calls exit(5) has its status, its own
# peak RSS and a run time of at least its 300 ms; a child that calls
# _exit(3) has the status mprof read while it was a zombie, or none when its
# parent waited first (child-ends.sh), never a figure made up for it.
# Program and facts: tests/progs/child_figures.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/child_figures" "$PROGS_DIR/child_figures.c"

mprof_run 60 "$WORK/t" -- "$WORK/child_figures"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "children: 5 3" "$(cat "$RUN_OUT")"
report_json "$WORK/parent.json" "$WORK/t"
five= quick=
for f in "$WORK"/t.*; do
	case "$f" in *.json) continue ;; esac
	report_json "$f.json" "$f" || continue
	case "$(q "$f.json" summary program.cmdline)" in
	*" five") five=$f.json ;;
	*" quick") quick=$f.json ;;
	esac
done
expect_ne "trace of the child 'five'" "" "$five"
expect_ne "trace of the child 'quick'" "" "$quick"
expect_range "parent: own peak RSS (KiB), under the child's 64 MiB" 8192 65535 \
	"$(q "$WORK/parent.json" summary peak_rss_kib)"
expect_eq "five: exit status" 5 "$(q "$five" summary program.exit_status)"
expect_range "five: peak RSS (KiB)" 65536 1048576 "$(q "$five" summary peak_rss_kib)"
expect_eq "five: peak RSS is its own, not sampled" false "$(q "$five" summary peak_rss_sampled)"
expect_range "five: run time (ns)" 300000000 60000000000 "$(q "$five" summary run_time_ns)"
expect_eq "five: ended_early" null "$(q "$five" summary ended_early)"
expect_match "quick: exit status 3 (seen while a zombie) or unknown" '^(3|null)$' \
	"$(q "$quick" summary program.exit_status)"
finish
