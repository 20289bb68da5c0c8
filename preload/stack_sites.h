/*
 * preload/stack_sites.h - each thread's cache of recent call stacks by call
 * site: the allocator's caller (its return address and where on the stack
 * it lies) -> the id of the stack interned for it, used only after every
 * frame of that stack has been found again on the live stack.
 */
#ifndef MPROF_PRELOAD_STACK_SITES_H
#define MPROF_PRELOAD_STACK_SITES_H

#include <stdint.h>

#include "preload/thread.h"

#define STACK_SITES_WAYS 16u     /* stacks kept per set of call sites (a
                                  * power of two): a site reached by up
                                  * to 16 paths keeps them all */
#define STACK_SITES_SETS 32u     /* per thread: 512 stacks in all, 590 KB
                                  * of address space, touched as used */
#define STACK_SITES_FRAMES 65u   /* deeper stacks are not cached (the default
                                  * --max-frames, 64, and for a truncated
                                  * stack the first frame past them) */
#define STACK_SITES_RBP_CHECKS 4u /* stacks needing more are not cached */

/* One frame of a cached stack: its return address and the address just
 * above the stack slot it was read from (the CFA of its callee). */
struct stack_site_frame {
	uint64_t ip;
	uintptr_t cfa;
};

/* A stack slot that must still hold value: the saved rbp an rbp-based
 * frame's CFA was computed from. */
struct stack_site_rbp_check {
	uintptr_t slot;
	uint64_t value;
};

/* A cached stack, keyed by its last frame (the allocator's caller).  The
 * cache is STACK_SITES_SETS sets of STACK_SITES_WAYS entries, then a 16-bit
 * tag of every entry's key (a hash of it, never 0; set by set, so that a
 * lookup compares a set's 16 tags at once and touches only the entries
 * whose tag matches), then a byte per set naming the way that was found
 * last (tried first) and a byte naming the next way to replace. */
struct stack_site {
	uint64_t stamp;         /* the thread's sites_stamp when stored; 0: empty */
	uint64_t key_ip;        /* the call site: the caller's return address */
	uintptr_t key_cfa;      /*   and the address above its slot (the last
	                         *   frame's, kept here so that a way of another
	                         *   site is passed over after one cache line) */
	uint64_t root_key;      /* 2 * module epoch + truncated */
	uint64_t stack_id;      /* the leaf node id */
	uint32_t depth;         /* frames, outermost first */
	uint32_t rbp_checks;    /* entries of rbp_check in use */
	struct stack_site_frame frames[STACK_SITES_FRAMES];
	/* after the frames: most stacks need none, so a lookup reads no more
	 * cache lines than its frames take */
	struct stack_site_rbp_check rbp_check[STACK_SITES_RBP_CHECKS];
};

/*
 * Returns the stack id of a call whose return address caller_ip lies at
 * caller_cfa - 8 (the entry point's CFA), when the thread cached a stack
 * for that call site, under the current module epoch, and every frame of it
 * still holds its return address; 0 otherwise (capture and intern as
 * usual).  Reads only stack slots above caller_cfa; never writes the stack.
 */
uint64_t stack_sites_find(struct preload_thread *t, void *caller_ip, void *caller_cfa);

/*
 * Remembers the stack the thread just captured and interned (depth frames,
 * now in t->cache_ips, t->cache_cfas; leaf id stack_id) under its call
 * site, when it can be found again safely: a complete CFI capture, or a
 * truncated one from the caller's walk (then with the first frame past the
 * kept ones, t->beyond_ip, whose slot the walk read last), at most
 * STACK_SITES_FRAMES frames in all, its last frame the caller (caller_ip at
 * caller_cfa - 8), and every frame with an rbp-based CFA getting its rbp
 * from a slot saved by a frame of the stack (at most STACK_SITES_RBP_CHECKS
 * slots; the caller's own rbp, a register, cannot be checked).  Maps the
 * cache on first use; out of memory only means nothing is cached.
 */
void stack_sites_store(struct preload_thread *t, void *caller_ip, void *caller_cfa,
		       uint32_t depth, uint64_t stack_id);

/* Forgets every cached site of t (a recycled state, a fork child). */
static inline void stack_sites_forget(struct preload_thread *t)
{
	t->sites_stamp++;
}

#endif
