#!/bin/bash
# signal-allocs.sh - a signal handler that allocates while its thread is
# inside the recorder (it cannot record then): each such allocation is
# counted as unrecorded, so recorded + unrecorded is what the program made
# and the report does not call itself exact.  Before, they were served by
# the recorder's own heap and counted nowhere: some 83% of the handler's
# allocations were missing from a report that read "exact: every
# allocation recorded".  The third run walks every stack with libunwind,
# whose own allocations (its thread-local cache) are the recorder's: they
# must not be counted as the program's either.
# Program and facts: tests/progs/signal_allocs.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/signal_allocs" "$PROGS_DIR/signal_allocs.c"

for r in 1 2 3; do
	unwind=dwarf
	[ "$r" = 3 ] && unwind=libunwind
	RUN_NAME=s$r MPROF_UNWIND=$unwind mprof_run 120 "$WORK/s$r.trace" -- \
		"$WORK/signal_allocs" 1000
	expect_eq "run $r: exit status" 0 "$RUN_STATUS"
	read -r word signals word laps <"$RUN_OUT"
	expect_range "run $r: signals handled" 1000 1100 "$signals"
	report_json "$WORK/s$r.json" "$WORK/s$r.trace" || continue
	R="$WORK/s$r.json"
	recorded=$(q "$R" summary calls.malloc)
	unrecorded=$(q "$R" summary quality.unrecorded_allocations)
	# 2 a signal, 2 a lap; each handler call is recorded or not as a whole
	expect_eq "run $r: recorded + unrecorded allocations" $((2 * (signals + laps))) \
		$((recorded + unrecorded))
	expect_eq "run $r: recorded + unrecorded frees" $((signals + 2 * laps)) \
		$(($(q "$R" summary frees_recorded) + $(q "$R" summary quality.unrecorded_frees)))
	expect_eq "run $r: leaked blocks are the recorded handler calls' 48-byte blocks" \
		$((signals - unrecorded / 2)) "$(q "$R" summary leaked_blocks)"
	expect_eq "run $r: leaked bytes" $((48 * (signals - unrecorded / 2))) \
		"$(q "$R" summary leaked_bytes)"
	expect_true "run $r: some handler calls came inside the recorder ($unrecorded)" \
		test "$unrecorded" -gt 0
	expect_eq "run $r: no unmatched free" 0 "$(q "$R" summary unmatched_frees)"
	expect_eq "run $r: no sequence gap" 0 "$(q "$R" summary quality.sequence_gaps)"
	"$MPROF" report "$WORK/s$r.trace" >"$WORK/s$r.txt" 2>&1
	expect_eq "run $r: header" \
		"mprof report: $WORK/s$r.trace (incomplete: data was lost; see data and warnings)" \
		"$(head -n 1 "$WORK/s$r.txt")"
	expect_match "run $r: data lost line" \
		"^data lost: +$unrecorded allocations not recorded" "$(cat "$WORK/s$r.txt")"
done
finish
