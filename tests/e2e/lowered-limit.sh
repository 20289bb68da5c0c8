#!/bin/bash
# lowered-limit.sh - a program that lowers its own RLIMIT_AS after it
# started runs under mprof as without it: same output, same exit status,
# and its allocations are recorded.  The recorder reserved 16 GiB of
# address space and mapped a process file of about 3 GiB at its start,
# both counted against the limit, so a limit of 256 MiB set later made
# every allocation of the program fail (tests/progs/lowered_limit.c:
# "chunks: 0 of 100"; bash: "xrealloc: cannot allocate"; python3:
# MemoryError).  Now the wrappers of setrlimit and prlimit give the spare
# address space back, and a diagnostic says so.
#  1. setrlimit(RLIMIT_AS, 256 MiB), then 100 blocks of 1 MiB and 4 threads
#     of 10 blocks of 64 KiB: all made and recorded, none unrecorded.
#  2. The same through prlimit(0, ...).
#  3. bash: `ulimit -v 262144`, then a 30 MB string in bash itself.
#  4. Started under `ulimit -v 196608` (192 MiB, set before mprof run; the
#     program needs about 105 MiB): the recorder starts small (about 20 MiB
#     of address space; 120 MiB before, and 42 of the 100 blocks failed)
#     and the program's allocations succeed.
# Program and facts: tests/progs/lowered_limit.c.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/lowered_limit" "$PROGS_DIR/lowered_limit.c" -pthread

facts="bad: -1 EINVAL
limit: 256 MiB
chunks: 100 of 100
threads: 40 of 40
too big: failed"
gave_back="the program set RLIMIT_AS to 256 MiB: the recorder gave back [0-9]+ MiB of address space and keeps 7 thread slots"

# recorded CASE TRACE: the trace holds the program's blocks, none unrecorded
recorded() {
	local j="$2.json"

	report_json "$j" "$2" || return
	expect_eq "$1: blocks of 1 MiB in alloc_chunks" 100 "$(q "$j" sum allocations alloc_chunks)"
	expect_eq "$1: bytes in alloc_chunks" 104857600 "$(q "$j" sum allocated_bytes alloc_chunks)"
	expect_eq "$1: blocks of 64 KiB in thread_blocks" 40 "$(q "$j" sum allocations thread_blocks)"
	expect_eq "$1: nothing left unrecorded" 0 "$(q "$j" summary quality.unrecorded_allocations)"
}

for how in set prlimit; do
	run_cmd 60 "native-$how" "$WORK/lowered_limit" $how 256
	expect_eq "native $how: exit status" 0 "$RUN_STATUS"
	native=$(cat "$WORK/native-$how.out")
	mprof_run 60 "$WORK/$how" -- "$WORK/lowered_limit" $how 256
	expect_eq "$how: exit status as without mprof" 0 "$RUN_STATUS"
	expect_eq "$how: stdout as without mprof" "$native" "$(cat "$RUN_OUT")"
	expect_eq "$how: the facts" "$facts" "$(grep -v -e '^set:' -e '^old:' "$RUN_OUT")"
	expect_match "$how: mprof says what the recorder gave back" "^mprof: $gave_back\$" \
		"$(cat "$RUN_ERR")"
	recorded "$how" "$WORK/$how"
done

script='ulimit -v 262144; printf -v s "%*s" 30000000 ""; echo "length ${#s}"'
run_cmd 60 native-bash bash -c "$script"
expect_eq "native bash: exit status" 0 "$RUN_STATUS"
expect_eq "native bash: stdout" "length 30000000" "$(cat "$WORK/native-bash.out")"
mprof_run 60 "$WORK/bash" -- bash -c "$script"
expect_eq "bash: exit status as without mprof" 0 "$RUN_STATUS"
expect_eq "bash: stdout as without mprof" "length 30000000" "$(cat "$RUN_OUT")"
expect_eq "bash: stderr as without mprof" "" "$(program_stderr "$RUN_ERR")"

start_facts=$(echo "$facts" | sed 's/^limit: 256 MiB$/limit: 192 MiB/')
run_cmd 60 native-start bash -c 'ulimit -v 196608 && exec "$@"' - "$WORK/lowered_limit" none 192
expect_eq "native, started under ulimit -v: exit status" 0 "$RUN_STATUS"
expect_eq "native, started under ulimit -v: the facts" "$start_facts" "$(cat "$WORK/native-start.out")"
# the limit set in the program's process (bash, then exec: its trace is
# start.PID), not for mprof: an mprof built with AddressSanitizer cannot
# start under it
RUN_NAME=start mprof_run 60 "$WORK/start" -- bash -c 'ulimit -v 196608 && exec "$@"' - \
	"$WORK/lowered_limit" none 192
expect_eq "started under ulimit -v: exit status as without mprof" 0 "$RUN_STATUS"
expect_eq "started under ulimit -v: stdout as without mprof" "$start_facts" "$(cat "$WORK/start.out")"
recorded "started under ulimit -v" "$(ls "$WORK"/start.[0-9]* | head -n 1)"
finish
