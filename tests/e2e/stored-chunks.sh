#!/bin/bash
# stored-chunks.sh - chunks the launcher stores while the program keeps every
# processor busy are deflated before `mprof run` returns, and a launcher
# killed during that loses nothing.  MPROF_TEST_STORE (a testing aid,
# mprof-run(1)) makes the launcher store every EVENTS chunk as it does for a
# busy program: "1" deflates them while the program pauses and at the end,
# "stall" only at the end, where it stops half way and waits to be killed.
# Program and facts: tests/progs/busy_bursts.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/busy_bursts" "$PROGS_DIR/busy_bursts.c" -pthread

# chunk_counts TRACE: "EVENTS-chunks stored-EVENTS-chunks-over-256-bytes",
# from the chunk headers (mprof-trace(5): flags bit 0 is zlib).
chunk_counts() {
	"$PYTHON" - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
off, events, stored = 64, 0, 0
while off + 24 <= len(data):
    _, kind, flags, _, size = struct.unpack_from("<IBBHI", data, off)
    if kind == 2:
        events += 1
        # a few bytes of records left at a thread's end may not deflate
        # smaller: the writer stores those, busy or not
        stored += not flags & 1 and size > 256
    off += 24 + size
print(events, stored)
PY
}

# expect_facts LABEL TRACE-DIR: the program's and its child's traces hold
# every event (busy_bursts.c's facts).
expect_facts() {
	local label=$1 dir=$2
	set -- "$dir"/trace.*
	expect_eq "$label: one child trace" 1 "$#"
	report_json "$WORK/$label-r.json" "$dir/trace" || return
	report_json "$WORK/$label-c.json" "$1" || return
	expect_whole_trace "$label: program" "$WORK/$label-r.json" 0 null
	expect_site "$WORK/$label-r.json" burst_block 640000 25275904 0 0
	expect_whole_trace "$label: child" "$WORK/$label-c.json" 0 null
	expect_site "$WORK/$label-c.json" child_block 40000 1579744 0 0
}

# 1. Stored while the program runs, deflated in its pauses and at its end:
#    the finished traces hold no stored chunk, and every event.
mkdir -p "$WORK/store"
MPROF_TEST_STORE=1 RUN_NAME=store mprof_run 120 "$WORK/store/trace" -- "$WORK/busy_bursts"
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "bursts: 16, child 0" "$(cat "$RUN_OUT")"
for t in "$WORK/store"/trace*; do
	read -r events stored <<<"$(chunk_counts "$t")"
	expect_range "1. $(basename "$t"): EVENTS chunks" 1 100000 "$events"
	expect_eq "1. $(basename "$t"): stored EVENTS chunks left" 0 "$stored"
done
expect_eq "1. nothing else in the folder" "trace trace.X" \
	"$(cd "$WORK/store" && ls | sed 's/^trace\.[0-9]*$/trace.X/' | tr '\n' ' ' | sed 's/ $//')"
expect_facts 1 "$WORK/store"

# 2. The launcher killed (SIGKILL) while it re-compresses at the end: the
#    traces are as they were, stored chunks and all, and read whole; the new
#    file was unnamed and left nothing behind.
mkdir -p "$WORK/stall"
MPROF_TEST_STORE=stall "$MPROF" run -o "$WORK/stall/trace" -- "$WORK/busy_bursts" \
	>"$WORK/stall.out" 2>"$WORK/stall.err" </dev/null &
launcher=$!
for _ in $(seq 600); do
	grep -q 'waiting to be killed' "$WORK/stall.err" && break
	kill -0 "$launcher" 2>/dev/null || break
	sleep 0.1
done
expect_match "2. the launcher stopped half way through the re-compression" \
	'^mprof: testing: the re-compression stopped half way' "$(cat "$WORK/stall.err")"
kill -KILL "$launcher" 2>/dev/null
wait "$launcher"
expect_eq "2. the launcher died of SIGKILL (128 + 9)" 137 "$?"
rm -rf /dev/shm/mprof-"$launcher"-* "${TMPDIR:-/tmp}"/mprof-"$launcher"-*
expect_eq "2. stdout" "bursts: 16, child 0" "$(cat "$WORK/stall.out")"
stored_total=0
for t in "$WORK/stall"/trace*; do
	read -r events stored <<<"$(chunk_counts "$t")"
	stored_total=$((stored_total + stored))
done
expect_range "2. stored EVENTS chunks still in the traces" 2 100000 "$stored_total"
expect_eq "2. nothing else in the folder" "trace trace.X" \
	"$(cd "$WORK/stall" && ls | sed 's/^trace\.[0-9]*$/trace.X/' | tr '\n' ' ' | sed 's/ $//')"
expect_facts 2 "$WORK/stall"
finish
