#!/bin/bash
# env-drop.sh - programs that run unrecorded because they were started
# with an environment that drops mprof's recorder (env -i, a spawn or exec
# with an environment of the program's own) or are statically linked.
# Before, nothing said they ran (no process file of theirs ever appears),
# and an image that executed one was reported as if it had exited, its
# live blocks "leaked (live at exit)".  Now mprof names the spawned ones
# per starting process (how many, the first one's name: "not recorded:" in
# the report, JSON quality.programs_started_unrecorded), and an image that
# executed one is in state "exec" with "executed: PATH, not recorded: WHY".
# A failed exec notes nothing and keeps its errno; programs started with
# the recorder kept are recorded as before.
# Programs and facts: tests/progs/env_drop.c, exec_it.c.
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
	"$(grep -c "^mprof: warning: process [0-9]* ($WORK/env_drop) executed /bin/true, which is not recorded: its environment dropped mprof's LD_PRELOAD or MPROF_SESSION$" "$RUN_ERR")"
expect_eq "no other such warning" 2 "$(grep -c 'not recorded: .*environment dropped' "$RUN_ERR")"
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
expect_eq "the children's counts: 0 (the fork child executed its own)" "0 0 0 0" \
	"$(echo $counted | tr ' ' '\n' | sort | paste -sd' ')"
# the fork child that executed /bin/true with {PATH=...}: state exec
execd=""
for f in "$WORK"/t.*; do
	case $f in *.json*) continue ;; esac
	run_cmd 60 "c${f##*.}" "$MPROF" report -n 0 "$f"
	grep -q '^executed:' "$RUN_OUT" && execd="$execd $(grep -E '^(program|executed):' "$RUN_OUT" | sed 's/(pid [0-9]*)/(pid P)/' | paste -sd'|')"
done
expect_eq "the fork child that executed /bin/true: exec, and why" \
	" program:          $WORK/env_drop (pid P), exec|executed:         /bin/true, not recorded: its environment dropped mprof's LD_PRELOAD or MPROF_SESSION" \
	"$execd"

# env -i under mprof itself
RUN_NAME=envi mprof_run 60 "$WORK/e" -- env -i /bin/true
expect_eq "env -i: exit status" 0 "$RUN_STATUS"
expect_match "env -i: named" \
	"^mprof: warning: process [0-9]+ \(.*/env\) executed /bin/true, which is not recorded: its environment dropped mprof's LD_PRELOAD or MPROF_SESSION$" \
	"$(cat "$RUN_ERR")"
run_cmd 60 envr "$MPROF" report -n 0 "$WORK/e"
expect_match "env -i: env's image executed, its blocks live at exec" \
	'^program: +env -i /bin/true \(pid [0-9]+\), exec$' "$(cat "$RUN_OUT")"
expect_match "env -i: its live blocks are live at exec, not leaks at exit" \
	'^leaked: .* blocks \(live at exec\)$' "$(cat "$RUN_OUT")"

# a statically linked program executed by the first process
if $CC -static -O1 -o "$WORK/static_hello" "$PROGS_DIR/cases/27-static-binary.c" >/dev/null 2>&1; then
	build_c "$WORK/exec_it" "$PROGS_DIR/exec_it.c"
	RUN_NAME=static mprof_run 60 "$WORK/s" -- "$WORK/exec_it" "$WORK/static_hello"
	STATIC_STATUS=$RUN_STATUS
	"$WORK/static_hello" >"$WORK/static.out" 2>&1
	expect_eq "static: mprof's exit status is the static program's" "$?" "$STATIC_STATUS"
	expect_eq "static: named" \
		"mprof: warning: process PID ($WORK/exec_it) executed $WORK/static_hello, which is not recorded: it is statically linked: LD_PRELOAD cannot reach it" \
		"$(grep 'executed' "$RUN_ERR" | sed 's/process [0-9]*/process PID/')"
	run_cmd 60 sr "$MPROF" report -n 0 "$WORK/s"
	expect_eq "static: the first image executed it, its 55 B live at exec" \
		"program:          $WORK/exec_it $WORK/static_hello (pid P), exec|leaked:           55 B in 1 block (live at exec)|executed:         $WORK/static_hello, not recorded: it is statically linked: LD_PRELOAD cannot reach it" \
		"$(grep -E '^(program|leaked|executed):' "$RUN_OUT" | sed 's/(pid [0-9]*)/(pid P)/' | paste -sd'|')"
else
	echo "no static C library: the static case is not run"
fi
finish
