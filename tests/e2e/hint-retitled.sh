#!/bin/bash
# hint-retitled.sh - mprof run's closing messages name a process that gave
# itself a title with spaces (postgres's backends, nginx's workers) by its
# whole title, as the table does.  Before, the closing hint and the "was
# killed by signal" note took the name up to its first space, inside the
# quotes: "a page to look at the trace of 'postgres: (pid 22000)".
# Program and facts: tests/progs/retitled_hint.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/retitled_hint" "$PROGS_DIR/retitled_hint.c"
PAD=padding-padding-padding
# run from the scratch directory, so that the command line is the same in
# every build tree; wide enough for every name in the table
cd "$WORK" || hard_error "cannot enter $WORK"

# 1. A forked worker titled "demo: busy worker" makes the most allocations:
# the hint names its trace by the title, quoted whole.
RUN_NAME=fork COLUMNS=200 mprof_run 60 "$WORK/f" -- ./retitled_hint fork $PAD
expect_eq "1. exit status" 0 "$RUN_STATUS"
expect_eq "1. stdout" "" "$(cat "$RUN_OUT")"
rows=$(run_table_rows "$RUN_ERR")
expect_eq "1. run table: names and allocations" \
	"'demo: busy worker'|3000
./retitled_hint fork $PAD|0" "$rows"
P=$(grep -E "^mprof:   'demo: busy worker' " "$RUN_ERR" | awk '{print $(NF-4)}')
expect_match "1. the worker's pid is in the table" '^[0-9]+$' "$P"
expect_eq "1. the hint names the worker by its whole title" \
	"mprof: a page to look at the trace of 'demo: busy worker' (pid $P): $MPROF_HINT report --html $WORK/f.$P.html $WORK/f.$P" \
	"$(grep '^mprof: a page' "$RUN_ERR")"

# 2. A program that a shell executes titles itself "demo: doomed" and is
# killed by SIGTERM: the note names it by its whole title.
RUN_NAME=kill mprof_run 60 "$WORK/k" -- /bin/sh -c "exec '$WORK/retitled_hint' kill $PAD"
expect_eq "2. exit status (128 + SIGTERM)" 143 "$RUN_STATUS"
expect_eq "2. the note names the program by its whole title" \
	"mprof: 'demo: doomed' was killed by signal 15 (SIGTERM)" \
	"$(grep 'was killed by signal' "$RUN_ERR")"
finish
