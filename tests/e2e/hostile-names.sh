#!/bin/bash
# tests/e2e/hostile-names.sh - names that come from the profiled program
# (functions and files of a library built with hostile names, its
# directory's path, a process title written over argv, a prctl name, a
# marker) hold a newline, a tab, ';', '<', '"', ESC, a C1 control, bytes
# that are not UTF-8, a backslash (one before "x41" that would read as an
# escape in terminal text), HTML and script.  Checks that every output shows them
# in its documented escaped form (mprof-report(1), NAMES FROM THE PROGRAM):
# no raw control character, escape or invalid UTF-8 reaches a terminal (the
# launcher's stderr, the text report, mprof diff and its --fail-if lines,
# error messages, DHAT text, ms_print's and go tool pprof's output), line
# formats keep one frame a frame (folded, massif), JSON outputs are valid
# UTF-8 JSON, and the pages run no injected script in chromium.
# Programs: tests/progs/hostile_names.c, hostile_names_lib.c.
. "$(dirname "$0")/lib.sh"
require_mprof
make_work

H="$E2E_DIR/hostile_names.py"
name() { "$PYTHON" "$H" name "$1"; }
# terminal_safe WHAT FILE: FILE is valid UTF-8 without control characters
terminal_safe() { expect_eq "$1: no raw control character or invalid UTF-8" ok \
	"$("$PYTHON" "$H" terminal-safe "$2")"; }

DIR=$("$PYTHON" "$H" build "$CC" "$PROGS_DIR/hostile_names_lib.c" "$WORK") ||
	hard_error "cannot build the hostile library"
build_c "$WORK/hostile_names" "$PROGS_DIR/hostile_names.c" -I"$abs_top_srcdir/include" -ldl
# the work directory as the escaped outputs show it (no hostile byte in it)
W=$WORK
D_ESC='dir\x0a\x09;<"\x1b[31m\xff'

cd "$WORK" || hard_error "cannot enter $WORK"
# wide enough for the process table to show the title's backslash
COLUMNS=400 mprof_run 120 "$WORK/t.trace" -- ./hostile_names "$DIR/libhostile.so" "$(name title)" \
	"$(name comm)" "$(name marker)"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "children: 0 0" "$(cat "$RUN_OUT")"

# ---- the launcher's stderr -------------------------------------------------
terminal_safe "mprof run's stderr" "$RUN_ERR"
expect_eq "the dlmopen note names the path, escaped, once for 3 processes" \
	"mprof: the program loaded $W/$D_ESC/libhostile.so with dlmopen() into a namespace of its own, with a C library of its own: the allocations made there are not recorded (in 3 processes)" \
	"$(grep -F 'dlmopen()' "$RUN_ERR")"
# each row is the name, escaped, cut to 60 columns and "…"
ROW='[c\x1b[31m\x0a;<\xff] '"'"'title\x1b[2J\x0a;<b>"\xff\x5cx41 <script>alert(3)</script>'"'"
expect_eq "the process table's programs: 3 rows, each the name escaped or cut" "3 3" \
	"$(sed -n -E 's/^mprof:   (.*[^ ]) +[0-9]+ +[0-9]+ +[0-9.]+ [KMGT]iB  [^ ]+$/\1/p' "$RUN_ERR" |
		ROW=$ROW "$PYTHON" -c 'import os, sys
rows = sys.stdin.buffer.read().decode("utf-8").splitlines()
full = os.environ["ROW"]
ok = [r for r in rows if r == full[:59] + "…"]
print(len(rows), len(ok))')"

# the library's five functions as each output writes them, with their lines
LIB_SRC="$PROGS_DIR/hostile_names_lib.c"
for k in A B C D E; do
	source_line "$LIB_SRC" "HOSTILE_FN NAME_$k("
	eval "LINE_$k=$SOURCE_LINE"
done
F_ESC='hostile;\x0a<lib>.c'

# ---- mprof report (text) ------------------------------------------------------
run_cmd 120 text "$MPROF" report -n 40 "$WORK/t.trace"
expect_eq "report: exit status" 0 "$RUN_STATUS"
terminal_safe "report" "$RUN_OUT"
expect_eq "report: the hostile frames, escaped" \
	"$(printf '%s\n' \
		"at </script><script>alert(1)</script> ($F_ESC:$LINE_A) [libhostile.so]" \
		"at <img src=x onerror=alert(2)> ($F_ESC:$LINE_B) [libhostile.so]" \
		"at semi;colon\\x0anew\\x09line 42 ($F_ESC:$LINE_C) [libhostile.so]" \
		"at \\x1b[31mred\\x1b]0;title\\x07\\xc2\\x9b\\xff\\xfe end ($F_ESC:$LINE_D) [libhostile.so]" \
		"at q\"uote\\back\\x5cx41&amp;$(printf '\342\200\250')sep ($F_ESC:$LINE_E) [libhostile.so]")" \
	"$(sed -n 's/^    \(at .*\[libhostile.so\]\)$/\1/p' "$RUN_OUT" | grep -v hostile_names_run | sort -u |
		sort -t: -k2 -n)"
expect_eq "report: the marker" 'markers:          mark\x1b[31m;\x0a<x>\xff\x5cx41' \
	"$(sed -n 's/ at [0-9.]* ms (event [0-9]*)$//p' "$RUN_OUT" | grep '^markers:')"
expect_eq "report: the program's name" \
	"program:          [c\\x1b[31m ;<\\xff] 'title\\x1b[2J ;<b>\"\\xff\\x5cx41 <script>alert(3)</script>'" \
	"$(sed -n 's/ (pid [0-9]*), exited with status 0$//p' "$RUN_OUT")"

# the DIAG record's text, once: the END chunk's copy (its newline a
# space) is the same diagnostic
expect_eq "report: the dlmopen diagnostic, once" \
	"diagnostic: the program loaded $W/$D_ESC/libhostile.so with dlmopen() into a namespace of its own, with a C library of its own: the allocations made there are not recorded" \
	"$(grep '^diagnostic:' "$RUN_OUT")"

# an error that lists the trace's markers
run_cmd 60 nomarker "$MPROF" report --from marker:nope "$WORK/t.trace"
expect_ne "report --from marker:nope fails" 0 "$RUN_STATUS"
terminal_safe "report --from marker:nope's error" "$RUN_ERR"
expect_match "the error names the marker, escaped" 'its markers: mark\\x1b\[31m;\\x0a<x>\\xff\\x5cx41\)$' \
	"$(cat "$RUN_ERR")"

# ---- mprof diff and its gate ----------------------------------------------------
CHILD=$(ls "$WORK"/t.trace.* | head -n 1)
run_cmd 120 diff "$MPROF" diff --fail-if 'site:allocated>+0' "$CHILD" "$WORK/t.trace"
expect_eq "diff: exit status (a condition held)" 1 "$RUN_STATUS"
terminal_safe "diff" "$RUN_OUT"
terminal_safe "diff's stderr" "$RUN_ERR"
expect_eq "diff --fail-if: the hostile sites' lines" \
	"$(printf '%s\n' \
		"    allocated bytes 1001 -> 2002 (+1001, +100.0%) at </script><script>alert(1)</script> ($F_ESC:$LINE_A)" \
		"    allocated bytes 1002 -> 2004 (+1002, +100.0%) at <img src=x onerror=alert(2)> ($F_ESC:$LINE_B)" \
		"    allocated bytes 1003 -> 2006 (+1003, +100.0%) at semi;colon\\x0anew\\x09line 42 ($F_ESC:$LINE_C)" \
		"    allocated bytes 1004 -> 2008 (+1004, +100.0%) at \\x1b[31mred\\x1b]0;title\\x07\\xc2\\x9b\\xff\\xfe end ($F_ESC:$LINE_D)" \
		"    allocated bytes 1005 -> 2010 (+1005, +100.0%) at q\"uote\\back\\x5cx41&amp;$(printf '\342\200\250')sep ($F_ESC:$LINE_E)")" \
	"$(grep -hE '^    allocated bytes 100[1-5] .* at ' "$RUN_ERR" "$RUN_OUT" | sort)"

# ---- folded --------------------------------------------------------------------
run_cmd 60 folded "$MPROF" report --format folded --metric allocated "$WORK/t.trace"
terminal_safe "folded" "$RUN_OUT"
expect_eq "folded: each hostile frame one frame, cleaned" \
	"$(printf '%s\n' \
		"hostile_names_run;</script><script>alert(1)</script> 2002" \
		"hostile_names_run;<img src=x onerror=alert(2)> 2004" \
		"hostile_names_run;_[31mred_]0:title___?? end 2008" \
		"hostile_names_run;q\"uote\\back\\x41&amp:$(printf '\342\200\250')sep 2010" \
		"hostile_names_run;semi:colon_new_line_42 2006")" \
	"$(sed -n 's/^.*;\(hostile_names_run;.*\)$/\1/p' "$RUN_OUT" | sort)"

# ---- massif and ms_print ---------------------------------------------------------
run_cmd 60 massif "$MPROF" report --format massif -o "$WORK/t.massif" "$WORK/t.trace"
terminal_safe "massif" "$WORK/t.massif"
expect_eq "massif: the hostile frames, cleaned" \
	"$(printf '%s\n' \
		"</script><script>alert(1)</script> ($W/dir  ;<\" [31m?/hostile; <lib>.c:$LINE_A)" \
		"<img src=x onerror=alert(2)> ($W/dir  ;<\" [31m?/hostile; <lib>.c:$LINE_B)" \
		"semi;colon new line 42 ($W/dir  ;<\" [31m?/hostile; <lib>.c:$LINE_C)" \
		" [31mred ]0;title   ?? end ($W/dir  ;<\" [31m?/hostile; <lib>.c:$LINE_D)" \
		"q\"uote\\back\\x41&amp;$(printf '\342\200\250')sep ($W/dir  ;<\" [31m?/hostile; <lib>.c:$LINE_E)")" \
	"$(sed -n 's/^ n[0-9]*: [0-9]* 0x[0-9a-f]*: \(.*lib>.c:[0-9]*)\)$/\1/p' "$WORK/t.massif" | sort -u |
		sort -t: -k2 -n)"
if command -v ms_print >/dev/null 2>&1; then
	run_cmd 60 ms_print ms_print "$WORK/t.massif"
	expect_eq "ms_print reads it" 0 "$RUN_STATUS"
	terminal_safe "ms_print's output" "$RUN_OUT"
else
	echo "# ms_print is not installed (apt package valgrind): not run"
fi

# ---- JSON outputs: valid UTF-8 JSON --------------------------------------------
for fmt in json speedscope dhat-json; do
	run_cmd 60 "$fmt" "$MPROF" report --format "$fmt" -o "$WORK/t.$fmt" "$WORK/t.trace"
	expect_eq "$fmt: valid UTF-8 JSON" ok "$("$PYTHON" -c 'import json, sys
json.load(open(sys.argv[1], encoding="utf-8")); print("ok")' "$WORK/t.$fmt" 2>&1 | tail -n 1)"
done
expect_eq "json: the hostile functions (bytes that are not UTF-8 as the text \\xNN)" \
	"$(printf '%s\n' "'\\x1b[31mred\\x1b]0;title\\x07\\x9b\\\\xff\\\\xfe end'" \
		"'</script><script>alert(1)</script>'" "'<img src=x onerror=alert(2)>'" \
		"'q\"uote\\\\back\\\\x5cx41&amp;\\u2028sep'" "'semi;colon\\nnew\\tline 42'")" \
	"$("$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
names = {f["function"] for s in d["sites"] for f in s["frames"] if "lib>.c" in (f["file"] or "")}
for n in sorted(names - {"hostile_names_run"}): print(ascii(n))' "$WORK/t.json")"
expect_eq "json: the marker, its newline kept" "'mark\x1b[31m;\n<x>\\\\xff\\\\x5cx41'" \
	"$("$PYTHON" -c 'import json, sys
print(ascii(json.load(open(sys.argv[1]))["timeline"]["markers"][0]["name"]))' "$WORK/t.json")"
expect_eq "json: the module's path" "'$W/dir\\n\\t;<\"\\x1b[31m\\\\xff/libhostile.so'" \
	"$("$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(ascii(sorted({f["module"] for s in d["sites"] for f in s["frames"] if "lib>.c" in (f["file"] or "")})[0]))' "$WORK/t.json")"

# ---- DHAT text -------------------------------------------------------------------
run_cmd 60 dhat "$MPROF" report --format dhat "$WORK/t.trace"
terminal_safe "DHAT text" "$RUN_OUT"

# ---- pprof and go tool pprof -------------------------------------------------------
run_cmd 60 pprof "$MPROF" report --format pprof -o "$WORK/t.pprof" "$WORK/t.trace"
expect_eq "pprof: exit status" 0 "$RUN_STATUS"
if [ -x /usr/bin/go ]; then
	run_cmd 120 gopprof env GOENV=off GOCACHE="$WORK/gocache" GOTOOLCHAIN=local \
		HOME="$WORK" /usr/bin/go tool pprof -raw "$WORK/t.pprof"
	expect_eq "go tool pprof reads it" 0 "$RUN_STATUS"
	terminal_safe "go tool pprof -raw" "$RUN_OUT"
	expect_match "go tool pprof: a hostile function, escaped" \
		' \\x1b\[31mred\\x1b\]0;title\\x07\\xc2\\x9b\\xff\\xfe end .*/dir\\x0a\\x09;<"\\x1b\[31m\\xff/hostile;\\x0a<lib>\.c:'"$LINE_D"' ' \
		"$(cat "$RUN_OUT")"
	expect_match "go tool pprof: a backslash before x41, escaped" \
		' q"uote\\back\\x5cx41&amp;'"$(printf '\342\200\250')"'sep ' "$(cat "$RUN_OUT")"
else
	echo "# go is not installed (apt package golang-go): go tool pprof not run"
fi

# ---- the pages in chromium ------------------------------------------------------------
run_cmd 60 html "$MPROF" report --html "$WORK/t.html" "$WORK/t.trace"
run_cmd 60 flame "$MPROF" report --format flamegraph -o "$WORK/flame.html" "$WORK/t.trace"
if [ -x /usr/bin/chromium ] && command -v node >/dev/null 2>&1 &&
	[ -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	MPROF_HOSTILE_NAMES="$(name A)
$(name B)"
	export MPROF_HOSTILE_NAMES
	for page in "t.html report" "flame.html flame"; do
		set -- $page
		run_cmd 180 "page-$2" node "$BROWSER_DIR/hostile-page.mjs" "$WORK/$1" "$2"
		expect_eq "$1 in chromium: no injected script, the names shown as text" \
			"dialogs=0 scripts=0 handlers=0 images=0 text=1 problems=none" \
			"$(tr '\n' ' ' <"$RUN_OUT" | sed 's/ $//')"
	done
else
	echo "# chromium or tests/browser's node modules missing: the pages not opened"
fi

finish
