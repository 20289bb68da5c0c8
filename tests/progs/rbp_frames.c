/*
 * rbp_frames.c - allocations below frames whose CFA is rbp-based.  A
 * function with a variable-length array (gcc then addresses its frame from
 * rbp) calls the allocating function with the array's length changing from
 * call to call, so the same call site sits at different stack positions
 * under different rbp values; and a function with alloca recurses into
 * itself before allocating.  The recorder reuses a cached stack through such
 * frames only when the saved rbp it was computed from is unchanged
 * (preload/stack_sites.c, preload/unwind_fast.h); MPROF_UNWIND=check
 * compares every reuse with a full walk and every walk with libunwind.
 * The sharpest case: from_deep and from_shallow, called from the same call
 * instruction of main through the same one of call_via, call with_alloca at different depths, with alloca sizes
 * calibrated so that mid's frame lands at the same address both times.
 * Then the frames below with_alloca are the same slots holding the same
 * return addresses, the frames above it too, and with_alloca's old
 * return-address slot, now inside its larger alloca area, still holds the
 * old address: only with_alloca's rbp tells the two stacks apart.
 *
 * Expected facts (tests/e2e/rbp-frames.sh), run with MPROF_UNWIND=check:
 *   no capture differs from libunwind's, no reused stack from a full walk,
 *   and some stacks are reused;
 *   make_block: 30000 allocations of 48 bytes (1440000), 10 live at exit
 *   (480 bytes), each called from through_vla;
 *   nested_alloc: 3000 allocations of 100 bytes (300000), none live;
 *   leaf_alloc: 2000 allocations of 24 bytes, 1000 through from_deep and
 *   1000 through from_shallow (24000 bytes each), none live.
 * stdout: "rbp frames: done\n" (or "rbp frames: no calibration\n" and
 * exit status 2 when no alloca size puts mid's frame in the same place).
 */
#include <alloca.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VLA_CALLS 30000
#define KEPT 10
#define NEST_ROUNDS 1000

static void *volatile kept[KEPT];
static void *volatile held;
static volatile char sink;

__attribute__((noinline)) static void *make_block(void)
{
	return malloc(48); /* MAKE_BLOCK_LINE */
}

/* Its frame has a variable-length array: the CFA is rbp-based. */
__attribute__((noinline)) static void through_vla(int len, int i)
{
	volatile char buf[len];
	void *p;

	buf[0] = (char)i;
	buf[len - 1] = (char)i;
	p = make_block();
	if (i < KEPT)
		kept[i] = p;
	else
		free(p);
	sink = buf[len / 2];
}

__attribute__((noinline)) static void nested_alloc(int depth)
{
	char *scratch = alloca(16 + 32 * (size_t)depth);

	memset(scratch, depth, 16);
	sink = scratch[depth % 16];
	if (depth > 0) {
		nested_alloc(depth - 1);
		return;
	}
	held = malloc(100); /* NESTED_ALLOC_LINE */
	free(held);
}

#define PAIRS 1000

static uintptr_t mid_frame;
static void *pairs[PAIRS][2];

__attribute__((noinline)) static void *leaf_alloc(int probe)
{
	return probe ? NULL : malloc(24); /* LEAF_ALLOC_LINE */
}

__attribute__((noinline)) static void *mid(int probe)
{
	mid_frame = (uintptr_t)__builtin_frame_address(0);
	return leaf_alloc(probe);
}

/* Its frame has alloca: the CFA is rbp-based. */
__attribute__((noinline)) static void *with_alloca(size_t n, int probe)
{
	volatile char *scratch = alloca(n);
	void *p;

	scratch[0] = 1;
	p = mid(probe);
	sink = scratch[0];
	return p;
}

/* (Work after each call keeps them from becoming jumps.) */
__attribute__((noinline)) static void *from_shallow(size_t n, int probe)
{
	void *p = with_alloca(n, probe);

	sink = 0;
	return p;
}

__attribute__((noinline)) static void *from_deep(size_t n, int probe)
{
	volatile char pad[512];
	void *p;

	pad[0] = (char)n;
	p = with_alloca(n, probe);
	sink = pad[0];
	return p;
}

/* One call instruction for both, so that the return address into
 * call_via is the same in both stacks. */
static void *(*volatile via)(size_t n, int probe);

__attribute__((noinline)) static void *call_via(size_t n, int probe)
{
	void *p = via(n, probe);

	sink = 0;
	return p;
}

int main(void)
{
	size_t deep_n = 64, shallow_n = 0;
	uintptr_t target;

	via = from_deep;
	call_via(deep_n, 1);
	target = mid_frame;
	via = from_shallow;
	for (size_t n = 16; n < 4096 && !shallow_n; n += 16) {
		call_via(n, 1);
		if (mid_frame == target)
			shallow_n = n;
	}
	if (!shallow_n) {
		puts("rbp frames: no calibration");
		return 2;
	}
	/* Nothing in between may dig deeper than main's callees do (the
	 * stale return address must survive): the blocks are freed later. */
	for (int i = 0; i < 2 * PAIRS; i++) { /* one call instruction */
		via = i % 2 ? from_shallow : from_deep;
		pairs[i / 2][i % 2] = call_via(i % 2 ? shallow_n : deep_n, 0);
	}
	for (int i = 0; i < PAIRS; i++) {
		free(pairs[i][0]);
		free(pairs[i][1]);
	}
	for (int i = 0; i < VLA_CALLS; i++)
		through_vla(8 + (i % 5) * 40 + (i / 1000) % 3, i);
	for (int i = 0; i < NEST_ROUNDS; i++)
		for (int d = 0; d < 3; d++)
			nested_alloc(d + i % 2);
	puts("rbp frames: done");
	return 0;
}
