#!/bin/bash
# fd-limit.sh - under a low descriptor limit (ulimit -n), which mprof run's
# launcher shares with the program, every process is either recorded whole
# or named as not recorded, and the program never waits for ever.  The
# launcher needs a descriptor to open each process file and one for each
# live process's trace; it dropped a process file it could not open
# without a word, and that process's recorder, whose ring nobody drained,
# waited for room for ever: a parent of 6 children each making 300000
# allocations hung under `ulimit -n 12`, and with 40 children under
# `ulimit -n 24` some 15 had neither a trace nor a warning.  Now a
# reserve descriptor opens such a file, a file still without one is tried
# again at each scan and at the end, and a process whose trace cannot be
# created is drained, named and counted.
#  1. 6 children of 300000 allocations each, ulimit -n 12: exit status and
#     output as without mprof, every process traced or named, and each
#     child's trace holds all its allocations.
#  2. 40 children of 10 allocations, ulimit -n 24: the same.
#  3. 40 children of 10 allocations alive at once, ulimit -n 64: every
#     process traced, none only named.  A pidfd the launcher held for each
#     live process (cli/pid_guard.c) took the descriptors their files
#     needed: 7 of the 41 went untraced.
# Program: tests/progs/fd_limit_children.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/fd_limit_children" "$PROGS_DIR/fd_limit_children.c"

# not_recorded FILE: how many processes mprof's warnings in FILE name as
# not recorded
not_recorded() {
	local one more none
	one=$(grep -c '^mprof: warning: cannot create a trace beside .* it is not recorded$' "$1")
	more=$(sed -n -E 's/^mprof: warning: ([0-9]+) more process images are not recorded.*/\1/p' "$1")
	none=$(sed -n -E 's/^mprof: warning: ([0-9]+) process(es)? (is|are) not recorded: mprof had no file descriptor.*/\1/p' "$1")
	echo $((one + ${more:-0} + ${none:-0}))
}

# limited CASE FDS N K [all]: the program with N children of K allocations,
# mprof run under ulimit -n FDS; with "all", every process must be traced
limited() {
	local name=$1 fds=$2 n=$3 k=$4 all=${5:-} trace traces=0 whole=0 t j
	trace="$WORK/$name.trace"
	run_cmd 60 "native-$name" "$WORK/fd_limit_children" "$n" "$k"
	expect_eq "$name: native exit status" 0 "$RUN_STATUS"
	RUN_NAME=$name run_cmd 60 "$name" bash -c 'ulimit -n "$1" && shift && exec "$@"' - "$fds" \
		"$MPROF" run -o "$trace" -- "$WORK/fd_limit_children" "$n" "$k"
	expect_eq "$name: exit status as without mprof (124: it hung)" 0 "$RUN_STATUS"
	expect_file_eq "$name: stdout as without mprof" "$WORK/native-$name.out" "$RUN_OUT"
	for t in "$trace" "$trace".[0-9]*; do
		case $t in *.json | *.err) continue ;; esac
		[ -f "$t" ] || continue
		traces=$((traces + 1))
		[ "$t" = "$trace" ] && continue
		j="$t.json"
		"$MPROF" report --format json "$t" >"$j" 2>"$j.err" &&
			[ "$(q "$j" sum allocations child_blocks)" = "$k" ] && whole=$((whole + 1))
	done
	expect_eq "$name: processes traced or named as not recorded" $((n + 1)) \
		$((traces + $(not_recorded "$RUN_ERR")))
	expect_eq "$name: children's traces holding all $k allocations" $((traces - 1)) "$whole"
	expect_true "$name: the program's own trace" test -s "$trace"
	[ -z "$all" ] || expect_eq "$name: processes traced" $((n + 1)) "$traces"
}

limited hold 12 6 300000
limited many 24 40 10
limited live 64 40 10 all
finish
