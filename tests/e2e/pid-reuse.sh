#!/bin/bash
# pid-reuse.sh - a process killed and reaped while the launcher was stopped,
# whose pid went to another process (64 MiB, named "newcomer", 1.5 s)
# before the launcher looked again, keeps its own figures: its trace has its
# peak RSS and RSS samples (below 64 MiB), its run time (below 1.5 s), its
# own name, and says it ended.  The launcher read /proc/PID of the newcomer
# and put its figures in the ended process's trace (peak RSS 65 MiB, RSS
# samples of 64 MiB, a run of 1.8 s).
# mprof runs in a PID namespace of its own (unshare -p -f --mount-proc),
# where the program can choose the next pid (ns_last_pid); skipped where
# that cannot be made.
# Program and facts: tests/progs/pid_reuse.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/pid_reuse" "$PROGS_DIR/pid_reuse.c"
command -v unshare >/dev/null 2>&1 || skip "no unshare(1) here"

mkdir -p "$WORK/t"
# sh stays the namespace's init, so the program may stop the launcher
run_cmd 60 reuse unshare -p -f --mount-proc sh -c \
	'"$1" run -o "$2" -- "$3"; exit $?' sh "$MPROF" "$WORK/t/t" "$WORK/pid_reuse"
[ "$RUN_STATUS" -eq 77 ] && skip "the pid could not be reused here: $(program_stderr "$RUN_ERR")"
if [ "$RUN_STATUS" -ne 0 ] && ! grep -q '^mprof' "$RUN_ERR"; then
	skip "no PID namespace here: $(head -c 300 "$RUN_ERR")"
fi
expect_eq "exit status" 0 "$RUN_STATUS"
pid=$(sed -n 's/^reused \([0-9]*\)$/\1/p' "$RUN_OUT")
expect_match "the newcomer got the ended process's pid" '^[0-9]+$' "$pid"

early=
for f in "$WORK"/t/t.*; do
	case "$f" in *.json*) continue ;; esac
	"$MPROF" report --format json "$f" >"$f.json" 2>/dev/null || continue
	[ "$(q "$f.json" sum allocations early_block)" = 3 ] && early=$f
done
expect_ne "the ended process has a trace" "" "$early"
[ -n "$early" ] || finish
report_json "$WORK/early.json" "$early"
R=$WORK/early.json
expect_eq "its pid" "$pid" "$(json_eval "$R" "d['summary']['program']['pid']")"
expect_eq "it was killed (SIGKILL)" 9 "$(json_eval "$R" "d['summary']['program']['exit_signal']")"
expect_eq "it ended" ended "$(json_eval "$R" "d['summary']['end']['process_state']")"
expect_eq "its peak RSS is its own (below 64 MiB, or unknown)" True \
	"$(json_eval "$R" "(d['summary']['peak_rss_kib'] or 0) < 65536")"
expect_eq "its RSS samples are its own (below 64 MiB)" True \
	"$(json_eval "$R" "max([r['rss_bytes'] for r in d['timeline']['rss']] or [0]) < 64 << 20")"
expect_eq "its run time is its own (below 1.5 s)" True \
	"$(json_eval "$R" "(d['summary']['run_time_ns'] or 0) < 1500000000")"
expect_eq "its name is its own" "None None" \
	"$(json_eval "$R" "d['summary']['program']['comm'], d['summary']['program']['name_how']" | tr -d "(),'")"
expect_eq "its name in the table" "$WORK/pid_reuse" "$(json_eval "$R" "d['summary']['program']['name']")"
finish
