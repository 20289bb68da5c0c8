#!/bin/bash
# self-command-notes.sh - the launcher's note that the analyzer is missing
# and the text report's "forks: N (not recorded: CMD run --no-children)"
# name mprof as its other hints do (cli/self_command.h): a build-tree
# mprof that PATH does not find is named by its path (both said plain
# "mprof"); the analyzer run as itself says "mprof".
# Program: tests/progs/fork_after_threads.c (one fork).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/fork_after_threads" "$PROGS_DIR/fork_after_threads.c" -pthread -fno-builtin
# a PATH that finds no mprof: the hints name $MPROF as it was run
NO_MPROF_PATH=/usr/bin:/bin
[ "$(PATH=$NO_MPROF_PATH command -v mprof 2>/dev/null)" ] && skip "PATH $NO_MPROF_PATH finds an mprof"

PATH=$NO_MPROF_PATH MPROF_ANALYZE="$WORK/no-such-analyzer" RUN_NAME=nc \
	mprof_run 60 "$WORK/n.trace" --no-children -- "$WORK/fork_after_threads"
expect_eq "exit status" 0 "$RUN_STATUS"
expect_eq "stdout" "fork_after_threads forking" "$(cat "$RUN_OUT")"
expect_eq "the missing analyzer's note names this mprof" \
	"mprof: warning: the analyzer $WORK/no-such-analyzer is missing: symbols were not embedded in the trace ($MPROF report will read them from the binaries on disk)" \
	"$(grep 'analyzer .* is missing' "$RUN_ERR")"
PATH=$NO_MPROF_PATH run_cmd 60 nt "$MPROF" report -n 0 "$WORK/n.trace"
expect_eq "text: the forks line names this mprof's run" \
	"forks:            1 (not recorded: $MPROF run --no-children)" \
	"$(grep '^forks:' "$RUN_OUT")"
run_cmd 60 na "$MPROF_ANALYZE" report -n 0 "$WORK/n.trace"
expect_eq "text: the analyzer run as itself says mprof" \
	"forks:            1 (not recorded: mprof run --no-children)" \
	"$(grep '^forks:' "$RUN_OUT")"
finish
