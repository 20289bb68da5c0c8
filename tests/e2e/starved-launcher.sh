#!/bin/bash
# starved-launcher.sh - a block's lifetime does not depend on the launcher
# being scheduled.  An exact event was timed afresh only when the launcher's
# 10 ms time tick had moved since its thread's last TIME record, so on a
# loaded host (CI at load 7) a block kept 40 ms while the launcher did not
# run was freed at its allocation's time: a lifetime of 0.
# The test stops the launcher (SIGSTOP to the program's parent) while the
# program allocates a block, keeps it 50 ms and frees it, three times (one
# call site each, tests/progs/starved_launcher.c), then lets it go on; each
# lifetime must lie, give or take a scheduler tick (10 ms at HZ=100),
# between the program's own least and most measures of it (from the
# allocation's return to the free's call, and from the allocation's call to
# the free's return: a program kept off the processor next to a call widens
# that range, where a single measure made a sound lifetime look wrong).  The
# same in a sampled run that samples every allocation (--sample-rate 1),
# which timed every sampled event already.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/starved" "$PROGS_DIR/starved_launcher.c" -pthread
TICK_NS=10000000

# starved_run NAME MPROF_OPTIONS...: runs starved_launcher under `mprof run
# MPROF_OPTIONS` with the launcher stopped during each round; checks the
# run and each kept_I block's lifetime against the program's doneI.
starved_run() {
	local name=$1 mpid pid launcher i least most life
	shift
	local D=$WORK/$name
	mkdir "$D"
	MPROF_RING_KIB=64 timeout -k 5 120 "$MPROF" run -q -o "$D/trace" "$@" -- "$WORK/starved" "$D" 1000 \
		>"$D/out" 2>"$D/err" &
	mpid=$!
	launcher=
	if wait_for_file "$D/pid" "$mpid"; then
		pid=$(cat "$D/pid")
		launcher=$(awk '/^PPid:/ { print $2 }' "/proc/$pid/status")
	fi
	expect_eq "$name: the program's parent is mprof" mprof \
		"$(cat "/proc/${launcher:-0}/comm" 2>/dev/null)"
	for i in 0 1 2; do
		[ -n "$launcher" ] || break
		kill -STOP "$launcher"
		: >"$D/go$i"
		wait_for_file "$D/done$i" "$mpid"
		kill -CONT "$launcher"
	done
	wait "$mpid"
	expect_eq "$name: exit status" 0 "$?"
	expect_eq "$name: stdout" ok "$(cat "$D/out")"
	report_json "$D/json" "$D/trace" || return
	for i in 0 1 2; do
		least= most=
		read -r least most 2>/dev/null <"$D/done$i"
		[[ "${least:-} ${most:-}" =~ ^[0-9]+\ [0-9]+$ ]] || least=0 most=0
		expect_eq "$name: kept_$i: allocations" 1 "$(q "$D/json" sum allocations "kept_$i")"
		# one block a site: its average is its lifetime (a sampled report
		# gives no minimum)
		life=$(q "$D/json" sum lifetime_ns_avg "kept_$i")
		expect_range "$name: kept_$i's lifetime (ns) within a tick of [$least, $most]" \
			$((least - TICK_NS)) $((most + TICK_NS)) "$life"
	done
}

starved_run exact
starved_run sampled --sample-rate 1
finish
