/*
 * preload/stack_room.c - the stack left to the caller on an alternate
 * signal stack (preload/stack_room.h).  Its frame is a stack_t: it must
 * stay that small, since it runs where little is left.  Never allocates.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>

#include "preload/seccomp_watch.h"
#include "preload/stack_room.h"

__attribute__((noinline)) size_t stack_room_bytes(void)
{
	stack_t alt;
	uintptr_t sp = (uintptr_t)&alt, lo; /* no frame pointer kept for it */

	/* a filter may kill a system call the program never makes: its
	 * calls then take the whole path, as on an ordinary stack */
	if (seccomp_watch_filtered())
		return SIZE_MAX;
	/* with a valid pointer and no new stack, sigaltstack cannot fail, so
	 * errno is kept */
	if (sigaltstack(NULL, &alt) != 0 || !(alt.ss_flags & SS_ONSTACK))
		return SIZE_MAX;
	lo = (uintptr_t)alt.ss_sp;
	return sp > lo ? sp - lo : 0;
}
