#!/bin/bash
# sandboxed-exit.sh - a program that installs a seccomp filter killing the
# process on open and openat after its setup runs under mprof as without
# it: same output, same exit status.  The recorder opened /proc/self/status,
# cmdline and comm at exit (the exit note) and its process file in a fork
# child: the program and its kids were killed by SIGSYS, the program's
# output lost.  Under a filter the exit note still gives each image's names
# at the end (its argument memory, PR_GET_NAME); its peak RSS is the
# launcher's sampled figure (getrusage, which gave the image's own, may be
# killed by an allow-list filter: sandbox-kill-default.sh); a child forked under the filter runs unrecorded, and mprof
# says why in words of its own (it said "Operation canceled", an errno
# standing in for the reason).
# Program and facts: tests/progs/sandboxed_exit.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sandboxed_exit" "$PROGS_DIR/sandboxed_exit.c"
pad=padding-padding-padding-padding-padding-padding

run_cmd 30 native "$WORK/sandboxed_exit" $pad
expect_eq "native: exit status" 0 "$RUN_STATUS"
expect_eq "native: stdout" "kids 7 5" "$(cat "$WORK/native.out")"
[ "$RUN_STATUS" = 0 ] || skip "seccomp filters are refused here: $(head -c 300 "$WORK/native.err")"

mprof_run 60 "$WORK/t" -- "$WORK/sandboxed_exit" $pad
expect_eq "mprof run: exit status" 0 "$RUN_STATUS"
expect_eq "mprof run: stdout" "kids 7 5" "$(cat "$RUN_OUT")"
expect_match "mprof run: the kid forked under the filter is named unrecorded, with its reason" \
	"1 process forked by process [0-9]+ .* is not recorded: it was forked under a seccomp filter \(a sandbox\), which may kill a process that opens a file, so its recorder did not try to create its process file$" \
	"$(cat "$RUN_ERR")"
expect_no_match "mprof run: no errno stands for the reason" "Operation canceled" "$(cat "$RUN_ERR")"
expect_eq "traces: the parent's and the first kid's" 2 "$(ls "$WORK"/t "$WORK"/t.* 2>/dev/null | wc -l)"

# END names and META comm of a report
names() {
	json_eval "$1" '"|".join(str(x) for x in (d["summary"]["end"].get("command"),
		d["summary"]["end"].get("comm"), d["summary"]["end"].get("name_how"),
		d["summary"]["meta"].get("comm")))'
}
report_json "$WORK/parent.json" "$WORK/t"
R="$WORK/parent.json"
expect_eq "parent: exit status" 0 "$(q "$R" summary program.exit_status)"
expect_eq "parent: allocations (3 kept, 8 MiB, stdout's buffer)" 5 "$(q "$R" summary allocations)"
# the launcher's samples (a short run may end before the first: no figure)
expect_match "parent: peak RSS sampled or unknown, never its own (no getrusage under the filter)" \
	'^(null\|false|[1-9][0-9]{0,4}\|true)$' \
	"$(q "$R" summary peak_rss_kib)|$(q "$R" summary peak_rss_sampled)"
expect_eq "parent: END names from its exit note (the overflowing title)" \
	"'demo: sandboxed parent'|None|filter|sandboxed_exit" "$(names "$R")"
kid=
for f in "$WORK"/t.*; do
	case "$f" in *.json | *.err) continue ;; esac
	report_json "$f.json" "$f" && kid=$f.json
done
expect_ne "trace of the first kid" "" "$kid"
if [ -n "$kid" ]; then
	expect_eq "kid: exit status" 7 "$(q "$kid" summary program.exit_status)"
	expect_eq "kid: allocations" 1 "$(q "$kid" summary allocations)"
	# the launcher's samples may miss a kid this short: no figure then
	expect_match "kid: peak RSS sampled or unknown, never its own (no getrusage under the filter)" \
		'^(null\|false|[1-9][0-9]{0,5}\|true)$' \
		"$(q "$kid" summary peak_rss_kib)|$(q "$kid" summary peak_rss_sampled)"
	expect_eq "kid: END names from its exit note" \
		"'demo: sandboxed kid'|sandboxed-kid|filter|sandboxed_exit" "$(names "$kid")"
fi
finish
