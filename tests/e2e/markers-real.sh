#!/bin/bash
# markers-real.sh - a real program's markers, recording stop and start, and
# pool blocks (mprof.h) as the reports give them: the markers of two threads
# in order on the timeline, a window between two markers holding the
# worker's blocks, the blocks allocated while recording was stopped in no
# figure and the stop said, the pool blocks counted apart from malloc's.
# Program and facts: tests/progs/markers_pool.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/markers_pool" "$PROGS_DIR/markers_pool.c" -I"$abs_top_srcdir/include" -pthread

mprof_run 60 "$WORK/trace" -- "$WORK/markers_pool"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "recording runs at the end" "running" "$(cat "$RUN_OUT")"

R="$WORK/all.json"
report_json "$R" "$WORK/trace"
expect_eq "markers in order" "begin worker joined stopped end" \
	"$(for i in 0 1 2 3 4; do q "$R" get timeline.markers.$i.name; done | tr '\n' ' ' | sed 's/ $//')"
expect_ne "the worker's marker is another thread's" "$(q "$R" get timeline.markers.0.tid)" \
	"$(q "$R" get timeline.markers.1.tid)"
expect_eq "the worker's 1000-byte blocks" 10 "$(q "$R" sum-size-all allocations 1000)"
expect_eq "nothing of the 777-byte blocks made while stopped" 0 \
	"$(q "$R" sum-size-all allocations 777)"
expect_eq "one stop" 1 "$(q "$R" summary recording.stops)"
expect_eq "one start" 1 "$(q "$R" summary recording.starts)"
expect_eq "not started paused" "false" "$(q "$R" summary recording.paused_at_start)"
expect_true "paused at least the 200 ms the program slept" \
	test "$(q "$R" summary recording.paused_ns)" -ge 200000000
expect_eq "recorded and paused make the run time" "$(q "$R" summary run_time_ns)" \
	"$(($(q "$R" summary recording.recorded_ns) + $(q "$R" summary recording.paused_ns)))"
expect_eq "no failed reallocs (markers and stops take their own seqs)" 0 \
	"$(q "$R" summary failed_reallocs)"
expect_eq "pool calls" "3 1" "$(q "$R" summary calls.pool) $(q "$R" summary calls.pool_free)"
expect_eq "pool bytes" 192 "$(q "$R" summary pool.allocated_bytes)"
expect_eq "pool bytes leaked" 128 "$(q "$R" summary pool.leaked_bytes)"
expect_eq "a pool block at its arena's address is no reuse" 0 \
	"$(q "$R" get summary.quality.address_reused)"
expect_eq "no unmatched frees" 0 "$(q "$R" summary unmatched_frees)"

# the worker's blocks lie between begin and joined; the pool after stopped
W="$WORK/worker.json"
report_json "$W" "$WORK/trace" --from marker:begin --to marker:joined
expect_eq "begin..joined: the worker's 1000-byte blocks" 10 "$(q "$W" sum-size-all allocations 1000)"
expect_eq "begin..joined: none of the arena" 0 "$(q "$W" sum-size-all allocations 4096)"
expect_eq "begin..joined: starts at begin's time" "$(q "$R" get timeline.markers.0.time_ns)" \
	"$(q "$W" get window.from_ns)"
P="$WORK/pool.json"
report_json "$P" "$WORK/trace" --from marker:stopped --to marker:end
expect_eq "stopped..end: the arena" 1 "$(q "$P" sum-size-all allocations 4096)"
expect_eq "stopped..end: the pool blocks" 3 "$(q "$P" summary pool.allocations)"
expect_eq "stopped..end: no 1000-byte block" 0 "$(q "$P" sum-size-all allocations 1000)"
TEXT=$("$MPROF" report "$WORK/trace" -n 0 2>&1)
expect_match "text: what was recorded" "^recorded:         .* of .* \(paused .*: 1 stop, 1 start\)" "$TEXT"
expect_match "text: the first marker" "^markers:          begin at " "$TEXT"
# --at counts time from the start of the recording as every other read
# does: it measured from the first stamp it merged, which can be later (the
# markers and T came out 0.26-0.37 ms early)
report_json "$WORK/at.json" "$WORK/trace" --at marker:joined
expect_eq "--at marker:joined: the marker's time, as the whole report gives it" \
	"$(q "$R" get timeline.markers.2.time_ns)" "$(q "$WORK/at.json" get timeline.markers.2.time_ns)"
expect_eq "--at marker:joined: T is that time" \
	"$(q "$R" get timeline.markers.2.time_ns)" "$(q "$WORK/at.json" get window.at_ns)"
run_cmd 60 unknown "$MPROF" report "$WORK/trace" --at marker:middle
expect_eq "unknown marker: exit status" 2 "$RUN_STATUS"
expect_match "unknown marker: the trace's markers" \
	"its markers: begin, worker, joined, stopped, end\)$" "$(cat "$RUN_ERR")"
finish
