/*
 * preload/stack_scrub.c - zeroes the stack below the caller (see
 * preload/stack_scrub.h).  Must not call malloc.
 */
#define _DEFAULT_SOURCE
#include <string.h>

#include "preload/stack_scrub.h"

/* Out of line, so that its array lies below the caller's frame, where the
 * returned slow path's frames were; explicit_bzero, as a plain memset of a
 * dead array may be dropped by the compiler. */
__attribute__((noinline)) void preload_stack_scrub(void)
{
	char below[PRELOAD_STACK_SCRUB_BYTES];

	explicit_bzero(below, sizeof(below));
}

__attribute__((noinline)) void preload_stack_scrub_deep(void)
{
	char below[PRELOAD_STACK_SCRUB_DEEP_BYTES];

	explicit_bzero(below, sizeof(below));
}
