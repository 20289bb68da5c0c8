#!/bin/bash
# hint-exec-wrapper.sh - the closing hint of a run that makes several traces
# (`mprof: a page to look at ...: mprof report --html PAGE TRACE`) names the
# program the command executed in the end, as a wrapper script or pyenv's
# shim hands over to the real program with exec, even when one of the
# wrapper's helper processes made more allocations; without such an exec,
# the trace with the most allocations; a run of one trace names it.
# Program and facts: tests/progs/tree_worker.c (exactly N allocations).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/tree_worker" "$PROGS_DIR/tree_worker.c"
mkdir "$WORK/a" "$WORK/b" "$WORK/c"

# pid and trace of the table row of 'tree_worker N'
row() { grep -E "^mprof:   .*tree_worker $2 +[0-9]+ +[0-9]+ " "$1"; }
row_pid() { row "$1" "$2" | awk '{print $4}'; }
row_trace() { row "$1" "$2" | awk '{print $NF}'; }

# 1. A wrapper whose helper (as pyenv-which is) makes 3000 allocations, then
# execs the program, which makes 1000: the hint names the program's trace.
cat >"$WORK/wrap.sh" <<WRAP
#!/bin/sh
"$WORK/tree_worker" 3000
exec "$WORK/tree_worker" 1000
WRAP
chmod +x "$WORK/wrap.sh"
RUN_NAME=exec mprof_run 60 "$WORK/a/trace" -- "$WORK/wrap.sh"
expect_eq "1. exec wrapper: exit status" 0 "$RUN_STATUS"
T1000=$(row_trace "$RUN_ERR" 1000)
P1000=$(row_pid "$RUN_ERR" 1000)
expect_eq "1. the program's trace is FILE.PID" "$WORK/a/trace.$P1000" "$T1000"
expect_eq "1. the program kept the wrapper's pid" "$P1000" \
	"$(grep -E "^mprof:   (/bin/)?sh ($WORK/)?wrap\.sh .* $WORK/a/trace\$" "$RUN_ERR" | awk '{print $4}')"
expect_match "1. the table still names the helper: most allocations" \
	"^mprof: most allocations: $WORK/a/trace\.[0-9]+ \(($WORK/)?tree_worker 3000\)\$" \
	"$(grep '^mprof: most allocations:' "$RUN_ERR")"
# The program is named in full, or without its folder when longer than 60
# columns (how long depends on where the suite runs), as in the table.
expect_match "1. the hint names the program the wrapper executed" \
	"^mprof: a page to look at the trace of ($WORK/)?tree_worker \(pid $P1000\): $MPROF_HINT report --html $T1000\.html $T1000\$" \
	"$(grep '^mprof: a page' "$RUN_ERR")"

# 2. A wrapper that only starts the program as its child: the hint names the
# trace with the most allocations.
cat >"$WORK/fork.sh" <<WRAP
#!/bin/sh
"$WORK/tree_worker" 3000
"$WORK/tree_worker" 1000
WRAP
chmod +x "$WORK/fork.sh"
RUN_NAME=fork mprof_run 60 "$WORK/b/trace" -- "$WORK/fork.sh"
expect_eq "2. fork wrapper: exit status" 0 "$RUN_STATUS"
T3000=$(row_trace "$RUN_ERR" 3000)
expect_match "2. the helper's trace is FILE.PID" "^$WORK/b/trace\.[0-9]+$" "$T3000"
expect_match "2. the hint names the trace with the most allocations" \
	"^mprof: a page to look at the trace of ($WORK/)?tree_worker \(pid $(row_pid "$RUN_ERR" 3000)\): $MPROF_HINT report --html $T3000\.html $T3000\$" \
	"$(grep '^mprof: a page' "$RUN_ERR")"

# 3. One process, one trace: the hint names it, as ever.
RUN_NAME=one mprof_run 60 "$WORK/c/trace" -- "$WORK/tree_worker" 10
expect_eq "3. one trace: exit status" 0 "$RUN_STATUS"
expect_eq "3. one trace: the hint names it" \
	"mprof: a page to look at it: $MPROF_HINT report --html $WORK/c/trace.html $WORK/c/trace" \
	"$(grep '^mprof: a page' "$RUN_ERR")"
finish
