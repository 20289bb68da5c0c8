#!/bin/bash
# diff-lines.sh - how `mprof diff` names a frame that stands for frames on
# several lines.  A is tests/progs/diff_lines.c, B a copy in another folder
# with three lines inserted at the top of parse, so parse's allocations and
# main's calls move while steady's allocation stays on its line; each trace
# also has two sites in parse that differ only in line.  Under the default
# --match function a frame shows a line only when every frame merged into
# it (all sites summed, of A and of B) is on it, else "FILE, lines differ",
# and its file and module by the name they share, not A's folder: in text,
# JSON, the gate's site lines, the flame graph's data and tooltip and the
# html page's stacks alike (each once named such a frame by A's first
# line).  --match line still names every frame by its own line and path;
# --match address is refused.
source "$(dirname "$0")/lib.sh"
require_mprof
require_browser
make_work
mkdir -p "$WORK/a" "$WORK/b"
cp "$PROGS_DIR/diff_lines.c" "$WORK/a/diff_lines.c"
sed '/INSERT_B/a\	keep = NULL;\n\tkeep = NULL;\n\tkeep = NULL;' "$WORK/a/diff_lines.c" >"$WORK/b/diff_lines.c"
build_c "$WORK/a/diff_lines" "$WORK/a/diff_lines.c"
build_c "$WORK/b/diff_lines" "$WORK/b/diff_lines.c"
for side in a b; do
	for m in STEADY_LINE PARSE_LOOP PARSE_TAIL MAIN_STEADY MAIN_PARSE; do
		source_line "$WORK/$side/diff_lines.c" "/* $m */"
		eval "${m}_$side=$SOURCE_LINE"
	done
done
expect_eq "B's copy: steady's line stays, parse's and main's move down 3" \
	"0 3 3 3 3" "$((STEADY_LINE_b - STEADY_LINE_a)) $((PARSE_LOOP_b - PARSE_LOOP_a)) \
$((PARSE_TAIL_b - PARSE_TAIL_a)) $((MAIN_STEADY_b - MAIN_STEADY_a)) $((MAIN_PARSE_b - MAIN_PARSE_a))"

RUN_NAME=ra mprof_run 60 "$WORK/ta" -- "$WORK/a/diff_lines" 10
expect_eq "A: stdout" "diff_lines 10" "$(cat "$RUN_OUT")"
RUN_NAME=rb mprof_run 60 "$WORK/tb" -- "$WORK/b/diff_lines" 30
expect_eq "B: stdout" "diff_lines 30" "$(cat "$RUN_OUT")"

# jd FILE EXPR: EXPR over the JSON object d of FILE; site(fn, status): the
# site whose innermost frame is fn (the first of that status, if given)
jd() {
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
def site(fn, status=None):
    return [s for s in d["sites"] if s["frames"] and s["frames"][0]["function"] == fn
            and status in (None, s["status"])][0]
def fr(f):
    return "%s %s %s %s %s %s" % (f["function"], f["file"], f["line"], f["lines_differ"], f["module"], f["offset"])
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}
# the flame graph data of page FILE (its <script id="mprof-data">)
flame_data() {
	"$PYTHON" -c 'import re, sys
t = open(sys.argv[1]).read()
print(re.search(r"<script id=\"mprof-data\" type=\"application/json\">(.*?)</script>", t, re.S).group(1))' "$1" \
		>"$2"
}
val() { grep "^$1=" "$RUN_OUT" | head -1 | cut -d= -f2-; }

# ---- text: parse and main moved, steady did not ----
run_cmd 60 text "$MPROF" diff --metric allocated "$WORK/ta" "$WORK/tb"
expect_eq "text: exit status" 0 "$RUN_STATUS"
T=$(cat "$RUN_OUT")
expect_eq "text: parse's entry sums 2 sites of each side" 1 \
	"$(grep -c '^#1  changed (site [0-9]* in A, site [0-9]* in B) \[merged: 2 sites of A, 2 of B,' "$RUN_OUT")"
expect_eq "text: parse (summed from 4 lines) and main (from 2): no line" \
	"    at parse (diff_lines.c, lines differ) [diff_lines]
    at main (diff_lines.c, lines differ) [diff_lines]" \
	"$(printf '%s\n' "$T" | grep -A1 '^    at parse ')"
expect_eq "text: steady (one line in A and B) keeps it; main under it has none" \
	"    at steady (diff_lines.c:$STEADY_LINE_a) [diff_lines]
    at main (diff_lines.c, lines differ) [diff_lines]" \
	"$(printf '%s\n' "$T" | grep -A1 '^    at steady ')"
expect_eq "text: no other line of diff_lines.c named" "diff_lines.c:$STEADY_LINE_a" \
	"$(printf '%s\n' "$T" | grep -o 'diff_lines\.c:[0-9]*' | sort -u | tr '\n' ' ' | sed 's/ $//')"

# ---- JSON ----
run_cmd 60 json "$MPROF" diff --format json "$WORK/ta" "$WORK/tb"
J="$WORK/json.out"
expect_eq "json: exit status" 0 "$RUN_STATUS"
expect_eq "json: schema" "mprof-diff $(schema_version DIFF_JSON_SCHEMA_VERSION)" "$(jd "$J" 'd["schema"] + " " + str(d["schema_version"])')"
expect_eq "json: parse's sites summed" "2 2" "$(jd "$J" '"%d %d" % (site("parse")["a_sites"], site("parse")["b_sites"])')"
expect_eq "json: parse: file name shared, lines differ, no one offset" \
	"parse diff_lines.c 0 True diff_lines None" "$(jd "$J" 'fr(site("parse")["frames"][0])')"
expect_eq "json: main above parse: the same" \
	"main diff_lines.c 0 True diff_lines None" "$(jd "$J" 'fr(site("parse")["frames"][1])')"
expect_eq "json: steady: its one line, its file name (the folders differ)" \
	"steady diff_lines.c $STEADY_LINE_a False diff_lines" \
	"$(jd "$J" '" ".join(fr(site("steady")["frames"][0]).split()[:5])')"
expect_eq "json: main above steady: lines differ" "main diff_lines.c 0 True diff_lines None" \
	"$(jd "$J" 'fr(site("steady")["frames"][1])')"
expect_eq "json: libc's frames, the same file in both, keep their path and line" True \
	"$(jd "$J" 'all(f["file"] and f["file"].startswith(("/", ".")) and f["line"] > 0 and not f["lines_differ"] and f["module"].startswith("/") for f in site("parse")["frames"][2:4])')"

# ---- the gate's site lines ----
run_cmd 60 gate "$MPROF" diff --fail-if 'site:allocated>+500' "$WORK/ta" "$WORK/tb"
expect_eq "gate: exit status 1" 1 "$RUN_STATUS"
expect_eq "gate: parse and steady named as in the text" \
	"    allocated bytes 1007 -> 3007 (+2000, +198.6%) at parse (diff_lines.c, lines differ)
    allocated bytes 320 -> 960 (+640, +200.0%) at steady (diff_lines.c:$STEADY_LINE_a)" \
	"$(grep '^    allocated bytes' "$RUN_ERR")"

# ---- folded: names only, as before ----
run_cmd 60 folded "$MPROF" diff --format folded --metric allocated "$WORK/ta" "$WORK/tb"
expect_eq "folded: parse's and steady's lines" \
	"__libc_start_call_main;main;parse 1007 3007
__libc_start_call_main;main;steady 320 960" \
	"$(grep -oE '__libc_start_call_main;main;(parse|steady) [0-9]+ [0-9]+$' "$RUN_OUT" | sort)"

# ---- flame graph: the data's frames, and the tooltip ----
run_cmd 60 fg "$MPROF" diff --format flamegraph --metric allocated -o "$WORK/fg.html" "$WORK/ta" "$WORK/tb"
expect_eq "flamegraph: exit status" 0 "$RUN_STATUS"
flame_data "$WORK/fg.html" "$WORK/fg.json"
expect_eq "flamegraph data: schema" "mprof-flamegraph $(schema_version FLAME_DATA_SCHEMA_VERSION)" \
	"$(jd "$WORK/fg.json" 'd["schema"] + " " + str(d["schema_version"])')"
expect_eq "flamegraph data: the frames of parse, steady and main (line -1: lines differ)" \
	"main diff_lines.c -1 diff_lines | parse diff_lines.c -1 diff_lines | steady diff_lines.c $STEADY_LINE_a diff_lines" \
	"$(jd "$WORK/fg.json" '" | ".join(sorted("%s %s %s %s" % (f[0], f[1], f[2], f[3]) for f in d["frames"] if f[0] in ("parse", "steady", "main")))')"
run_cmd 120 fgwhere node "$BROWSER_DIR/diff-check.mjs" where "$WORK/fg.html" allocated parse steady main
cat "$RUN_OUT" "$RUN_ERR"
expect_eq "flamegraph: browser check exit status" 0 "$RUN_STATUS"
expect_eq "flamegraph tooltip: parse" "diff_lines.c, lines differ [diff_lines]" "$(val 'where parse')"
expect_eq "flamegraph tooltip: steady" "diff_lines.c:$STEADY_LINE_a [diff_lines]" "$(val 'where steady')"
expect_eq "flamegraph tooltip: main" "diff_lines.c, lines differ [diff_lines]" "$(val 'where main')"
expect_eq "flamegraph: no console error, page error or request" 0 "$(val problems)"

# ---- html page: the rankings' stacks and its flame graph ----
run_cmd 60 html "$MPROF" diff --format html --metric allocated -o "$WORK/d.html" "$WORK/ta" "$WORK/tb"
expect_eq "html: exit status" 0 "$RUN_STATUS"
run_cmd 120 pagewhere node "$BROWSER_DIR/diff-check.mjs" where "$WORK/d.html" allocated parse steady main
cat "$RUN_OUT" "$RUN_ERR"
expect_eq "html: browser check exit status" 0 "$RUN_STATUS"
expect_match "html: parse's stack (grew most)" \
	"^parse diff_lines\\.c, lines differ \\[diff_lines\\] \\| main diff_lines\\.c, lines differ \\[diff_lines\\] \\| __libc_start_call_main " \
	"$(val 'stack 1')"
expect_match "html: steady's stack" \
	"^steady diff_lines\\.c:$STEADY_LINE_a \\[diff_lines\\] \\| main diff_lines\\.c, lines differ \\[diff_lines\\] \\| " \
	"$(val 'stack 2')"
expect_eq "html flame tooltip: parse" "diff_lines.c, lines differ [diff_lines]" "$(val 'where parse')"
expect_eq "html flame tooltip: steady" "diff_lines.c:$STEADY_LINE_a [diff_lines]" "$(val 'where steady')"
expect_eq "html: no console error, page error or request" 0 "$(val problems)"

# ---- --match line: every frame its own line and path ----
run_cmd 60 lines "$MPROF" diff --match line --format json "$WORK/ta" "$WORK/tb"
L="$WORK/lines.out"
expect_eq "match line: exit status" 0 "$RUN_STATUS"
expect_eq "match line: A's parse sites vanished, at their lines in A's file" \
	"parse $WORK/a/diff_lines.c $PARSE_LOOP_a False | parse $WORK/a/diff_lines.c $PARSE_TAIL_a False" \
	"$(jd "$L" '" | ".join(sorted(" ".join(fr(s["frames"][0]).split()[:4]) for s in d["sites"] if s["frames"][0]["function"] == "parse" and s["status"] == "removed"))')"
expect_eq "match line: B's parse sites new, at their lines in B's file" \
	"parse $WORK/b/diff_lines.c $PARSE_LOOP_b False | parse $WORK/b/diff_lines.c $PARSE_TAIL_b False" \
	"$(jd "$L" '" | ".join(sorted(" ".join(fr(s["frames"][0]).split()[:4]) for s in d["sites"] if s["frames"][0]["function"] == "parse" and s["status"] == "added"))')"
expect_eq "match line: main above steady, A's and B's own lines and modules" \
	"main $WORK/a/diff_lines.c $MAIN_STEADY_a False $WORK/a/diff_lines | main $WORK/b/diff_lines.c $MAIN_STEADY_b False $WORK/b/diff_lines" \
	"$(jd "$L" '" | ".join(sorted(" ".join(fr(s["frames"][1]).split()[:5]) for s in d["sites"] if s["frames"][0]["function"] == "steady"))')"
expect_eq "match line: every frame has an offset" True \
	"$(jd "$L" 'all(f["offset"] is not None for s in d["sites"] for f in s["frames"])')"
run_cmd 60 linestext "$MPROF" diff --match line --metric allocated "$WORK/ta" "$WORK/tb"
expect_eq "match line, text: parse's four lines" \
	"$PARSE_LOOP_a $PARSE_LOOP_b $PARSE_TAIL_a $PARSE_TAIL_b" \
	"$(grep -o '^    at parse (diff_lines\.c:[0-9]*)' "$RUN_OUT" | grep -o '[0-9]*)$' | tr -d ')' | sort -n | tr '\n' ' ' | sed 's/ $//')"
expect_eq "match line, text: no merged frame" 0 "$(grep -c 'differ)' "$RUN_OUT")"
run_cmd 60 linesfg "$MPROF" diff --match line --format flamegraph --metric allocated -o "$WORK/lfg.html" \
	"$WORK/ta" "$WORK/tb"
flame_data "$WORK/lfg.html" "$WORK/lfg.json"
expect_eq "match line, flamegraph data: parse's frames at their four lines" \
	"$PARSE_LOOP_a $PARSE_LOOP_b $PARSE_TAIL_a $PARSE_TAIL_b" \
	"$(jd "$WORK/lfg.json" '" ".join(str(x) for x in sorted(f[2] for f in d["frames"] if f[0] == "parse"))')"

# ---- --match address does not exist ----
run_cmd 30 address "$MPROF" diff --match address "$WORK/ta" "$WORK/tb"
expect_eq "match address: exit status 2" 2 "$RUN_STATUS"
expect_eq "match address: one line" 1 "$(wc -l <"$RUN_ERR")"
expect_match "match address: says what --match takes" "--match wants function or line, not 'address'" \
	"$(cat "$RUN_ERR")"
finish
