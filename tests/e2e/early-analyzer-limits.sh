#!/bin/bash
# early-analyzer-limits.sh - the analyzer `mprof run` starts while the
# program runs, in a launcher short of what it needs:
# - stderr closed (`2>&-`, or all three standard descriptors): when the
#   early analyzer is gone by the end, the one started then still embeds
#   the symbols.  Before, its start failed on the closed stderr it was to
#   take as its stdout, and the warning went nowhere.
# - a lowered limit on the user's processes (`ulimit -u`, needs root to
#   take a user of its own): no analyzer waits through the run, since it
#   would take a process the program may need (one of its forks failed);
#   the one started at the end embeds the symbols.  The program waits 5 s
#   for one that must not come.
# - a cgroup whose pids controller leaves fewer than 1024 free slots, set
#   on the launcher's own cgroup or on an ancestor (needs root and a
#   writable cgroup v1 pids hierarchy): the same; with room to spare, the
#   early analyzer comes.
# Program and facts: tests/progs/early_analyzer.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

# expect_named LABEL TRACE: early_alloc's site, named with file:line, from
# the symbols in TRACE (the program's file is gone, the cache is new).
expect_named() {
	local label=$1 trace=$2
	report_json "$WORK/$label.json" "$trace" || return
	expect_site "$WORK/$label.json" early_alloc 6 14070 6 14070
	expect_frame_at "$label" "$WORK/$label.json" early_alloc early_analyzer.c
}

# closed NAME REDIRECTIONS: the early analyzer killed by the program, mprof
# run with REDIRECTIONS (closing descriptors).
closed() {
	local name=$1 redirections=$2
	mkdir "$WORK/$name"
	build_c "$WORK/$name/prog" "$PROGS_DIR/early_analyzer.c"
	eval "MPROF_SYMBOL_CACHE=\"\$WORK/\$name/cache\" timeout -k 5 120 \
		\"\$MPROF\" run -o \"\$WORK/\$name/trace\" -- \"\$WORK/\$name/prog\" killed \
		>\"\$WORK/\$name.out\" </dev/null $redirections"
	expect_eq "$name: exit status" 0 "$?"
	rm "$WORK/$name/prog"
	MPROF_SYMBOL_CACHE="$WORK/$name/cache" expect_named "$name" "$WORK/$name/trace"
}
closed stderr-closed '2>&-'
closed all-closed '0<&- 1>&- 2>&-'

# expect_limited_run NAME: the run of NAME in limited mode went as without
# a limit: the program done, symbols embedded by whichever analyzer.
expect_limited_run() {
	local name=$1
	expect_eq "$name: exit status" 0 "$RUN_STATUS"
	expect_eq "$name: program done" "limited done" "$(tail -n 1 "$RUN_OUT")"
	expect_eq "$name: nothing said about symbols or unrecorded processes" "" \
		"$(grep -E 'embedding symbols|not recorded|mprof-analyze|the analyzer' "$RUN_ERR")"
	rm "$WORK/$name/prog"
	MPROF_SYMBOL_CACHE="$WORK/$name/cache" expect_named "$name" "$WORK/$name/trace"
}

# limited NAME ULIMIT: the program run by a user of its own (no other
# process counts against its limit) under `ulimit -u ULIMIT` (default: as
# it is), in limited mode.
limited() {
	local name=$1 limit=${2:-}
	mkdir -m 777 "$WORK/$name"
	build_c "$WORK/$name/prog" "$PROGS_DIR/early_analyzer.c"
	chmod 755 "$WORK/$name/prog"
	run_cmd 120 "$name" setpriv --reuid="$user" --regid="$user" --clear-groups \
		env MPROF_SYMBOL_CACHE="$WORK/$name/cache" bash -c \
		'[ -z "$1" ] || ulimit -u "$1" || exit 99; exec "$2" run -o "$3/trace" -- "$3/prog" limited' \
		limited "$limit" "$MPROF" "$WORK/$name"
	expect_limited_run "$name"
}
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$WORK"
	user=$((40000 + $$ % 20000))
	limited nproc-default
	expect_match "nproc-default: the early analyzer came" '^helper [0-9]+$' \
		"$(head -n 1 "$RUN_OUT")"
	limited nproc-lowered 200
	expect_eq "nproc-lowered: no early analyzer" "helper none" "$(head -n 1 "$RUN_OUT")"
else
	echo "note: not root (or no setpriv): the process limit is not tried"
fi

# cgrouped NAME CGROUP_DIR: the program run by a launcher that moved itself
# into CGROUP_DIR, in limited mode.
cgrouped() {
	local name=$1 cgroup=$2
	mkdir "$WORK/$name"
	build_c "$WORK/$name/prog" "$PROGS_DIR/early_analyzer.c"
	run_cmd 120 "$name" env MPROF_SYMBOL_CACHE="$WORK/$name/cache" bash -c \
		'echo $$ >"$1/cgroup.procs" || exit 99; exec "$2" run -o "$3/trace" -- "$3/prog" limited' \
		cgrouped "$cgroup" "$MPROF" "$WORK/$name"
	expect_limited_run "$name"
}
pids_mount=$(awk '$9 == "cgroup" && $0 ~ /[ ,]pids(,|$)/ { print $5; exit }' /proc/self/mountinfo)
cgroup_top=
if [ "$(id -u)" = 0 ] && [ -n "$pids_mount" ] && [ -d "$pids_mount" ]; then
	own=$(awk -F: '$2 ~ /(^|,)pids(,|$)/ { print $3; exit }' /proc/self/cgroup)
	cgroup_top="$pids_mount${own%/}/mprof-test-$$"
	mkdir "$cgroup_top" 2>/dev/null || cgroup_top=
fi
if [ -n "$cgroup_top" ]; then
	mkdir "$cgroup_top/inner"
	echo 200 >"$cgroup_top/pids.max"
	cgrouped cgroup-ancestor-200 "$cgroup_top/inner"
	expect_eq "cgroup-ancestor-200: no early analyzer" "helper none" "$(head -n 1 "$RUN_OUT")"
	echo 100000 >"$cgroup_top/pids.max"
	echo 300 >"$cgroup_top/inner/pids.max"
	cgrouped cgroup-own-300 "$cgroup_top/inner"
	expect_eq "cgroup-own-300: no early analyzer" "helper none" "$(head -n 1 "$RUN_OUT")"
	echo 100000 >"$cgroup_top/inner/pids.max"
	cgrouped cgroup-roomy "$cgroup_top/inner"
	expect_match "cgroup-roomy: the early analyzer came" '^helper [0-9]+$' \
		"$(head -n 1 "$RUN_OUT")"
	rmdir "$cgroup_top/inner" "$cgroup_top" ||
		echo "note: cgroup $cgroup_top left behind"
else
	echo "note: not root or no writable cgroup v1 pids hierarchy: the cgroup limit is not tried"
fi
finish
