#!/bin/bash
# unrecorded-cut-copy.sh - a copy of a trace cut short (head -c N a), then
# a different trace written under the same name (cat b), or the copy
# written again: the reader never takes the other trace's chunks for this
# one's and says what it read.  Two runs of one program have the same file
# header, so only the chunks tell them apart.  Cases (a: small_leak, b:
# leak_count 5): a cut after a's largest EVENTS chunk, then b: a's events,
# b named as a second trace, not read; a cut inside that chunk, then b:
# the chunk lost, said to be cut short by b's file header (not a checksum
# mismatch); a cut inside it, then a whole: every event of a once,
# also when `mprof-analyze symbolize` reads it (which skips the chunk cut
# short unread and must find the copy's file header inside it, not cut the
# file there); a cut, then a cut shorter still: two copies, no second trace.
# Programs and facts: tests/progs/small_leak.c, tests/progs/leak_count.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/small_leak" "$PROGS_DIR/small_leak.c"
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"
mprof_run 60 "$WORK/a" -q -- "$WORK/small_leak"
expect_eq "run a: exit status" 0 "$RUN_STATUS"
RUN_NAME=run-b mprof_run 60 "$WORK/b" -q -- "$WORK/leak_count" 5
expect_eq "run b: exit status" 0 "$RUN_STATUS"

"$PYTHON" - "$WORK" <<'PY' || hard_error "cannot write the traces"
import struct, sys
work = sys.argv[1]
a = open(work + "/a", "rb").read()
b = open(work + "/b", "rb").read()
def w(name, data):
    open("%s/%s.trace" % (work, name), "wb").write(data)
chunks, off = [], 64
while off < len(a):
    stored = struct.unpack_from("<I", a, off + 8)[0]
    chunks.append((off, a[off + 4], 24 + stored))
    off += 24 + stored
# cut at the end of a's largest EVENTS chunk (its events all read), or
# halfway into it (its events lost; a chunk symbolize skips unread)
big = max((c for c in chunks if c[1] == 2), key=lambda c: c[2])
cut = big[0] + big[2]
mid = big[0] + big[2] // 2
w("before-big", a[:big[0]])
w("to-cut", a[:cut])
w("border-then-b", a[:cut] + b)
w("mid-then-b", a[:mid] + b)
w("mid-then-a", a[:mid] + a)
w("mid-then-shorter", a[:mid] + a[:mid - 10])
open(work + "/cuts", "w").write("%d %d %d" % (cut, mid, big[0]))
PY
read -r cut mid big <"$WORK/cuts"
facts() {
	json_eval "$1" '"%d %d %d" % (d["summary"]["allocations"], d["summary"]["frees"], d["summary"]["quality"]["chunks_lost"])'
}
where() {
	json_eval "$1" '"%s %s %s" % (d["summary"]["quality"].get("trace_copies"), d["summary"]["quality"].get("cut_copy_offset"), d["summary"]["quality"].get("second_trace_offset"))'
}
report_json "$WORK/a.json" "$WORK/a" || finish
report_json "$WORK/b.json" "$WORK/b" || finish
expect_eq "a: allocations, frees, chunks lost" "20004 20000 0" "$(facts "$WORK/a.json")"

# cut at a chunk's border: a's events up to the cut (a chunk of a's after
# its largest, as a last drain's, is not in the copy), none of b's
report_json "$WORK/border.json" "$WORK/border-then-b.trace" || finish
report_json "$WORK/to-cut.json" "$WORK/to-cut.trace" || finish
expect_eq "border-then-b: a's allocations, frees, chunks lost up to the cut" \
	"$(facts "$WORK/to-cut.json")" "$(facts "$WORK/border.json")"
expect_eq "border-then-b: none of b's sites (leak_blocks, churn)" 0 \
	"$(json_eval "$WORK/border.json" 'sum(1 for s in d["sites"] if any(f["function"] in ("leak_blocks", "churn") for f in s["frames"]))')"
expect_eq "border-then-b: copies, cut copy, second trace" "0 None $cut" \
	"$(where "$WORK/border.json")"
run_cmd 20 border-text "$MPROF" report "$WORK/border-then-b.trace" -o "$WORK/out"
expect_eq "border-then-b: warnings" \
	"warning: another trace's file header at offset $cut: the file holds a second trace, not read; this report is of the first
warning: the trace has no END chunk: the recording did not finish" "$(grep '^warning:' "$WORK/out")"

# cut inside that chunk: it is lost, cut by b's file header
report_json "$WORK/mid-b.json" "$WORK/mid-then-b.trace" || finish
report_json "$WORK/before-big.json" "$WORK/before-big.trace" || finish
expect_eq "mid-then-b: allocations, frees as a's chunks before the cut one; 1 lost" \
	"$(facts "$WORK/before-big.json" | cut -d' ' -f1-2) 1" "$(facts "$WORK/mid-b.json")"
expect_eq "mid-then-b: copies, cut copy, second trace" "0 None $mid" \
	"$(where "$WORK/mid-b.json")"
run_cmd 20 mid-b-text "$MPROF" report "$WORK/mid-then-b.trace" -o "$WORK/out"
expect_eq "mid-then-b: the lost chunk's warning" \
	"warning: chunk at offset $big lost: cut short by another trace's file header at offset $mid" \
	"$(grep '^warning: chunk at' "$WORK/out")"

# cut inside, then a whole: read once, and symbolize keeps every byte
report_json "$WORK/mid-a.json" "$WORK/mid-then-a.trace" || finish
expect_eq "mid-then-a: allocations, frees, chunks lost" "20004 20000 0" \
	"$(facts "$WORK/mid-a.json")"
expect_eq "mid-then-a: copies, cut copy, second trace" "1 $mid None" \
	"$(where "$WORK/mid-a.json")"
bytes=$(stat -c %s "$WORK/mid-then-a.trace")
run_cmd 60 symbolize "$MPROF_ANALYZE" symbolize "$WORK/mid-then-a.trace"
expect_eq "symbolize mid-then-a: exit status" 0 "$RUN_STATUS"
expect_eq "symbolize mid-then-a: nothing on stderr" "" "$(cat "$RUN_ERR")"
expect_eq "symbolize mid-then-a: the file kept whole" "$bytes" "$(stat -c %s "$WORK/mid-then-a.trace")"
report_json "$WORK/mid-a2.json" "$WORK/mid-then-a.trace" || finish
expect_eq "mid-then-a after symbolize: allocations, frees, chunks lost" "20004 20000 0" \
	"$(facts "$WORK/mid-a2.json")"

# a cut, then a copy cut shorter still: the same trace, not a second one
report_json "$WORK/shorter.json" "$WORK/mid-then-shorter.trace" || finish
expect_eq "mid-then-shorter: copies, cut copy, second trace" \
	"1 $mid None" "$(where "$WORK/shorter.json")"
expect_eq "mid-then-shorter: allocations, frees (a's chunks before the cut one)" \
	"$(facts "$WORK/before-big.json" | cut -d' ' -f1-2)" \
	"$(facts "$WORK/shorter.json" | cut -d' ' -f1-2)"
finish
