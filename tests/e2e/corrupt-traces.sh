#!/bin/bash
# corrupt-traces.sh - a small set of the kinds of corrupt trace a mutator
# fed mprof-analyze (2026-12-07: some 2500 cases under ASan/UBSan, in every
# format, none crashed, hung or went past a short error): each, in
# every report format, with a window and as B of `mprof diff`, ends with either
# the report and one warning line naming the damage, or one error line and
# status 1 (2 for diff); never a crash, a hang or a sanitizer report.  The
# damaged traces keep the good trace's exact counts where they still hold
# every event (chunks repeated are dropped, not counted twice).
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
PY

# NAME|status|stderr (a regular expression of its one line)
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
	"chunks-twice|0|^mprof: warning: .*/chunks-twice.trace: [0-9]+ chunks lost \(corrupt or not mprof's\)$"
	"file-twice|0|^mprof: warning: .*/file-twice.trace: [0-9]+ chunks lost \(corrupt or not mprof's\)$"
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
			expect_match "$name, -f text: the warning" "chunks lost" "$(cat "$WORK/out")"
			continue
		fi
		expect_match "$name, -f $f: one line" "$msg" "$(cat "$RUN_ERR")"
		expect_eq "$name, -f $f: no other line" 1 "$(wc -l <"$RUN_ERR")"
	done
	# a window in percent of a trace that cannot be read said the run time
	# was not known (status 2), not why the trace cannot be read
	run_cmd 20 "$name-window" "$MPROF" report "$t" -f json --from 10% --to 90% -o "$WORK/out"
	expect_eq "$name, a window: exit status" "$want" "$RUN_STATUS"
	expect_match "$name, a window: one line" "$msg" "$(cat "$RUN_ERR")"
	run_cmd 20 "$name-diff" "$MPROF" diff "$WORK/good" "$t" --fail-if 'leaked>+1G' -o "$WORK/out"
	expect_eq "$name, diff: exit status" "$([ "$want" = 0 ] && echo 0 || echo 2)" "$RUN_STATUS"
	if [ "$want" = 0 ]; then
		expect_match "$name, diff: the note" "^note: B lost [0-9]+ chunks \(corrupt\)$" "$(cat "$WORK/out")"
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
for name in chunks-twice file-twice zlib-garbage raw-64mib raw-4gib; do
	report_json "$WORK/$name.json" "$WORK/$name.trace" || continue
	expect_eq "$name: allocations, frees, leaked as the good trace's" \
		"$(facts "$WORK/good.json")" "$(facts "$WORK/$name.json")"
done
finish
