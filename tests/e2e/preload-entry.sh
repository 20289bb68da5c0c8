#!/bin/bash
# preload-entry.sh - whether a spawned program keeps mprof's recorder is
# read from the LD_PRELOAD entry the loader uses: the whole of one longer
# than the 2 KiB the exec wrappers copy (the recorder past them: recorded,
# not counted as dropped; none in it: counted), and the last of two.
# Before, the copy cut at 2 KiB (4 KiB before helper-222) lost the
# recorder's name, and the first of two entries was read: recorded spawns
# were warned of as "not recorded" and one that dropped the recorder was
# not (helper-223, ported by helper-224, session 61).
# Program and facts: tests/progs/preload_entry.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/preload_entry" "$PROGS_DIR/preload_entry.c"

RUN_NAME=pe mprof_run 60 "$WORK/t" -- "$WORK/preload_entry" long
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof" "preload_entry done" "$(cat "$RUN_OUT")"
expect_eq "one program named as dropping the recorder: the third" 1 \
	"$(grep -c "^mprof: warning: 1 program started by process [0-9]* ($WORK/preload_entry) is not recorded: its environment dropped mprof's LD_PRELOAD or MPROF_SESSION (as env -i, sudo and some launchers do): /bin/true$" "$RUN_ERR")"
expect_eq "no other such warning" 1 "$(grep -c 'not recorded: .*environment dropped' "$RUN_ERR")"
expect_eq "traces: the program and the 2 spawned with the recorder" 3 \
	"$(ls "$WORK"/t "$WORK"/t.* | grep -vc "\.json")"
report_json "$WORK/t.json" "$WORK/t"
expect_eq "json: programs_started_unrecorded" 1 \
	"$(json_eval "$WORK/t.json" 'd["summary"]["quality"]["programs_started_unrecorded"]')"

# two LD_PRELOAD entries: the loader uses the last
RUN_NAME=two mprof_run 60 "$WORK/w" -- "$WORK/preload_entry" two
expect_eq "two: exit status" 0 "$RUN_STATUS"
expect_eq "two: stdout as without mprof" "preload_entry done" "$(cat "$RUN_OUT")"
expect_eq "two: the one whose last entry drops the recorder named (/bin/sh)" 1 \
	"$(grep -c "^mprof: warning: 1 program started by process [0-9]* ($WORK/preload_entry) is not recorded: its environment dropped mprof's LD_PRELOAD or MPROF_SESSION (as env -i, sudo and some launchers do): /bin/sh$" "$RUN_ERR")"
expect_eq "two: no other such warning" 1 "$(grep -c 'not recorded: .*environment dropped' "$RUN_ERR")"
expect_eq "two: traces: the program and /bin/true" 2 \
	"$(ls "$WORK"/w "$WORK"/w.* | grep -vc "\.json")"
finish
