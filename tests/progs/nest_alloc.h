/*
 * nest_alloc.h - nest(depth): malloc(16) at depth calls below its first
 * call, so that each depth is a call site (a stack) of its own.  For test
 * programs; the empty asm keeps each call from being a tail call.
 */
#ifndef TESTS_PROGS_NEST_ALLOC_H
#define TESTS_PROGS_NEST_ALLOC_H

#include <stdlib.h>

__attribute__((noinline)) static void *nest(int depth)
{
	void *p;

	if (depth == 0)
		return malloc(16);
	p = nest(depth - 1);
	__asm__ volatile("" ::: "memory");
	return p;
}

#endif
