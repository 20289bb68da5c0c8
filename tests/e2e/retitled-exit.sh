#!/bin/bash
# retitled-exit.sh - forked children that title themselves and end at once
# by _exit() or _Exit(), as redis's background-save child
# ("redis-rdb-bgsave *:6379", then _exit) does, are named as ps showed
# them.  No exit() handler runs there, so the recorder left no exit note,
# and they ended before the launcher's first look at their command line;
# both were named by the master's command line at the fork.  The recorder
# now wraps _exit and _Exit and writes the note there too: the names, the
# status (also when no recorded parent reaps the child) and the peak RSS.
# Program and facts: tests/progs/retitled_exit.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/retitled_exit" "$PROGS_DIR/retitled_exit.c"

cd "$WORK" || hard_error "cannot enter $WORK"
start="./retitled_exit padding-padding-padding"
COLUMNS=200 mprof_run 60 t -- ./retitled_exit padding-padding-padding
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout (the children's statuses)" "children: 0 3" "$(cat "$RUN_OUT")"

# the run's table: each row's name and allocations
rows=$(run_table_rows "$RUN_ERR")
expect_eq "run table: names and allocations, most first" \
	"[demo-quick] $start|3
'demo: saver'|2
$start|1" "$rows"

names() { # REPORT.json: "END command|END comm|name_how|exit status"
	json_eval "$1" '"|".join(str(x) for x in (d["summary"]["end"].get("command"),
		d["summary"]["end"].get("comm"), d["summary"]["end"].get("name_how"),
		d["summary"]["program"]["exit_status"]))'
}
for f in "$WORK"/t.*; do
	case "$f" in *.json | *.err) continue ;; esac
	report_json "$f.json" "$f" || continue
	cp "$f.json" "$WORK/child-$(q "$f.json" summary allocations).json"
done
expect_eq "_exit child: 2000 B" 2000 "$(q "$WORK/child-2.json" summary allocated_bytes)"
expect_eq "_exit child: END names from its exit note, status 0" "'demo: saver'|None|exit|0" \
	"$(names "$WORK/child-2.json")"
expect_eq "_Exit child: 3000 B" 3000 "$(q "$WORK/child-3.json" summary allocated_bytes)"
expect_eq "_Exit child: END names from its exit note, status 3" "None|demo-quick|exit|3" \
	"$(names "$WORK/child-3.json")"

# the overview of report --all
run_cmd 60 all "$MPROF" report --all -n 0 t
expect_eq "report --all: the children by their names" \
	"[demo-quick] retitled_exit padding-padd…|exit 3
'demo: saver'|exit 0" \
	"$(sed -n -E "s/^(.*[^ ]) +[0-9]+  (exit [0-9]+) .* t\.[0-9]+$/\1|\2/p" "$RUN_OUT")"
finish
