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
	uintptr_t *prev_ips, *cur_ips;
	uint64_t *prev_rules, *cur_rules; /* cfi_packed_rule */
};

/* Maps a memo for cap frames; NULL when out of memory. */
struct unwind_fast_memo *unwind_fast_memo_map(uint32_t cap);

/*
 * How a frame of a CFI walk got its rbp (frame_bp_srcs, cache_bp_srcs): the
 * address of the stack slot it was restored from when the frame after it
 * (its callee) was unwound, 8-aligned, or 0 when that callee left rbp alone
 * (the frame's rbp is the callee's); plus UNWIND_BP_CFA when the frame's own
 * CFA rule is rbp-based.
 */
#define UNWIND_BP_CFA ((uintptr_t)1)
#define UNWIND_BP_SLOT(src) ((src) & ~(uintptr_t)7)

/*
 * The previous capture's kept frames, offered to a walk so that it can stop
 * at the first frame it shares with them (preload/unwind.c).  Entries are
 * outermost first: ips[i] is a return address and cfas[i] - 8 the stack
 * slot it was read from; cfas grow from the leaf (count - 1) to the root (0).
 * A frame of the walk is shared when it was read from the same slot, holds
 * the same return address, every entry nearer the root still holds its
 * return address in its slot, and every entry from it to the root whose CFA
 * is rbp-based would get the same rbp again: the walk from there would
 * compute the same CFAs, read the same slots and find the same frames.  The
 * CFA of a frame with an rsp-based rule follows from the pc and stack
 * pointer alone; an rbp-based one (a function that realigns its stack or
 * has variable-size frames) from rbp, which the walk carries from the
 * shared frame (its own value there) through the restore slots recorded in
 * bp_srcs, re-reading each one.  Entries [0, rsp_only) have rsp-based rules
 * and need none of that.  Only stack slots at or above the walk's frame are
 * ever read, never written.
 */
struct unwind_fast_tail {
	const uint64_t *ips;
	const uintptr_t *cfas;
	const uint64_t *bps;      /* rbp of each entry (compared where rbp-based) */
	const uintptr_t *bp_srcs; /* UNWIND_BP_* of each entry */
	uint32_t count;     /* entries; 0: nothing offered */
	uint32_t rsp_only;  /* entries [0, rsp_only) have rsp-based CFA rules */
	int32_t next;       /* the entry a frame is compared with next (count - 1 first) */
	uint32_t checked;   /* entries [0, checked) are known to hold their address */
	int broken;         /* entry checked does not */
	int32_t hit;        /* out: the shared entry the walk stopped at, or -1 */
	int32_t rbp_frame;  /* out: the last frame of the walk (index into its frames)
	                     * whose CFA rule is rbp-based, or -1 */
	uint64_t hit_bp;    /* out, with hit: rbp in the shared frame's context */
	uintptr_t hit_bp_src; /* out, with hit: how it got it from the walk's last
	                       * frame (UNWIND_BP_SLOT part only) */
};

/* Offers the count entries of ips, cfas, bps and bp_srcs to the next walk
 * (count 0: none). */
static inline void unwind_fast_tail_init(struct unwind_fast_tail *tail, const uint64_t *ips,
					 const uintptr_t *cfas, const uint64_t *bps,
					 const uintptr_t *bp_srcs, uint32_t count, uint32_t rsp_only)
{
	tail->ips = ips;
	tail->cfas = cfas;
	tail->bps = bps;
	tail->bp_srcs = bp_srcs;
	tail->count = count;
	tail->rsp_only = rsp_only;
	tail->next = (int32_t)count - 1;
	tail->checked = 0;
	tail->broken = 0;
	tail->hit = -1;
	tail->rbp_frame = -1;
	tail->hit_bp = 0;
	tail->hit_bp_src = 0;
}

/* Whether entries [0, j) still hold their return addresses; remembers how
 * far it looked.  Reads only slots between cfas[j] and limit. */
static inline int unwind_fast_tail_intact(struct unwind_fast_tail *tail, uint32_t j,
					  uintptr_t limit)
{
	while (tail->checked < j && !tail->broken) {
		uintptr_t cfa = tail->cfas[tail->checked];

		if (cfa > limit || *(const uintptr_t *)(cfa - 8) != tail->ips[tail->checked])
			tail->broken = 1;
		else
			tail->checked++;
	}
	return tail->checked >= j;
}

/*
 * Whether every entry in [rsp_only, j] with an rbp-based CFA would get its
 * recorded rbp again, entry j's being bp: carries rbp from j towards the
 * root, re-reading each restore slot (all lie between cfas[j] and limit).
 */
static inline int unwind_fast_tail_same_rbp(const struct unwind_fast_tail *tail, uint32_t j,
					    uint64_t bp, uintptr_t limit)
{
	for (int32_t i = (int32_t)j; i >= (int32_t)tail->rsp_only; i--) {
		uintptr_t slot = UNWIND_BP_SLOT(tail->bp_srcs[i]);

		if ((uint32_t)i < j && slot) {
			if (slot < tail->cfas[j] || slot > limit - 8)
				return 0;
			bp = *(const uint64_t *)slot;
		}
		if ((tail->bp_srcs[i] & UNWIND_BP_CFA) && bp != tail->bps[i])
			return 0;
	}
	return 1;
}

/*
 * The walk read return address ip at cfa - 8 (cfa grows from call to call)
 * and has rbp bp for that frame (bp_known 0: it does not know it): returns
 * 1, with tail->hit set, when that frame and all its callers are those of
 * the offered entries, else 0.  A few compares per frame; the slots of the
 * entries nearer the root are read once per walk at most.
 */
static inline int unwind_fast_tail_meets(struct unwind_fast_tail *tail, uintptr_t cfa,
					 uintptr_t ip, uint64_t bp, int bp_known, uintptr_t limit)
{
	int32_t j = tail->next;

	while (j >= 0 && tail->cfas[j] < cfa)
		j--;
	tail->next = j;
	if (j < 0 || tail->cfas[j] != cfa || tail->ips[j] != ip ||
	    !unwind_fast_tail_intact(tail, (uint32_t)j, limit))
		return 0;
	if ((uint32_t)j >= tail->rsp_only &&
	    (!bp_known || !unwind_fast_tail_same_rbp(tail, (uint32_t)j, bp, limit)))
		return 0;
	tail->hit = j;
	tail->hit_bp = bp;
	return 1;
}

/* How unwind_fast_walk follows the frames past the shim's own. */
enum unwind_fast_mode {
	UNWIND_FAST_CFI = 0, /* DWARF CFI all the way */
	UNWIND_FAST_FP = 1,  /* CFI through the shim, then the rbp chain */
};

/*
 * Walks the calling thread's stack, starting inside this function, into
 * frames (leaf first: frames[0] is an address in unwind_fast_walk, the
 * others are return addresses), at most cap entries, and stores in
 * cfas[k] (k >= 1) the address above the slot frames[k] was read from.
 * Reads memory only between its own stack pointer and stack_hi (the end of
 * the thread's stack), at most UNWIND_FAST_SPAN_BYTES above it.  In
 * UNWIND_FAST_FP mode the rbp chain is followed from the first frame outside
 * [shim_lo, shim_hi).  With a tail offered (CFI mode; tail may be NULL), the
 * walk stops when it meets a shared frame (unwind_fast_tail_meets): that
 * frame and its callers are not stored, and tail->hit names the entry; and
 * tail->rbp_frame tells which frames had rbp-based CFA rules.  In CFI mode
 * bps[k] gets the rbp of frames[k]'s context and bp_srcs[k] how it got it
 * (UNWIND_BP_*).
 *
 * Returns the number of frames, or -1 when the walk met a frame it cannot
 * follow (no or unsupported CFI, a CFA outside the stack, the stack pointer
 * outside [stack_lo, stack_hi)): the caller then unwinds with libunwind.  A
 * miss in the rule cache parses CFI inside the unwinder's fork guard
 * (unwind_guard_enter), which takes the loader's lock.  Never allocates.
 * (t->unwind_memo, when set, must have room for cap frames.)
 */
int unwind_fast_walk(struct preload_thread *t, void **frames, uintptr_t *cfas, uint64_t *bps,
		     uintptr_t *bp_srcs, uint32_t cap, uintptr_t stack_lo, uintptr_t stack_hi,
		     int mode, uintptr_t shim_lo, uintptr_t shim_hi, struct unwind_fast_tail *tail);

/*
 * The same CFI walk, but from the allocator's caller: frames[0] is
 * caller_ip (the return address at caller_cfa - 8), cfas[0] caller_cfa, and
 * the shim's own frames are not walked at all.  The caller's rbp is not
 * known, so the walk gives up (-1) when a frame's CFA needs rbp before some
 * frame restored it; the caller then walks from the shim.
 */
int unwind_fast_walk_caller(struct preload_thread *t, void **frames, uintptr_t *cfas,
			    uint64_t *bps, uintptr_t *bp_srcs, uint32_t cap, uintptr_t stack_lo,
			    uintptr_t stack_hi, uintptr_t caller_ip, uintptr_t caller_cfa,
			    struct unwind_fast_tail *tail);

/*
 * The same CFI walk from this function, on a stack whose bounds are not
 * known (a coroutine's, a signal stack), no tail offered: it reads the page
 * holding its stack pointer and, as the walk goes up, the pages above it
 * that process_vm_readv(2) could read (unmapped pages and guard pages are
 * not), at most UNWIND_FAST_FOREIGN_BYTES above.  -1 as for
 * unwind_fast_walk, and when process_vm_readv is refused.
 */
#define UNWIND_FAST_FOREIGN_BYTES (256u << 10)
int unwind_fast_walk_foreign(struct preload_thread *t, void **frames, uintptr_t *cfas,
			     uint64_t *bps, uintptr_t *bp_srcs, uint32_t cap);

/*
 * The CFI walk from an interrupted context (the registers a signal frame
 * saved): ip exact (not a return address), sp and bp known.  Within
 * [stack_lo, stack_hi) when sp lies there, else as a walk on a stack of
 * unknown bounds (unwind_fast_walk_foreign).  -1 as for unwind_fast_walk.
 */
int unwind_fast_walk_context(struct preload_thread *t, void **frames, uintptr_t *cfas,
			     uint64_t *bps, uintptr_t *bp_srcs, uint32_t cap, uintptr_t stack_lo,
			     uintptr_t stack_hi, uintptr_t ip, uintptr_t sp, uintptr_t bp);

#endif
