#!/bin/bash
# Hard case 25: three million allocations from 500 sites (program:
# tests/progs/cases/25-huge-trace.c): the run and the report keep up, every
# site is exact, the peak is exact, the trace is small.
. "$abs_top_srcdir/tests/e2e/lib.sh"
case_start 25-huge-trace
build_c prog "$CASE_SRC/25-huge-trace.c"

mprof_run 60 "$WORK/trace" -- ./prog
expect_eq "1. exit status (run within 60 s)" 0 "$RUN_STATUS"
expect_eq "1. stdout" "allocations: 3001000" "$(cat "$RUN_OUT")"
t0=$(date +%s)
REPORT_LIMIT=60 report_json "$WORK/r.json" "$WORK/trace"
expect_range "2. mprof report within 60 s (s)" 0 60 "$(($(date +%s) - t0))"
R="$WORK/r.json"
points='point_[0-9]+'
expect_eq "3. allocations attributed to point_* functions" 3000000 \
	"$(q "$R" per-func allocations "$points" | awk '{ s += $2 } END { print s + 0 }')"
# point_N: 6000 allocations of N + 8 bytes, all freed.
expected=$(for n in $(seq 100 599); do echo "point_$n 6000 $((6000 * (n + 8))) 0"; done)
found=$(join <(q "$R" per-func allocations "$points") \
	<(q "$R" per-func allocated_bytes "$points") |
	join - <(q "$R" per-func leaked_bytes "$points"))
expect_eq "3. each of the 500 sites: 6000 allocations of its own size, none leaked" "$expected" "$found"
expect_eq "3. point_100: allocated bytes" 648000 "$(q "$R" sum allocated_bytes point_100)"
expect_eq "3. point_599: allocated bytes" 3642000 "$(q "$R" sum allocated_bytes point_599)"
expect_site "$R" hold_many 1000 1000000 0 0
expect_eq "4. hold_many: bytes live at the heap peak" 1000000 "$(q "$R" sum peak_bytes hold_many)"
expect_eq "4. drop_many: allocations (it only frees)" 0 "$(q "$R" sum allocations drop_many)"
expect_range "4. global heap peak, bytes" 1000000 1100000 "$(q "$R" summary peak.bytes)"
run_cmd 60 diff "$MPROF" diff "$WORK/trace" "$WORK/trace"
expect_eq "4. mprof diff of the trace with itself: exit status" 0 "$RUN_STATUS"
expect_match "4. mprof diff of the trace with itself: says there is no difference" \
	"^no difference$" "$(cat "$RUN_OUT")"
run_cmd 60 diffjson "$MPROF" diff --format json "$WORK/trace" "$WORK/trace"
expect_eq "4. mprof diff --format json: exit status" 0 "$RUN_STATUS"
for field in allocations allocated_bytes peak_bytes leaked_bytes temporary; do
	expect_eq "4. mprof diff of the trace with itself: delta of $field" 0 \
		"$(q "$WORK/diffjson.out" get "totals.delta.$field")"
done
expect_eq "4. mprof diff of the trace with itself: sites that differ" 0 \
	"$(q "$WORK/diffjson.out" len sites)"
expect_range "5. compressed trace size, bytes (<= 100 MiB)" 1 104857600 "$(stat -c %s "$WORK/trace")"
finish
