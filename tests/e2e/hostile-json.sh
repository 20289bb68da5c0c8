#!/bin/bash
# hostile-json.sh - every JSON output of a crafted trace whose names (function,
# source file, module path, command line) hold C0 controls, DEL, C1 controls,
# bytes that are not UTF-8, a surrogate encoded in UTF-8 (ED A0 80), U+2028
# and U+2029: each is JSON that Python (strict UTF-8) and node read, and no
# two names read back the same (a byte that is not UTF-8 reads as the text
# \xNN, not as U+00NN, so "y" 0xff and "y" U+00FF stay two names).
# The trace is written here by tests/e2e/trace_craft.py's encoder, its
# names answered by an embedded SYMBOLS chunk (mprof-trace(5)).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work

"$PYTHON" - "$WORK" "$E2E_DIR" <<'PY' || hard_error "cannot write the crafted trace"
import struct, sys
work = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from trace_craft import chunk, s, u
names = [b"ctl\x01\x08\x0b\x0c\x1f", b"del\x7f", b"c1\xc2\x80\xc2\x85\xc2\x9f",
         b"bad\xff\xfe\xc3", b"sur\xed\xa0\x80", b"ls\xe2\x80\xa8ps\xe2\x80\xa9",
         b"y\xff", b"y\xc3\xbf", b"bs\\xff"]
path = b"/x/m\x01\x7f\xc2\x9b\xed\xa0\x80\xff\xe2\x80\xa9.so"
mod = u(0) + u(1) + u(0x400000) + u(len(path)) + path + u(0) + u(1) + u(0) + u(0x100000)
# thread, module map, a root node and one stack per name, one allocation
# of 100 + i bytes at each
recs = b"\x02" + u(11) + b"\x80" + u(len(mod)) + mod + b"\x04" + u(1) + u(0) + s(0)
ip = 0
for i in range(len(names)):
    recs += b"\x04" + u(i + 2) + u(1) + s(0x401000 + 16 * i - ip)
    ip = 0x401000 + 16 * i
stacks = recs
strings = [path] + names + [b"f\x1f\x7f\xc2\x85\xed\xa0\x80\xff.c"]
sym = u(1) + u(len(strings)) + b"".join(u(len(x)) + x for x in strings) + u(1) + u(0) + u(0)
answers, n = b"", 0
for i in range(len(names)):
    for off in (0x1000 + 16 * i, 0x1000 + 16 * i - 1):
        answers += u(0) + u(off) + u(3) + u(1) + u(i + 2) + u(len(strings)) + u(7 + i) + u(0)
        n += 1
sym += u(n) + answers
meta = b"pid=120\nslots=4\ncmdline=prog\x01\x7f\xc2\x9b\xed\xa0\x80\xff\xe2\x80\xa8\n"
# names.trace: 100 + i bytes at name i; names2.trace, for diff: 1100 + i
for name, base in (("names", 100), ("names2", 1100)):
    recs = stacks
    for i in range(len(names)):
        ref = b"\x02" + s(0x10000) if i == 0 else b"\x01"
        recs += b"\x10" + u(1) + ref + u(base + i) + s(2 if i == 0 else 1)
    data = (b"MPROFTRC" + struct.pack("<HHII", 4, 0, 64, 0) + bytes(44) +
            chunk(1, meta) + chunk(2, u(0) + u(0) + u(0) + recs, 1) +
            chunk(4, b"exit_status=0\n") + chunk(3, sym))
    open(work + "/" + name + ".trace", "wb").write(data)
PY
T="$WORK/names.trace"

# valid WHAT FILE [SCRIPT_ID]: FILE (or its <script> element of that id)
# is JSON that Python, decoding strict UTF-8, and node read
valid() {
	expect_eq "$1: Python reads it" ok "$("$PYTHON" -c 'import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
if len(sys.argv) > 2:
    i = sys.argv[2]
    text = re.search(r"<script (?:type=\"application/json\" id=\"%s\"|id=\"%s\" "
                     r"type=\"application/json\")>(.*?)</script>" % (i, i), text, re.S).group(1)
json.loads(text); print("ok")' "$2" ${3:+"$3"} 2>&1 | tail -n 1)"
	if command -v node >/dev/null 2>&1; then
		expect_eq "$1: node reads it" ok "$(node -e 'const fs = require("fs");
let text = fs.readFileSync(process.argv[1], "utf8");
if (process.argv[2]) {
  const i = process.argv[2];
  const re = new RegExp("<script (?:type=\"application/json\" id=\"" + i + "\"|id=\"" + i +
                        "\" type=\"application/json\")>([^]*?)</script>");
  text = text.match(re)[1];
}
JSON.parse(text); console.log("ok");' "$2" ${3:+"$3"} 2>&1 | tail -n 1)"
	fi
}

for f in json speedscope dhat-json; do
	run_cmd 60 "$f" "$MPROF" report "$T" -f "$f" -o "$WORK/n.$f"
	expect_eq "$f: exit status" 0 "$RUN_STATUS"
	valid "$f" "$WORK/n.$f"
done
run_cmd 60 html "$MPROF" report "$T" --html "$WORK/n.html"
valid "html: its data" "$WORK/n.html" mprof-data
valid "html: its flame graphs" "$WORK/n.html" mprof-flames
run_cmd 60 flamegraph "$MPROF" report "$T" -f flamegraph -o "$WORK/f.html"
valid "flamegraph: its data" "$WORK/f.html" mprof-data
run_cmd 60 diff-json "$MPROF" diff "$T" "$WORK/names2.trace" -f json -o "$WORK/d.json"
expect_eq "diff -f json: exit status" 0 "$RUN_STATUS"
valid "diff -f json" "$WORK/d.json"
run_cmd 60 diff-html "$MPROF" diff "$T" "$WORK/names2.trace" -f html -o "$WORK/d.html"
valid "diff -f html: its data" "$WORK/d.html" mprof-diff
valid "diff -f html: its page" "$WORK/d.html" mprof-page
run_cmd 60 diff-flamegraph "$MPROF" diff "$T" "$WORK/names2.trace" -f flamegraph -o "$WORK/df.html"
valid "diff -f flamegraph: its data" "$WORK/df.html" mprof-data

# the names as they read back: controls, DEL, C1 controls, U+2028/9 as
# themselves; a byte that is not UTF-8 (a lone surrogate's bytes too) as
# \xNN; a backslash before "xff" as \x5c
expect_eq "json: the functions, each read back distinct" \
	"$(printf '%s\n' "'bad\\\\xff\\\\xfe\\\\xc3'" "'bs\\\\x5cxff'" "'c1\\x80\\x85\\x9f'" \
		"'ctl\\x01\\x08\\x0b\\x0c\\x1f'" "'del\\x7f'" "'ls\\u2028ps\\u2029'" \
		"'sur\\\\xed\\\\xa0\\\\x80'" "'y\\\\xff'" "'y\\xff'")" \
	"$("$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for n in sorted({s["frames"][0]["function"] for s in d["sites"]}): print(ascii(n))' "$WORK/n.json")"
expect_eq "json: the file, module and command line" \
	"'f\\x1f\\x7f\\x85\\\\xed\\\\xa0\\\\x80\\\\xff.c' '/x/m\\x01\\x7f\\x9b\\\\xed\\\\xa0\\\\x80\\\\xff\\u2029.so' 'prog\\x01\\x7f\\x9b\\\\xed\\\\xa0\\\\x80\\\\xff\\u2028'" \
	"$("$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = d["sites"][0]["frames"][0]
print(ascii(f["file"]), ascii(f["module"]), ascii(d["summary"]["program"]["cmdline"]))' "$WORK/n.json")"
expect_eq "speedscope: 9 distinct frame names" 9 "$("$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(len({f["name"] for f in d["shared"]["frames"] if not f["name"].startswith("[")}))' "$WORK/n.speedscope")"
expect_eq "dhat-json: 9 distinct frames" 9 "$("$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(len({f for f in d["ftbl"] if not f.startswith("[")}))' "$WORK/n.dhat-json")"
expect_eq "diff -f json: 9 distinct functions" 9 "$("$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(len({s["frames"][0]["function"] for s in d["sites"]}))' "$WORK/d.json")"
finish
