#!/bin/bash
# real-node.sh - Node with worker_threads (each worker a V8 isolate on a
# thread of its own): output and exit status unchanged, no hang, a whole
# trace, and the ArrayBuffer backing stores the workers make counted
# exactly by their size (Debian's node is a small executable over a
# stripped libnode, so names cannot be relied on).  Program and facts:
# tests/progs/node_workers.js.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
# the apt package nodejs installs /usr/bin/node
NODE=/usr/bin/node
[ -x "$NODE" ] || skip "node is not installed ($NODE; apt package nodejs)"
make_work

expect_as_native 60 workers 7 "$WORK/trace" "$NODE" "$PROGS_DIR/node_workers.js"
expect_eq "stdout" "worker 0: 30000 entries, checksum 5033, buffers 100|worker 1: 30000 entries, checksum 7812, buffers 100|worker 2: 30000 entries, checksum 3823, buffers 100|workers 3 done" \
	"$(tr '\n' '|' <"$WORK/mprof-workers.out" | sed 's/|$//')"
expect_eq "one trace (no child process)" "$WORK/trace" "$(ls -d "$WORK/trace"*)"
report_json "$WORK/r.json" "$WORK/trace" || finish
R="$WORK/r.json"
expect_whole_trace report "$R" 7 "Node.js (V8)"
expect_range "allocations" 10000 1000000000 "$(q "$R" summary allocations)"
expect_eq "blocks of 12345 bytes: allocations" 300 "$(q "$R" sum-size-all allocations 12345)"
expect_eq "blocks of 12345 bytes: live at exit" 0 "$(q "$R" sum-size-all leaked_blocks 12345)"
finish
