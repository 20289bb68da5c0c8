#!/bin/bash
# sparse-slots.sh - the reader's per-slot tables grow with the thread slots
# a trace holds, not with the largest slot number one of its EVENTS chunks
# names: a chunk of a slot past the largest the decoder takes (65535) is
# lost at once (a fuzzed trace of 2 KiB naming slot 1001776 took 318 MiB
# and 5 s), and a trace whose chunks name slots 0, 30000 and 65535 (no
# META slots line bounds them) is reported in a few MiB with its exact
# figures, its events merged across the three slots in sequence order.
# The traces are written here by the encoder of tests/e2e/trace_craft.py.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

"$PYTHON" - "$WORK" "$E2E_DIR" <<'PY' || hard_error "cannot write the crafted traces"
import struct, sys
work = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from trace_craft import chunk, s, u

def raw_trace(name, chunks):
    data = b"MPROFTRC" + struct.pack("<HHII", 1, 0, 64, 0) + bytes(44) + b"".join(chunks)
    open(work + "/" + name, "wb").write(data)

def events(slot, records):
    # slot, lap 0, offset 0, a THREAD record (tid 11 + slot), the records
    return chunk(2, u(slot) + u(0) + u(0) + b"\x02" + u(11 + slot) + records,
                 (slot + 1) & 0xFFFF)

def stack(sid, parent, ip_delta):
    return b"\x04" + u(sid) + u(parent) + s(ip_delta)

def alloc(seq_delta, address, size):
    # ALLOC (malloc): sequence delta, explicit address (a delta from the
    # slot's last one), size, stack +2
    return b"\x10" + u(seq_delta) + u(2) + s(address) + u(size) + s(2)

stacks = stack(1, 0, 0) + stack(2, 1, 0x401000)
meta = chunk(1, b"pid=120\n")
end = chunk(4, b"exit_status=0\n")
# a chunk in slot 0 and one in a slot no recorder makes
raw_trace("far-slot.trace", [meta, events(0, stacks + alloc(1, 0x10000, 10)),
                             events(1001776, alloc(2, 0x20000, 20)), end])
# three slots far apart, their events interleaved in sequence: slot 0 has
# events 1 and 4 (blocks 0x10000 and 0x50000), slot 65535 event 2, slot 30000 event 3
raw_trace("three-slots.trace",
          [meta, events(0, stacks + alloc(1, 0x10000, 10) + alloc(3, 0x40000, 40)),
           events(65535, alloc(2, 0x30000, 20)), events(30000, alloc(3, 0x40000, 30)), end])
PY

for name in far-slot three-slots; do
	RUN_RSS=1 run_cmd 60 "$name" "$MPROF_ANALYZE" report "$WORK/$name.trace"
	expect_eq "$name: exit status" 0 "$RUN_STATUS"
	expect_range "$name: the analyzer's peak RSS (KiB)" 1 65536 "$(cat "$RUN_RSS_FILE")"
done
expect_match "far-slot: its chunk lost, as one with a bad header" \
	"^warning: chunk at offset [0-9]+ lost: events chunk with a bad header$" \
	"$(cat "$WORK/far-slot.out")"
expect_match "far-slot: one chunk lost" \
	"^data: +1 event in 4 chunks; 1 chunk lost; 0 sequence gaps [(]0 events missing[)]$" \
	"$(cat "$WORK/far-slot.out")"
expect_match "far-slot: the allocation of slot 0 counted" "^allocations: +1, 10 B requested$" \
	"$(cat "$WORK/far-slot.out")"
expect_match "three-slots: no chunk lost, no gap" \
	"^data: +4 events in 5 chunks; 0 chunks lost; 0 sequence gaps [(]0 events missing[)]$" \
	"$(cat "$WORK/three-slots.out")"
expect_match "three-slots: every allocation counted" "^allocations: +4, 100 B requested$" \
	"$(cat "$WORK/three-slots.out")"
expect_match "three-slots: the peak after the last, in merged order" \
	"^heap peak: +100 B in 4 blocks, at event 4" "$(cat "$WORK/three-slots.out")"
expect_match "three-slots: all four live at exit" "^leaked: +100 B in 4 blocks" \
	"$(cat "$WORK/three-slots.out")"

finish
