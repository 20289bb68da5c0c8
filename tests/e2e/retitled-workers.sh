#!/bin/bash
# retitled-workers.sh - forked workers that rename themselves after the fork
# are named as they named themselves, as ps shows them, not by the command
# line of the master they were forked from: three that write a title over
# their arguments and call exit() (the recorder's exit note), one titled
# and then killed with SIGKILL (the launcher's last look while it ran), one
# that calls prctl(PR_SET_NAME) only (its command line stays the master's:
# the name goes in front, in brackets), and the master, titled at its end.
# The run's table, the END chunks, the text and JSON reports, the overview of
# report --all, the exports (speedscope, DHAT, massif, pprof; they left out
# the [name] in front) and the report's page all say so.
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
rows=$(run_table_rows "$RUN_ERR")
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

# 3. the text report's program and started-as lines, and the JSON report's
# program names, of each trace
exit_note="(renamed itself: the name above is the one it had at exit)"
seen_note="(renamed itself: the name above is the one mprof last saw while it ran)"
program_lines() { # TRACE REPORT.json
	local pid
	pid=$(q "$2" summary program.pid)
	"$MPROF" report "$1" 2>&1 | sed -n '/^program:/p;/^started as:/p' | sed "s/(pid $pid)/(pid PID)/"
}
json_names() { # REPORT.json: name, cmdline, cmdline_at_start, comm, name_how
	json_eval "$1" '"|".join(str(d["summary"]["program"].get(k)) for k in
		("name", "cmdline", "cmdline_at_start", "comm", "name_how"))'
}
expect_eq "3. master: report's program lines" \
	"program:          'demo: master' (pid PID), exited with status 0
started as:       $start $exit_note" "$(program_lines "$WORK/t" "$WORK/master.json")"
expect_eq "3. master: JSON program names" "'demo: master'|'demo: master'|$start|None|exit" \
	"$(json_names "$WORK/master.json")"
for n in 0 1 2; do
	r="$WORK/worker-$((n + 1)).json"
	expect_eq "3. worker $n: report's program lines" \
		"program:          'demo: worker $n' (pid PID), exited with status 0
started as:       $start $exit_note" "$(program_lines "$(q "$r" get trace.path)" "$r")"
	expect_eq "3. worker $n: JSON program names" \
		"'demo: worker $n'|'demo: worker $n'|$start|None|exit" "$(json_names "$r")"
done
r="$WORK/worker-4.json"
# killed by SIGKILL: the master's waitpid noted it (the reap table,
# reaped-children.sh)
doomed=$(program_lines "$(q "$r" get trace.path)" "$r")
expect_eq "3. doomed: report's program lines" \
	"program:          'demo: doomed' (pid PID), killed by signal 9 (SIGKILL)
started as:       $start $seen_note" "$doomed"
expect_eq "3. doomed: JSON program names" "'demo: doomed'|'demo: doomed'|$start|None|seen" \
	"$(json_names "$r")"
r="$WORK/worker-5.json"
expect_eq "3. named: report's program line (no started-as: its command line is the same)" \
	"program:          [demo-named] $start (pid PID), exited with status 0" \
	"$(program_lines "$(q "$r" get trace.path)" "$r")"
expect_eq "3. named: JSON program names" "[demo-named] $start|$start|None|demo-named|exit" \
	"$(json_names "$r")"

# 4. mprof report --all: the overview names every process as the table did
report_json "$WORK/all.json" --all "$WORK/t"
expect_eq "4. overview (JSON): programs, most allocations first" \
	"[demo-named] $start|'demo: doomed'|'demo: worker 2'|'demo: worker 1'|'demo: master'|'demo: worker 0'" \
	"$(json_eval "$WORK/all.json" '"|".join(p["program"] for p in d["processes"])')"
overview=$("$MPROF" report --all "$WORK/t" 2>&1 | sed -n '2,8p')
expect_match "4. overview (text): the killed worker's row" \
	"^'demo: doomed' +[0-9]+  SIGKILL +4 " "$overview"
expect_match "4. overview (text): worker 2's row" "^'demo: worker 2' +[0-9]+  exit 0 +3 " "$overview"

# 5. the page of mprof report --html: its heading and started-as line, where
# the browser checks can run (tests/install-deps.sh)
if [ -x /usr/bin/chromium ] && command -v node >/dev/null 2>&1 &&
	[ -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	run_cmd 60 html "$MPROF" report --html "$WORK/doomed.html" "$(q "$WORK/worker-4.json" get trace.path)"
	expect_eq "5. report --html: exit status" 0 "$RUN_STATUS"
	run_cmd 120 page node "$BROWSER_DIR/report-page.mjs" "$WORK/doomed.html" "$WORK/doomed.png"
	v() { sed -n "s/^$1=//p" "$RUN_OUT"; }
	expect_eq "5. page: heading is the name at the end" "'demo: doomed'" "$(v h1)"
	expect_eq "5. page: started as" "started as $start $seen_note" "$(v 'started as')"
	expect_eq "5. page: no console error, page error or network request" none "$(v problems)"
else
	echo "note: the page's checks need chromium and tests/browser's node modules; not made"
fi

# 6. the exports that name the program name it as the reports do: the
# worker that only called prctl(PR_SET_NAME) is "[demo-named] COMMAND"
# (they gave the command line alone), a retitled one by its title
export_names() { # TRACE: speedscope's name, DHAT JSON's cmd, DHAT's Command:, massif's cmd:, pprof's first comment
	"$MPROF" report -f speedscope "$1" | json_eval /dev/stdin 'd["name"]'
	"$MPROF" report -f dhat-json "$1" | json_eval /dev/stdin 'd["cmd"]'
	"$MPROF" report -f dhat "$1" | sed -n 's/^  Command: //p'
	"$MPROF" report -f massif "$1" | sed -n 's/^cmd: //p'
	"$MPROF" report -f pprof -o "$WORK/names.pb.gz" "$1" &&
		"$PYTHON" "$E2E_DIR/pprof.py" "$WORK/names.pb.gz" get comments | sed -n 1p
}
expect_eq "6. named: the exports' names carry [comm] as the report's" \
	"[demo-named] $start
[demo-named] $start
[demo-named] $start
[demo-named] $start
mprof heap profile of [demo-named] $start" \
	"$(export_names "$(q "$WORK/worker-5.json" get trace.path)" 2>&1)"
expect_eq "6. worker 1: the exports' names are its title" \
	"'demo: worker 1'
'demo: worker 1'
'demo: worker 1'
'demo: worker 1'
mprof heap profile of 'demo: worker 1'" \
	"$(export_names "$(q "$WORK/worker-2.json" get trace.path)" 2>&1)"
finish
