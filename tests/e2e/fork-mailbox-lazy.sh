#!/bin/bash
# fork-mailbox-lazy.sh - the fork mailbox (a shared anonymous page in which
# a fork child posts its pid for its parent, preload/fork.c) is mapped at a
# process's first fork, not at every start: a recorded program that never
# forks (/bin/echo here; cc1, as, sed in a build) makes no shared anonymous
# mapping, and a fork child no new one until it forks itself (before: one at
# every start and one more in every fork child, ~11 us each with their
# teardown, bench/HISTORY.md session 61).  The forks are still recorded:
# sh forks twice (two background jobs running the builtin true), so its
# trace counts 2 forks and each child gets its own trace.  Counted with
# strace.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
command -v strace >/dev/null 2>&1 || skip "strace is not installed"
make_work

# shared_anon FILE: the mmap calls in FILE that made a shared anonymous
# mapping
shared_anon() {
	grep -c 'mmap(.*MAP_SHARED|MAP_ANONYMOUS' "$1"
}

# LeakSanitizer cannot work under ptrace (a sanitizer build's mprof would
# exit 1)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
run_cmd 120 echo strace -ff -qq -e trace=execve,mmap -o "$WORK/echo" \
	"$MPROF" run -q -o "$WORK/echo-trace" -- /bin/echo mapped
expect_eq "echo: exit status" 0 "$RUN_STATUS"
expect_eq "echo: stdout" mapped "$(cat "$RUN_OUT")"
strace_calls_of "$WORK/echo" /bin/echo "$WORK/echo-calls"
expect_eq "echo: the recorder ran in it" yes \
	"$(grep -q 'PROT_NONE.*MAP_NORESERVE' "$WORK/echo-calls" && echo yes || echo no)"
expect_eq "echo, which never forks: no shared anonymous mapping" 0 \
	"$(shared_anon "$WORK/echo-calls")"

mkdir "$WORK/sh"
run_cmd 120 sh strace -ff -qq -e trace=execve,mmap -o "$WORK/sh/calls" \
	"$MPROF" run -q -o "$WORK/sh/trace" -- /bin/sh -c 'true & wait; true & wait; echo done'
expect_eq "sh: exit status" 0 "$RUN_STATUS"
expect_eq "sh: stdout" done "$(cat "$RUN_OUT")"
strace_calls_of "$WORK/sh/calls" /bin/sh "$WORK/sh-calls"
# the fork children's strace files: the processes that did not execute
# anything and whose parent is sh (all but sh's and the launcher's own)
n=0
for f in "$WORK/sh/calls".*; do
	grep -q 'execve(' "$f" && continue
	n=$((n + $(shared_anon "$f")))
done
expect_eq "sh, which forks twice: one mailbox, mapped once" 1 "$(shared_anon "$WORK/sh-calls")"
expect_eq "sh's fork children, which do not fork: no mailbox of their own" 0 "$n"
report_json "$WORK/sh.json" "$WORK/sh/trace"
expect_eq "sh's trace counts its 2 forks" 2 "$(q "$WORK/sh.json" summary forks)"
expect_eq "each fork child has its trace" 2 \
	"$(ls "$WORK/sh" | grep -c '^trace\.[0-9][0-9]*$')"
finish
