#!/bin/bash
# retitled-workers.sh - forked workers that rename themselves after the fork
# are named as they named themselves, as ps shows them, not by the command
# line of the master they were forked from: three that write a title over
# their arguments and call exit() (the recorder's exit note), one titled
# and then killed with SIGKILL (the launcher's last look while it ran), one
# that calls prctl(PR_SET_NAME) only (its command line stays the master's:
# the name goes in front, in brackets), and the master, titled at its end.
# Program and facts: tests/progs/retitled_workers.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/retitled_workers" "$PROGS_DIR/retitled_workers.c"

# run from the scratch directory, so that the command line is the same in
# every build tree; wide enough for every name in the table
cd "$WORK" || hard_error "cannot enter $WORK"
COLUMNS=200 mprof_run 60 t -- ./retitled_workers padding-padding-padding
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout (the workers' statuses, 9: SIGKILL)" "workers: 0 0 0 9 0" "$(cat "$RUN_OUT")"

# 1. the table at the end of the run: each row's name and allocations
rows=$(sed -n -E 's/^mprof:   (.*[^ ]) +[0-9]+ +([0-9]+) +([0-9.]+ [KMGT]iB|-)  [^ ]+$/\1|\2/p' \
	"$RUN_ERR")
expect_eq "1. run table: names and allocations, most first" \
	"[demo-named] ./retitled_workers padding-padding-padding|5
'demo: doomed'|4
'demo: worker 2'|3
'demo: worker 1'|2
'demo: master'|1
'demo: worker 0'|1" "$rows"
expect_match "1. run table: the top trace named by its name" \
	'^mprof: most allocations: t\.[0-9]+ \(\[demo-named\] \./retitled_workers padding-padding-padding\)$' \
	"$(cat "$RUN_ERR")"

# 2. each trace's END and META: the names at the end, how they were known,
# the name at the start; found by their allocation counts (the master's
# trace is t)
names() { # REPORT.json: "END command|END comm|name_how|META comm"
	json_eval "$1" '"|".join(str(x) for x in (d["summary"]["end"].get("command"),
		d["summary"]["end"].get("comm"), d["summary"]["end"].get("name_how"),
		d["summary"]["meta"].get("comm")))'
}
start="./retitled_workers padding-padding-padding"
report_json "$WORK/master.json" "$WORK/t"
expect_eq "2. master: allocations (stdout's buffer)" 1 "$(q "$WORK/master.json" summary allocations)"
expect_eq "2. master: META command (its start)" "$start" \
	"$(json_eval "$WORK/master.json" 'd["summary"]["meta"]["command"]')"
expect_eq "2. master: END names, from its exit note" "'demo: master'|None|exit|retitled_worker" \
	"$(names "$WORK/master.json")"
for f in "$WORK"/t.*; do
	case "$f" in *.json | *.err) continue ;; esac
	report_json "$f.json" "$f" || continue
	n=$(q "$f.json" summary allocations)
	cp "$f.json" "$WORK/worker-$n.json"
done
for n in 0 1 2; do
	r="$WORK/worker-$((n + 1)).json"
	expect_eq "2. worker $n: allocated bytes" "$((1000 * (n + 1)))" "$(q "$r" summary allocated_bytes)"
	expect_eq "2. worker $n: exit status" 0 "$(q "$r" summary program.exit_status)"
	expect_eq "2. worker $n: META command (the master's at the fork)" "$start" \
		"$(json_eval "$r" 'd["summary"]["meta"]["command"]')"
	expect_eq "2. worker $n: END names, from its exit note" \
		"'demo: worker $n'|None|exit|retitled_worker" "$(names "$r")"
done
r="$WORK/worker-4.json"
expect_eq "2. doomed: allocated bytes" 4000 "$(q "$r" summary allocated_bytes)"
expect_eq "2. doomed: no exit status (killed, not its own child)" None \
	"$(json_eval "$r" 'd["summary"]["program"]["exit_status"]')"
expect_eq "2. doomed: END names, from the launcher's look" "'demo: doomed'|None|seen|retitled_worker" \
	"$(names "$r")"
r="$WORK/worker-5.json"
expect_eq "2. named: allocated bytes" 5000 "$(q "$r" summary allocated_bytes)"
expect_eq "2. named: END names: the process name only" "None|demo-named|exit|retitled_worker" \
	"$(names "$r")"
finish
