#!/bin/bash
# stored-chunks.sh - chunks the launcher stores while the program keeps every
# processor busy are deflated before `mprof run` returns, and a launcher
# killed during that loses nothing.  MPROF_TEST_STORE (a testing aid,
# mprof-run(1)) makes the launcher store every EVENTS chunk as it does for a
# busy program: "1" deflates them while the program pauses and at the end,
# "end" only at the end, "stall" only at the end, where it stops half way and
# waits to be killed.  At the end a helper thread per other processor
# deflates chunks while the launcher writes them in order: the cases run on
# every processor and on one (taskset), where there is no helper.
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

# stall_case N PREFIX...: the launcher, started under PREFIX (a taskset
# command or nothing), killed (SIGKILL) while it re-compresses at the end:
# the traces are as they were, stored chunks and all, and read whole; the
# new file was unnamed and left nothing behind.
stall_case() {
	local n=$1 launcher stored_total=0 events stored
	shift
	mkdir -p "$WORK/stall$n"
	MPROF_TEST_STORE=stall "$@" "$MPROF" run -o "$WORK/stall$n/trace" -- "$WORK/busy_bursts" \
		>"$WORK/stall$n.out" 2>"$WORK/stall$n.err" </dev/null &
	launcher=$!
	for _ in $(seq 600); do
		grep -q 'waiting to be killed' "$WORK/stall$n.err" && break
		kill -0 "$launcher" 2>/dev/null || break
		sleep 0.1
	done
	expect_match "$n. the launcher stopped half way through the re-compression" \
		'^mprof: testing: the re-compression stopped half way' "$(cat "$WORK/stall$n.err")"
	kill -KILL "$launcher" 2>/dev/null
	wait "$launcher"
	expect_eq "$n. the launcher died of SIGKILL (128 + 9)" 137 "$?"
	rm -rf /dev/shm/mprof-"$launcher"-* "${TMPDIR:-/tmp}"/mprof-"$launcher"-*
	expect_eq "$n. stdout" "bursts: 16, child 0" "$(cat "$WORK/stall$n.out")"
	for t in "$WORK/stall$n"/trace*; do
		read -r events stored <<<"$(chunk_counts "$t")"
		stored_total=$((stored_total + stored))
	done
	expect_range "$n. stored EVENTS chunks still in the traces" 2 100000 "$stored_total"
	expect_eq "$n. nothing else in the folder" "trace trace.X" \
		"$(cd "$WORK/stall$n" && ls | sed 's/^trace\.[0-9]*$/trace.X/' | tr '\n' ' ' | sed 's/ $//')"
	expect_facts "$n" "$WORK/stall$n"
}

# 2. Killed during the re-compression on every processor (helpers running),
# 3. and on one processor (the launcher alone).
stall_case 2
stall_case 3 taskset -c 0

# 4. Every chunk stored, all of them deflated at the end (by the helpers and
#    the launcher, written in order): no stored chunk left, every event.
mkdir -p "$WORK/end"
MPROF_TEST_STORE=end RUN_NAME=end mprof_run 120 "$WORK/end/trace" -- "$WORK/busy_bursts"
expect_eq "4. exit status" 0 "$RUN_STATUS"
for t in "$WORK/end"/trace*; do
	read -r events stored <<<"$(chunk_counts "$t")"
	expect_range "4. $(basename "$t"): EVENTS chunks" 2 100000 "$events"
	expect_eq "4. $(basename "$t"): stored EVENTS chunks left" 0 "$stored"
done
expect_eq "4. nothing else in the folder" "trace trace.X" \
	"$(cd "$WORK/end" && ls | sed 's/^trace\.[0-9]*$/trace.X/' | tr '\n' ' ' | sed 's/ $//')"
expect_facts 4 "$WORK/end"
finish
