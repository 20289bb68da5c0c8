#!/bin/bash
# signal-allocs.sh - a signal handler that allocates while its thread is
# inside an allocator call.  Inside the recorder's own work it cannot be
# recorded: each such allocation is counted as unrecorded, so recorded +
# unrecorded is what the program made and the report does not call itself
# exact (before, they were served by the recorder's own heap and counted
# nowhere: some 83% of the handler's allocations were missing from a
# report that read "exact: every allocation recorded").  The third timer
# run walks every stack with libunwind, whose own allocations (its
# thread-local cache) are the recorder's: they must not be counted as the
# program's either.  Inside the C library's allocator (raised there by
# an allocator preloaded behind the recorder), the handler is recorded.
# Programs and facts: tests/progs/signal_allocs.c, tests/progs/raising_alloc.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/signal_allocs" "$PROGS_DIR/signal_allocs.c"
build_c "$WORK/libraising_alloc.so" "$PROGS_DIR/raising_alloc.c" -shared -fPIC

# check_sums NAME REPORT: recorded + unrecorded allocations and frees are
# what the program said it made ($RUN_OUT); sets signals and unrecorded.
check_sums() {
	local word allocs frees
	read -r word signals word allocs word frees <"$RUN_OUT"
	unrecorded=$(q "$2" summary quality.unrecorded_allocations)
	expect_eq "$1: recorded + unrecorded allocations" "$allocs" \
		$(($(q "$2" summary calls.malloc) + unrecorded))
	expect_eq "$1: recorded + unrecorded frees" "$frees" \
		$(($(q "$2" summary frees_recorded) + $(q "$2" summary quality.unrecorded_frees)))
	# each handler call is recorded or not as a whole
	expect_eq "$1: leaked blocks are the recorded handler calls' 48-byte blocks" \
		$((signals - unrecorded / 2)) "$(q "$2" summary leaked_blocks)"
	expect_eq "$1: leaked bytes" $((48 * (signals - unrecorded / 2))) \
		"$(q "$2" summary leaked_bytes)"
	expect_eq "$1: no unmatched free" 0 "$(q "$2" summary unmatched_frees)"
	expect_eq "$1: no sequence gap" 0 "$(q "$2" summary quality.sequence_gaps)"
}

for r in 1 2 3; do
	unwind=dwarf
	[ "$r" = 3 ] && unwind=libunwind
	RUN_NAME=s$r MPROF_UNWIND=$unwind mprof_run 120 "$WORK/s$r.trace" -- \
		"$WORK/signal_allocs" timer 1000
	expect_eq "timer $r: exit status" 0 "$RUN_STATUS"
	report_json "$WORK/s$r.json" "$WORK/s$r.trace" || continue
	check_sums "timer $r" "$WORK/s$r.json"
	expect_range "timer $r: signals handled" 1000 1001 "$signals"
	expect_true "timer $r: some handler calls came inside the recorder ($unrecorded)" \
		test "$unrecorded" -gt 0
	"$MPROF" report "$WORK/s$r.trace" >"$WORK/s$r.txt" 2>&1
	expect_eq "timer $r: header" \
		"mprof report: $WORK/s$r.trace (incomplete: data was lost; see data and warnings)" \
		"$(head -n 1 "$WORK/s$r.txt")"
	expect_match "timer $r: data lost line" \
		"^data lost: +$unrecorded allocations not recorded" "$(cat "$WORK/s$r.txt")"
done

# the allocator goes behind the recorder in the program only (a shell adds
# it to the LD_PRELOAD mprof set), as in foreign-allocator.sh
RUN_NAME=in mprof_run 60 "$WORK/in.trace" -- /bin/sh -c 'LD_PRELOAD="$LD_PRELOAD $1" exec "$2" inside 200' \
	sh "$WORK/libraising_alloc.so" "$WORK/signal_allocs"
expect_eq "inside: exit status" 0 "$RUN_STATUS"
expect_eq "inside: stdout" "signals 400 allocations 1000 frees 600" "$(cat "$RUN_OUT")"
R=
for t in "$WORK"/in.trace*; do
	case $t in *.json | *.err | *.txt) continue ;; esac
	report_json "$t.json" "$t" || continue
	[ "$(q "$t.json" get trace.exe)" = "$WORK/signal_allocs" ] && R="$t.json"
done
expect_ne "inside: the program's trace" "" "$R"
if [ -n "$R" ]; then
	check_sums inside "$R"
	expect_eq "inside: every handler call recorded" 0 "$unrecorded"
	expect_eq "inside: handler allocations (2 a call)" 800 "$(q "$R" sum allocations on_signal)"
fi
finish
