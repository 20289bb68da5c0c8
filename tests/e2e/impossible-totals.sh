#!/bin/bash
# impossible-totals.sh - crafted traces whose figures no program can make: a
# report refuses the records that cannot be true (a size above PTRDIFF_MAX,
# which glibc refuses; a weight above 2^32-1, where the recorder's weights
# stop) and counts them, and sums that still do not fit 64 bits stop at
# 2^64-1 and say so, in every format and in diff, instead of wrapping into
# small, believable numbers.
# The traces are written here by the encoder of hostile-traces.sh
# (tests/e2e/trace_craft.py; the format of man/mprof-trace.5).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

"$PYTHON" - "$WORK" "$E2E_DIR" <<'EOF' || hard_error "cannot write the crafted traces"
import struct, sys
work = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from trace_craft import chunk, s, u

def trace(name, meta, records):
    events = u(0) + u(0) + u(0) + records   # slot 0, lap 0, offset 0
    data = (b"MPROFTRC" + struct.pack("<HHII", 1, 0, 64, 0) + bytes(44) +
            chunk(1, meta) + chunk(2, events, 1) + chunk(4, b"exit_status=0\n"))
    open(work + "/" + name, "wb").write(data)

thread = b"\x02" + u(11)
def stack(sid, parent, ip_delta):
    return b"\x04" + u(sid) + u(parent) + s(ip_delta)
# a root and three frames below it, each the leaf of a stack
stacks = stack(1, 0, 0) + stack(2, 1, 0x401000) + stack(3, 1, 0x10) + stack(4, 1, 0x10)
def alloc(size, addr_delta=0x1000, stack_delta=0, weight=None):
    """ALLOC (malloc) at the previous explicit address + addr_delta; with a
    weight, ALLOC_WEIGHTED."""
    body = u(1) + u(2) + s(addr_delta) + u(size) + s(stack_delta)
    return b"\x10" + body if weight is None else b"\x40" + body + u(weight)
def ext(kind, body):
    return bytes([kind]) + u(len(body)) + body
big = 2**63 - 1   # PTRDIFF_MAX: the largest size a call can have

# sizes of 2^63 (refused) and 5 bytes
trace("huge.trace", b"pid=201\n",
      thread + stacks + alloc(2**63, 0x10000, 2) + alloc(2**63) + alloc(5))
# three blocks of PTRDIFF_MAX at one stack: their sum does not fit
trace("sum.trace", b"pid=202\n",
      thread + stacks + alloc(big, 0x10000, 2) + alloc(big) + alloc(big))
# the same at three stacks: each site fits, the heap does not
trace("sites.trace", b"pid=203\n",
      thread + stacks + alloc(big, 0x10000, 2) + alloc(big, 0x1000, 1) + alloc(big, 0x1000, 1))
# UNRECORDED counts of 2^64-1 and 5
trace("unrecorded.trace", b"pid=204\n",
      thread + stacks + alloc(10, 0x10000, 2) + ext(0x84, u(2**64 - 1) + u(0)) +
      ext(0x84, u(5) + u(0)))
# a weight of 2^32 (refused), then two of 2^32-1 at 1 TiB each
trace("weights.trace", b"pid=205\nmode=sampled\n",
      thread + stacks + alloc(2**40, 0x10000, 2, 2**32) + alloc(2**40, 0x1000, 0, 2**32 - 1) +
      alloc(2**40, 0x1000, 0, 2**32 - 1))
# a block of 16 bytes, then a REALLOC of it (fref 1: the newest block) to
# 2^63 bytes (refused: the block stays as it was)
trace("realloc.trace", b"pid=206\n",
      thread + stacks + alloc(16, 0x10000, 2) +
      b"\x32" + u(1) + u(1) + u(1) + u(2) + s(0x1000) + u(2**63) + s(0))
EOF

max=18446744073709551615   # 2^64 - 1
# j FILE EXPR: EXPR over the JSON report in FILE (d)
j() { json_eval "$1" "$2"; }

# Sizes above PTRDIFF_MAX: refused and counted, the 5-byte block alone
# counted (before: "allocations: 3, 5 B requested", "5 B in 3 blocks").
run_cmd 20 huge-text "$MPROF" report -n 0 "$WORK/huge.trace"
expect_eq "size 2^63: exit status" 0 "$RUN_STATUS"
expect_match "size 2^63: one allocation of 5 B" "^allocations: +1, 5 B requested$" \
	"$(cat "$RUN_OUT")"
expect_match "size 2^63: one block of 5 B leaked" "^leaked: +5 B in 1 block" "$(cat "$RUN_OUT")"
expect_match "size 2^63: the refused records said" \
	"^bad records: +2 allocation records refused: a size above PTRDIFF_MAX" "$(cat "$RUN_OUT")"
expect_match "size 2^63: the header says damaged" "^mprof report: .*\(damaged: " \
	"$(head -n 1 "$RUN_OUT")"
if report_json "$WORK/huge.json" "$WORK/huge.trace"; then
	expect_eq "size 2^63: JSON allocations, bytes, events, peak bytes" "1 5 1 5" \
		"$(j "$WORK/huge.json" '" ".join(str(d["summary"][k]) for k in ("allocations", "allocated_bytes", "events")) + " %s" % d["summary"]["peak"]["bytes"]')"
	expect_eq "size 2^63: JSON refused records, no saturation, no gap" "2 False 0" \
		"$(j "$WORK/huge.json" '"%s %s %s" % (d["summary"]["quality"]["bad_alloc_records"], d["summary"]["quality"]["saturated"], d["summary"]["quality"]["missing_events"])')"
fi

# A REALLOC to 2^63 bytes: refused, the old block stays live and counted
# once (before: 2 allocations, 1 realloc, 2^63 B leaked).
if report_json "$WORK/realloc.json" "$WORK/realloc.trace"; then
	expect_eq "realloc to 2^63: allocations, leaked bytes and blocks, reallocs, refused" \
		"1 16 1 0 1" \
		"$(j "$WORK/realloc.json" '" ".join(str(x) for x in (d["summary"]["allocations"], d["summary"]["leaked_bytes"], d["summary"]["leaked_blocks"], d["summary"]["reallocs"], d["summary"]["quality"]["bad_alloc_records"]))')"
fi

# Three blocks of PTRDIFF_MAX: the sums stop at 2^64-1 and the report says
# so (before: 9223372036854775805 B allocated and leaked, peak 2^64-2).
run_cmd 20 sum-text "$MPROF" report -n 0 "$WORK/sum.trace"
expect_match "PTRDIFF_MAX x3: allocated bytes stop at 2^64-1" \
	"^allocations: +3, $max B \(16.0 EiB\) requested$" "$(cat "$RUN_OUT")"
expect_match "PTRDIFF_MAX x3: the warning" "^warning: figures shown as $max .* stopped there" \
	"$(cat "$RUN_OUT")"
if report_json "$WORK/sum.json" "$WORK/sum.trace"; then
	expect_eq "PTRDIFF_MAX x3: JSON allocated, leaked, peak bytes; saturated; refused" \
		"$max $max $max True 0" \
		"$(j "$WORK/sum.json" '" ".join(str(x) for x in (d["summary"]["allocated_bytes"], d["summary"]["leaked_bytes"], d["summary"]["peak"]["bytes"], d["summary"]["quality"]["saturated"], d["summary"]["quality"]["bad_alloc_records"]))')"
	expect_eq "PTRDIFF_MAX x3: the site's bytes stop at 2^64-1" "$max" \
		"$(q "$WORK/sum.json" sum-all allocated_bytes)"
fi
# pprof's values are int64: they stop at 2^63-1, with a comment (before:
# the wrapped 9223372036854775805)
run_cmd 20 sum-pprof "$MPROF" report --format pprof -o "$WORK/sum.pb.gz" "$WORK/sum.trace"
expect_eq "PTRDIFF_MAX x3, pprof: inuse_space stops at 2^63-1" 9223372036854775807 \
	"$("$PYTHON" "$E2E_DIR/pprof.py" "$WORK/sum.pb.gz" total inuse_space 2>&1)"
expect_match "PTRDIFF_MAX x3, pprof: a comment says so" "^damaged trace: values stopped" \
	"$("$PYTHON" "$E2E_DIR/pprof.py" "$WORK/sum.pb.gz" get comments 2>&1)"

# Three sites of PTRDIFF_MAX each: every format's sums over sites stop at
# 2^64-1 (before: folded and massif wrapped to 9223372036854775805).
run_cmd 20 sites-folded "$MPROF" report --format folded -o "$WORK/sites.folded" "$WORK/sites.trace"
expect_eq "3 sites, folded: the merged stack stops at 2^64-1" "[unknown] $max" \
	"$(cat "$WORK/sites.folded")"
run_cmd 20 sites-massif "$MPROF" report --format massif -o "$WORK/sites.massif" "$WORK/sites.trace"
expect_eq "3 sites, massif: the heap and its tree's top stop at 2^64-1" \
	"mem_heap_B=$max|n3: $max" \
	"$(grep -m1 '^mem_heap_B=' "$WORK/sites.massif")|$(grep -m1 -o "^n3: [0-9]*" "$WORK/sites.massif")"
run_cmd 20 sites-speedscope "$MPROF" report --format speedscope -o "$WORK/sites.speedscope" \
	"$WORK/sites.trace"
expect_eq "3 sites, speedscope: peak bytes' endValue stops at 2^64-1, said in its name" \
	"$max True" \
	"$(j "$WORK/sites.speedscope" '"%s %s" % (d["profiles"][0]["endValue"], "stopped at 2^64-1" in d["profiles"][0]["name"])')"

# UNRECORDED counts of 2^64-1 and 5: at least 2^64-1 (before: 4).
run_cmd 20 unrecorded-text "$MPROF" report -n 0 "$WORK/unrecorded.trace"
expect_match "UNRECORDED 2^64-1 + 5: at least 2^64-1 not recorded" \
	"^data lost: +at least $max allocations not recorded" "$(cat "$RUN_OUT")"
if report_json "$WORK/unrecorded.json" "$WORK/unrecorded.trace"; then
	expect_eq "UNRECORDED 2^64-1 + 5: JSON count, saturated" "$max True" \
		"$(j "$WORK/unrecorded.json" '"%s %s" % (d["summary"]["quality"]["unrecorded_allocations"], d["summary"]["quality"]["saturated"])')"
fi

# Weights: 2^32 refused; two of 2^32-1 at 1 TiB: count exact, bytes stop
# (before: 12884901885 allocations, 18446740775174668288 B).
if report_json "$WORK/weights.json" "$WORK/weights.trace"; then
	expect_eq "weights: allocations, bytes, refused, saturated" "8589934590 $max 1 True" \
		"$(j "$WORK/weights.json" '" ".join(str(x) for x in (d["summary"]["allocations"], d["summary"]["allocated_bytes"], d["summary"]["quality"]["bad_alloc_records"], d["summary"]["quality"]["saturated"]))')"
fi

# diff: the change from 2^64-1 to 5 bytes is -100%, not -50% (a change
# clamped to -(2^63-1) divided by 2^64-1), and a warning says so.
run_cmd 20 diff-text "$MPROF" diff "$WORK/sum.trace" "$WORK/huge.trace"
expect_match "diff: allocated bytes -100.0%" \
	"^  allocated bytes +$max +5 +-9223372036854775807 +-100.0%$" "$(cat "$RUN_OUT")"
expect_match "diff: the warning" "^warning: figures above 2\^63-1" "$(cat "$RUN_OUT")"
run_cmd 20 diff-json "$MPROF" diff --format json "$WORK/sum.trace" "$WORK/huge.trace"
expect_eq "diff, JSON: saturated" True "$(j "$RUN_OUT" 'd["saturated"]')"
finish
