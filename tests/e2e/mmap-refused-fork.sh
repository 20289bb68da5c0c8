#!/bin/bash
# mmap-refused-fork.sh - a kid forked under a seccomp filter that refuses
# mmap (EPERM) is named as not recorded, and keeps the program's errno.
# Its recorder failed to map its stack table and went quiet: no trace, no
# warning, and the parent's report said "forks: 1 (each child recorded has
# its own trace)".  Now a filter the recorder saw installed (prctl) names
# the kid as forked under a seccomp filter, and one it did not see (the
# program's own syscall instruction) names it as unable to map its memory.
#  1. Keeps 2 blocks, installs the filter, makes 1000 blocks of 48 B
#     (keeps 500), forks a kid that makes and frees 10 blocks of 64 B.
#  2. Output "kid 4 errno 0" natively and under mprof; one trace.
#  3. The same with a filter that kills the process on those calls, seen
#     by the recorder (prctl): the program was killed by SIGSYS at its first
#     allocation after the filter (the recorder mapped memory for it), and
#     its kid at its fork handler (it unmapped the fork mailbox).  Now the
#     recorder makes 256 MiB of its reserved address space writable before
#     the filter is installed, and a kid forked under a filter maps and
#     unmaps nothing.  (A filter the recorder does not see still kills.)
# Program and facts: tests/progs/mmap_refused_fork.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/mmap_refused_fork" "$PROGS_DIR/mmap_refused_fork.c"

for how in prctl raw; do
	run_cmd 30 "native-$how" "$WORK/mmap_refused_fork" $how
	[ "$RUN_STATUS" = 3 ] && skip "the raw seccomp call is written for x86_64 only"
	[ "$RUN_STATUS" = 0 ] || skip "seccomp filters are refused here: $(head -c 300 "$RUN_ERR")"
	expect_eq "$how, native: stdout" "kid 4 errno 0" "$(cat "$RUN_OUT")"

	RUN_NAME=run-$how mprof_run 60 "$WORK/t-$how" -- "$WORK/mmap_refused_fork" $how
	expect_eq "$how, mprof run: exit status" 0 "$RUN_STATUS"
	expect_eq "$how, mprof run: stdout (the kid's errno unchanged by fork)" "kid 4 errno 0" \
		"$(cat "$RUN_OUT")"
	if [ $how = prctl ]; then
		expect_match "prctl: the kid is named, forked under the filter" \
			"^mprof: warning: 1 process forked by process [0-9]+ .* is not recorded: it was forked under a seccomp filter \(a sandbox\)" \
			"$(cat "$RUN_ERR")"
	else
		expect_match "raw: the kid is named, its memory refused" \
			"^mprof: warning: 1 process forked by process [0-9]+ .* is not recorded: its recorder could not create its process file \(Cannot allocate memory; its recorder could not map memory there: an address space limit, or a seccomp filter refusing mmap\)$" \
			"$(cat "$RUN_ERR")"
	fi
	expect_eq "$how: one trace" 1 "$(ls "$WORK/t-$how"* | wc -l)"
	report_json "$WORK/$how.json" "$WORK/t-$how" || continue
	R="$WORK/$how.json"
	expect_eq "$how: allocations (2 + 1000 + stdout's buffer)" 1003 "$(q "$R" summary allocations)"
	expect_eq "$how: frees" 500 "$(q "$R" summary frees)"
	expect_eq "$how: forks" 1 "$(q "$R" summary forks)"
	expect_eq "$how: forks not recorded" 1 "$(q "$R" summary forks_unrecorded)"
done

run_cmd 30 native-kill "$WORK/mmap_refused_fork" prctl kill
expect_eq "kill, native: stdout" "kid 4 errno 0" "$(cat "$RUN_OUT")"
RUN_NAME=run-kill mprof_run 60 "$WORK/t-kill" -- "$WORK/mmap_refused_fork" prctl kill
expect_eq "kill, mprof run: exit status" 0 "$RUN_STATUS"
expect_eq "kill, mprof run: stdout" "kid 4 errno 0" "$(cat "$RUN_OUT")"
expect_match "kill: the kid is named, forked under the filter" \
	"^mprof: warning: 1 process forked by process [0-9]+ .* is not recorded: it was forked under a seccomp filter \(a sandbox\)" \
	"$(cat "$RUN_ERR")"
if report_json "$WORK/kill.json" "$WORK/t-kill"; then
	expect_eq "kill: allocations (2 + 1000 + stdout's buffer)" 1003 \
		"$(q "$WORK/kill.json" summary allocations)"
	expect_eq "kill: frees" 500 "$(q "$WORK/kill.json" summary frees)"
	expect_eq "kill: exit status in the trace" 0 "$(q "$WORK/kill.json" summary program.exit_status)"
fi
finish
