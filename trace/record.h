/*
 * trace/record.h - encoding and decoding of EVENTS records (mprof-trace(5)).
 *
 * The encoders are header-only, allocation-free and branch-light: the preload
 * hot path calls them to write straight into its ring.  Each takes the
 * caller's delta state (struct record_state) and a buffer with at least
 * RECORD_MAX_BYTES of room, and returns the end of what it wrote.
 *
 * The decoder (record.c, record_decode.h) turns a byte range back into struct trace_event
 * values; it owns no memory: string fields point into the input.
 */
#ifndef MPROF_TRACE_RECORD_H
#define MPROF_TRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace/format.h"
#include "trace/varint.h"

/* For the encoders that gcc would otherwise call out of line: inlined they
 * cost ~20 instructions less per event (callgrind, cxxchurn). */
#define RECORD_HOT static inline __attribute__((always_inline))

/* Largest core record (REALLOC: kind + 9 varints). */
#define RECORD_MAX_BYTES (1 + 9 * VARINT_MAX_BYTES)

/*
 * Block-address prediction (mprof-trace(5), "Block references").  Most
 * frees release a block allocated shortly before by the same thread, and
 * glibc's per-thread cache hands the last freed chunk of a size class to the
 * next allocation of that class.  Encoder and decoder therefore both keep,
 * per slot, the RECORD_MRU_BLOCKS most recent allocations still live and,
 * per size class, the last RECORD_LIFO_DEPTH blocks freed (newest last);
 * a free then names its block by its place in the first list and an
 * allocation by its place in its class's list, or as "right after the
 * previous block", instead of spelling out an address.  A free of an older
 * block spells out its address but also names its size class (which the
 * recorder reads from the C library's chunk header before the block is
 * released, preload/event.h), so that the allocation that reuses the chunk
 * is again a one-byte reference.  The idea follows heaptrack, which keeps
 * addresses out of its trace altogether (by resolving them in a helper
 * process); we keep them, but make the usual ones cost a byte.
 */
#define RECORD_MRU_BLOCKS 32
#define RECORD_MRU_NEAR 16      /* entries named by fref 1 .. 16 (the others:
                                 * RECORD_FREF_FAR and up, major 5) */
#define RECORD_LIFO_DEPTH 16
#define RECORD_SIZE_CLASSES 64

/* aref values (format major 1 used 0 to 2 only) */
enum record_addr_ref {
	RECORD_AREF_LIFO = 0,  /* the newest freed block of the size class */
	RECORD_AREF_CARVE = 1, /* previous block's address + its chunk size */
	RECORD_AREF_EXPLICIT = 2, /* addr~ follows */
	RECORD_AREF_DEEP = 3,  /* 3 + k - 1: the freed block k places below the
	                        * newest of the class, k = 1 .. DEPTH - 1 */
	RECORD_AREF_FRESH = RECORD_AREF_DEEP + RECORD_LIFO_DEPTH - 1, /* 18: the
	                        * address after the previous allocation that no
	                        * freed list served (record_state.fresh; major 6) */
	RECORD_AREF_MAX = RECORD_AREF_FRESH,
};

/* fref values: 0 addr~ follows; k = 1 .. MRU_NEAR the (k-1)-th newest MRU
 * entry; FREF_CLASSED + c: addr~ follows and the block joins size class
 * c's list (format major 2); FREF_FAR + k - MRU_NEAR: the k-th newest MRU
 * entry for k = MRU_NEAR .. MRU_BLOCKS - 1 (major 5).  The far entries are
 * numbered after the classes, so that a reader of major 5 reads the
 * traces of majors 2 to 4, whose lists held 16 entries, as they are: the
 * 16 newest entries of a longer list are those of the shorter one, and
 * those traces never name the others. */
#define RECORD_FREF_CLASSED (RECORD_MRU_NEAR + 1)
#define RECORD_FREF_CLASSED_MAX (RECORD_FREF_CLASSED + RECORD_SIZE_CLASSES - 1)
#define RECORD_FREF_FAR (RECORD_FREF_CLASSED_MAX + 1)
#define RECORD_FREF_MAX (RECORD_FREF_FAR + RECORD_MRU_BLOCKS - RECORD_MRU_NEAR - 1)

/* Whether an addr~ follows fref code (a free's block spelled out). */
static inline bool record_fref_explicit(uint64_t code)
{
	return code == 0 || (code >= RECORD_FREF_CLASSED && code <= RECORD_FREF_CLASSED_MAX);
}

/* The MRU index fref code names (code not explicit, at most FREF_MAX). */
static inline uint32_t record_fref_mru_index(uint64_t code)
{
	return code < RECORD_FREF_CLASSED ? (uint32_t)(code - 1)
					  : (uint32_t)(code - RECORD_FREF_FAR + RECORD_MRU_NEAR);
}

struct record_block {
	uint64_t addr;
	uint64_t size_bytes;
	uint64_t tag;      /* a reader's own mark of the allocation, handed
	                    * back when a free names the block by its place
	                    * (trace_event.freed_tag); writers ignore it */
};

/* Delta and prediction state shared by encoder and decoder; a reset point
 * (lap start, THREAD record) sets all of it to zero. */
struct record_state {
	uint64_t seq;      /* sequence number of the previous event */
	uint64_t addr;     /* previous explicitly written address */
	uint64_t stack_ip; /* ip of the previous STACK(_DELTA) record */
	uint64_t stack_node; /* id of the previous STACK(_DELTA) record */
	uint64_t stack;    /* stack id of the previous allocation */
	uint64_t carve;    /* previous allocation's address + its chunk size */
	uint64_t fresh;    /* the same for the previous allocation that no
	                    * freed list served (aref CARVE, EXPLICIT or FRESH):
	                    * where the C library carves on, between reuses of
	                    * freed chunks */
	uint32_t mru_count;
	uint32_t mru_head;  /* where in mru[] the newest entry is */
	struct record_block mru[RECORD_MRU_BLOCKS]; /* circular: record_mru_at */
	uint8_t lifo_count[RECORD_SIZE_CLASSES];
	uint8_t lifo_head[RECORD_SIZE_CLASSES]; /* slot of the oldest entry */
	/* per class a circular buffer, newest at head + count - 1; slots
	 * outside the list hold address 0 (record_lifo_find relies on it) */
	uint64_t lifo[RECORD_SIZE_CLASSES][RECORD_LIFO_DEPTH];
};

static inline void record_state_reset(struct record_state *st)
{
	memset(st, 0, sizeof(*st));
}

/*
 * The same reset for a state that was all zero once and has changed only
 * through the functions here since (slots outside the lists hold address
 * 0): clears only the class lists in use, so that a writer touches no more
 * of its 8 KiB of class lists than it ever filled (the recorder keeps a
 * state per thread).
 */
static inline void record_state_reset_used(struct record_state *st)
{
	memset(st, 0, offsetof(struct record_state, lifo_count));
	for (int c = 0; c < RECORD_SIZE_CLASSES; c++)
		if (st->lifo_count[c])
			memset(st->lifo[c], 0, sizeof(st->lifo[c]));
	memset(st->lifo_count, 0, sizeof(st->lifo_count));
	memset(st->lifo_head, 0, sizeof(st->lifo_head));
}

/* glibc's chunk size for a request: header word added, 16-byte granules,
 * 32 bytes at least. */
static inline uint64_t record_chunk_bytes(uint64_t size_bytes)
{
	uint64_t c = (size_bytes + 8 + 15) & ~(uint64_t)15;

	return c < 32 ? 32 : c;
}

/* Size class of a request for the LIFO lists, or -1 for large requests.
 * It is the chunk size / 16 (for requests above 8 bytes), so that the class
 * of a block's usable size (chunk - 8, what malloc_usable_size reports) is
 * the class of the requests its chunk serves. */
static inline int record_size_class(uint64_t size_bytes)
{
	uint64_t c = (size_bytes + 23) >> 4;

	return c < RECORD_SIZE_CLASSES ? (int)c : -1;
}

_Static_assert((RECORD_MRU_BLOCKS & (RECORD_MRU_BLOCKS - 1)) == 0,
	       "the MRU list is a circular buffer indexed with a mask");
_Static_assert(RECORD_FREF_MAX < 128 && RECORD_AREF_MAX < 128,
	       "block references stay one-byte varints");

/* The k-th newest entry of the MRU list (k < mru_count).  A circular
 * buffer: an allocation and the usual free (of one of the newest blocks)
 * move one or two entries, not the whole list (a memmove each was 24 of
 * the ~760 instructions of a recorded malloc+free pair). */
static inline struct record_block *record_mru_at(struct record_state *st, uint32_t k)
{
	return &st->mru[(st->mru_head + k) & (RECORD_MRU_BLOCKS - 1)];
}

/* Index of addr in the MRU list, or -1.  Looks at the newest entry, then
 * scans the buffer in memory order, unrolled, and turns the slot found into
 * the entry's age: slots outside the list hold address 0
 * (record_mru_release clears the one it frees), so address 0 itself is
 * never looked for.  (A scan in list order cost 7
 * instructions per entry, 112 for the usual miss of a free of an older
 * block.) */
static inline int record_mru_find(struct record_state *st, uint64_t addr)
{
	if (!addr)
		return -1;
	if (st->mru[st->mru_head].addr == addr)
		return 0; /* the newest block: a temporary allocation */
#pragma GCC unroll 32
	for (uint32_t slot = 0; slot < RECORD_MRU_BLOCKS; slot++)
		if (st->mru[slot].addr == addr)
			return (int)((slot - st->mru_head) & (RECORD_MRU_BLOCKS - 1));
	return -1;
}

_Static_assert((RECORD_LIFO_DEPTH & (RECORD_LIFO_DEPTH - 1)) == 0,
	       "the class lists are circular buffers indexed with a mask");

/* Slot of the k-th newest entry (k = 0: the newest) of class c's list. */
static inline uint32_t record_lifo_slot(const struct record_state *st, int c, uint32_t k)
{
	return (st->lifo_head[c] + st->lifo_count[c] - 1 - k) & (RECORD_LIFO_DEPTH - 1);
}

/* addr becomes the newest freed block of size class c; a full list
 * overwrites its oldest. */
static inline void record_lifo_push(struct record_state *st, int c, uint64_t addr)
{
	if (st->lifo_count[c] == RECORD_LIFO_DEPTH) {
		st->lifo[c][st->lifo_head[c]] = addr;
		st->lifo_head[c] = (st->lifo_head[c] + 1) & (RECORD_LIFO_DEPTH - 1);
		return;
	}
	st->lifo[c][(st->lifo_head[c] + st->lifo_count[c]) & (RECORD_LIFO_DEPTH - 1)] = addr;
	st->lifo_count[c]++;
}

/* Takes the k-th newest entry (k < lifo_count[c]) out of class c's list:
 * the newer ones move one place older, into the gap. */
static inline uint64_t record_lifo_take(struct record_state *st, int c, uint32_t k)
{
	uint64_t addr = st->lifo[c][record_lifo_slot(st, c, k)];

	for (uint32_t j = k; j > 0; j--)
		st->lifo[c][record_lifo_slot(st, c, j)] = st->lifo[c][record_lifo_slot(st, c, j - 1)];
	st->lifo[c][record_lifo_slot(st, c, 0)] = 0;
	st->lifo_count[c]--;
	return addr;
}

/* Place of addr (not 0) in class c's list counted from the newest, or -1:
 * compares every slot, unrolled, as record_mru_find does. */
static inline int record_lifo_find(const struct record_state *st, int c, uint64_t addr)
{
#pragma GCC unroll 8
	for (uint32_t slot = 0; slot < RECORD_LIFO_DEPTH; slot++)
		if (st->lifo[c][slot] == addr)
			return (int)((st->lifo_head[c] + st->lifo_count[c] - 1 - slot) &
				     (RECORD_LIFO_DEPTH - 1));
	return -1;
}

/* A block left the MRU list at index i by being freed: remember it as the
 * newest free block of its size class. */
static inline void record_mru_release(struct record_state *st, uint32_t i)
{
	struct record_block b = *record_mru_at(st, i);
	int c = record_size_class(b.size_bytes);

	/* Close the gap from the nearer end, same list either way: the
	 * newer entries move one place older and the newest slot leaves the
	 * list, or the older ones move one place newer and the oldest slot
	 * leaves it.  (Always the newer: 50 instructions per free of the
	 * decoder's on sqlite3's trace, most frees naming a block a few
	 * places down.) */
	if (i < st->mru_count - 1 - i) {
		for (uint32_t k = i; k > 0; k--)
			*record_mru_at(st, k) = *record_mru_at(st, k - 1);
		record_mru_at(st, 0)->addr = 0;
		st->mru_head = (st->mru_head + 1) & (RECORD_MRU_BLOCKS - 1);
	} else {
		for (uint32_t k = i; k + 1 < st->mru_count; k++)
			*record_mru_at(st, k) = *record_mru_at(st, k + 1);
		record_mru_at(st, st->mru_count - 1)->addr = 0;
	}
	st->mru_count--;
	if (c >= 0)
		record_lifo_push(st, c, b.addr);
}

/* Bookkeeping after an allocation of size_bytes at addr named by aref
 * code (a full list drops its oldest entry, whose place the new one
 * takes). */
static inline void record_note_alloc(struct record_state *st, uint64_t code, uint64_t addr,
				     uint64_t size_bytes)
{
	st->mru_head = (st->mru_head - 1) & (RECORD_MRU_BLOCKS - 1);
	st->mru[st->mru_head].addr = addr;
	st->mru[st->mru_head].size_bytes = size_bytes;
	if (st->mru_count < RECORD_MRU_BLOCKS)
		st->mru_count++;
	st->carve = addr + record_chunk_bytes(size_bytes);
	if (code == RECORD_AREF_CARVE || code == RECORD_AREF_EXPLICIT || code == RECORD_AREF_FRESH)
		st->fresh = st->carve;
}

/*
 * What the writer of a free knows about its block before the allocator
 * releases it: its place in the MRU list (record_mru_find, -1: not there)
 * and, when not there, its size class (record_size_class of the usable size
 * the allocator reports, -1: not known or large).  Between the lookup and
 * the record that uses it the state may only be reset (a writer's lap
 * start), which record_put_free_ref notices.
 */
struct record_free_ref {
	int mru_index;
	int size_class;
};

/* The lookup for a writer that does not ask the allocator (no class). */
static inline struct record_free_ref record_free_lookup(struct record_state *st, uint64_t addr)
{
	struct record_free_ref r = { record_mru_find(st, addr), -1 };

	return r;
}

static inline uint8_t *record_put_seq(uint8_t *p, struct record_state *st, uint64_t seq)
{
	p = varint_put_u64(p, seq - st->seq);
	st->seq = seq;
	return p;
}

static inline uint8_t *record_put_addr(uint8_t *p, struct record_state *st, uint64_t addr)
{
	p = varint_put_s64(p, (int64_t)(addr - st->addr));
	st->addr = addr;
	return p;
}

/* The freed block: u fref (0 or FREF_CLASSED + class: addr~ follows; k+1:
 * k-th MRU entry).  ref: the caller's lookup, or NULL to look here (then the
 * class is not known). */
RECORD_HOT uint8_t *record_put_free_ref(uint8_t *p, struct record_state *st, uint64_t addr,
				       const struct record_free_ref *ref)
{
	struct record_free_ref r = ref ? *ref : record_free_lookup(st, addr);

	/* a lap start between the lookup and now reset the state */
	if (r.mru_index >= 0 && ((uint32_t)r.mru_index >= st->mru_count ||
				 record_mru_at(st, (uint32_t)r.mru_index)->addr != addr))
		r.mru_index = -1;
	if (r.mru_index < 0) {
		if (r.size_class >= 0 && r.size_class < RECORD_SIZE_CLASSES) {
			*p++ = (uint8_t)(RECORD_FREF_CLASSED + r.size_class);
			record_lifo_push(st, r.size_class, addr);
		} else {
			*p++ = 0;
		}
		return record_put_addr(p, st, addr);
	}
	*p++ = (uint8_t)(r.mru_index < RECORD_MRU_NEAR
				 ? r.mru_index + 1
				 : RECORD_FREF_FAR + r.mru_index - RECORD_MRU_NEAR);
	record_mru_release(st, (uint32_t)r.mru_index);
	return p;
}

/* The new block's u size and s stack~ (delta from the previous
 * allocation's stack id), in both forms. */
RECORD_HOT uint8_t *record_put_size_stack(uint8_t *p, struct record_state *st,
					  uint64_t size_bytes, uint64_t stack_id)
{
	p = varint_put_u64(p, size_bytes);
	p = varint_put_s64(p, (int64_t)(stack_id - st->stack));
	st->stack = stack_id;
	return p;
}

/* The weight of a weighted ALLOC or REALLOC, last; none for weight 1. */
static inline uint8_t *record_put_weight(uint8_t *p, uint64_t weight)
{
	return weight == 1 ? p : varint_put_u64(p, weight);
}

/* The new block: u aref (enum record_addr_ref) [addr~], u size, s stack~.
 * (The deep search runs only when the newest and the carve guesses
 * missed.) */
RECORD_HOT uint8_t *record_put_new_block(uint8_t *p, struct record_state *st, uint64_t addr,
					uint64_t size_bytes, uint64_t stack_id)
{
	int c = record_size_class(size_bytes);

	uint32_t n = c >= 0 ? st->lifo_count[c] : 0;
	uint8_t code;
	int k;

	if (n && st->lifo[c][record_lifo_slot(st, c, 0)] == addr) {
		code = RECORD_AREF_LIFO;
		record_lifo_take(st, c, 0);
	} else if (addr == st->carve) {
		code = RECORD_AREF_CARVE;
	} else if (addr == st->fresh) {
		code = RECORD_AREF_FRESH;
	} else if (n > 1 && addr && (k = record_lifo_find(st, c, addr)) > 0) {
		code = (uint8_t)(RECORD_AREF_DEEP + k - 1);
		record_lifo_take(st, c, (uint32_t)k);
	} else {
		code = RECORD_AREF_EXPLICIT;
	}
	*p++ = code;
	if (code == RECORD_AREF_EXPLICIT)
		p = record_put_addr(p, st, addr);
	p = record_put_size_stack(p, st, size_bytes, stack_id);
	record_note_alloc(st, code, addr, size_bytes);
	return p;
}

/* ALLOC: a successful allocation of size_bytes (requested) at addr.  A
 * weight other than 1 selects the weighted kind and is written last. */
static inline uint8_t *record_put_alloc(uint8_t *p, struct record_state *st, unsigned fn,
					uint64_t seq, uint64_t addr, uint64_t size_bytes,
					uint64_t stack_id, uint64_t weight)
{
	*p++ = (uint8_t)((weight == 1 ? TRACE_REC_ALLOC : TRACE_REC_ALLOC_WEIGHTED) | fn);
	p = record_put_seq(p, st, seq);
	p = record_put_new_block(p, st, addr, size_bytes, stack_id);
	return record_put_weight(p, weight);
}

/* FREE: the block at addr was released (fn: enum trace_free_fn); ref as
 * for record_put_free_ref. */
static inline uint8_t *record_put_free(uint8_t *p, struct record_state *st, unsigned fn,
				       uint64_t seq, uint64_t addr,
				       const struct record_free_ref *ref)
{
	*p++ = (uint8_t)(TRACE_REC_FREE | fn);
	p = record_put_seq(p, st, seq);
	return record_put_free_ref(p, st, addr, ref);
}

/* REALLOC: old_addr freed at seq_free, new_addr (size_bytes) born at
 * seq_alloc; old_ref: the lookup of old_addr, as for record_put_free_ref. */
static inline uint8_t *record_put_realloc(uint8_t *p, struct record_state *st, unsigned fn,
					  uint64_t seq_free, uint64_t old_addr,
					  const struct record_free_ref *old_ref,
					  uint64_t seq_alloc, uint64_t new_addr,
					  uint64_t size_bytes, uint64_t stack_id, uint64_t weight)
{
	*p++ = (uint8_t)((weight == 1 ? TRACE_REC_REALLOC : TRACE_REC_REALLOC_WEIGHTED) | fn);
	p = record_put_seq(p, st, seq_free);
	p = record_put_free_ref(p, st, old_addr, old_ref);
	p = record_put_seq(p, st, seq_alloc);
	p = record_put_new_block(p, st, new_addr, size_bytes, stack_id);
	return record_put_weight(p, weight);
}

/*
 * The shim's form: every block reference explicit.  The shim writes each
 * allocation with aref RECORD_AREF_EXPLICIT and each free with fref 0, or
 * RECORD_FREF_CLASSED + the size class of the block's usable size when it
 * knows it (from the C library's chunk header), and keeps no block history:
 * predicting references was a fifth to a quarter of its cost per event
 * (python3 x1.497 -> x1.386, a C++ container program x1.443 -> x1.329,
 * 15 interleaved rounds).  The launcher re-encodes the records into the
 * compact form above before compressing (trace/recode.h); a reader decodes
 * either.  These touch only st's seq, addr and stack.
 */
RECORD_HOT uint8_t *record_put_new_block_explicit(uint8_t *p, struct record_state *st,
						  uint64_t addr, uint64_t size_bytes,
						  uint64_t stack_id)
{
	*p++ = RECORD_AREF_EXPLICIT;
	p = record_put_addr(p, st, addr);
	return record_put_size_stack(p, st, size_bytes, stack_id);
}

/* size_class: record_size_class of the block's usable size, or -1. */
RECORD_HOT uint8_t *record_put_free_ref_explicit(uint8_t *p, struct record_state *st,
						 uint64_t addr, int size_class)
{
	*p++ = size_class >= 0 && size_class < RECORD_SIZE_CLASSES
		       ? (uint8_t)(RECORD_FREF_CLASSED + size_class) : 0;
	return record_put_addr(p, st, addr);
}

static inline uint8_t *record_put_alloc_explicit(uint8_t *p, struct record_state *st, unsigned fn,
						 uint64_t seq, uint64_t addr, uint64_t size_bytes,
						 uint64_t stack_id, uint64_t weight)
{
	*p++ = (uint8_t)((weight == 1 ? TRACE_REC_ALLOC : TRACE_REC_ALLOC_WEIGHTED) | fn);
	p = record_put_seq(p, st, seq);
	p = record_put_new_block_explicit(p, st, addr, size_bytes, stack_id);
	return record_put_weight(p, weight);
}

static inline uint8_t *record_put_free_explicit(uint8_t *p, struct record_state *st, unsigned fn,
						uint64_t seq, uint64_t addr, int size_class)
{
	*p++ = (uint8_t)(TRACE_REC_FREE | fn);
	p = record_put_seq(p, st, seq);
	return record_put_free_ref_explicit(p, st, addr, size_class);
}

static inline uint8_t *record_put_realloc_explicit(uint8_t *p, struct record_state *st,
						   unsigned fn, uint64_t seq_free, uint64_t old_addr,
						   int old_size_class, uint64_t seq_alloc,
						   uint64_t new_addr, uint64_t size_bytes,
						   uint64_t stack_id, uint64_t weight)
{
	*p++ = (uint8_t)((weight == 1 ? TRACE_REC_REALLOC : TRACE_REC_REALLOC_WEIGHTED) | fn);
	p = record_put_seq(p, st, seq_free);
	p = record_put_free_ref_explicit(p, st, old_addr, old_size_class);
	p = record_put_seq(p, st, seq_alloc);
	p = record_put_new_block_explicit(p, st, new_addr, size_bytes, stack_id);
	return record_put_weight(p, weight);
}

/* SEQ_SKIP: seq was taken but no event happened (a failed realloc). */
static inline uint8_t *record_put_seq_skip(uint8_t *p, struct record_state *st, uint64_t seq)
{
	*p++ = TRACE_REC_SEQ_SKIP;
	return record_put_seq(p, st, seq);
}

/* THREAD: thread tid starts writing this slot; resets the delta state. */
static inline uint8_t *record_put_thread(uint8_t *p, struct record_state *st, uint64_t tid)
{
	*p++ = TRACE_REC_THREAD;
	record_state_reset(st);
	return varint_put_u64(p, tid);
}

/* THREAD for a writer whose state record_state_reset_used may reset. */
static inline uint8_t *record_put_thread_reused(uint8_t *p, struct record_state *st,
						uint64_t tid)
{
	*p++ = TRACE_REC_THREAD;
	record_state_reset_used(st);
	return varint_put_u64(p, tid);
}

/* TIME: CLOCK_MONOTONIC in ns, taken at the slot's previous sequence number. */
static inline uint8_t *record_put_time(uint8_t *p, uint64_t time_ns)
{
	*p++ = TRACE_REC_TIME;
	return varint_put_u64(p, time_ns);
}

/* STACK_DELTA: node id = (parent, ip); see format.h for roots.  Ids are
 * mostly handed out in order and a node's parent is mostly the node made
 * just before it, so both are written as small deltas (the absolute ids of
 * STACK records made python3's metadata stream 3.5x larger compressed). */
static inline uint8_t *record_put_stack(uint8_t *p, struct record_state *st, uint64_t id,
					uint64_t parent, uint64_t ip)
{
	*p++ = TRACE_REC_STACK_DELTA;
	p = varint_put_s64(p, (int64_t)(id - st->stack_node - 1));
	p = varint_put_s64(p, (int64_t)(id - parent));
	p = varint_put_s64(p, (int64_t)(ip - st->stack_ip));
	st->stack_node = id;
	st->stack_ip = ip;
	return p;
}

/*
 * Extended records: kind byte, u payload length, payload.  The writer
 * reserves the length as a fixed 4-byte varint (0x80 0x80 0x80 0x00 | len
 * groups) so it can fill it in after the payload; lengths are below 2^28.
 */
#define RECORD_EXT_HEADER_BYTES 5
#define RECORD_EXT_MAX_PAYLOAD ((1u << 28) - 1)

static inline uint8_t *record_ext_begin(uint8_t *p, unsigned kind)
{
	*p = (uint8_t)kind;
	return p + RECORD_EXT_HEADER_BYTES;
}

/* Fills in the length of the extended record that starts at rec. */
static inline void record_ext_end(uint8_t *rec, const uint8_t *end)
{
	uint32_t len = (uint32_t)(end - (rec + RECORD_EXT_HEADER_BYTES));

	rec[1] = (uint8_t)(0x80 | (len & 0x7f));
	rec[2] = (uint8_t)(0x80 | ((len >> 7) & 0x7f));
	rec[3] = (uint8_t)(0x80 | ((len >> 14) & 0x7f));
	rec[4] = (uint8_t)((len >> 21) & 0x7f);
}

/* Writes a length-prefixed byte string (u length, bytes). */
static inline uint8_t *record_put_bytes(uint8_t *p, const void *data, size_t len)
{
	p = varint_put_u64(p, len);
	memcpy(p, data, len);
	return p + len;
}

/* ---- decoding ---- */

enum trace_event_type {
	TRACE_EV_ALLOC,
	TRACE_EV_FREE,
	TRACE_EV_REALLOC,
	TRACE_EV_SEQ_SKIP,
	TRACE_EV_THREAD,
	TRACE_EV_TIME,
	TRACE_EV_STACK,
	TRACE_EV_EXT,      /* any extended record, payload in ext/ext_len */
};

/* One decoded record.  Pointers refer into the decoder's input.  Of the
 * fields after fn, record_decode sets those named for the record's type
 * (seq and seq2 always: 0 where the type has none) and leaves the others
 * as they were. */
struct trace_event {
	enum trace_event_type type;
	unsigned kind;         /* raw kind byte */
	unsigned fn;           /* alloc or free function (low nibble) */
	uint64_t seq;          /* ALLOC, FREE, SEQ_SKIP; TIME: the slot's previous
	                        * event; REALLOC: the free part */
	uint64_t seq2;         /* REALLOC: the alloc part */
	uint64_t addr;         /* ALLOC, FREE; REALLOC: old address */
	bool freed_recent;     /* FREE, REALLOC: the freed block was named as one
	                        * of the slot's RECORD_MRU_BLOCKS newest live
	                        * allocations (an fref of 1 .. MRU_BLOCKS) ... */
	uint64_t freed_tag;    /* ... and this was its MRU entry's tag */
	uint64_t addr2;        /* REALLOC: new address */
	uint64_t size_bytes;   /* ALLOC, REALLOC */
	uint64_t stack_id;     /* ALLOC, REALLOC; STACK: the node's id */
	uint64_t weight;       /* ALLOC, REALLOC */
	uint64_t tid;          /* THREAD */
	uint64_t time_ns;      /* TIME */
	uint64_t parent;       /* STACK */
	uint64_t ip;           /* STACK */
	const uint8_t *ext;    /* EXT: payload */
	size_t ext_len;        /* EXT: payload bytes */
};

enum record_status {
	RECORD_OK = 0,
	RECORD_END = 1,        /* no more input */
	RECORD_TRUNCATED = -1, /* input ends inside a record */
	RECORD_UNKNOWN = -2,   /* core kind this reader does not know */
	RECORD_CORRUPT = -3,   /* a field refers to something that is not there
	                        * (the state may have been partly updated: the
	                        * rest of the lap is unreadable) */
	RECORD_COLUMNS = -4,   /* a split payload's seq or addr part does not
	                        * end with its records (chunk_cursor_next) */
};

/*
 * Decodes the record at *pp (skipping PAD bytes), updating st, and advances
 * *pp past it.  Returns RECORD_OK with *ev filled, RECORD_END at the end of
 * input, or a negative enum record_status (then *pp points at the bad record;
 * after RECORD_TRUNCATED and RECORD_UNKNOWN st is unchanged).  st must have
 * been zeroed (record_state_reset) before it decoded anything and changed
 * since only by the functions here: a THREAD record resets it with
 * record_state_reset_used, which clears the class lists in use only.
 */
int record_decode(const uint8_t **pp, const uint8_t *end, struct record_state *st,
		  struct trace_event *ev);

/*
 * Where a split EVENTS payload keeps its seq+ and addr~ fields (format major
 * 3, trace/split.h): cursors into its seq and addr parts, advanced as
 * records are decoded; and the chunk's address granule (major 4): each
 * addr~ read is multiplied by 2^addr_shift, and addr_plain_bytes adds up
 * the lengths of the fields so multiplied, for the caller to check against
 * the payload's P at its end.
 */
struct record_columns {
	const uint8_t *seq, *seq_end;
	const uint8_t *addr, *addr_end;
	unsigned addr_shift;
	uint64_t addr_plain_bytes;
};

/*
 * record_decode for the records part of a split payload: every seq+ and
 * addr~ field is read from cols instead.  Returns as record_decode; after
 * an error the columns may have advanced (the rest of the payload is
 * unreadable anyway).  At RECORD_END the caller checks that both columns
 * are used up.
 */
int record_decode_split(const uint8_t **pp, const uint8_t *end, struct record_columns *cols,
			struct record_state *st, struct trace_event *ev);

/* Helpers for extended payloads: read a varint / a length-prefixed string.
 * Return 0 or -1 when the payload ends early. */
int record_get_u64(const uint8_t **pp, const uint8_t *end, uint64_t *out);
int record_get_bytes(const uint8_t **pp, const uint8_t *end, const uint8_t **data, size_t *len);

#endif
