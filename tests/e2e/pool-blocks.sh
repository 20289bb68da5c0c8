#!/bin/bash
# pool-blocks.sh - blocks of the program's own allocator, reported with
# mprof_pool_alloc/free/realloc (mprof.h), are recorded like malloc's, in
# exact runs and between a start and a stop of a --paused run; a pool block
# at the address of the malloc'd arena it was carved from never matches the
# arena (pool addresses have bit 63 set in the trace).
# Program and facts: tests/progs/pool_blocks.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/pool" "$PROGS_DIR/pool_blocks.c" -I"$abs_top_srcdir/include"

for mode in running paused; do
	opts=()
	[ "$mode" = paused ] && opts=(--paused)
	RUN_NAME=$mode mprof_run 60 "$WORK/$mode" "${opts[@]}" -- "$WORK/pool" "$mode"
	expect_eq "$mode: exit status" 0 "$RUN_STATUS"
	at=no
	[ "$mode" = running ] && at=yes
	expect_eq "$mode: stdout" "pool_blocks $mode: first block at the arena's address: $at" \
		"$(cat "$RUN_OUT")"
	report_json "$WORK/$mode.json" "$WORK/$mode" || continue
	R="$WORK/$mode.json"
	#                FUNCS       allocs bytes leak-blocks leak-bytes
	expect_site "$R" pool_get    100    3200  3 96
	expect_site "$R" pool_grow   10     640   0 0
	if [ "$mode" = running ]; then
		expect_site "$R" pool_arena 1 65536 0 0
	else
		expect_no_site "$R" pool_arena # allocated before the start
	fi
	expect_no_site "$R" pool_early
	expect_eq "$mode: every free matched" 0 "$(q "$R" summary unmatched_frees)"
done
# The pprof export says that pool blocks are counted twice (its comments).
run_cmd 60 pprof "$MPROF" report "$WORK/running" --format pprof -o "$WORK/running.pb.gz"
expect_eq "pprof: exit status" 0 "$RUN_STATUS"
expect_match "pprof comment: pool blocks counted twice, with the JSON report's figures" \
	"^pool blocks \(mprof\.h\): $(q "$WORK/running.json" summary pool.allocations) allocations, $(q "$WORK/running.json" summary pool.allocated_bytes) bytes, lie inside malloc'd blocks that are counted too: these bytes are counted twice\$" \
	"$("$PYTHON" "$E2E_DIR/pprof.py" "$WORK/running.pb.gz" get comments 2>&1)"
# The flame graph's notes and the report page's say the same.
run_cmd 60 flame "$MPROF" report "$WORK/running" --format flamegraph -o "$WORK/running.flame.html"
expect_eq "flame graph: exit status" 0 "$RUN_STATUS"
expect_eq "flame graph: its notes name the pool blocks" 1 \
	"$(grep -c "pool blocks (mprof.h): 110 allocations, 3840 bytes, lie inside malloc'd blocks" \
		"$WORK/running.flame.html")"
if [ -x /usr/bin/chromium ] && command -v node >/dev/null 2>&1 &&
	[ -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	run_cmd 60 html "$MPROF" report --html "$WORK/running.html" "$WORK/running"
	run_cmd 120 page node "$BROWSER_DIR/heap-chart.mjs" "$WORK/running.html" "$WORK/running.png"
	expect_eq "page: no problems" none "$(sed -n 's/^problems=//p' "$RUN_OUT")"
	expect_match "page: a note names the pool blocks" \
		"Pool blocks \(mprof\.h\): 110 allocations, 3\.8 KiB requested, inside malloc’d blocks that the totals count too" \
		"$(sed -n 's/^notes=//p' "$RUN_OUT")"
else
	echo "note: Debian's chromium or tests/browser's node modules are missing: the page's check is skipped"
fi
run_cmd 60 native "$WORK/pool" running
expect_eq "without mprof: stdout" "pool_blocks running: first block at the arena's address: yes" \
	"$(cat "$RUN_OUT")"
finish
