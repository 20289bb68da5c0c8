#!/bin/bash
# error-paths.sh - clear messages and documented statuses when things go
# wrong: a missing program (127), an output that cannot be created (125,
# before the program runs), libdw that cannot be loaded at the end of a run
# (no symbols embedded, unless the symbol cache holds them all), `mprof report` on a file that is not a trace and
# on a trace truncated anywhere (every format still reports what it could
# read, with a warning), `mprof report -o` naming a trace (refused).  Never
# a crash.  Every command's --help fits in 80 columns.
# Program and facts: tests/progs/small_leak.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/small_leak" "$PROGS_DIR/small_leak.c"

# A program that does not exist.
mprof_run 30 "$WORK/t-missing" -- "$WORK/no-such-program"
expect_eq "missing program: exit status" 127 "$RUN_STATUS"
expect_match "missing program: message names it" "^mprof: .*no-such-program" "$(cat "$RUN_ERR")"
expect_eq "missing program: stdout empty" "" "$(cat "$RUN_OUT")"
expect_eq "missing program: no trace left behind" no "$([ -e "$WORK/t-missing" ] && echo yes || echo no)"

# An output file that cannot be created: refused before the program starts.
RUN_NAME=unwritable mprof_run 30 /proc/x -- "$WORK/small_leak" "$WORK/marker"
expect_eq "unwritable output: exit status" 125 "$RUN_STATUS"
expect_match "unwritable output: message names /proc/x" "^mprof: .*/proc/x" "$(cat "$RUN_ERR")"
expect_eq "unwritable output: the program did not run" no \
	"$([ -e "$WORK/marker" ] && echo yes || echo no)"
expect_eq "unwritable output: stdout empty" "" "$(cat "$RUN_OUT")"

# An output file that already exists is never overwritten.
echo "precious" >"$WORK/existing"
RUN_NAME=existing mprof_run 30 "$WORK/existing" -- "$WORK/small_leak" "$WORK/marker2"
expect_ne "existing output: non-zero status" 0 "$RUN_STATUS"
expect_eq "existing output: file untouched" precious "$(cat "$WORK/existing")"

# `mprof report` on something that is not a trace.
printf 'this is not a trace file, just some text that is long enough to have a header\n%.0s' \
	1 2 3 4 >"$WORK/not-a-trace"
run_cmd 30 notrace "$MPROF" report "$WORK/not-a-trace"
expect_range "report of a non-trace: error status (not a crash)" 1 125 "$RUN_STATUS"
expect_match "report of a non-trace: message names the file" "^mprof.*not-a-trace" "$(cat "$RUN_ERR")"
run_cmd 30 empty "$MPROF" report /dev/null
expect_range "report of an empty file: error status (not a crash)" 1 125 "$RUN_STATUS"
expect_match "report of an empty file: a message" "^mprof" "$(cat "$RUN_ERR")"
run_cmd 30 nofile "$MPROF" report "$WORK/does-not-exist"
expect_range "report of a missing file: error status (not a crash)" 1 125 "$RUN_STATUS"
expect_match "report of a missing file: message names it" "^mprof.*does-not-exist" "$(cat "$RUN_ERR")"

# libdw cannot be loaded when the run ends (mprof-analyze loads it with
# dlopen): `mprof run` says that no symbols were embedded and the trace is
# still valid, and a report made where libdw loads names the frames from
# the binary.  (Answers of module and offset embedded then would have hidden
# the names for good.)
mkdir -p "$WORK/nodw"
: >"$WORK/nodw/libdw.so.1"
printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s" "$@"\n' \
	"$WORK/nodw" "$MPROF_ANALYZE" >"$WORK/analyze-nodw"
chmod +x "$WORK/analyze-nodw"
MPROF_ANALYZE="$WORK/analyze-nodw" RUN_NAME=nodw mprof_run 60 "$WORK/trace-nodw" -- "$WORK/small_leak"
expect_eq "libdw not loadable: the program's exit status" 0 "$RUN_STATUS"
expect_match "libdw not loadable: the analyzer says why" "cannot load libdw" "$(cat "$RUN_ERR")"
expect_match "libdw not loadable: no symbols embedded, the trace still valid" \
	"embedding symbols failed.*still valid" "$(cat "$RUN_ERR")"
report_json "$WORK/nodw.json" "$WORK/trace-nodw"
expect_site "$WORK/nodw.json" lose_blocks 3 9000 3 9000

# A truncated trace.
RUN_NAME=good mprof_run 60 "$WORK/trace" -- "$WORK/small_leak"
expect_eq "reference run: exit status" 0 "$RUN_STATUS"
report_json "$WORK/full.json" "$WORK/trace"

# libdw not loadable, but the symbol cache (warm since the reference run)
# answers every frame: libdw is not needed, so the answers are embedded (a
# copy of the program, deleted before the report, can only be named from
# them).
cp "$WORK/small_leak" "$WORK/small_leak_copy"
MPROF_ANALYZE="$WORK/analyze-nodw" RUN_NAME=nodw-cached mprof_run 60 "$WORK/trace-nodw-cached" \
	-- "$WORK/small_leak_copy"
rm -f "$WORK/small_leak_copy"
expect_eq "libdw not loadable, all cached: exit status" 0 "$RUN_STATUS"
expect_eq "libdw not loadable, all cached: no warning" "" \
	"$(grep -e 'libdw' -e 'embedding symbols' "$RUN_ERR")"
report_json "$WORK/nodw-cached.json" "$WORK/trace-nodw-cached"
expect_site "$WORK/nodw-cached.json" lose_blocks 3 9000 3 9000
size=$(stat -c %s "$WORK/trace")
# (a) the last 40 bytes lost: at most the final chunk (embedded symbols) is
# damaged, so every event is still there and the counts are unchanged.
head -c $((size - 40)) "$WORK/trace" >"$WORK/trace-tail-cut"
run_cmd 60 cut-tail "$MPROF" report --format json "$WORK/trace-tail-cut"
expect_eq "tail cut: report still made (exit status)" 0 "$RUN_STATUS"
expect_match "tail cut: warning about the truncation" \
	"^mprof(-analyze)?: .*(truncat|incomplete|damaged|corrupt)" "$(cat "$RUN_ERR")"
cp "$RUN_OUT" "$WORK/cut.json"
expect_site "$WORK/cut.json" lose_blocks 3 9000 3 9000
expect_site "$WORK/cut.json" spin 20000 1310000 - -
# (b) cut in the middle: no crash, a warning, whatever was read is reported.
for keep in 50 70 100 200; do
	head -c $((size * keep / 1000)) "$WORK/trace" >"$WORK/trace-$keep"
	run_cmd 60 "cut-$keep" "$MPROF" report "$WORK/trace-$keep"
	expect_range "cut to $keep/1000: no crash (exit status < 126)" 0 125 "$RUN_STATUS"
	expect_match "cut to $keep/1000: says the trace is truncated" \
		"(truncat|incomplete|damaged|corrupt)" "$(cat "$RUN_ERR" "$RUN_OUT")"
done

# (c) cut at each chunk boundary, inside each chunk header and inside each
# payload: every format reports what was read (exit status 0, nothing on
# stderr but the warning), and a torn chunk is named by its offset.
chunks=$("$PYTHON" -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
off = struct.unpack_from("<I", d, 12)[0]
while off + 24 <= len(d):
    stored = struct.unpack_from("<I", d, off + 8)[0]
    print(off, stored)
    off += 24 + stored
' "$WORK/trace")
expect_range "chunks of the reference trace" 4 100 "$(printf '%s\n' "$chunks" | wc -l)"
formats="text json folded flamegraph dhat dhat-json massif pprof speedscope html"
while read -r start stored; do
	for cut in "$start" $((start + 11)) $((start + 24 + stored / 2)); do
		head -c "$cut" "$WORK/trace" >"$WORK/trace-cut"
		bad=
		for f in $formats; do
			run_cmd 60 "cut-$cut-$f" "$MPROF" report --format "$f" "$WORK/trace-cut"
			[ "$RUN_STATUS" = 0 ] || bad="$bad $f:$RUN_STATUS"
			grep -qv "^mprof: warning: .*: trace truncated at offset $start: " "$RUN_ERR" &&
				bad="$bad $f:stderr"
		done
		expect_eq "cut at byte $cut: every format reports (exit status 0)" "" "$bad"
		if [ "$cut" != "$start" ]; then
			expect_match "cut at byte $cut: the torn chunk at $start named" \
				"^mprof: warning: .*: trace truncated at offset $start: " "$(cat "$RUN_ERR")"
		fi
	done
done <<<"$chunks"

# -o naming a trace: refused before anything is written, whether it is the
# trace being read (opening it for writing emptied it) or another one
# (`--html T T.html`, the operands the other way round, wrote the page over T).
cp "$WORK/trace" "$WORK/trace-copy"
sum_before=$(cksum <"$WORK/trace")
run_cmd 60 output-is-input "$MPROF" report "$WORK/trace" -o "$WORK/trace"
expect_eq "-o names the trace read: exit status" 2 "$RUN_STATUS"
expect_eq "-o names the trace read: said so, in one line" \
	"mprof: report: $WORK/trace is an mprof trace: not writing the report over it" \
	"$(cat "$RUN_ERR")"
expect_eq "-o names the trace read: the trace is unchanged" "$sum_before" "$(cksum <"$WORK/trace")"
run_cmd 60 html-swapped "$MPROF" report --html "$WORK/trace" "$WORK/trace-copy"
expect_eq "--html T T2: exit status" 2 "$RUN_STATUS"
expect_eq "--html T T2: T is unchanged" "$sum_before" "$(cksum <"$WORK/trace")"
run_cmd 60 output-not-trace "$MPROF" report --html "$WORK/trace.html" "$WORK/trace"
expect_eq "--html over a file that is no trace: exit status" 0 "$RUN_STATUS"
run_cmd 60 output-html-again "$MPROF" report --html "$WORK/trace.html" "$WORK/trace"
expect_eq "--html over an earlier page: exit status" 0 "$RUN_STATUS"
expect_match "--html over an earlier page: a page" "^<!doctype html>$" "$(head -n 1 "$WORK/trace.html")"

# --html FILE with another --format or -o: one of the two was dropped
# unsaid (--html P -f json wrote JSON into P; --html P -o F wrote the page
# to F and nothing to P); a usage error now, and the same one -o allows.
run_cmd 60 html-and-format "$MPROF" report --html "$WORK/h1.html" -f json "$WORK/trace"
expect_eq "--html with -f json: exit status" 2 "$RUN_STATUS"
expect_eq "--html with -f json: said so, in one line" \
	"mprof: report: --html $WORK/h1.html writes an HTML page; it does not go with --format json (see '$MPROF_HINT report --help')" \
	"$(cat "$RUN_ERR")"
expect_eq "--html with -f json: nothing written" no "$([ -e "$WORK/h1.html" ] && echo yes || echo no)"
run_cmd 60 html-and-output "$MPROF" report -o "$WORK/h2.out" --html "$WORK/h2.html" "$WORK/trace"
expect_eq "--html with -o: exit status" 2 "$RUN_STATUS"
expect_eq "--html with -o: said so, in one line" \
	"mprof: report: --html $WORK/h2.html names the output file; it does not go with -o $WORK/h2.out (see '$MPROF_HINT report --help')" \
	"$(cat "$RUN_ERR")"
expect_eq "--html with -o: nothing written" "no no" \
	"$([ -e "$WORK/h2.html" ] && echo yes || echo no) $([ -e "$WORK/h2.out" ] && echo yes || echo no)"
# an option without its value: the same words as mprof run's
run_cmd 60 report-no-value "$MPROF" report "$WORK/trace" -o
expect_eq "report -o without a value: exit status" 2 "$RUN_STATUS"
expect_eq "report -o without a value: said as mprof run says it" \
	"mprof: report: option '-o' wants a value (see '$MPROF_HINT report --help')" "$(cat "$RUN_ERR")"
run_cmd 60 html-and-same "$MPROF" report -f html -o "$WORK/h3.html" --html "$WORK/h3.html" "$WORK/trace"
expect_eq "--html with -f html -o the same file: exit status" 0 "$RUN_STATUS"
expect_match "--html with -f html -o the same file: a page" "^<!doctype html>$" "$(head -n 1 "$WORK/h3.html")"

# -s takes no value: `-s 64k` (a sample rate meant for it) is a usage error
# that names --sample-rate, not "64k: command not found"; with "--" before
# it, 64k is the program asked for
for args in "-s 64k -- /bin/true" "--sampled 1M /bin/true" "-qs 8"; do
	# shellcheck disable=SC2086
	run_cmd 60 sampled-value "$MPROF" run $args
	rate=$(set -- $args; echo "$2")
	expect_eq "run $args: exit status" 2 "$RUN_STATUS"
	expect_eq "run $args: says what -s is and how to give a rate" \
		"mprof: run: -s (--sampled) takes no value: it samples at 512K; for a sample rate of $rate write --sample-rate $rate (see '$MPROF_HINT run --help')" \
		"$(cat "$RUN_ERR")"
done
run_cmd 60 sampled-dashes "$MPROF" run -s -- 64k
expect_eq "run -s -- 64k: exit status (not found)" 127 "$RUN_STATUS"
expect_eq "run -s -- 64k: the program not found" "mprof: 64k: command not found" \
	"$(cat "$RUN_ERR")"

# A program whose name is 240 bytes long runs, and its default trace name
# takes the first 128 (a file name of its whole name and the rest would be
# too long to create).
long=$(printf 'p%.0s' $(seq 240))
mkdir "$WORK/long"
cp "$WORK/small_leak" "$WORK/long/$long"
(cd "$WORK/long" && "$MPROF" run -q -- "./$long" >/dev/null 2>"$WORK/long.err")
expect_eq "long program name: exit status" 0 "$?"
expect_eq "long program name: the trace's name holds 128 bytes of it" 1 \
	"$(cd "$WORK/long" && ls | grep -cE "^mprof\.p{128}\.[0-9]+\.trace\$")"
# --help of each command fits a terminal of 80 columns (report's formats
# and metrics ran to 98)
for cmd in run report diff; do
	"$MPROF" "$cmd" --help >"$WORK/help-$cmd.txt" 2>&1
	expect_eq "mprof $cmd --help: lines over 80 columns" "" \
		"$(awk 'length > 80' "$WORK/help-$cmd.txt")"
done
finish
