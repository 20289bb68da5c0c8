#!/bin/bash
# reaped-children.sh - how a child ended when its parent reaps it at once,
# as shells, Python's subprocess and make do.  The launcher could read the
# status of a child that left no exit note only while it was a zombie, so
# such a child's report said "ended without exit() (by _exit() or a signal:
# mprof could not see which)" and its live blocks "leaks unless it was
# killed", for SIGKILL and SIGSEGV as for _exit().  Now the recorder notes
# the status the parent's call of the wait family returned (the reap table,
# preload/reap_note.c), and each child says how it ended.
# Checked for every call of the family (wait, waitpid, wait3, wait4,
# waitid by pid and by pidfd, WNOHANG polling, WNOWAIT then a reap), with
# what the calls return unchanged; 600 children reaped in a row; then with bash, python3's subprocess and
# `sh -c 'prog & wait'` as the parent, and a Python multiprocessing Pool
# whose workers terminate() kills.  Program and facts:
# tests/progs/reaped_children.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
PROG="$WORK/reaped_children"
build_c "$PROG" "$PROGS_DIR/reaped_children.c"

# How each way ends: the report's program line's end and its live blocks.
declare -A ENDS=(
	[exit]='exited with status 3'
	[quick]='exited with status 4'
	[kill]='killed by signal 9 (SIGKILL)'
	[segv]='killed by signal 11 (SIGSEGV)'
)
declare -A LIVE=(
	[exit]='leaked:           3000 B (2.9 KiB) in 3 blocks (live at exit)'
	[quick]='leaked:           4000 B (3.9 KiB) in 4 blocks (live at exit)'
	[kill]='live at end:      5000 B (4.9 KiB) in 5 blocks (live when the recording ended)'
	[segv]='live at end:      6000 B (5.9 KiB) in 6 blocks (live when the recording ended)'
)

# check_child WHAT TRACE WAY: the report of TRACE says the child ended by WAY.
check_child() {
	local what=$1 trace=$2 way=$3
	local line
	run_cmd 60 report "$MPROF" report -n 0 "$trace"
	line=$(grep '^program:' "$RUN_OUT")
	expect_eq "$what: $way child: how it ended" "${ENDS[$way]}" "${line##*), }"
	expect_eq "$what: $way child: its live blocks" "${LIVE[$way]}" \
		"$(grep -E '^(leaked|live at end):' "$RUN_OUT")"
}

# child_traces DIR: the fork children's traces of a run, in fork order (the
# kth left k + 2 blocks)
child_traces() {
	traces_by_allocations keep_blocks "$1"/t.[0-9]*
}

# ---- a C parent, each call of the wait family ----
for how in waitpid wait wait3 wait4 waitid pidfd nohang nowait; do
	mkdir "$WORK/$how"
	RUN_NAME=$how mprof_run 60 "$WORK/$how/t" -q -- "$PROG" "$how"
	expect_eq "$how: exit status" 0 "$RUN_STATUS"
	expect_eq "$how: what the calls returned" \
		"exit 3|exit 4|signal 9|signal 11|then -1 ECHILD" "$(paste -sd'|' "$RUN_OUT")"
	mapfile -t traces < <(child_traces "$WORK/$how")
	expect_eq "$how: four child traces" 4 "${#traces[@]}"
	k=0
	for way in exit quick kill segv; do
		[ -n "${traces[$k]:-}" ] && check_child "$how" "${traces[$k]}" "$way"
		k=$((k + 1))
	done
done

# the JSON report says it too
report_json "$WORK/kill.json" "$(child_traces "$WORK/waitpid" | sed -n 3p)"
expect_eq "json: killed child: signal 9, ended early" "9 True" \
	"$(json_eval "$WORK/kill.json" '"%s %s" % (d["summary"]["program"]["exit_signal"], d["summary"]["ended_early"] is not None)')"
report_json "$WORK/quick.json" "$(child_traces "$WORK/waitpid" | sed -n 2p)"
expect_eq "json: _exit child: status 4, not ended early" "4 None" \
	"$(json_eval "$WORK/quick.json" '"%s %s" % (d["summary"]["program"]["exit_status"], d["summary"]["ended_early"])')"

# trace_of DIR WAY: the trace of the image that ran `reaped_children end WAY`
trace_of() {
	local t
	for t in "$1"/t.*; do
		"$MPROF" report -n 0 "$t" 2>/dev/null | grep -q "^program: .*reaped_children end $2 (pid" &&
			{ echo "$t"; return; }
	done
}

# ---- children forked, ended and reaped faster than the launcher scans ----
# run_ends NAME TRACE WORDS: how the processes of TRACE's run whose command
# holds WORDS ended, as the run overview says, counted ("300 SIGKILL|1 exit
# 0|300 exit 4"; an end not known reads "ended").
run_ends() {
	run_cmd 600 "$1-report" "$MPROF" report -n 0 --all "$2"
	awk '/^program +pid +status/ { on = 1; next } on && /^$/ { exit } on' "$RUN_OUT" |
		grep " $3 " | sed -nE 's/^.* [0-9]+  (exit [0-9]+|SIGKILL|ended) .*$/\1/p' |
		sort | uniq -c | sed 's/^ *//' | paste -sd'|'
}

# Each reap entry must find its child's process file, though the launcher
# may take the table in before it has scanned for that file (it lost up to
# 7 ends in 300 this way: "ended without exit()"), or in a scan that began
# before the file was made (up to 40 in 300 beside two busy loops).  The
# timing is the host's, so the burst is long; the run overview gives each
# child's end.
mkdir "$WORK/burst"
RUN_NAME=burst mprof_run 180 "$WORK/burst/t" -q -- "$PROG" burst 600
expect_eq "burst: exit status" 0 "$RUN_STATUS"
expect_eq "burst: output" "burst 600" "$(cat "$RUN_OUT")"
# (the report of 601 traces used 5 s of CPU but took 159 s at load average
# 20 on 2 cores, cut at the 120 s once given: only a hang reaches 600 s)
expect_eq "burst: how the 600 children (and their parent) ended" \
	"300 SIGKILL|1 exit 0|300 exit 4" "$(run_ends burst "$WORK/burst/t" 'burst 600')"

# The same while the launcher is stopped (SIGSTOP) until the program has
# reaped 150 children, 3 s at most: its rounds take no entries, so the
# reap past the table's 100 entries waits for room (5 s at most) instead
# of writing over the first ones (their ends were lost: "ended" for the
# SIGKILLed ones).  The program is told to go once the launcher is
# stopped.
mkdir "$WORK/stalled" "$WORK/stalled-sync"
"$MPROF" run -q -o "$WORK/stalled/t" -- "$PROG" burst-go 400 "$WORK/stalled-sync" \
	>"$WORK/stalled.out" 2>"$WORK/stalled.err" &
stalled_job=$!
for _ in $(seq 600); do # up to 60 s
	[ -e "$WORK/stalled-sync/ready" ] && break
	sleep 0.1
done
expect_true "stalled: the program is ready" [ -e "$WORK/stalled-sync/ready" ]
kill -STOP "$stalled_job"
touch "$WORK/stalled-sync/go"
# 3 s by the clock, not by rounds: on a loaded host a round of sleep and
# cat takes far longer than its 50 ms, and a stop past the recorder's 5 s
# wait for room loses ends
stop_until=$(($(date +%s%N) + 3000000000))
while [ "$(date +%s%N)" -lt "$stop_until" ]; do
	sleep 0.05
	[ "$(cat "$WORK/stalled-sync/reaped" 2>/dev/null)" \> 00000149 ] && break
done
kill -CONT "$stalled_job"
echo "note: $((10#$(cat "$WORK/stalled-sync/reaped"))) children reaped while the launcher was stopped"
wait "$stalled_job"
expect_eq "stalled: exit status" 0 "$?"
expect_eq "stalled: output" "burst 400" "$(cat "$WORK/stalled.out")"
expect_eq "stalled: how the 400 children (and their parent) ended" \
	"200 SIGKILL|1 exit 0|200 exit 4" "$(run_ends stalled "$WORK/stalled/t" 'burst-go 400')"

# ---- shells and Python as the parent ----
mkdir "$WORK/bash"
RUN_NAME=bash mprof_run 60 "$WORK/bash/t" -q -- bash -c \
	"'$PROG' end exit; '$PROG' end quick; '$PROG' end kill; '$PROG' end segv; true"
expect_eq "bash: exit status" 0 "$RUN_STATUS"
for way in exit quick kill segv; do
	check_child bash "$(trace_of "$WORK/bash" "$way")" "$way"
done

mkdir "$WORK/python"
RUN_NAME=python mprof_run 60 "$WORK/python/t" -q -- "$PYTHON" -c "
import subprocess
print([subprocess.run(['$PROG', 'end', w]).returncode for w in ['exit', 'quick', 'kill', 'segv']])"
expect_eq "python: what subprocess returned" "[3, 4, -9, -11]" "$(cat "$RUN_OUT")"
for way in exit quick kill segv; do
	check_child python "$(trace_of "$WORK/python" "$way")" "$way"
done

# a multiprocessing Pool's workers, ended by terminate() (SIGTERM) and
# reaped by join(); each worker's trace says so
mkdir "$WORK/pool"
cat >"$WORK/pool.py" <<'END'
import multiprocessing, time
def work(x):
    time.sleep(60)
if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    pool = multiprocessing.Pool(2)
    pool.map_async(work, range(2))
    time.sleep(0.5)
    pool.terminate()
    pool.join()
    print("terminated")
END
RUN_NAME=pool mprof_run 60 "$WORK/pool/t" -q -- "$PYTHON" "$WORK/pool.py"
expect_eq "pool: output" "terminated" "$(cat "$RUN_OUT")"
mapfile -t traces < <(child_traces "$WORK/pool")
expect_eq "pool: two worker traces" 2 "${#traces[@]}"
for t in "${traces[@]}"; do
	run_cmd 60 report "$MPROF" report -n 0 "$t"
	line=$(grep '^program:' "$RUN_OUT")
	expect_eq "pool: worker $(basename "$t"): how it ended" "killed by signal 15 (SIGTERM)" \
		"${line##*), }"
	expect_match "pool: worker $(basename "$t"): blocks live at the end, not leaks" \
		'^live at end: .* \(live when the recording ended\)$' \
		"$(grep -E '^(leaked|live at end):' "$RUN_OUT")"
done

mkdir "$WORK/sh"
RUN_NAME=sh mprof_run 60 "$WORK/sh/t" -q -- sh -c "'$PROG' end kill & wait"
expect_eq "sh & wait: exit status" 0 "$RUN_STATUS"
check_child "sh & wait" "$(trace_of "$WORK/sh" kill)" kill
finish
