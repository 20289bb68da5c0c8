#!/bin/bash
# env-drop.sh - programs started with an environment that drops mprof's
# recorder (env -i, a spawn or exec with an environment of the program's
# own) run unrecorded; mprof names each starting process, how many it
# started so and the first one's name, at the run's end and in the trace
# ("not recorded:" in the report, JSON quality.programs_started_unrecorded).
# Before, nothing said they ran: no process file of theirs ever appears.
# A failed exec counts nothing and keeps its errno; programs started with
# the recorder kept are recorded as before.
# Program and facts: tests/progs/env_drop.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/env_drop" "$PROGS_DIR/env_drop.c"

RUN_NAME=ed mprof_run 60 "$WORK/t" -- "$WORK/env_drop"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout as without mprof (errno of the failed execs kept)" \
	"env_drop: execl ENOENT yes,env_drop: execle ENOENT yes,env_drop done" "$(paste -sd, "$RUN_OUT")"
expect_eq "the program's warning: 2 dropped (spawn and vfork+execve), the first named" 1 \
	"$(grep -c "^mprof: warning: 2 programs started by process [0-9]* ($WORK/env_drop) are not recorded: their environment dropped mprof's LD_PRELOAD or MPROF_SESSION (as env -i, sudo and some launchers do): true and 1 more$" "$RUN_ERR")"
expect_eq "the fork child's warning: its execle, not its failed execl" 1 \
	"$(grep -c "^mprof: warning: 1 program started by process [0-9]* ($WORK/env_drop) is not recorded: its environment dropped mprof's LD_PRELOAD or MPROF_SESSION (as env -i, sudo and some launchers do): /bin/true$" "$RUN_ERR")"
expect_eq "no other such warning" 2 "$(grep -c 'not recorded: .* environment dropped' "$RUN_ERR")"
# recorded: the program, the spawn with environ, the two fork children and
# what the second executed
expect_eq "traces: the program, 1 spawned, 2 forked, 1 executed" 5 "$(ls "$WORK"/t "$WORK"/t.* | grep -vc "\.json")"
run_cmd 60 rt "$MPROF" report -n 0 "$WORK/t"
expect_eq "report: the program's line" \
	"not recorded:     2 programs this process started with an environment that dropped mprof's LD_PRELOAD or MPROF_SESSION: true and 1 more" \
	"$(grep '^not recorded:' "$RUN_OUT")"
report_json "$WORK/t.json" "$WORK/t"
expect_eq "json: programs_started_unrecorded" 2 \
	"$(json_eval "$WORK/t.json" 'd["summary"]["quality"]["programs_started_unrecorded"]')"
counted=""
for f in "$WORK"/t.*; do
	case $f in *.json*) continue ;; esac
	report_json "$f.json" "$f" || continue
	counted="$counted $(json_eval "$f.json" 'd["summary"]["quality"]["programs_started_unrecorded"]')"
done
expect_eq "the children's counts: one fork child 1, the others 0" "0 0 0 1" \
	"$(echo $counted | tr ' ' '\n' | sort | paste -sd' ')"

# env -i under mprof itself
RUN_NAME=envi mprof_run 60 "$WORK/e" -- env -i /bin/true
expect_eq "env -i: exit status" 0 "$RUN_STATUS"
expect_match "env -i: named" \
	"^mprof: warning: 1 program started by process [0-9]+ \(.*/env\) is not recorded: its environment dropped mprof's LD_PRELOAD or MPROF_SESSION \(as env -i, sudo and some launchers do\): /bin/true$" \
	"$(cat "$RUN_ERR")"
finish
