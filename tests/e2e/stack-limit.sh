#!/bin/bash
# stack-limit.sh - mprof run under a low stack limit (ulimit -s), which
# its launcher shares with the program, finishes the traces and keeps the
# program's exit status.  The launcher's end of run put some 100 KiB on its
# stack (70 KiB of arrays of processes that started late, 20 KiB for a
# message); under `ulimit -s 100` or 64, where the program itself runs
# fine, mprof was killed by SIGSEGV after the program ended: exit status
# 139, the traces left without their end.  Now those arrays are static and
# the message's buffer on the heap; 48 KiB is enough (measured, 2026-12-05).
#  1. ulimit -s 64 (100 in an AddressSanitizer build): a program forking 2 children of 10 allocations each;
#     exit status and stdout as without mprof, all 3 traces whole.
# Program: tests/progs/fd_limit_children.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/fd_limit_children" "$PROGS_DIR/fd_limit_children.c"
# AddressSanitizer's frames are larger (its launcher needs 64 KiB, its
# printf more than 48): 100 KiB there, still below the old end of run's
limit=64
ldd "$MPROF" 2>/dev/null | grep -q libasan && limit=100

run_cmd 60 native bash -c 'ulimit -s "$0" && exec "$@"' "$limit" "$WORK/fd_limit_children" 2 10
expect_eq "native exit status" 0 "$RUN_STATUS"
run_cmd 60 run bash -c 'ulimit -s "$0" && exec "$@"' "$limit" \
	"$MPROF" run -o "$WORK/t" -- "$WORK/fd_limit_children" 2 10
expect_eq "exit status as without mprof (139: mprof crashed)" 0 "$RUN_STATUS"
expect_file_eq "stdout as without mprof" "$WORK/native.out" "$RUN_OUT"
expect_eq "traces: the program and its 2 children" 3 \
	"$(ls "$WORK"/t "$WORK"/t.[0-9]* 2>/dev/null | grep -vc '\.json')"
blocks=
for t in "$WORK"/t.[0-9]*; do
	case $t in *.json) continue ;; esac
	report_json "$t.json" "$t" || continue
	blocks="$blocks $(q "$t.json" sum allocations child_blocks)/$(q "$t.json" summary end.process_state)"
done
expect_eq "each child's 10 allocations, its trace whole, to the end" " 10/ended 10/ended" "$blocks"
finish
