#!/bin/bash
# many-routes.sh - 16 call stacks that share the allocator's caller and its
# stack position, and differ only further up, come in turn: the recorder's
# call-site cache keeps all 16 (under MPROF_UNWIND=check every capture but
# the first of each route comes from it, none differing from a full walk;
# a cache of 4 stacks per site, replaced in turn, found none), and each
# allocation is counted under its own stack.
# Program and facts: tests/progs/many_routes.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/many_routes" "$PROGS_DIR/many_routes.c"

MPROF_UNWIND=check mprof_run 120 "$WORK/trace" -- "$WORK/many_routes"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "many routes: 3200" "$(cat "$RUN_OUT")"
expect_exact_unwind
# 3200 captures from leaf; all but the first of each route are found in the
# cache once it exists: a thread's first THREAD_CACHES_AFTER_CAPTURES (32)
# captures come before it (preload/thread.h), and a few more misses are
# allowed for the C library's own first calls
expect_range "stacks from the call-site cache" 3148 3200 "$CHECK_SITE_HITS"

report_json "$WORK/r.json" "$WORK/trace"
R="$WORK/r.json"
for k in 0 5 15; do
	expect_site "$R" "leaf&route_$k" 200 $((200 * (100 + k))) 0 0
done
expect_eq "leaf: sites" 16 "$(q "$R" sites leaf)"
finish
