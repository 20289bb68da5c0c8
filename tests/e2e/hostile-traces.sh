#!/bin/bash
# hostile-traces.sh - `mprof-analyze` on crafted traces whose contents point
# at things that would block or blow up a careless reader: a module path and
# a parent_trace that name a FIFO (opening one blocks until a writer comes),
# and a STACK record with a huge id (the node table is indexed by id).  Each
# must finish quickly with a report, never hang or eat gigabytes.
# The traces are written here by a small encoder (the format of
# man/mprof-trace.5; records as trace/record.h encodes them).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
mkfifo "$WORK/fifo" || skip "cannot make a FIFO"

"$PYTHON" - "$WORK" "$E2E_DIR" <<'EOF' || hard_error "cannot write the crafted traces"
import struct, sys
work = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from trace_craft import chunk, s, u

def raw_trace(name, chunks, major=4, header_bytes=64, minor=0):
    data = (b"MPROFTRC" + struct.pack("<HHII", major, minor, header_bytes, 0) + bytes(44) +
            b"".join(chunks))
    open(work + "/" + name, "wb").write(data)

def trace(name, meta, records, minor=0, end=b"exit_status=0\n"):
    events = u(0) + u(0) + u(0) + records   # slot 0, lap 0, offset 0
    raw_trace(name, [chunk(1, meta), chunk(2, events, 1), chunk(4, end)],
              major=1, minor=minor)

def modules(path):
    body = u(0) + u(1) + u(0x400000) + u(len(path)) + path + u(0) + u(1) + u(0) + u(0x10000)
    return b"\x80" + u(len(body)) + body

thread = b"\x02" + u(11)
def stack(sid, parent, ip_delta):
    return b"\x04" + u(sid) + u(parent) + s(ip_delta)
# ALLOC (malloc): seq+1, explicit address, size 10, stack delta +2
alloc = b"\x10" + u(1) + u(2) + s(0x10000) + u(10) + s(2)
stacks = stack(1, 0, 0) + stack(2, 1, 0x401000)

trace("module-fifo.trace", b"pid=100\n",
      thread + modules((work + "/fifo").encode()) + stacks + alloc)
trace("parent-fifo.trace",
      b"pid=101\nppid=100\nfork_seq=5\nparent_trace=" + (work + "/fifo").encode() + b"\n",
      thread + stacks + b"\x10" + u(6) + u(2) + s(0x10000) + u(10) + s(2))
trace("huge-stack-id.trace", b"pid=102\n",
      thread + stacks + stack(1 << 28, 1, 0) + alloc)
trace("parent-proc.trace",
      b"pid=103\nppid=100\nfork_seq=5\nparent_trace=/proc/version\n",
      thread + stacks + b"\x10" + u(6) + u(2) + s(0x10000) + u(10) + s(2))
# FREE records (seq+1, the address as explicit delta 0) of fn 6, a
# realloc's release (minor 3), and of fn 7, which no minor has: in a trace
# of a later minor than the reader's, the lost chunk says so
free_fn = lambda fn: bytes([0x20 + fn]) + u(1) + u(0) + s(0)
# END figures no run has: a negative run time, a peak RSS whose bytes
# overflow, an exit status wait() cannot give
trace("end-figures.trace", b"pid=110\n", thread + stacks + alloc,
      end=b"exit_status=4294967296\nwall_ns=-5\npeak_rss_kib=18446744073709551615\n")
trace("end-wall-huge.trace", b"pid=111\n", thread + stacks + alloc,
      end=b"exit_status=0\nwall_ns=18446744073709551615\n")
trace("free-fn6.trace", b"pid=107\n", thread + stacks + alloc + free_fn(6), minor=3)
trace("free-fn7.trace", b"pid=108\n", thread + stacks + alloc + free_fn(7), minor=3)
trace("free-fn7-minor9.trace", b"pid=109\n", thread + stacks + alloc + free_fn(7), minor=9)

# chunks with empty payloads, alone in their traces
raw_trace("empty-events.trace", [chunk(2, b"", 1, deflated=False)])
raw_trace("empty-symbols.trace", [chunk(3, b"", deflated=False)])
# a file header that says it is 1 GiB long, in a file of 88 bytes
raw_trace("header-past-end.trace", [chunk(1, b"pid=104\n", deflated=False)],
          header_bytes=1 << 30)
# mprof writes one META, one END and at most one SYMBOLS chunk; these
# repeat them, and the first META has more lines than a reader takes
meta = b"pid=105\nslots=4\n"
events = chunk(2, u(0) + u(0) + u(0) + thread + stacks + alloc, 1)
end = chunk(4, b"exit_status=0\n")
raw_trace("repeated-chunks.trace",
          [chunk(1, meta), chunk(1, b"pid=1\n"), events, end, chunk(4, b"exit_status=3\n"),
           chunk(3, b""), chunk(3, b"")])
raw_trace("meta-lines.trace", [chunk(1, b"a=\n" * 5000), events, end])

# A chain of 64 stack nodes with an allocation at each, and embedded
# symbols that answer every address with 100 inlined frames: the stack at
# depth d has 100 * d frames, past SITES_MAX_FRAMES (4096) from depth 41.
depth, inl = 64, 100
mod_body = (u(0) + u(1) + u(0) + u(7) + b"/x/m.so" + u(0) + u(1) + u(0) + u(0x100000))
nodes = b"\x80" + u(len(mod_body)) + mod_body + b"\x04" + u(1) + u(0) + s(0)
ip = 0
for i in range(depth):
    nodes += b"\x04" + u(i + 2) + u(i + 1) + s(0x1000 + 16 * i - ip)
    ip = 0x1000 + 16 * i
allocs = b"\x02" + u(1)
for i in range(depth):
    ref = b"\x02" + s(0x10000) if i == 0 else b"\x01"   # explicit address, then carved
    allocs += b"\x10" + u(1) + ref + u(16) + s(1 if i else 2)
strings = [b"/x/m.so", b"f", b"x.c"]
sym = u(1) + u(len(strings)) + b"".join(u(len(x)) + x for x in strings) + u(1) + u(0) + u(0)
sym += u(depth)
for i in range(depth):
    sym += u(0) + u(0x1000 + 16 * i) + u(3) + u(inl) + (u(2) + u(3) + u(7) + u(1)) * inl
raw_trace("inlined-frames.trace",
          [chunk(1, b"pid=106\nslots=4\nstack_stream=1\n"),
           chunk(2, u(0) + u(0) + u(0) + b"\x02\x00" + nodes, 1),
           chunk(2, u(1) + u(0) + u(0) + allocs, 2),
           chunk(4, b"process_state=ended\n"), chunk(3, sym)])
EOF

# A module path naming a FIFO: symbolized as module+offset, not opened.
run_cmd 20 module-fifo-report "$MPROF_ANALYZE" report "$WORK/module-fifo.trace"
expect_eq "module path is a FIFO: report finishes (exit status)" 0 "$RUN_STATUS"
expect_match "module path is a FIFO: the site is shown" "^#1 +site" "$(cat "$RUN_OUT")"
run_cmd 20 module-fifo-symbolize "$MPROF_ANALYZE" symbolize "$WORK/module-fifo.trace"
expect_eq "module path is a FIFO: symbolize finishes (exit status)" 0 "$RUN_STATUS"

# A parent_trace naming a FIFO: the parent counts as not found.
run_cmd 20 parent-fifo "$MPROF_ANALYZE" report "$WORK/parent-fifo.trace"
expect_eq "parent_trace is a FIFO: report finishes (exit status)" 0 "$RUN_STATUS"
expect_match "parent_trace is a FIFO: said to be not found" "parent trace .*not found" \
	"$(cat "$RUN_OUT")"

# A parent_trace naming a file of /proc, which looks regular and empty (as
# root, reading /proc/kmsg took the kernel's log, then waited for more; this
# test uses /proc/version, which any user may read): not read, the parent
# counts as unreadable.
run_cmd 20 parent-proc "$MPROF_ANALYZE" report "$WORK/parent-proc.trace"
expect_eq "parent_trace in /proc: report finishes (exit status)" 0 "$RUN_STATUS"
expect_match "parent_trace in /proc: said to be unreadable" \
	"parent trace unreadable [(]/proc/version: not an mprof trace [(]shorter than a file header" \
	"$(cat "$RUN_OUT")"

# A FIFO or a device named as the trace itself: refused without reading.
run_cmd 20 trace-fifo "$MPROF_ANALYZE" report "$WORK/fifo"
expect_eq "a FIFO as the trace: exit status" 1 "$RUN_STATUS"
expect_match "a FIFO as the trace: said so" "fifo: not an mprof trace [(]not a regular file[)]" \
	"$(cat "$RUN_ERR")"
run_cmd 20 trace-device "$MPROF_ANALYZE" report /dev/zero
expect_eq "a device as the trace: exit status" 1 "$RUN_STATUS"

# Empty EVENTS and SYMBOLS payloads: a report, no undefined behaviour (the
# sanitizer build stops at the first).
run_cmd 20 empty-events "$MPROF_ANALYZE" report "$WORK/empty-events.trace"
expect_eq "empty EVENTS chunk: exit status" 0 "$RUN_STATUS"
expect_match "empty EVENTS chunk: counted as lost" "1 chunk lost" "$(cat "$RUN_OUT")"
expect_match "empty EVENTS chunk: the header says the counts are incomplete" \
	"^mprof report: .* \(incomplete: data was lost; see data and warnings\)$" \
	"$(head -n 1 "$RUN_OUT")"
expect_match "empty EVENTS chunk: what was lost" "^data lost: +1 chunk lost: " "$(cat "$RUN_OUT")"
run_cmd 20 empty-symbols "$MPROF_ANALYZE" report "$WORK/empty-symbols.trace"
expect_eq "empty SYMBOLS chunk: exit status" 0 "$RUN_STATUS"
expect_match "empty SYMBOLS chunk: said to be corrupt" "embedded symbols are corrupt" \
	"$(cat "$RUN_ERR")"

# A FREE of fn 6 is a realloc's release; one of fn 7 loses its chunk, and
# says the reader is too old when the trace's minor is newer than its own.
run_cmd 20 free-fn6 "$MPROF_ANALYZE" report "$WORK/free-fn6.trace"
expect_eq "FREE of fn 6: exit status" 0 "$RUN_STATUS"
expect_match "FREE of fn 6: a realloc_release call" "^calls: +malloc 1, realloc_release 1$" \
	"$(cat "$RUN_OUT")"
expect_match "FREE of fn 6: no leak" "^leaked: +0 B in 0 blocks" "$(cat "$RUN_OUT")"
run_cmd 20 free-fn7 "$MPROF_ANALYZE" report "$WORK/free-fn7.trace"
expect_eq "FREE of fn 7: exit status" 0 "$RUN_STATUS"
expect_match "FREE of fn 7: its chunk lost" "lost: unknown record kind in events chunk$" \
	"$(cat "$RUN_OUT")"
run_cmd 20 free-fn7-minor9 "$MPROF_ANALYZE" report "$WORK/free-fn7-minor9.trace"
expect_eq "FREE of fn 7, minor 9: exit status" 0 "$RUN_STATUS"
expect_match "FREE of fn 7, minor 9: the reader said to be older than the trace" \
	"lost: unknown record kind in events chunk [(]trace format minor 9, newer than this mprof's [0-9]+[)]" \
	"$(cat "$RUN_OUT")"

# A header longer than the file: an error, not an empty report.
run_cmd 20 header-past-end "$MPROF_ANALYZE" report "$WORK/header-past-end.trace"
expect_eq "header past the end: exit status" 1 "$RUN_STATUS"
expect_match "header past the end: said so" "bad file header size 1073741824" "$(cat "$RUN_ERR")"

# A second META, END or SYMBOLS chunk: never read (a fuzzed trace of 16
# SYMBOLS chunks of 64 MiB each took 1.25 GB), and no chunk lost: the same
# as the first (SYMBOLS), dropped; unlike it (META, END), ignored.
run_cmd 20 repeated-chunks "$MPROF_ANALYZE" report "$WORK/repeated-chunks.trace"
expect_eq "repeated chunks: exit status" 0 "$RUN_STATUS"
expect_match "repeated chunks: the first META is read" "pid 105" "$(cat "$RUN_OUT")"
expect_match "repeated chunks: the first END is read" "exited with status 0" "$(cat "$RUN_OUT")"
expect_match "repeated chunks: none lost, 1 repeated" \
	"in 7 chunks; 0 chunks lost;.*; 1 META, END or SYMBOLS chunks repeated" "$(cat "$RUN_OUT")"
expect_match "repeated chunks: 2 unlike the first" "^warning: 2 META, END or SYMBOLS chunks \
unlike the first of their kind ignored \(the first: a second META chunk at offset [0-9]+\)$" \
	"$(cat "$RUN_OUT")"
expect_match "repeated chunks: its allocation counted" "^allocations: +1, 10 B" "$(cat "$RUN_OUT")"

# A META chunk of 5000 lines (mprof writes some 20): lost, not parsed (one
# that inflated to millions took 1.3 GB).
run_cmd 20 meta-lines "$MPROF_ANALYZE" report "$WORK/meta-lines.trace"
expect_eq "META of 5000 lines: exit status" 0 "$RUN_STATUS"
expect_match "META of 5000 lines: said to be lost" "lost: META chunk of too many lines" \
	"$(cat "$RUN_OUT")"

# Inlined frames past SITES_MAX_FRAMES per site: the innermost are left
# out, so the stacks from depth 41 on show the same 4096 frames, one site.
run_cmd 20 inlined-frames "$MPROF_ANALYZE" report --format json "$WORK/inlined-frames.trace"
expect_eq "4096 frames a site at most: exit status" 0 "$RUN_STATUS"
facts=$("$PYTHON" -c '
import json, sys
sites = json.load(open(sys.argv[1]))["sites"]
print(sorted(len(x["frames"]) for x in sites) == [100 * d for d in range(1, 41)] + [4096],
      max(x["stacks"] for x in sites))
' "$RUN_OUT" 2>&1)
expect_eq "4096 frames a site at most: 100 to 4000 frames, then 4096 for 24 stacks" \
	"True 24" "$facts"

# A STACK id of 2^28: refused, not a 12 GiB node table.
RUN_RSS=1 run_cmd 20 huge-stack-id "$MPROF_ANALYZE" symbolize "$WORK/huge-stack-id.trace"
expect_eq "huge stack id: symbolize finishes (exit status)" 0 "$RUN_STATUS"
expect_range "huge stack id: symbolize peak RSS (KiB)" 1 600000 "$(cat "$RUN_RSS_FILE")"
run_cmd 20 huge-stack-id-report "$MPROF_ANALYZE" report "$WORK/huge-stack-id.trace"
expect_eq "huge stack id: report finishes (exit status)" 0 "$RUN_STATUS"


# Events written twice (a chunk repeated with its checksums, two traces
# joined by cat): each sequence number counts once, the repeats are dropped
# and counted, and the header says the trace is damaged instead of "exact".
build_c "$WORK/tree_worker" "$PROGS_DIR/tree_worker.c"
RUN_NAME=worker mprof_run 60 "$WORK/w.trace" -- "$WORK/tree_worker" 3000
expect_eq "repeats: the run works" 0 "$RUN_STATUS"
"$PYTHON" - "$WORK/w.trace" "$WORK/dup.trace" <<'PY' || hard_error "cannot repeat a chunk"
import struct, sys
b = open(sys.argv[1], "rb").read()
off, events = 64, None
while off + 24 <= len(b):
    size = 24 + struct.unpack_from("<I", b, off + 8)[0]
    if b[off + 4] == 2 and (events is None or size > events[1]):  # the largest EVENTS chunk
        events = (off, size)
    off += size
o, n = events
open(sys.argv[2], "wb").write(b[:o + n] + b[o:o + n] + b[o + n:])
PY
cat "$WORK/w.trace" "$WORK/w.trace" >"$WORK/cat.trace"
for t in dup cat; do
	report_json "$WORK/$t.json" "$WORK/$t.trace" || continue
	expect_eq "repeats ($t): allocations counted once" 3000 \
		"$(q "$WORK/$t.json" summary allocations)"
	expect_eq "repeats ($t): leaks counted once" 1500 "$(q "$WORK/$t.json" summary leaked_blocks)"
done
# (the second file header starts a copy of the whole trace: skipped
# unread, none of its chunks is a repeat, nothing is damaged)
expect_eq "repeats (cat): no repeated chunks" 0 \
	"$(q "$WORK/cat.json" summary quality.repeated_chunks)"
expect_eq "repeats (cat): the copy counted" 1 \
	"$(q "$WORK/cat.json" summary quality.trace_copies)"
run_cmd 20 cat-text "$MPROF" report -n 0 "$WORK/cat.trace"
expect_match "repeats (cat): the header says exact" \
	"^mprof report: .*\(exact: every allocation recorded\)$" "$(head -1 "$RUN_OUT")"
report_json "$WORK/w.json" "$WORK/w.trace"
expect_eq "repeats: the intact trace has none" 0 "$(q "$WORK/w.json" summary quality.repeated_events)"
# A chunk in the middle of a thread's stream, written twice: its slot has
# read that stretch already, so the repeat is dropped unread (before, the
# chunk after it was taken for a loss: 369378 of 400000 allocations).
RUN_NAME=worker-long mprof_run 60 "$WORK/wl.trace" -- "$WORK/tree_worker" 400000
expect_eq "repeated chunk: the run works" 0 "$RUN_STATUS"
"$PYTHON" - "$WORK/wl.trace" "$WORK/dup-mid.trace" <<'PY' || hard_error "cannot repeat a chunk"
import struct, sys
b = open(sys.argv[1], "rb").read()
off, events = 64, []
while off + 24 <= len(b):
    size = 24 + struct.unpack_from("<I", b, off + 8)[0]
    if b[off + 4] == 2:
        events.append((off, size))
    off += size
assert len(events) >= 3, "want 3 EVENTS chunks, got %d" % len(events)
o, n = events[len(events) // 2]
open(sys.argv[2], "wb").write(b[:o + n] + b[o:o + n] + b[o + n:])
PY
if report_json "$WORK/dup-mid.json" "$WORK/dup-mid.trace"; then
	expect_eq "repeated chunk: allocations counted once" 400000 \
		"$(q "$WORK/dup-mid.json" summary allocations)"
	expect_eq "repeated chunk: leaks counted once" 200000 \
		"$(q "$WORK/dup-mid.json" summary leaked_blocks)"
	expect_eq "repeated chunk: no chunk lost" 0 "$(q "$WORK/dup-mid.json" summary quality.chunks_lost)"
	expect_eq "repeated chunk: no event missing" 0 \
		"$(q "$WORK/dup-mid.json" summary quality.missing_events)"
	expect_eq "repeated chunk: counted" 1 "$(q "$WORK/dup-mid.json" summary quality.repeated_chunks)"
fi
run_cmd 20 dup-mid-text "$MPROF" report -n 0 "$WORK/dup-mid.trace"
expect_match "repeated chunk: the header says damaged" "^mprof report: .*\(damaged: " \
	"$(head -1 "$RUN_OUT")"
expect_match "repeated chunk: the data line says so" "; 1 chunks repeated \(dropped\)" \
	"$(cat "$RUN_OUT")"


# A marker's name with a terminal's escape sequences (ESC [, and CSI as a C1
# control in UTF-8): every message that quotes it writes them as \xNN.
cat >"$WORK/escape_marker.c" <<'C'
#include <mprof.h>
int main(void) { mprof_marker("x\x1b[31m\xc2\x9b" "2Jy"); return 0; }
C
build_c "$WORK/escape_marker" "$WORK/escape_marker.c" -I"$abs_top_srcdir/include"
RUN_NAME=escape mprof_run 60 "$WORK/esc.trace" -- "$WORK/escape_marker"
expect_eq "escapes: the run works" 0 "$RUN_STATUS"
run_cmd 20 esc-nope "$MPROF" report "$WORK/esc.trace" --from marker:nope
expect_eq "escapes: an unknown marker is an error" 2 "$RUN_STATUS"
expect_eq "escapes: the error names the marker escaped" 1 \
	"$(grep -c 'its markers: x\\x1b\[31m\\xc2\\x9b2Jy)' "$RUN_ERR")"
expect_eq "escapes: no ESC, no C1 control in the error" 0 \
	"$(LC_ALL=C grep -c "$(printf '\033\\|\302\233')" "$RUN_ERR")"
run_cmd 20 esc-text "$MPROF" report -n 0 "$WORK/esc.trace"
expect_eq "escapes: the text report's marker line escaped" 1 \
	"$(grep -c '^markers: *x\\x1b\[31m\\xc2\\x9b2Jy at ' "$RUN_OUT")"
expect_eq "escapes: no ESC, no C1 control in the text report" 0 \
	"$(LC_ALL=C grep -c "$(printf '\033\\|\302\233')" "$RUN_OUT")"


# END figures out of any run's range are left unknown, in every place that
# reads them: the run time, and the run time that --from N% takes a share of
report_json "$WORK/end.json" "$WORK/end-figures.trace"
expect_eq "END figures: exit status unknown" null \
	"$(q "$WORK/end.json" summary program.exit_status)"
expect_eq "END figures: run time unknown" null "$(q "$WORK/end.json" summary run_time_ns)"
expect_eq "END figures: peak RSS unknown" null "$(q "$WORK/end.json" summary peak_rss_kib)"
for t in end-figures end-wall-huge; do
	run_cmd 20 "$t-pct" "$MPROF" report "$WORK/$t.trace" --from 50%
	expect_eq "END figures ($t): --from 50% has no run time to take half of" 2 "$RUN_STATUS"
done


# The file header's "sampled" flag flipped (the header has no checksum):
# META's mode, in a checksummed chunk, says the trace is exact.
"$PYTHON" -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[16] ^= 1; open(sys.argv[2], "wb").write(b)' \
	"$WORK/w.trace" "$WORK/flag.trace"
report_json "$WORK/flag.json" "$WORK/flag.trace"
expect_eq "header flag flipped: still exact" false "$(q "$WORK/flag.json" get trace.sampled)"
expect_eq "header flag flipped: temporary still counted" 1500 "$(q "$WORK/flag.json" summary temporary)"
finish
