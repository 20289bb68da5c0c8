#!/bin/bash
# exec-names.sh - the program executes another at once (a shell's
# `exec PROG`): the first trace, FILE, is always the shell's, marked as
# having executed a program, and FILE.PID the program's, with its exact
# allocations, as mprof-run(1) says.  The two process files appear within
# the file system's time granularity, so the launcher must order them by
# creation itself (before it did, FILE was the program's in 10 runs of 30).
# Many fork children that each execute a short program: every child's
# first image is marked as having executed, none as ended (its next image
# could start and end while the launcher finished others: 18-24 of 600
# were "ended").
# Programs and facts: tests/progs/free_in_order.c, tests/progs/fork_execs.c;
# churn.c, below.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/free_in_order" "$PROGS_DIR/free_in_order.c"

right=0
for run in 1 2 3 4 5 6 7 8 9 10; do
	mkdir -p "$WORK/r$run"
	RUN_NAME=run$run mprof_run 60 "$WORK/r$run/trace" -- /bin/sh -c 'exec "$1"' sh \
		"$WORK/free_in_order" >/dev/null
	[ "$RUN_STATUS" = 0 ] || continue
	report_json "$WORK/r$run/first.json" "$WORK/r$run/trace" >/dev/null || continue
	set -- "$WORK/r$run"/trace.*
	[ $# = 1 ] && [ -f "$1" ] || continue
	report_json "$WORK/r$run/second.json" "$1" >/dev/null || continue
	first_exe=$(q "$WORK/r$run/first.json" get trace.exe)
	first_state=$(q "$WORK/r$run/first.json" summary end.process_state)
	second_exe=$(q "$WORK/r$run/second.json" get trace.exe)
	second_allocs=$(q "$WORK/r$run/second.json" sum allocations make_block)
	echo "run $run: FILE $first_exe ($first_state), FILE.PID $second_exe ($second_allocs)"
	case $first_exe in */sh | */dash | */bash) ;; *) continue ;; esac
	[ "$first_state" = exec ] && [ "$second_exe" = "$WORK/free_in_order" ] &&
		[ "$second_allocs" = 200 ] && right=$((right + 1))
done
expect_eq "runs whose FILE is the shell's (it executed) and FILE.PID the program's" 10 "$right"

# The slots the shell left behind when it executed the program are not
# threads writing events: counted as such, with two processors they made the
# launcher store every chunk of the program uncompressed (python3 under
# `env`: 8.8 MB against 1.2 MB).  The program's trace is about as large
# either way.
cat >"$WORK/churn.c" <<'PROG'
#include <stdlib.h>
int main(void)
{
	static void *keep[64];
	for (unsigned i = 0; i < 400000; i++) {
		void *p = malloc(16 + (i * 7919u) % 200);
		free(keep[i % 64]);
		keep[i % 64] = p;
	}
	return 0;
}
PROG
build_c "$WORK/churn" "$WORK/churn.c"
mkdir -p "$WORK/direct" "$WORK/execd"
RUN_NAME=direct mprof_run 60 "$WORK/direct/trace" -- "$WORK/churn" >/dev/null
direct=$(wc -c <"$WORK/direct/trace")
RUN_NAME=execd mprof_run 60 "$WORK/execd/trace" -- /bin/sh -c 'exec "$1"' sh "$WORK/churn" >/dev/null
set -- "$WORK/execd"/trace.*
execd=$([ $# = 1 ] && [ -f "$1" ] && wc -c <"$1" || echo 0)
echo "trace bytes: run directly $direct, executed by a shell $execd"
expect_range "the executed program's trace, in % of the directly run one's" 50 200 \
	"$((execd * 100 / (direct > 0 ? direct : 1)))"

build_c "$WORK/fork_execs" "$PROGS_DIR/fork_execs.c"
mkdir -p "$WORK/many"
RUN_NAME=many mprof_run 300 "$WORK/many/trace" -- "$WORK/fork_execs" 400 /bin/true
expect_eq "fork_execs: exit status" 0 "$RUN_STATUS"
"$MPROF" report --all "$WORK/many/trace" >"$WORK/many.txt" 2>&1
states=$(awk 'NR > 2 && $1 == "fork_execs" && $3 == "/bin/true" { print $5 }' \
	"$WORK/many.txt" | sort | uniq -c | awk '{ printf "%s %s; ", $2, $1 }')
echo "fork_execs' images: $states"
expect_eq "fork_execs: the first images' states (400 children executed, the parent exited)" \
	"exec 400; exit 1; " "$states"
finish
