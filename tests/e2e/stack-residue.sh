#!/bin/bash
# stack-residue.sh - an allocator call under mprof leaves no pointer deeper
# on the stack than the same call natively, bar the entry point's frames:
# a conservative collector (libgc, Mono's, Ruby's) scans words left below
# the stack pointer and keeps what they point to.  A stack capture (a new
# call site, a sample, a fork child's or a thread's first call, a deep
# stack, realloc) left the program's pointers (callee-saved registers) and
# the recorder's own 0.9-5.4 KiB below the allocator's entry, where
# glibc's calls leave them at most 336 bytes down; it now zeroes the stack
# it used.  Each scenario of tests/progs/stack_residue.c, run natively and
# under mprof in exact and sampled modes (the launcher stopped for 300 ms
# so that the ring fills): its deepest residue under mprof is at most
# native's plus 384 bytes (the entry point's and the event writer's frames,
# which every call takes: 150-300 bytes here).
. "$abs_top_srcdir/tests/e2e/lib.sh"
require_mprof
make_work
[ "$(uname -m)" = x86_64 ] || skip "the probe's trampoline is x86-64 assembly"
build_c "$WORK/stack_residue" "$PROGS_DIR/stack_residue.c" -lpthread
ALLOWANCE=384
SCENARIOS="first-site cached-site free realloc calloc posix_memalign new-sites deep-stack
	thread-first thread signal-handler fork-child fork-parent ring after-idle"

run_cmd 120 native "$WORK/stack_residue"
expect_eq "native exit status" 0 "$RUN_STATUS"
native="$WORK/native.out"
for mode in exact sampled; do
	opts=()
	[ "$mode" = sampled ] && opts=(--sample-rate 4096 --sample-seed 7)
	RUN_NAME=$mode mprof_run 120 "$WORK/$mode.trace" "${opts[@]}" -- "$WORK/stack_residue" stop
	expect_eq "$mode: exit status (124: not done in 120s)" 0 "$RUN_STATUS"
	for s in $SCENARIOS; do
		# NAME calls N used B residue B recorder B least B
		n=$(awk -v s="$s" '$1 == s { print $7 }' "$native")
		read -r calls residue recorder <<<"$(awk -v s="$s" '$1 == s { print $3, $7, $9 }' "$WORK/$mode.out")"
		expect_eq "$mode: $s: calls as natively" "$(awk -v s="$s" '$1 == s { print $3 }' "$native")" "${calls:-}"
		expect_range "$mode: $s: deepest pointer to the program's blocks, bytes (native ${n:-?})" \
			0 "$(( ${n:-0} + ALLOWANCE ))" "${residue:-}"
		expect_range "$mode: $s: deepest pointer to the recorder's data, bytes" \
			0 "$(( ${n:-0} + ALLOWANCE ))" "${recorder:-}"
	done
done
finish
