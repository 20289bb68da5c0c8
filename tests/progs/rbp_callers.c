/*
 * rbp_callers.c - malloc called straight from functions whose CFA is
 * rbp-based (a variable-length array, alloca; PostgreSQL's AllocSetAlloc
 * has a frame pointer), where the caller's own rbp, a register at the call,
 * decides where its frame lies.  The exported malloc reads that register
 * for the call-site cache (preload/interpose.c, preload/stack_sites.c), so
 * such stacks are found again instead of captured at every call.
 * (calloc and realloc too; the other entry points:
 * tests/progs/rbp_entry_points.c.)
 * The sharp case: from_deep and from_shallow, called from the same call
 * instruction of call_via, call with_alloca, which calls malloc, with
 * alloca sizes calibrated so that malloc's return address lies at the same
 * address both times.  The call site (return address and its slot) is then
 * the same, and with_alloca's old return-address slot, now inside the
 * larger alloca area, still holds the old address: only with_alloca's rbp
 * tells the two stacks apart.
 *
 * Expected facts (tests/e2e/rbp-callers.sh), run with MPROF_UNWIND=check:
 *   no capture differs from libunwind's, no reused stack from a full walk,
 *   and at least 49000 stacks come from the call-site cache;
 *   vla_alloc: 30000 allocations of 40 bytes (1200000), 10 live at exit
 *   (400 bytes);
 *   vla_zeroed (calloc): 10000 allocations of 5 * 8 bytes (400000), none
 *   live;
 *   vla_grow (realloc of one block, 16 bytes then 32, 16, ...): 10000
 *   allocations (240000 bytes), none live;
 *   with_alloca: 2000 allocations of 24 bytes, 1000 through from_deep and
 *   1000 through from_shallow (24000 bytes each), none live.
 * stdout: "rbp callers: done\n" (or "rbp callers: no calibration\n" and
 * exit status 2 when no alloca size puts the call in the same place).
 */
#include <alloca.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define VLA_CALLS 30000
#define KEPT 10
#define PAIRS 1000

static void *volatile kept[KEPT];
static volatile char sink;
static uintptr_t call_sp;
static void *pairs[PAIRS][2];
static void *volatile zeroed;
static void *volatile grown;

/* Its frame has a variable-length array: the CFA is rbp-based. */
__attribute__((noinline)) static void vla_alloc(int len, int i)
{
	volatile char buf[len];
	void *p;

	buf[0] = (char)i;
	buf[len - 1] = (char)i;
	p = malloc(40); /* VLA_ALLOC_LINE */
	if (i < KEPT)
		kept[i] = p;
	else
		free(p);
	sink = buf[len / 2];
}

/* The same with calloc. */
__attribute__((noinline)) static void vla_zeroed(int len, int i)
{
	volatile char buf[len];

	buf[0] = (char)i;
	buf[len - 1] = (char)i;
	zeroed = calloc(5, 8); /* VLA_ZEROED_LINE */
	free(zeroed);
	sink = buf[len / 2];
}

/* The same with realloc: grown goes from 16 to 32 bytes and back. */
__attribute__((noinline)) static void vla_grow(int len, int i)
{
	volatile char buf[len];

	buf[0] = (char)i;
	buf[len - 1] = (char)i;
	grown = realloc(grown, 16 + 16 * (size_t)(i & 1)); /* VLA_GROW_LINE */
	sink = buf[len / 2];
}

/* Its frame has alloca: the CFA is rbp-based.  probe: only note where the
 * stack pointer is (the alloca area's start, a fixed distance above it). */
__attribute__((noinline)) static void *with_alloca(size_t n, int probe)
{
	volatile char *scratch = alloca(n);
	void *p = NULL;

	scratch[0] = 1;
	if (probe)
		call_sp = (uintptr_t)scratch;
	else
		p = malloc(24); /* WITH_ALLOCA_LINE */
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

/* One call instruction for both. */
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
	target = call_sp;
	via = from_shallow;
	for (size_t n = 16; n < 4096 && !shallow_n; n += 16) {
		call_via(n, 1);
		if (call_sp == target)
			shallow_n = n;
	}
	if (!shallow_n) {
		puts("rbp callers: no calibration");
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
		vla_alloc(8 + (i % 5) * 40, i);
	for (int i = 0; i < VLA_CALLS / 3; i++)
		vla_zeroed(8 + (i % 5) * 40, i);
	for (int i = 0; i < VLA_CALLS / 3; i++)
		vla_grow(8 + (i % 5) * 40, i);
	free(grown);
	puts("rbp callers: done");
	return 0;
}
