# tests/e2e/lib.sh - shell library sourced by every end-to-end test
# (tests/e2e/*.sh and tests/cases/*.sh).
#
# It owns the test's scratch directory (under the build tree, removed when
# the test passes, kept for inspection when it fails), the exact-value checks
# (expect_eq, expect_match, expect_range, ...) that print what was expected
# and what was found, and thin wrappers around `mprof run`, `mprof report`
# and tests/e2e/query.py.  A test sources it, makes checks, and ends with
# `finish`, which fails a test that checked nothing.  It never touches files
# outside the scratch directory.
#
# Environment (exported by tests/local.mk): MPROF, MPROF_ANALYZE, CC, CXX,
# abs_top_srcdir, abs_top_builddir, SHARED_CASES.
# Exit statuses: 0 pass, 1 fail, 77 skip, 99 hard error (test could not be
# set up, e.g. a test program failed to compile).

set -u

TEST_NAME=$(basename "$0" .sh)
E2E_DIR="$abs_top_srcdir/tests/e2e"
PROGS_DIR="$abs_top_srcdir/tests/progs"
: "${MPROF:=$abs_top_builddir/cli/mprof}"
: "${MPROF_ANALYZE:=$abs_top_builddir/analyze/mprof-analyze}"
# The word mprof's hints name it by (cli/self_command.h): "mprof" when PATH
# finds $MPROF by that name, else $MPROF as the tests run it.
MPROF_HINT=$MPROF
[ "$(command -v mprof 2>/dev/null)" -ef "$MPROF" ] && MPROF_HINT=mprof
: "${CC:=cc}"
: "${CXX:=c++}"
: "${PYTHON:=python3}"
# The interpreter itself, not a version manager's shim in front of it: each
# call through pyenv's shim costs 60 ms more here, the suite makes thousands,
# and in one CI run two of them printed nothing (the shim runs under set -e).
PYTHON_SELF=$("$PYTHON" -c 'import sys; print(sys.executable)' 2>/dev/null) &&
	[ -x "$PYTHON_SELF" ] && PYTHON=$PYTHON_SELF
export LC_ALL=C

CHECKS=0
FAILS=0
WORK=

# ---- outcome -----------------------------------------------------------

cleanup_work() {
	if [ -n "$WORK" ] && [ -d "$WORK" ]; then
		if [ "$FAILS" -eq 0 ] && [ -z "${MPROF_TEST_KEEP:-}" ]; then
			chmod -R u+w "$WORK" 2>/dev/null
			rm -rf "$WORK"
		else
			echo "scratch directory kept: $WORK"
		fi
	fi
}

# skip REASON...: the test cannot run here (exit 77).
skip() {
	echo "SKIP: $*"
	FAILS=0
	cleanup_work
	trap - EXIT
	exit 77
}

# hard_error REASON...: the test could not be set up (exit 99).
hard_error() {
	echo "ERROR: $*"
	FAILS=1
	cleanup_work
	trap - EXIT
	exit 99
}

# finish: ends the test; fails when any check failed or none was made.
finish() {
	trap - EXIT
	if [ "$CHECKS" -eq 0 ]; then
		echo "FAIL: $TEST_NAME made no check"
		FAILS=1
	fi
	echo "$TEST_NAME: $CHECKS checks, $FAILS failed"
	cleanup_work
	[ "$FAILS" -eq 0 ] && exit 0
	exit 1
}

on_unexpected_exit() {
	echo "ERROR: $TEST_NAME ended without calling finish"
	FAILS=1
	cleanup_work
}
trap on_unexpected_exit EXIT

# ---- checks -------------------------------------------------------------

pass_() { CHECKS=$((CHECKS + 1)); echo "ok   - $1"; }
fail_() {
	CHECKS=$((CHECKS + 1))
	FAILS=$((FAILS + 1))
	echo "FAIL - $1"
	shift
	for line in "$@"; do echo "       $line"; done
}

# expect_eq WHAT EXPECTED FOUND: exact string equality.
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass_ "$1 = $(printf '%s' "$2" | head -c 200 | tr '\n' '|')"
	else
		fail_ "$1" "expected: $(printf '%s' "$2" | head -c 2000 | sed -n 'l')" \
			"found:    $(printf '%s' "$3" | head -c 2000 | sed -n 'l')"
	fi
}

# expect_ne WHAT UNWANTED FOUND
expect_ne() {
	if [ "$2" != "$3" ]; then
		pass_ "$1 (is not '$2')"
	else
		fail_ "$1" "expected anything but: $2" "found:    $3"
	fi
}

# expect_match WHAT ERE FOUND: FOUND (possibly several lines) has a line
# matching the extended regular expression.
expect_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		pass_ "$1 (matches /$2/)"
	else
		fail_ "$1" "expected a line matching: /$2/" \
			"found: $(printf '%s' "$3" | head -c 2000 | sed -n 'l')"
	fi
}

# expect_no_match WHAT ERE FOUND: no line of FOUND matches.
expect_no_match() {
	local hit
	hit=$(printf '%s\n' "$3" | grep -E -m 3 -- "$2")
	if [ -z "$hit" ]; then
		pass_ "$1 (nothing matches /$2/)"
	else
		fail_ "$1" "expected no line matching: /$2/" "found: $hit"
	fi
}

# expect_range WHAT LOW HIGH FOUND: integer LOW <= FOUND <= HIGH.
expect_range() {
	if printf '%s' "$4" | grep -Eq '^-?[0-9]+$' && [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then
		pass_ "$1 = $4 (in [$2, $3])"
	else
		fail_ "$1" "expected an integer in [$2, $3]" "found: $4"
	fi
}

# expect_true WHAT COMMAND...: COMMAND exits 0.
expect_true() {
	local what=$1
	shift
	if "$@"; then
		pass_ "$what"
	else
		fail_ "$what" "command failed: $*"
	fi
}

# expect_file_eq WHAT EXPECTED_FILE FOUND_FILE: byte-identical files.
expect_file_eq() {
	if cmp -s -- "$2" "$3"; then
		pass_ "$1 ($(wc -c <"$2") bytes identical)"
	else
		fail_ "$1" "files differ: $2 $3" "$(diff -- "$2" "$3" 2>&1 | head -20)"
	fi
}

# ---- set-up -------------------------------------------------------------

# make_work: creates the scratch directory $WORK under the build tree, and
# the test's symbol cache in it.
make_work() {
	mkdir -p "$abs_top_builddir/tests/tmp" || hard_error "cannot create $abs_top_builddir/tests/tmp"
	WORK=$(mktemp -d "$abs_top_builddir/tests/tmp/$TEST_NAME.XXXXXX") ||
		hard_error "mktemp failed"
	# a symbol cache of the test's own (tests/local.mk empties the
	# variable): the traces of one test share answers, as a user's runs
	# do, and none come from an earlier build or another test
	if [ -z "${MPROF_SYMBOL_CACHE:-}" ]; then
		MPROF_SYMBOL_CACHE="$WORK/symbol-cache"
		export MPROF_SYMBOL_CACHE
	fi
}

# require_mprof: skips when the product is not built yet.
require_mprof() {
	[ -x "$MPROF" ] || skip "mprof not built ($MPROF)"
	command -v "$PYTHON" >/dev/null 2>&1 || skip "python3 missing (needed by query.py)"
}

# require_browser: skips unless Debian's chromium and tests/browser's node
# modules (tests/install-deps.sh) are there.  BROWSER_DIR is that folder:
# `node "$BROWSER_DIR/SCRIPT.mjs"` runs a check in the browser.
BROWSER_DIR="$abs_top_srcdir/tests/browser"
require_browser() {
	[ -x /usr/bin/chromium ] || skip "Debian's chromium is not installed (apt package chromium)"
	command -v node >/dev/null 2>&1 || skip "node is not installed (apt package nodejs)"
	[ -d "$BROWSER_DIR/node_modules/playwright-core" ] ||
		skip "tests/browser's node modules are not installed (run tests/install-deps.sh)"
}

# schema_version NAME: N of `#define NAME N` in the analyzer's headers
# (FLAME_DATA_SCHEMA_VERSION, DIFF_JSON_SCHEMA_VERSION,
# OUTPUT_REPORT_SCHEMA_VERSION, OUTPUT_REPORT_SET_SCHEMA_VERSION), so that
# raising a schema version changes its one line, not the tests; nothing when
# there is no such line (the check comparing with it then fails).
schema_version() {
	sed -n "s/^#define $1 \([0-9][0-9]*\)\$/\1/p" "$abs_top_srcdir/analyze/output/output.h" \
		"$abs_top_srcdir/analyze/output/flame_data.h" "$abs_top_srcdir/analyze/diff/diff.h"
}

# build_c OUT SRC [FLAGS...]: cc -O1 -g (FLAGS may override -O).
build_c() {
	local out=$1 src=$2
	shift 2
	$CC -O1 -g -o "$out" "$src" "$@" >"$WORK/build.log" 2>&1 ||
		{ cat "$WORK/build.log"; hard_error "cannot compile $src"; }
}

# build_plugins N [EXTRA...]: $WORK/libplug0.so .. libplug(N-1).so from
# tests/progs/dlopen_chain_lib.c, plugin I allocating (I + 1) * 8 bytes in
# plugI_alloc, and the named extras (reload: 1000 bytes, child: 2000).
build_plugins() {
	local n=$1 i extra
	shift
	for i in $(seq 0 $((n - 1))); do
		build_c "$WORK/libplug$i.so" "$PROGS_DIR/dlopen_chain_lib.c" -shared -fPIC \
			-DPLUG=plug$i -DPLUG_BYTES=$(((i + 1) * 8))
	done
	for extra in "$@"; do
		case $extra in
		reload) i=1000 ;;
		child) i=2000 ;;
		*) hard_error "build_plugins: no extra named $extra" ;;
		esac
		build_c "$WORK/lib$extra.so" "$PROGS_DIR/dlopen_chain_lib.c" -shared -fPIC \
			-DPLUG=$extra -DPLUG_BYTES=$i
	done
}

# build_go OUT SRC: builds the Go program SRC (one file, cgo on) with
# Debian's Go (skips the test where golang-go is not installed), offline,
# with the build cache and GOPATH in the scratch directory and no go env
# file of the user's.
build_go() {
	local out=$1 src=$2 dir="$WORK/go-build"
	[ -x /usr/bin/go ] || skip "Debian's Go is not installed (/usr/bin/go; apt package golang-go)"
	mkdir -p "$dir" && cp "$src" "$dir/" || hard_error "cannot copy $src"
	(cd "$dir" && env GOENV=off GOCACHE="$dir/cache" GOPATH="$dir/path" \
		GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 CC="$CC" \
		/usr/bin/go build -o "$out" "$(basename "$src")") >"$WORK/build.log" 2>&1 ||
		{ cat "$WORK/build.log"; hard_error "cannot build $src"; }
}

# build_cxx OUT SRC [FLAGS...]
build_cxx() {
	local out=$1 src=$2
	shift 2
	$CXX -O1 -g -o "$out" "$src" "$@" >"$WORK/build.log" 2>&1 ||
		{ cat "$WORK/build.log"; hard_error "cannot compile $src"; }
}

# build_sanitized FLAG OUT NAME: builds tests/progs/sanitized_leak.c with
# -fsanitize=FLAG into OUT and runs it natively as run NAME (run_cmd);
# returns 1, saying why, when the compiler cannot build it or it does not
# run here (its status is 5 where it runs).
build_sanitized() {
	local flag=$1 out=$2 name=$3
	if ! $CC -O1 -g -fsanitize="$flag" -o "$out" "$PROGS_DIR/sanitized_leak.c" \
		>"$WORK/build-$flag.log" 2>&1; then
		echo "# -fsanitize=$flag cannot be built here: skipped"
		return 1
	fi
	run_cmd 60 "$name" "$out"
	if [ "$RUN_STATUS" != 5 ]; then
		echo "# -fsanitize=$flag does not run here (status $RUN_STATUS): skipped"
		return 1
	fi
}

# source_line FILE MARKER: sets SOURCE_LINE to the number of the only line
# of FILE that contains MARKER (so tests never hard-code line numbers); a
# hard error when there is not exactly one.  Call it outside $(...).
source_line() {
	SOURCE_LINE=$(grep -nF -- "$2" "$1" | cut -d: -f1)
	case $SOURCE_LINE in
	'' | *[!0-9]*) hard_error "marker '$2' must occur exactly once in $1" ;;
	esac
}

# ---- running ------------------------------------------------------------

# HANG_LIMIT: the time limit in seconds of a run whose check is that it does
# not hang.  Only a hang reaches it: the hard cases' runs take well under
# 1 s on an idle host, and up to 15 s and more on a loaded 2-core one (the
# cases' own bounds of 10 and 15 s failed there).  Speed is bench/'s to
# measure, never a test's.
HANG_LIMIT=120

# run_cmd LIMIT_S NAME COMMAND...: runs COMMAND with a time limit; stdout and
# stderr go to $WORK/NAME.out and $WORK/NAME.err, the exit status to
# RUN_STATUS (124 = timed out), the wall time in ms to RUN_MS.  The test's
# own stdin is not passed on (</dev/null) unless RUN_STDIN names a file.
# With RUN_RSS set, the peak RSS in KiB of COMMAND and its descendants is
# written to $RUN_RSS_FILE, and their processor time (user + system, ms) to
# $RUN_RSS_FILE.cpu.
run_cmd() {
	local limit=$1 name=$2 t0 t1
	shift 2
	RUN_OUT="$WORK/$name.out"
	RUN_ERR="$WORK/$name.err"
	RUN_RSS_FILE="$WORK/$name.rss"
	if [ -n "${RUN_RSS:-}" ]; then
		set -- "$PYTHON" "$E2E_DIR/rusage.py" "$RUN_RSS_FILE" "$@"
	fi
	t0=$(date +%s%N)
	timeout -k 5 "$limit" "$@" <"${RUN_STDIN:-/dev/null}" >"$RUN_OUT" 2>"$RUN_ERR"
	RUN_STATUS=$?
	t1=$(date +%s%N)
	RUN_MS=$(((t1 - t0) / 1000000))
	if [ "$RUN_STATUS" -eq 124 ]; then
		echo "note: '$*' did not finish within ${limit}s"
	fi
	return 0
}

# strace_calls_of PREFIX PROG OUT: writes to OUT the calls of the process
# that executed PROG, from the per-process files of `strace -ff -o PREFIX`.
# One file a process, so no call is split into `<unfinished ...>` and
# `<... resumed>` lines by another process's (which `strace -f` does under
# load, and a pattern that wants a call and its result on one line misses).
# OUT is empty when no process executed PROG.
strace_calls_of() {
	local f
	: >"$3"
	for f in "$1".*; do
		if [ -f "$f" ] && grep -qF "execve(\"$2\"" "$f"; then
			cat "$f" >"$3"
			return 0
		fi
	done
	return 0
}

# mprof_run LIMIT_S TRACE [MPROF_RUN_OPTIONS...] -- PROG ARGS...:
# `mprof run -o TRACE ...` under a time limit; results as run_cmd (files
# $WORK/run.out, $WORK/run.err unless RUN_NAME is set).
mprof_run() {
	local limit=$1 trace=$2
	shift 2
	run_cmd "$limit" "${RUN_NAME:-run}" "$MPROF" run -o "$trace" "$@"
	if [ -s "$RUN_ERR" ]; then
		echo "--- mprof run stderr (first lines):"
		head -n 15 "$RUN_ERR"
	fi
}

# program_stderr FILE: FILE without mprof's own `mprof: ...` (and
# `mprof-analyze: ...`) lines.
program_stderr() {
	grep -Ev '^mprof(-analyze)?: ' "$1"
	return 0
}

# fits_natively WHAT PROG SIZE: runs PROG SIZE without mprof (RUN_* set);
# false, saying so, when it fails there: a WHAT of SIZE bytes is too small
# for the program itself on this host (a stack size the test then skips).
fits_natively() {
	run_cmd 30 "native-$3" "$2" "$3"
	[ "$RUN_STATUS" = 0 ] && return 0
	echo "# a $3-byte $1 is too small for the program itself here"
	return 1
}

# run_table_rows FILE: the rows of the process table `mprof run` printed
# to FILE (its stderr), as NAME|ALLOCATIONS, in the table's order.
run_table_rows() {
	sed -n -E 's/^mprof:   (.*[^ ]) +[0-9]+ +([0-9]+) +([0-9.]+ [KMGT]iB|-)  [^ ]+$/\1|\2/p' "$1"
}

# report_json OUT TRACE...: `mprof report --format json` with every site
# listed; fails the test (and returns 1) when the report cannot be made.
report_json() {
	local out=$1 status name
	shift
	for name in "$@"; do # the first that is not an option: the trace
		[ "${name#-}" = "$name" ] && break
	done
	name=$(basename -- "$name")
	timeout -k 5 "${REPORT_LIMIT:-120}" "$MPROF" report --format json "$@" \
		>"$out" 2>"$out.err"
	status=$?
	if [ "$status" -ne 0 ] || ! "$PYTHON" "$E2E_DIR/query.py" "$out" check >/dev/null 2>&1; then
		fail_ "mprof report --format json $* works" "exit status $status" \
			"stderr: $(head -c 1500 "$out.err")" "stdout: $(head -c 500 "$out")"
		return 1
	fi
	pass_ "mprof report --format json $name readable"
	return 0
}

# traces_by_allocations FUNC TRACE...: the TRACEs, one a line, in the order
# of the number of allocations whose call stack holds FUNC: fork children
# told apart by what each did, not by pid (pids wrap at pid_max, so a later
# child can have a smaller one).
traces_by_allocations() {
	local fn=$1 t
	shift
	for t in "$@"; do
		[ -f "$t" ] || continue
		"$MPROF" report --format json "$t" >"$WORK/by-allocations.json" 2>/dev/null
		printf '%s %s\n' "$(q "$WORK/by-allocations.json" sum allocations "$fn")" "$t"
	done | sort -n | cut -d' ' -f2-
}

# json_eval FILE EXPR: prints the Python expression EXPR over the JSON in
# FILE (as d; site(fn) lists the sites whose first frame is function fn).
json_eval() {
	"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
def site(fn):
    return [s for s in d["sites"] if s["frames"] and s["frames"][0]["function"] == fn]
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}

# q REPORT.json QUERY ARGS...: see tests/e2e/query.py.
q() {
	"$PYTHON" "$E2E_DIR/query.py" "$@" 2>&1
}

# expect_runs_or_refuses LABEL STATUS STDOUT: for a program mprof cannot
# record (static, set-user-ID): after mprof_run/run_cmd, either it ran
# unrecorded (exit STATUS, stdout STDOUT) or mprof refused it before it ran
# (status 1-123, no output); either way within the time limit.
expect_runs_or_refuses() {
	if [ "$RUN_STATUS" -eq "$2" ]; then
		expect_eq "1. $1: stdout" "$3" "$(cat "$RUN_OUT")"
	else
		expect_range "1. $1: refused: non-zero status (and no timeout)" 1 123 "$RUN_STATUS"
		expect_eq "1. $1: refused before running: no output" "" "$(cat "$RUN_OUT")"
	fi
	expect_ne "2. $1: no hang (limit $HANG_LIMIT s; in $RUN_MS ms)" 124 "$RUN_STATUS"
}

# wait_for_file FILE PID: waits up to 60 s for FILE to hold something while
# PID lives; false when it did not.
wait_for_file() {
	local _
	for _ in $(seq 600); do
		[ -s "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# wait_taken PID: waits up to 60 s until PID has no signal pending (the
# last one sent was taken: its handler ran or runs now; in a program of one
# thread, before its own next step).
wait_taken() {
	local _
	for _ in $(seq 600); do
		grep -E '^(SigPnd|ShdPnd):' "/proc/$1/status" 2>/dev/null |
			grep -Evq '[[:space:]]0+$' || return 0
		sleep 0.1
	done
	return 1
}

# ---- real programs ------------------------------------------------------

# expect_as_native LIMIT_S NAME STATUS TRACE PROGRAM ARGS...: runs PROGRAM
# natively and under `mprof run -o TRACE`, each within LIMIT_S seconds (a
# hang fails the test with status 124, it never hangs it); both must exit
# with STATUS, and stdout and stderr (without mprof's own lines) must be
# the same.  Files: $WORK/native-NAME.* and $WORK/mprof-NAME.*.
expect_as_native() {
	local limit=$1 name=$2 status=$3 trace=$4
	shift 4
	run_cmd "$limit" "native-$name" "$@"
	expect_eq "$name: native exit status" "$status" "$RUN_STATUS"
	RUN_NAME="mprof-$name" mprof_run "$limit" "$trace" -- "$@"
	expect_eq "$name: exit status under mprof (124: not done in ${limit}s)" "$status" "$RUN_STATUS"
	expect_file_eq "$name: stdout unchanged" "$WORK/native-$name.out" "$WORK/mprof-$name.out"
	program_stderr "$WORK/mprof-$name.err" >"$WORK/mprof-$name.progerr"
	expect_file_eq "$name: stderr unchanged" "$WORK/native-$name.err" "$WORK/mprof-$name.progerr"
}

# expect_whole_trace LABEL REPORT STATUS RUNTIME: the report of a process that ended
# by itself with STATUS rests on a whole trace: the end was recorded,
# nothing was lost, missing or made unrecorded, every free matched an
# allocation, and no diagnostic was raised.  RUNTIME is the runtime with a
# heap of its own that the report must name ("null" for none, "-" not
# checked).
expect_whole_trace() {
	local p=$1 r=$2
	expect_eq "$p: exit status in the report" "$3" "$(q "$r" summary program.exit_status)"
	expect_eq "$p: process state at the end" ended "$(q "$r" summary end.process_state)"
	expect_eq "$p: not ended early" null "$(q "$r" summary ended_early)"
	expect_eq "$p: trace complete" true "$(q "$r" summary quality.complete)"
	expect_eq "$p: chunks lost" 0 "$(q "$r" summary quality.chunks_lost)"
	expect_eq "$p: sequence gaps" 0 "$(q "$r" summary quality.sequence_gaps)"
	expect_eq "$p: events missing" 0 "$(q "$r" summary quality.missing_events)"
	expect_eq "$p: unmatched frees" 0 "$(q "$r" summary unmatched_frees)"
	expect_eq "$p: allocations made but not recorded" 0 \
		"$(q "$r" summary quality.unrecorded_allocations)"
	expect_eq "$p: frees made but not recorded" 0 "$(q "$r" summary quality.unrecorded_frees)"
	expect_eq "$p: diagnostics" "[]" "$(q "$r" summary diagnostics)"
	[ "$4" = - ] ||
		expect_eq "$p: runtime with a heap of its own" "$4" "$(q "$r" summary own_heap_runtime)"
}

# ---- MPROF_UNWIND=check ------------------------------------------------

# expect_exact_unwind [PREFIX]: after an `MPROF_UNWIND=check` run, asserts
# from $RUN_ERR's "unwind check:" line that no capture differed from
# libunwind's and no reused stack from a full walk; sets CHECK to the line
# and CHECK_SITE_HITS to its count of stacks from the call-site cache.
expect_exact_unwind() {
	local p=${1:+$1: }
	CHECK=$(grep -o 'unwind check: .*' "$RUN_ERR")
	expect_match "${p}check mode reported" '^unwind check: [0-9]+ captures' "$CHECK"
	expect_match "${p}no capture differs from libunwind's" ' 0 mismatches' "$CHECK"
	expect_match "${p}no reused stack differs from a full walk" ' 0 of them differing' "$CHECK"
	CHECK_SITE_HITS=$(printf '%s' "$CHECK" |
		sed -n 's/.* \([0-9]*\) from the call-site cache.*/\1/p')
}

# ---- hard cases ---------------------------------------------------------

# case_start NN-NAME: the set-up of a hard-case test (tests/cases/NN-NAME.sh)
# whose program is our own, in tests/progs/cases/ (CASE_SRC): makes the
# scratch folder CASE_DIR ($WORK/case) and enters it; the script builds its
# program there (build_c, build_cxx).
case_start() {
	require_mprof
	make_work
	CASE_SRC="$PROGS_DIR/cases"
	CASE_DIR="$WORK/case"
	mkdir -p "$CASE_DIR" || hard_error "cannot create $CASE_DIR"
	cd "$CASE_DIR" || hard_error "cd $CASE_DIR"
}

# ---- report checks ------------------------------------------------------

# expect_site REPORT FUNCS ALLOCATIONS BYTES LEAKED_BLOCKS LEAKED_BYTES:
# exact sums over the sites whose call stack holds FUNCS (see query.py);
# "-" skips a value.
expect_site() {
	local r=$1 f=$2
	[ "$3" = - ] || expect_eq "$f: allocations" "$3" "$(q "$r" sum allocations "$f")"
	[ "$4" = - ] || expect_eq "$f: allocated bytes" "$4" "$(q "$r" sum allocated_bytes "$f")"
	[ "$5" = - ] || expect_eq "$f: blocks live at exit" "$5" "$(q "$r" sum leaked_blocks "$f")"
	[ "$6" = - ] || expect_eq "$f: bytes live at exit" "$6" "$(q "$r" sum leaked_bytes "$f")"
}

# expect_frame_at LABEL REPORT FUNC FILE: FUNC's frame in the report
# carries FILE and a line number (its symbols were found).
expect_frame_at() {
	expect_eq "$1: $3's file" "$4" "$(q "$2" frame "$3" file)"
	expect_match "$1: $3's line" '^[0-9]+$' "$(q "$2" frame "$3" line)"
}

# expect_no_site REPORT FUNC: no call stack in the report holds FUNC.
expect_no_site() {
	expect_eq "no site attributed to $2" 0 "$(q "$1" sites "$2")"
}
