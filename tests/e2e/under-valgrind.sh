#!/bin/bash
# under-valgrind.sh - a program run by Valgrind under mprof (mprof run --
# valgrind ./prog).  A tool that replaces malloc (memcheck) sends every
# call of the program's to its own allocator, past the recorder, though
# "malloc" still resolves to the recorder's: the program's report said
# "exact: every allocation recorded" with 0 allocations.  mprof now says
# the allocations cannot be recorded; under --tool=none, which replaces
# nothing, every allocation is recorded.
# Under memcheck, the tool's own heap summary of a program that starts
# threads reads as without mprof (tests/progs/thread_pairs.c): the recorder
# loaded libunwind at the first pthread_create, through the tool's malloc
# (12 allocations more, 8 blocks in use at exit); it now loads nothing
# under a Valgrind tool, whose program it cannot record anyway.
# Under memcheck with --leak-check=full, the tool's whole log (its leak
# summary, its errors) and the exit status read as without mprof
# (tests/progs/valgrind_leaks.c): the recorder mapped its 3 GiB process
# file there, which the leak check read for a minute (3 GiB resident; a
# SIGTERM then waits for it to end), its two stack scrubs were 256 errors
# of the program's ("Conditional jump or move depends on uninitialised
# value(s)"), and its reservation and file were two "large range" warnings.
# Its process file now has 8 slots of 64 KiB, the program sees it mapped
# as 524 KiB, and it makes no reservation.
# Program and facts: tests/progs/small_leak.c.  Calls memcheck passes on
# to the recorder: tests/progs/valgrind_passing.c.  The same program linked
# with a library of its own named as memcheck's, without Valgrind, is
# recorded and called exact (it was named unrecordable).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
mkdir -p "$WORK/lib"
build_plugins 1
mv "$WORK/libplug0.so" "$WORK/lib/vgpreload_memcheck-amd64-linux.so"
build_c "$WORK/named_leak" "$PROGS_DIR/small_leak.c" -Wl,--no-as-needed \
	"$WORK/lib/vgpreload_memcheck-amd64-linux.so" -Wl,-rpath,"$WORK/lib"
RUN_NAME=named mprof_run 120 "$WORK/v.trace" -- "$WORK/named_leak"
expect_eq "named like memcheck's: exit status" 0 "$RUN_STATUS"
expect_eq "named like memcheck's: no word of Valgrind" 0 "$(grep -c Valgrind "$RUN_ERR")"
report_json "$WORK/v.json" "$WORK/v.trace" &&
	expect_eq "named like memcheck's: every allocation recorded" 20004 \
		"$(q "$WORK/v.json" summary allocations)"
"$MPROF" report "$WORK/v.trace" >"$WORK/v.txt" 2>&1
expect_eq "named like memcheck's: the report is called exact" \
	"mprof report: $WORK/v.trace (exact: every allocation recorded)" "$(head -1 "$WORK/v.txt")"

command -v valgrind >/dev/null || skip "valgrind is not installed"
build_c "$WORK/small_leak" "$PROGS_DIR/small_leak.c"

mprof_run 120 "$WORK/m" -- valgrind -q --leak-check=no "$WORK/small_leak"
expect_eq "memcheck: exit status" 0 "$RUN_STATUS"
expect_eq "memcheck: stdout as without mprof" "small_leak done" "$(cat "$RUN_OUT")"
expect_eq "memcheck: mprof says the allocations cannot be recorded" 1 \
	"$(grep -c "^mprof: process [0-9]*: the program runs under a Valgrind tool that replaces malloc (vgpreload_memcheck-[a-z0-9_]*-linux.so): its allocations cannot be recorded$" "$RUN_ERR")"
PROG=$(ls "$WORK"/m.*.2 2>/dev/null | head -1)
expect_eq "memcheck: the program has a trace" 1 "$([ -n "$PROG" ] && echo 1)"
[ -n "$PROG" ] && "$MPROF" report "$PROG" >"$WORK/m.txt" 2>&1
expect_eq "memcheck: its report is not called exact" \
	"mprof report: $PROG (incomplete: the program's own malloc was not recorded)" \
	"$(head -1 "$WORK/m.txt")"

# valgrind_heap FILE: memcheck's heap summary in FILE (its stderr), block
# counts only: a preloaded library with thread-local storage makes each
# thread's block of module slots 16 bytes bigger.
valgrind_heap() {
	sed -n -E 's/^==[0-9]+== +(in use at exit: [0-9,]+ bytes in [0-9,]+ blocks|total heap usage: [0-9,]+ allocs, [0-9,]+ frees).*/\1/p' "$1"
}
build_c "$WORK/thread_pairs" "$PROGS_DIR/thread_pairs.c" -pthread
run_cmd 120 native-threads valgrind --leak-check=no "$WORK/thread_pairs"
expect_eq "memcheck, threads: native exit status" 0 "$RUN_STATUS"
RUN_NAME=mprof-threads mprof_run 120 "$WORK/t" -- valgrind --leak-check=no "$WORK/thread_pairs"
expect_eq "memcheck, threads: exit status under mprof" 0 "$RUN_STATUS"
expect_eq "memcheck, threads: stdout" "thread_pairs done" "$(cat "$RUN_OUT")"
native_heap=$(valgrind_heap "$WORK/native-threads.err")
expect_match "memcheck, threads: its heap summary natively" \
	'^total heap usage: 4,00[0-9] allocs' "$native_heap"
expect_eq "memcheck, threads: its heap summary under mprof as natively" "$native_heap" \
	"$(valgrind_heap "$WORK/mprof-threads.err")"

# The calls memcheck does not redirect (reallocarray, free_sized,
# free_aligned_sized, the __libc_ names, the pool API) reached the recorder
# from 12 threads and were recorded, though their blocks are freed past it:
# the trace showed 72 allocations and 35 blocks leaked that were not, and
# the recorder's work was 84 errors of memcheck's.  No call is recorded now.
build_c "$WORK/valgrind_passing" "$PROGS_DIR/valgrind_passing.c" -pthread \
	-I"$abs_top_srcdir/include"
run_cmd 120 native-passing valgrind --leak-check=no "$WORK/valgrind_passing"
expect_eq "memcheck, calls it passes on: native exit status" 0 "$RUN_STATUS"
RUN_NAME=mprof-passing mprof_run 120 "$WORK/p" -- valgrind --leak-check=no \
	"$WORK/valgrind_passing"
expect_eq "memcheck, calls it passes on: exit status under mprof" 0 "$RUN_STATUS"
expect_eq "memcheck, calls it passes on: stdout" "valgrind_passing done" "$(cat "$RUN_OUT")"
native_heap=$(valgrind_heap "$WORK/native-passing.err")
expect_match "memcheck, calls it passes on: its heap summary natively" \
	'^total heap usage: 9[0-9] allocs' "$native_heap"
expect_eq "memcheck, calls it passes on: its heap summary under mprof as natively" \
	"$native_heap" "$(valgrind_heap "$WORK/mprof-passing.err")"
expect_eq "memcheck, calls it passes on: its error summary under mprof as natively" \
	"$(grep -o 'ERROR SUMMARY: .*' "$WORK/native-passing.err")" \
	"$(grep -o 'ERROR SUMMARY: .*' "$WORK/mprof-passing.err")"
expect_eq "memcheck, calls it passes on: mprof says the allocations cannot be recorded" 1 \
	"$(grep -c "^mprof: process [0-9]*: the program runs under a Valgrind tool that replaces malloc (vgpreload_memcheck-[a-z0-9_]*-linux.so): its allocations cannot be recorded$" "$RUN_ERR")"
expect_eq "memcheck, calls it passes on: no word of thread slots" 0 \
	"$(grep -c 'thread slots' "$RUN_ERR")"
PROG=$(ls "$WORK"/p.*.2 2>/dev/null | head -1)
expect_eq "memcheck, calls it passes on: the program has a trace" 1 "$([ -n "$PROG" ] && echo 1)"
if [ -n "$PROG" ] && report_json "$WORK/p.json" "$PROG"; then
	expect_eq "memcheck, calls it passes on: no allocation recorded" 0 \
		"$(q "$WORK/p.json" summary allocations)"
	expect_eq "memcheck, calls it passes on: no block leaked" 0 \
		"$(q "$WORK/p.json" summary leaked_blocks)"
	expect_eq "memcheck, calls it passes on: no call recorded (the pool's neither)" \
		'{"aligned_alloc": 0, "calloc": 0, "free": 0, "free_aligned_sized": 0, "free_sized": 0, "malloc": 0, "memalign": 0, "posix_memalign": 0, "pvalloc": 0, "realloc": 0, "realloc_to_zero": 0, "reallocarray": 0, "valloc": 0}' \
		"$(q "$WORK/p.json" summary calls)"
	expect_eq "memcheck, calls it passes on: no call counted as unrecorded" 0 \
		"$(q "$WORK/p.json" summary quality.unrecorded_allocations)"
fi

# memcheck_log FILE: memcheck's log (--log-file) without its pid prefixes
# and the line that names its parent's pid.
memcheck_log() {
	sed -E -e 's/^==[0-9]+==//' -e '/^ Parent PID: [0-9]+$/d' "$1"
}
# leak_summary FILE: the lines of memcheck's LEAK SUMMARY in FILE.
leak_summary() {
	memcheck_log "$1" | sed -n -E 's/^ +(definitely lost|indirectly lost|possibly lost|still reachable|suppressed): /\1: /p'
}
# errors are not leaks here: an error of the recorder's changes the status
MEMCHECK_LEAKS="--leak-check=full --errors-for-leak-kinds=none --error-exitcode=33"
build_c "$WORK/valgrind_leaks" "$PROGS_DIR/valgrind_leaks.c"
# shellcheck disable=SC2086
run_cmd 300 native-leaks valgrind --log-file="$WORK/native-leaks.vg" $MEMCHECK_LEAKS \
	"$WORK/valgrind_leaks" "$WORK/leaks.maps"
expect_eq "memcheck, leak check: native exit status" 0 "$RUN_STATUS"
expect_eq "memcheck, leak check: native leak summary" "definitely lost: 510 bytes in 5 blocks
indirectly lost: 0 bytes in 0 blocks
possibly lost: 0 bytes in 0 blocks
still reachable: 64 bytes in 1 blocks
suppressed: 0 bytes in 0 blocks" "$(leak_summary "$WORK/native-leaks.vg")"
# shellcheck disable=SC2086
RUN_NAME=mprof-leaks mprof_run 300 "$WORK/l" -- valgrind --log-file="$WORK/mprof-leaks.vg" \
	$MEMCHECK_LEAKS "$WORK/valgrind_leaks" "$WORK/leaks.maps"
expect_eq "memcheck, leak check: exit status under mprof as natively" 0 "$RUN_STATUS"
expect_eq "memcheck, leak check: stdout" "valgrind_leaks done" "$(cat "$RUN_OUT")"
expect_eq "memcheck, leak check: its leak summary under mprof as natively" \
	"$(leak_summary "$WORK/native-leaks.vg")" "$(leak_summary "$WORK/mprof-leaks.vg")"
expect_eq "memcheck, leak check: its whole log under mprof as natively" \
	"$(memcheck_log "$WORK/native-leaks.vg")" "$(memcheck_log "$WORK/mprof-leaks.vg")"
# the process file (2 pages of header and reap table, one of 8 slots,
# 8 rings of 64 KiB) and the launcher's file
expect_eq "memcheck, leak check: the largest mapping of the session in the program" \
	"largest session mapping: 524 KiB
session mappings: 2" "$(cat "$WORK/leaks.maps")"
expect_eq "memcheck, leak check: mprof still says the allocations cannot be recorded" 1 \
	"$(grep -c "^mprof: process [0-9]*: the program runs under a Valgrind tool that replaces malloc (vgpreload_memcheck-[a-z0-9_]*-linux.so): its allocations cannot be recorded$" "$RUN_ERR")"

RUN_NAME=none mprof_run 120 "$WORK/n" -- valgrind -q --tool=none "$WORK/small_leak"
expect_eq "none: exit status" 0 "$RUN_STATUS"
expect_eq "none: no word of Valgrind" 0 "$(grep -c Valgrind "$RUN_ERR")"
PROG=$(ls "$WORK"/n.*.2 2>/dev/null | head -1)
[ -n "$PROG" ] && report_json "$WORK/n.json" "$PROG" &&
	expect_eq "none: every allocation recorded (3 + 20000 + stdout's buffer)" 20004 \
		"$(q "$WORK/n.json" summary allocations)"
finish
