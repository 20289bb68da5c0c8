#!/bin/bash
# sandbox-allowlist.sh - a program whose seccomp filter kills the process on
# mincore, msync and prctl, which an allow-list sandbox does not expect
# (Firefox's content processes logged a "seccomp sandbox violation" for each
# under mprof), runs under mprof as without it: same output, same exit
# status.  The exit note asked mincore for the recorder's resident pages,
# msync whether the argument memory was mapped and PR_GET_NAME for the
# process name, all under the filter: the program was killed by SIGSYS at
# exit, its output lost.  Under a filter it now makes none of those calls:
# the argument memory is checked and the name read just before the filter
# is installed, and the recorder's memory is its mapped bound.
# Program and facts: tests/progs/sandbox_allowlist.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/sandbox_allowlist" "$PROGS_DIR/sandbox_allowlist.c"
pad=padding-padding-padding-padding-padding-padding

run_cmd 30 native "$WORK/sandbox_allowlist" $pad
expect_eq "native: exit status" 0 "$RUN_STATUS"
expect_eq "native: stdout" "sandboxed" "$(cat "$WORK/native.out")"
[ "$RUN_STATUS" = 0 ] || skip "seccomp filters are refused here: $(head -c 300 "$WORK/native.err")"

mprof_run 60 "$WORK/t" -- "$WORK/sandbox_allowlist" $pad
expect_eq "mprof run: exit status" 0 "$RUN_STATUS"
expect_eq "mprof run: stdout" "sandboxed" "$(cat "$RUN_OUT")"
expect_no_match "mprof run: no SIGSYS" "signal 31|SIGSYS" "$(cat "$RUN_ERR")"

report_json "$WORK/t.json" "$WORK/t"
R="$WORK/t.json"
expect_eq "report: exit status" 0 "$(q "$R" summary program.exit_status)"
expect_eq "report: allocations (2 blocks, stdout's buffer)" 3 "$(q "$R" summary allocations)"
expect_eq "report: leaked blocks (1 of 100 bytes, the buffer)" 2 "$(q "$R" summary leaked_blocks)"
expect_eq "report: END names: the title written under the filter, the name given before it (name_how says so)" \
	"'demo: allowlisted'|allowlisted|filter" \
	"$(json_eval "$R" '"|".join(str(x) for x in (d["summary"]["end"].get("command"),
		d["summary"]["end"].get("comm"), d["summary"]["end"].get("name_how")))')"
expect_range "report: the recorder's memory is known (KiB)" 4 65536 \
	"$(q "$R" summary end.recorder_kib)"
finish
