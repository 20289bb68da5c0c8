#!/bin/bash
# tight-limit.sh - a program that needs nearly all of its RLIMIT_AS runs
# under mprof as without it.  The recorder's rings took a sixteenth of the
# limit (20 MiB of 330 MiB, 43 of 684), so 80 threads on stacks of 4 MiB
# with 16 MiB to spare made 78 or 79 threads under mprof, and a program
# that mallocs until NULL got 43 MiB less under `ulimit -v 700000`.  Now
# the rings take at most a 128th of the limit (preload/settings.h).
#  1. threads: the limit is the program's VmSize without threads, 80
#     stacks (and guard pages) and 16 MiB: all threads made and their
#     blocks given, as natively; each block recorded or counted unrecorded
#     (a thread without a slot), 80 in all.
#  2. fill: malloc until NULL under the same limit gets within 16 MiB of
#     what it gets natively.
# Program and facts: tests/progs/tight_limit.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/tight_limit" "$PROGS_DIR/tight_limit.c" -pthread -I"$PROGS_DIR"

MARGIN_MIB=16
run_cmd 30 vm "$WORK/tight_limit" vm
vm_kib=$(sed -n 's/^vm: //p' "$WORK/vm.out")
limit_kib=$((vm_kib + 80 * (4096 + 4) + MARGIN_MIB * 1024))
limited=(bash -c 'ulimit -v '"$limit_kib"' && exec "$@"' -)

run_cmd 60 native-threads "${limited[@]}" "$WORK/tight_limit" threads 80
expect_eq "native threads: exit status" 0 "$RUN_STATUS"
expect_eq "native threads: stdout" "threads: 80 of 80
blocks: 80 of 80" "$(cat "$WORK/native-threads.out")"
# the limit set in the program's process, not for mprof (an mprof built
# with AddressSanitizer cannot start under it): its trace is threads.PID
RUN_NAME=threads mprof_run 60 "$WORK/threads" -- "${limited[@]}" "$WORK/tight_limit" threads 80
expect_eq "threads: exit status as without mprof" 0 "$RUN_STATUS"
expect_eq "threads: stdout as without mprof" "$(cat "$WORK/native-threads.out")" \
	"$(cat "$WORK/threads.out")"
expect_eq "threads: stderr as without mprof" "" "$(program_stderr "$WORK/threads.err")"
if report_json "$WORK/threads.json" "$(ls -d "$WORK"/threads.[0-9]* | head -n 1)"; then
	recorded=$(q "$WORK/threads.json" sum allocations thread_alloc)
	unrecorded=$(q "$WORK/threads.json" summary quality.unrecorded_allocations)
	expect_eq "threads: blocks recorded or unrecorded, 80 in all" 80 \
		"$((recorded + unrecorded))"
fi

run_cmd 60 native-fill "${limited[@]}" "$WORK/tight_limit" fill
expect_eq "native fill: exit status" 0 "$RUN_STATUS"
native_mib=$(sed -n 's/^filled: //p' "$WORK/native-fill.out")
RUN_NAME=fill mprof_run 60 "$WORK/fill" -- "${limited[@]}" "$WORK/tight_limit" fill
expect_eq "fill: exit status as without mprof" 0 "$RUN_STATUS"
mprof_mib=$(sed -n 's/^filled: //p' "$WORK/fill.out")
expect_eq "fill: within $MARGIN_MIB MiB of native ($native_mib MiB)" yes \
	"$([ -n "$mprof_mib" ] && [ $((native_mib - mprof_mib)) -le $MARGIN_MIB ] && echo yes ||
		echo "no: $mprof_mib MiB")"
finish
