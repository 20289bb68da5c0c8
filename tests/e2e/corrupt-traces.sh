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
# neither case are chunks said to be lost or the counts short.
# Program and facts: tests/progs/small_leak.c (20003 allocations).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/small_leak" "$PROGS_DIR/small_leak.c"
mprof_run 60 "$WORK/good" -q -- "$WORK/small_leak"
expect_eq "run: exit status" 0 "$RUN_STATUS"

"$PYTHON" - "$WORK" <<'PY' || hard_error "cannot write the corrupt traces"
import struct, sys, zlib
work = sys.argv[1]
d = open(work + "/good", "rb").read()
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
PY

# NAME|status|stderr (a regular expression of its one line; empty: no line)
cases=(
	"major7|1|^mprof: .*/major7.trace: trace format version 7\.[0-9]+; this mprof reads versions 1 to 6$"
	"major0|1|^mprof: .*/major0.trace: trace format version 0\.[0-9]+; this mprof reads versions 1 to 6$"
	"header-huge|1|^mprof: .*/header-huge.trace: bad file header size 4294967295$"
	"header-small|1|^mprof: .*/header-small.trace: bad file header size 8$"
	"zeros|1|^mprof: .*/zeros.trace: not an mprof trace \(bad file header\)$"
	"cut-header|1|^mprof: .*/cut-header.trace: not an mprof trace \(shorter than a file header\)$"
	"flipped|0|^mprof: warning: .*/flipped.trace: 1 chunks lost \(corrupt or not mprof's\)$"
	"zlib-garbage|0|^mprof: warning: .*/zlib-garbage.trace: 1 chunks lost \(corrupt or not mprof's\)$"
	"raw-64mib|0|^mprof: warning: .*/raw-64mib.trace: 1 chunks lost \(corrupt or not mprof's\)$"
	"raw-4gib|0|^mprof: warning: .*/raw-4gib.trace: 1 chunks lost \(corrupt or not mprof's\)$"
	"chunks-twice|0|"
	"file-twice|0|^mprof: warning: .*/file-twice.trace: [0-9]+ chunks lost \(corrupt or not mprof's\)$"
	"meta-twice|0|"
	"end-twice|0|"
	"symbols-twice|0|"
	"meta-conflict|0|^mprof: warning: .*/meta-conflict.trace: 1 META, END or SYMBOLS chunks unlike the first of their kind ignored$"
	"end-conflict|0|^mprof: warning: .*/end-conflict.trace: 1 META, END or SYMBOLS chunks unlike the first of their kind ignored$"
	"symbols-conflict|0|^mprof: warning: .*/symbols-conflict.trace: 1 META, END or SYMBOLS chunks unlike the first of their kind ignored$"
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
			*"chunks lost"*) expect_match "$name, -f text: the warning" "chunks lost" \
					 "$(cat "$WORK/out")" ;;
			*ignored*) expect_match "$name, -f text: the warning" \
				   "^warning: 1 META, END or SYMBOLS chunks unlike the first of their kind ignored" \
				   "$(cat "$WORK/out")" ;;
			*) expect_no_match "$name, -f text: no warning" "^warning:" "$(cat "$WORK/out")" ;;
			esac
			if [ "${msg#*chunks lost}" = "$msg" ]; then
				expect_no_match "$name, -f text: no data said lost" \
					"data lost|[1-9][0-9]* chunks lost|short of" "$(cat "$WORK/out")"
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
		*"chunks lost"*) expect_match "$name, diff: the note" \
				 "^note: B lost [0-9]+ chunks \(corrupt\)$" "$(cat "$WORK/out")" ;;
		*ignored*) expect_match "$name, diff: the note" "^note: B has 1 META, END or SYMBOLS\
 chunks unlike the first of their kind \(ignored\)$" "$(cat "$WORK/out")" ;;
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
for name in chunks-twice file-twice zlib-garbage raw-64mib raw-4gib meta-twice end-twice \
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
# the first END is the one read: the program's exit status 0, not 3
expect_eq "end-conflict: the first END's exit status" 0 \
	"$(json_eval "$WORK/end-conflict.json" 'd["summary"]["program"]["exit_status"]')"
finish
