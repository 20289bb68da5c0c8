#!/bin/bash
# unseen-limit.sh - a program whose RLIMIT_AS is lowered where no setrlimit
# or prlimit wrapper sees it runs under mprof as without it: same output,
# same exit status, its allocations recorded.  The recorder's reservations
# (16 GiB of address space, a process file of about 3 GiB) made every
# allocation, mapping and thread after such a lowering fail ("first:
# failed", "chunks: 0 of 192"; a Go program died of "fatal error: runtime:
# out of memory") when only the C library's setrlimit and prlimit were
# wrapped.  Now syscall() is watched too, and an allocation or mmap that
# fails gives the address space back and is made once more.
#  1. syscall(SYS_setrlimit) and syscall(SYS_prlimit64) to 256 MiB, then 1 +
#     192 blocks of 1 MiB and 4 threads of 10 blocks of 64 KiB: all made,
#     recorded, the diagnostic of a lowering the program made.
#  2. A setrlimit system call instruction (as Go makes them; x86_64), then
#     first a block of 1 MiB made by each allocator entry point in turn, an
#     mmap of 1 MiB or a thread (its stack mapped inside the C library;
#     pthread_create failed with EAGAIN before it was wrapped): made (and
#     the block recorded); exact,
#     sampled and paused runs (the last two take the entry points' fast
#     paths).
#  3. Another process lowers the limit (prlimit --pid) while the program
#     waits on a pipe, then the program allocates; or it forks first and
#     the child allocates (the child's recorder went inert: its process file
#     did not fit beside the 19 GiB it inherited, and its allocations failed).
#  4. A Go program (cgo) lowers its own limit to 2 GiB with
#     syscall.Setrlimit, then grows its heap and allocates through C (where
#     Debian's golang-go is installed).
# Programs and facts: tests/progs/unseen_limit.c, tests/progs/go_limit/main.go.
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
build_c "$WORK/unseen_limit" "$PROGS_DIR/unseen_limit.c" -pthread

facts="limit: 256 MiB
first: made
chunks: 192 of 192
threads: 40 of 40
too big: failed"
gave="the recorder gave back [0-9]+ MiB of address space and keeps 7 thread slots"
set_note="^mprof: the program set RLIMIT_AS to 256 MiB: $gave\$"
unseen_note="^mprof: a failed allocation or mapping found RLIMIT_AS lowered to 256 MiB: $gave\$"

# recorded CASE TRACE: the trace holds the program's blocks, none unrecorded
recorded() {
	local j="$2.json"

	report_json "$j" "$2" || return
	expect_eq "$1: blocks of 1 MiB in first_block" 1 "$(q "$j" sum allocations first_block)"
	expect_eq "$1: bytes in first_block" 1048576 "$(q "$j" sum allocated_bytes first_block)"
	expect_eq "$1: blocks of 1 MiB in alloc_chunks" 192 "$(q "$j" sum allocations alloc_chunks)"
	expect_eq "$1: bytes in alloc_chunks" 201326592 "$(q "$j" sum allocated_bytes alloc_chunks)"
	expect_eq "$1: blocks of 64 KiB in thread_blocks" 40 "$(q "$j" sum allocations thread_blocks)"
	expect_eq "$1: nothing left unrecorded" 0 "$(q "$j" summary quality.unrecorded_allocations)"
}

# under_mprof CASE NOTE [MPROF_RUN_OPTIONS...] -- PROGRAM_ARGS...: runs the
# program under mprof: exit status 0, the facts, and mprof's line NOTE
# about what the recorder gave back.
under_mprof() {
	local name=$1 note=$2 opts=()

	shift 2
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	RUN_NAME="$name" mprof_run 60 "$WORK/$name" "${opts[@]}" -- "$WORK/unseen_limit" "$@"
	expect_eq "$name: exit status as without mprof" 0 "$RUN_STATUS"
	expect_eq "$name: the facts" "$facts" "$(grep -v '^set: 0$' "$RUN_OUT")"
	expect_match "$name: mprof says what the recorder gave back" "$note" "$(cat "$RUN_ERR")"
}

# as_native CASE NOTE [MPROF_RUN_OPTIONS...] -- PROGRAM_ARGS...: as
# under_mprof, and the program's stdout is the same without mprof.
as_native() {
	local name=$1 args=("$@")

	while [ "$1" != -- ]; do
		shift
	done
	shift
	run_cmd 60 "native-$name" "$WORK/unseen_limit" "$@"
	expect_eq "native $name: exit status" 0 "$RUN_STATUS"
	under_mprof "${args[@]}"
	expect_file_eq "$name: stdout as without mprof" "$WORK/native-$name.out" "$RUN_OUT"
}

for how in syscall-setrlimit syscall-prlimit; do
	as_native "$how" "$set_note" -- "$how" 256 malloc
	recorded "$how" "$WORK/$how"
done

if [ "$(uname -m)" = x86_64 ]; then
	as_native instruction-malloc "$unseen_note" -- instruction 256 malloc
	recorded instruction-malloc "$WORK/instruction-malloc"
	for first in calloc realloc realloc-grow posix_memalign aligned_alloc memalign valloc \
		pvalloc mmap thread; do
		under_mprof "instruction-$first" "$unseen_note" -- instruction 256 "$first"
	done
	recorded instruction-realloc-grow "$WORK/instruction-realloc-grow"
	under_mprof instruction-sampled "$unseen_note" --sample-rate 512K -- instruction 256 malloc
	under_mprof instruction-paused "$unseen_note" --paused -- instruction 256 malloc
fi

# outside NAME HOW COMMAND...: runs COMMAND (the program, or mprof running
# it, with "HOW 256 malloc PIDFILE" last) with its stdin on a pipe, lowers
# the program's RLIMIT_AS from here once it wrote its pid, then lets it go
# on; results as run_cmd.
outside() {
	local name=$1 how=$2 pidfile="$WORK/$1.pid" fifo="$WORK/$1.fifo" job pid
	shift 2
	mkfifo "$fifo" || hard_error "mkfifo $fifo"
	timeout -k 5 60 "$@" "$how" 256 malloc "$pidfile" <"$fifo" >"$WORK/$name.out" \
		2>"$WORK/$name.err" &
	job=$!
	exec 3>"$fifo"
	for _ in $(seq 1000); do # up to 50 s (the run's own limit is 60 s)
		[ -s "$pidfile" ] && break
		sleep 0.05
	done
	pid=$(cat "$pidfile" 2>/dev/null)
	if [ -n "$pid" ]; then
		expect_true "$name: another process lowered the limit" \
			prlimit --pid "$pid" --as=$((256 << 20)):
	else
		fail_ "$name: the program wrote its pid" "no $pidfile after 50 s"
	fi
	echo go >&3
	exec 3>&-
	wait "$job"
	RUN_STATUS=$?
	RUN_OUT="$WORK/$name.out"
	RUN_ERR="$WORK/$name.err"
}

if command -v prlimit >/dev/null 2>&1; then
	outside native-outside outside "$WORK/unseen_limit"
	expect_eq "native outside: exit status" 0 "$RUN_STATUS"
	outside outside outside "$MPROF" run -o "$WORK/outside" -- "$WORK/unseen_limit"
	expect_eq "outside: exit status as without mprof" 0 "$RUN_STATUS"
	expect_file_eq "outside: stdout as without mprof" "$WORK/native-outside.out" "$RUN_OUT"
	expect_eq "outside: the facts" "$facts" "$(cat "$RUN_OUT")"
	expect_match "outside: mprof says what the recorder gave back" "$unseen_note" \
		"$(cat "$RUN_ERR")"
	recorded outside "$WORK/outside"
	# the child of a fork right after the lowering: the parent has not
	# failed yet, so the child gives back in its fork handler
	outside native-fork outside-fork "$WORK/unseen_limit"
	expect_eq "native fork: exit status" 0 "$RUN_STATUS"
	outside fork outside-fork "$MPROF" run -o "$WORK/fork" -- "$WORK/unseen_limit"
	expect_eq "fork: exit status as without mprof" 0 "$RUN_STATUS"
	expect_file_eq "fork: stdout as without mprof" "$WORK/native-fork.out" "$RUN_OUT"
	expect_eq "fork: the facts" "$facts" "$(cat "$RUN_OUT")"
	child_trace=$(ls "$WORK"/fork.[0-9]* 2>/dev/null | grep -v json | head -n 1)
	expect_ne "fork: the child has a trace of its own" "" "$child_trace"
	[ -n "$child_trace" ] && recorded "fork child" "$child_trace"
else
	echo "note: no prlimit(1) here (util-linux): the lowering from outside is not tried"
fi

if [ -x /usr/bin/go ]; then
	build_go "$WORK/go_limit" "$PROGS_DIR/go_limit/main.go"
	go_facts="set: <nil>
go blocks: 100
c blocks: 100"
	run_cmd 60 native-go "$WORK/go_limit"
	expect_eq "native go: exit status" 0 "$RUN_STATUS"
	expect_eq "native go: the facts" "$go_facts" "$(cat "$RUN_OUT")"
	RUN_NAME=go mprof_run 60 "$WORK/go" -- "$WORK/go_limit"
	expect_eq "go: exit status as without mprof" 0 "$RUN_STATUS"
	expect_eq "go: the facts" "$go_facts" "$(cat "$RUN_OUT")"
	expect_eq "go: stderr as without mprof" "" "$(program_stderr "$RUN_ERR")"
	expect_match "go: mprof says what the recorder gave back" \
		"^mprof: a failed allocation or mapping found RLIMIT_AS lowered to 2048 MiB: " \
		"$(cat "$RUN_ERR")"
	if report_json "$WORK/go.json" "$WORK/go"; then
		expect_eq "go: blocks of 1 MiB in c_blocks" 100 "$(q "$WORK/go.json" sum allocations c_blocks)"
		expect_eq "go: bytes in c_blocks" 104857600 \
			"$(q "$WORK/go.json" sum allocated_bytes c_blocks)"
	fi
else
	echo "note: no /usr/bin/go here (golang-go): the Go program is not tried"
fi
finish
