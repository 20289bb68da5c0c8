/*
 * preload/unwind_fast.h - the shim's own stack walker for x86_64: DWARF CFI
 * rules from the rule cache (preload/cfi_cache.h), or the frame-pointer
 * chain in the opt-in frame-pointer mode.
 */
#ifndef MPROF_PRELOAD_UNWIND_FAST_H
#define MPROF_PRELOAD_UNWIND_FAST_H

#include <stdint.h>

#include "preload/thread.h"

/* Farthest the walk goes above its starting stack pointer, in bytes. */
#define UNWIND_FAST_SPAN_BYTES (64u << 20)

/*
 * A thread's memo of its previous walk: the lookup address and rule of each
 * frame, valid for one rule-cache table.  Allocation sites are mostly reached
 * again by the same path, so a frame's rule is usually one the previous walk
 * had, at the same index or shifted by the difference in depth at the leaf
 * side.  A hit (the return address read from the stack equals the one
 * remembered) skips the hash lookup, and, more importantly, the next CFA no
 * longer waits for that lookup.  Two buffers: the previous walk is read while
 * the current one is written; they swap at the end.
 */
struct unwind_fast_memo {
	const void *table;  /* the struct cfi_cache_table the rules came from */
	uint32_t prev_count; /* entries of the previous walk valid for table */
	uint32_t cap;
	uintptr_t fail_ip;  /* lookup address of the frame the last failed walk met */
	uintptr_t *prev_ips, *cur_ips;
	uint64_t *prev_rules, *cur_rules; /* cfi_packed_rule */
};

/* Maps a memo for cap frames; NULL when out of memory. */
struct unwind_fast_memo *unwind_fast_memo_map(uint32_t cap);

/* How unwind_fast_walk follows the frames past the shim's own. */
enum unwind_fast_mode {
	UNWIND_FAST_CFI = 0, /* DWARF CFI all the way */
	UNWIND_FAST_FP = 1,  /* CFI through the shim, then the rbp chain */
};

/*
 * Walks the calling thread's stack, starting inside this function, into
 * frames (leaf first: frames[0] is an address in unwind_fast_walk, the
 * others are return addresses), at most cap entries.  Reads memory only
 * between its own stack pointer and stack_hi (the end of the thread's
 * stack), at most UNWIND_FAST_SPAN_BYTES above it.  In UNWIND_FAST_FP mode
 * the rbp chain is followed from the first frame outside [shim_lo, shim_hi).
 *
 * Returns the number of frames, or -1 when the walk met a frame it cannot
 * follow (no or unsupported CFI, a CFA outside the stack, the stack pointer
 * outside [stack_lo, stack_hi)): the caller then unwinds with libunwind.  A
 * miss in the rule cache parses CFI inside the unwinder's fork guard
 * (unwind_guard_enter), which takes the loader's lock.  Never allocates.
 */
int unwind_fast_walk(struct preload_thread *t, void **frames, uint32_t cap, uintptr_t stack_lo,
		     uintptr_t stack_hi, int mode, uintptr_t shim_lo, uintptr_t shim_hi);
/* (t->unwind_memo, when set, must have room for cap frames.) */

#endif
