#!/bin/bash
# corrupt-traces.sh - a small set of the kinds of corrupt trace a mutator
# fed mprof-analyze (2026-12-07: some 2500 cases under ASan/UBSan, in every
# format, none crashed, hung or went past a short error): each, in
# every report format, with a window and as B of `mprof diff`, ends with either
# the report and one warning line naming the damage, or one error line and
# status 1 (2 for diff); never a crash, a hang or a sanitizer report.  The
# damaged traces keep the good trace's exact counts where they still hold
# every event (chunks repeated are dropped, not counted twice).  A second
# META, END or SYMBOLS chunk holds no events: the same as the first, it is
# dropped with no warning; unlike it, it is ignored with one warning; in
# neither case are chunks said to be lost or the counts short.  A file that
# holds its trace twice (cat t t), or a cut copy then the whole (cut at a
# chunk's border or inside a chunk: head -c N t; cat t), is read once with
# no warning, the cut copy named on the data line and in JSON; a file that holds a second, other trace is read up
# to it, with one warning, and `mprof-analyze symbolize` leaves it alone.
# Programs and facts: tests/progs/small_leak.c (20003 allocations),
# tests/progs/leak_count.c (the second trace: 105 allocations).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/small_leak" "$PROGS_DIR/small_leak.c"
build_c "$WORK/leak_count" "$PROGS_DIR/leak_count.c"
mprof_run 60 "$WORK/good" -q -- "$WORK/small_leak"
expect_eq "run: exit status" 0 "$RUN_STATUS"
RUN_NAME=run-other mprof_run 60 "$WORK/other" -q -- "$WORK/leak_count" 5
expect_eq "run of leak_count: exit status" 0 "$RUN_STATUS"

"$PYTHON" - "$WORK" <<'PY' || hard_error "cannot write the corrupt traces"
import struct, sys, zlib
work = sys.argv[1]
d = open(work + "/good", "rb").read()
other = open(work + "/other", "rb").read()
def w(name, data):
    open("%s/%s.trace" % (work, name), "wb").write(data)
def chunk_hdr(stored, raw):
    h = struct.pack("<IBBHIII", 0x4B43504D, 2, 1, 1, len(stored), raw, zlib.crc32(stored))
    return h + struct.pack("<I", zlib.crc32(h)) + stored
w("major7", d[:8] + struct.pack("<H", 7) + d[10:])
w("major0", d[:8] + struct.pack("<H", 0) + d[10:])
w("header-huge", d[:12] + struct.pack("<I", 0xFFFFFFFF) + d[16:])
w("header-small", d[:12] + struct.pack("<I", 8) + d[16:])
w("zeros", bytes(len(d)))
w("cut-header", d[:40])
# the first chunk's header checksum broken
w("flipped", d[:64 + 21] + bytes([d[64 + 21] ^ 1]) + d[64 + 22:])
# an EVENTS chunk of valid zlib of garbage, checksums right
w("zlib-garbage", d + chunk_hdr(zlib.compress(bytes(range(256)) * 4), 1024))
# inflated lengths that lie: 64 MiB, 4 GiB - 1
w("raw-64mib", d + chunk_hdr(zlib.compress(bytes(10)), 64 << 20))
w("raw-4gib", d + chunk_hdr(zlib.compress(bytes(10)), 0xFFFFFFFF))
# every chunk twice, and the whole file twice
out, off = d[:64], 64
while off < len(d):
    stored = struct.unpack_from("<I", d, off + 8)[0]
    out += d[off:off + 24 + stored] * 2
    off += 24 + stored
w("chunks-twice", out)
w("file-twice", d + d)
# three times, the third cut inside a chunk; the first two chunks, then
# the whole (a writer that restarted); another run's trace after this one
w("file-thrice-cut", d + d + d[:len(d) // 2])
first_two = 64
for _ in range(2):
    first_two += 24 + struct.unpack_from("<I", d, first_two + 8)[0]
w("cut-then-whole", d[:first_two] + d)
# a first copy cut inside the third chunk's header or payload (head -c N t;
# cat t), and a second copy cut so between two whole ones
w("cut-mid-header-then-whole", d[:first_two + 10] + d)
w("cut-mid-chunk-then-whole", d[:first_two + 40] + d)
w("whole-cut-mid-whole", d + d[:first_two + 40] + d)
open(work + "/first-two", "w").write("%d" % first_two)
w("two-traces", d + other)
open(work + "/good-bytes", "w").write("%d" % len(d))
# a chunk of a type a newer mprof may write (9), after the first chunk
future = b"future"
fh = struct.pack("<IBBHIII", 0x4B43504D, 9, 0, 0, len(future), len(future), zlib.crc32(future))
first = 64 + 24 + struct.unpack_from("<I", d, 72)[0]
w("unknown-type", d[:first] + fh + struct.pack("<I", zlib.crc32(fh)) + future + d[first:])
# a second META, END or SYMBOLS chunk right after the first: the same
# bytes, or unlike them (a key added, a value changed, a byte cut)
chunks, off = [], 64
while off < len(d):
    stored = struct.unpack_from("<I", d, off + 8)[0]
    chunks.append(d[off:off + 24 + stored])
    off += 24 + stored
def second(kind, edit):
    out = d[:64]
    for c in chunks:
        out += c
        if c[4] == kind:
            raw = edit(zlib.decompress(c[24:]))
            stored = zlib.compress(raw)
            h = struct.pack("<IBBHIII", 0x4B43504D, kind, 1, struct.unpack_from("<H", c, 6)[0],
                            len(stored), len(raw), zlib.crc32(stored))
            out += h + struct.pack("<I", zlib.crc32(h)) + stored
    return out
META, SYMBOLS, END = 1, 3, 4
for name, kind in (("meta", META), ("end", END), ("symbols", SYMBOLS)):
    w(name + "-twice", second(kind, lambda b: b))
w("meta-conflict", second(META, lambda b: b + b"extra=1\n"))
w("end-conflict", second(END, lambda b: b.replace(b"exit_status=0", b"exit_status=3")))
w("symbols-conflict", second(SYMBOLS, lambda b: b[:-1]))
# without its SYMBOLS chunk, for symbolize: once, twice, and before another
nosym = d[:64] + b"".join(c for c in chunks if c[4] != SYMBOLS)
open(work + "/nosym-twice", "wb").write(nosym + nosym)
open(work + "/nosym-two", "wb").write(nosym + other)
PY

# NAME|status|stderr (a regular expression of its one line; empty: no line)
cases=(
	"major7|1|^mprof: .*/major7.trace: trace format version 7\.[0-9]+; this mprof reads versions 1 to 6$"
	"major0|1|^mprof: .*/major0.trace: trace format version 0\.[0-9]+; this mprof reads versions 1 to 6$"
	"header-huge|1|^mprof: .*/header-huge.trace: bad file header size 4294967295$"
	"header-small|1|^mprof: .*/header-small.trace: bad file header size 8$"
	"zeros|1|^mprof: .*/zeros.trace: not an mprof trace \(bad file header\)$"
	"cut-header|1|^mprof: .*/cut-header.trace: not an mprof trace \(shorter than a file header\)$"
	"flipped|0|^mprof: warning: .*/flipped.trace: 1 chunk lost \(corrupt or not mprof's\)$"
	"zlib-garbage|0|^mprof: warning: .*/zlib-garbage.trace: 1 chunk lost \(corrupt or not mprof's\)$"
	"raw-64mib|0|^mprof: warning: .*/raw-64mib.trace: 1 chunk lost \(corrupt or not mprof's\)$"
	"raw-4gib|0|^mprof: warning: .*/raw-4gib.trace: 1 chunk lost \(corrupt or not mprof's\)$"
	"chunks-twice|0|"
	"file-twice|0|"
	"file-thrice-cut|0|"
	"cut-then-whole|0|"
	"cut-mid-header-then-whole|0|"
	"cut-mid-chunk-then-whole|0|"
	"whole-cut-mid-whole|0|"
	"unknown-type|0|"
	"two-traces|0|^mprof: warning: .*/two-traces.trace: a second trace from offset $(cat "$WORK/good-bytes") \(another file header\), not read$"
	"meta-twice|0|"
	"end-twice|0|"
	"symbols-twice|0|"
	"meta-conflict|0|^mprof: warning: .*/meta-conflict.trace: 1 META, END or SYMBOLS chunk unlike the first of their kind ignored$"
	"end-conflict|0|^mprof: warning: .*/end-conflict.trace: 1 META, END or SYMBOLS chunk unlike the first of their kind ignored$"
	"symbols-conflict|0|^mprof: warning: .*/symbols-conflict.trace: 1 META, END or SYMBOLS chunk unlike the first of their kind ignored$"
)
for c in "${cases[@]}"; do
	IFS='|' read -r name want msg <<<"$c"
	t="$WORK/$name.trace"
	for f in text json html folded flamegraph massif pprof dhat dhat-json speedscope; do
		run_cmd 20 "$name-$f" "$MPROF" report "$t" -f "$f" -o "$WORK/out"
		expect_eq "$name, -f $f: exit status" "$want" "$RUN_STATUS"
		if [ "$f" = text ] && [ "$want" = 0 ]; then
			# the text report gives its warnings in itself
			expect_eq "$name, -f text: nothing on stderr" "" "$(cat "$RUN_ERR")"
			case "$msg" in
			*"chunk lost"* | *"chunks lost"*) expect_match "$name, -f text: the warning" "chunks? lost" \
					 "$(cat "$WORK/out")" ;;
			*ignored*) expect_match "$name, -f text: the warning" \
				   "^warning: 1 META, END or SYMBOLS chunk unlike the first of their kind ignored" \
				   "$(cat "$WORK/out")" ;;
			*"not read"*) expect_match "$name, -f text: the warning" \
				      "^warning: another trace's file header at offset $(cat "$WORK/good-bytes"): \
the file holds a second trace, not read; this report is of the first$" "$(cat "$WORK/out")" ;;
			*) expect_no_match "$name, -f text: no warning" "^warning:" "$(cat "$WORK/out")" ;;
			esac
			if [ "${msg#* lost }" = "$msg" ]; then
				expect_no_match "$name, -f text: no data said lost" \
					"data lost|[1-9][0-9]* chunks? lost|short of" "$(cat "$WORK/out")"
			fi
			continue
		fi
		if [ -z "$msg" ]; then
			expect_eq "$name, -f $f: nothing on stderr" "" "$(cat "$RUN_ERR")"
			continue
		fi
		expect_match "$name, -f $f: one line" "$msg" "$(cat "$RUN_ERR")"
		expect_eq "$name, -f $f: no other line" 1 "$(wc -l <"$RUN_ERR")"
	done
	# a window in percent of a trace that cannot be read said the run time
	# was not known (status 2), not why the trace cannot be read
	run_cmd 20 "$name-window" "$MPROF" report "$t" -f json --from 10% --to 90% -o "$WORK/out"
	expect_eq "$name, a window: exit status" "$want" "$RUN_STATUS"
	if [ -n "$msg" ]; then
		expect_match "$name, a window: one line" "$msg" "$(cat "$RUN_ERR")"
	else
		expect_no_match "$name, a window: no chunks said lost" "lost|unlike" "$(cat "$RUN_ERR")"
	fi
	run_cmd 20 "$name-diff" "$MPROF" diff "$WORK/good" "$t" --fail-if 'leaked>+1G' -o "$WORK/out"
	expect_eq "$name, diff: exit status" "$([ "$want" = 0 ] && echo 0 || echo 2)" "$RUN_STATUS"
	if [ "$want" = 0 ]; then
		case "$msg" in
		*"chunk lost"* | *"chunks lost"*) expect_match "$name, diff: the note" \
				 "^note: B lost [0-9]+ chunks? \(corrupt\)$" "$(cat "$WORK/out")" ;;
		*ignored*) expect_match "$name, diff: the note" "^note: B has 1 META, END or SYMBOLS\
 chunk unlike the first of their kind \(ignored\)$" "$(cat "$WORK/out")" ;;
		*"not read"*) expect_match "$name, diff: the note" "^note: B holds a second trace from \
offset $(cat "$WORK/good-bytes") \(not read\)$" "$(cat "$WORK/out")" ;;
		*) expect_no_match "$name, diff: no note of loss" "lost|unlike" "$(cat "$WORK/out")" ;;
		esac
	else
		expect_match "$name, diff: its line" "$msg" "$(cat "$RUN_ERR")"
	fi
done

# the traces that still hold every event count them once
facts() {
	json_eval "$1" '"%d %d %d" % (d["summary"]["allocations"], d["summary"]["frees"], d["summary"]["leaked_bytes"])'
}
report_json "$WORK/good.json" "$WORK/good" || hard_error "the good trace"
# small_leak: 20003 allocations and stdout's buffer; 9000 B leaked and it
expect_eq "good: allocations, frees" "20004 20000" "$(facts "$WORK/good.json" | cut -d' ' -f1-2)"
for name in chunks-twice file-twice file-thrice-cut cut-then-whole cut-mid-header-then-whole \
	    cut-mid-chunk-then-whole whole-cut-mid-whole two-traces unknown-type zlib-garbage raw-64mib raw-4gib meta-twice end-twice \
	    symbols-twice meta-conflict end-conflict symbols-conflict; do
	report_json "$WORK/$name.json" "$WORK/$name.trace" || continue
	expect_eq "$name: allocations, frees, leaked as the good trace's" \
		"$(facts "$WORK/good.json")" "$(facts "$WORK/$name.json")"
done
# what the JSON says of the second META, END or SYMBOLS chunk
quality() {
	json_eval "$1" '"%d %d %d %s" % (d["summary"]["quality"]["chunks_lost"], d["summary"]["quality"].get("repeated_info_chunks", -1), d["summary"]["quality"].get("conflicting_chunks", -1), d["summary"]["data_lost"])'
}
expect_eq "chunks-twice: JSON lost, repeated, conflicting, data_lost" "0 3 0 None" \
	"$(quality "$WORK/chunks-twice.json")"
for name in meta end symbols; do
	expect_eq "$name-twice: JSON lost, repeated, conflicting, data_lost" "0 1 0 None" \
		"$(quality "$WORK/$name-twice.json")"
	expect_eq "$name-conflict: JSON lost, repeated, conflicting, data_lost" "0 0 1 None" \
		"$(quality "$WORK/$name-conflict.json")"
done
# a copy of the whole trace is skipped, not lost; a second trace is not read
copies() {
	json_eval "$1" '"%d %d %s %s" % (d["summary"]["quality"]["chunks_lost"], d["summary"]["quality"].get("trace_copies", -1), d["summary"]["quality"].get("second_trace_offset", -1), d["summary"]["data_lost"])'
}
expect_eq "file-twice: JSON lost, copies, second trace, data_lost" "0 1 None None" \
	"$(copies "$WORK/file-twice.json")"
expect_eq "file-thrice-cut: JSON lost, copies, second trace, data_lost" "0 2 None None" \
	"$(copies "$WORK/file-thrice-cut.json")"
expect_eq "cut-then-whole: JSON lost, copies, second trace, data_lost" "0 1 None None" \
	"$(copies "$WORK/cut-then-whole.json")"
# a copy cut short is named where it ends; the whole copy gives its chunks
cut() {
	json_eval "$1" '"%d %d %s %s" % (d["summary"]["quality"]["chunks_lost"], d["summary"]["quality"].get("trace_copies", -1), d["summary"]["quality"].get("cut_copy_offset", -1), d["summary"]["data_lost"])'
}
first_two=$(cat "$WORK/first-two")
good_bytes=$(cat "$WORK/good-bytes")
expect_eq "cut-then-whole: JSON lost, copies, cut copy, data_lost" "0 1 $first_two None" \
	"$(cut "$WORK/cut-then-whole.json")"
expect_eq "cut-mid-header-then-whole: JSON lost, copies, cut copy, data_lost" \
	"0 1 $((first_two + 10)) None" "$(cut "$WORK/cut-mid-header-then-whole.json")"
expect_eq "cut-mid-chunk-then-whole: JSON lost, copies, cut copy, data_lost" \
	"0 1 $((first_two + 40)) None" "$(cut "$WORK/cut-mid-chunk-then-whole.json")"
expect_eq "whole-cut-mid-whole: JSON lost, copies, cut copy, data_lost" \
	"0 2 $((good_bytes + first_two + 40)) None" "$(cut "$WORK/whole-cut-mid-whole.json")"
expect_eq "file-thrice-cut: JSON cut copy (the file's end)" \
	"$(stat -c %s "$WORK/file-thrice-cut.trace")" \
	"$(json_eval "$WORK/file-thrice-cut.json" 'd["summary"]["quality"]["cut_copy_offset"]')"
expect_eq "file-twice: JSON cut copy" None \
	"$(json_eval "$WORK/file-twice.json" 'd["summary"]["quality"]["cut_copy_offset"]')"
run_cmd 20 cut-mid-text "$MPROF" report "$WORK/cut-mid-chunk-then-whole.trace" -o "$WORK/out"
expect_match "cut-mid-chunk-then-whole, -f text: the headline" "^mprof report: .* \(exact: every \
allocation recorded\)$" "$(head -n 1 "$WORK/out")"
expect_match "cut-mid-chunk-then-whole, -f text: the data line" "^data: .*; the whole trace \
repeated 1 more time in the file \(the same bytes; skipped\); a copy cut short, ending at offset \
$((first_two + 40)) \(its chunks read whole from another copy\)$" "$(cat "$WORK/out")"
expect_eq "two-traces: JSON lost, copies, second trace, data_lost" \
	"0 0 $(cat "$WORK/good-bytes") None" "$(copies "$WORK/two-traces.json")"
run_cmd 20 file-twice-text "$MPROF" report "$WORK/file-twice.trace" -o "$WORK/out"
expect_match "file-twice, -f text: the headline" "^mprof report: .* \(exact: every allocation \
recorded\)$" "$(head -n 1 "$WORK/out")"
expect_match "file-twice, -f text: the data line" "^data: .*; the whole trace repeated 1 more \
time in the file \(the same bytes; skipped\)$" "$(cat "$WORK/out")"
run_cmd 20 two-traces-text "$MPROF" report "$WORK/two-traces.trace" -o "$WORK/out"
expect_match "two-traces, -f text: the headline" "^mprof report: .* \(damaged: the file holds \
a second trace after this one \(not read\); see warnings\)$" "$(head -n 1 "$WORK/out")"
# a chunk of an unknown type is skipped with a note, not lost
expect_eq "unknown-type: JSON lost, unknown chunks, data_lost" "0 1 None" \
	"$(json_eval "$WORK/unknown-type.json" '"%d %d %s" % (d["summary"]["quality"]["chunks_lost"], d["summary"]["quality"].get("unknown_chunks", -1), d["summary"]["data_lost"])')"
run_cmd 20 unknown-type-text "$MPROF" report "$WORK/unknown-type.trace" -o "$WORK/out"
expect_match "unknown-type, -f text: the data line" "^data: .*; 1 chunks of a type this mprof \
does not know \(9, the first; a newer mprof's\?\) skipped$" "$(cat "$WORK/out")"
# symbolize appends after a copy, where a report reads it; it neither cuts
# off nor appends after a second trace
run_cmd 60 symbolize-twice "$MPROF_ANALYZE" symbolize "$WORK/nosym-twice"
expect_eq "symbolize a trace written twice: exit status" 0 "$RUN_STATUS"
expect_eq "symbolize a trace written twice: nothing on stderr" "" "$(cat "$RUN_ERR")"
report_json "$WORK/nosym-twice.json" "$WORK/nosym-twice" &&
	expect_eq "symbolized trace written twice: JSON lost, copies, second trace, data_lost" \
		"0 1 None None" "$(copies "$WORK/nosym-twice.json")"
cp "$WORK/nosym-two" "$WORK/nosym-two.before"
run_cmd 60 symbolize-two "$MPROF_ANALYZE" symbolize "$WORK/nosym-two"
expect_eq "symbolize a file of two traces: exit status" 1 "$RUN_STATUS"
expect_match "symbolize a file of two traces: one line" "^mprof-analyze: .*/nosym-two: holds a \
second trace from offset [0-9]+ \(another file header\); not symbolized$" "$(cat "$RUN_ERR")"
expect_eq "symbolize a file of two traces: the file as it was" same \
	"$(cmp -s "$WORK/nosym-two" "$WORK/nosym-two.before" && echo same || echo changed)"
# the first END is the one read: the program's exit status 0, not 3
expect_eq "end-conflict: the first END's exit status" 0 \
	"$(json_eval "$WORK/end-conflict.json" 'd["summary"]["program"]["exit_status"]')"
finish
