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
#define STACK_SITES_SETS 32u     /* per thread: 512 stacks in all */
#define STACK_SITES_FRAMES 65u   /* deeper stacks are not cached (the default
                                  * --max-frames, 64, and for a truncated
                                  * stack the first frame past them) */
#define STACK_SITES_RBP_CHECKS STACK_SITES_FRAMES /* at most one a frame:
                                  * code built with frame pointers has an
                                  * rbp-based CFA in every frame
                                  * (PostgreSQL's backends: 4-12) */
#define STACK_SITES_SLOTS 32768u /* per thread: frames and rbp checks of the
                                  * cached stacks, 512 KiB of address space
                                  * (512 stacks of 64 frames), touched in
                                  * order as stacks are stored */

/* One frame of a cached stack: its return address and the address just
 * above the stack slot it was read from (the CFA of its callee). */
struct stack_site_frame {
	uint64_t ip;
	uintptr_t cfa;
};

/* A stack slot that must still hold value: the saved rbp an rbp-based
 * frame's CFA was computed from; slot 0: the caller's rbp register, as the
 * entry point read it (preload_thread's entry_bp). */
struct stack_site_rbp_check {
	uintptr_t slot;
	uint64_t value;
};

/* A slot of the thread's frame log: stacks are appended to it, their
 * frames then their rbp checks, and overwritten oldest first. */
union stack_site_slot {
	struct stack_site_frame frame;
	struct stack_site_rbp_check rbp;
};

/* A cached stack, keyed by its last frame (the allocator's caller), one
 * cache line; its frames lie in the log.  The cache is STACK_SITES_SETS sets
 * of STACK_SITES_WAYS entries, laid out way by way (so that the few stacks
 * of a thread that stores few share the first row's page), with a 16-bit
 * tag of every entry's key (a hash of it, never 0; set by set, so that a
 * lookup compares a set's 16 tags at once and touches only the entries
 * whose tag matches), a byte per set naming the way that was found last
 * (tried first) and a byte naming the next way to replace
 * (preload/stack_sites.c lays them out). */
struct stack_site {
	uint64_t stamp;         /* the thread's sites_stamp when stored; 0: empty */
	uint64_t key_ip;        /* the call site: the caller's return address */
	uintptr_t key_cfa;      /*   and the address above its slot */
	uint64_t root_key;      /* 2 * module epoch + truncated */
	uint64_t stack_id;      /* the leaf node id */
	uint64_t log_pos;       /* where its frames start in the log: slots
	                         * appended before them (sites_log_pos) */
	uint32_t depth;         /* frames, outermost first */
	uint32_t rbp_checks;    /* rbp checks after the frames */
} __attribute__((aligned(64)));

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
 * from a slot saved by a frame of the stack or, where the entry point read
 * the caller's rbp register (malloc on x86_64: t->entry_bp for the call at
 * caller_cfa), from that register (at most STACK_SITES_RBP_CHECKS checks).  Maps the
 * cache on first use (address space only: its pages are touched as stacks
 * are stored); out of memory only means nothing is cached.
 */
void stack_sites_store(struct preload_thread *t, void *caller_ip, void *caller_cfa,
		       uint32_t depth, uint64_t stack_id);

/* Forgets every cached site of t (a recycled state, a fork child). */
static inline void stack_sites_forget(struct preload_thread *t)
{
	t->sites_stamp++;
}

#endif
