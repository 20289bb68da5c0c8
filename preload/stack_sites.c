/*
 * preload/stack_sites.c - the per-thread cache of call stacks by call site
 * (stack_sites.h): the allocator's shortest path, taken when a call comes
 * from a site and stack position the thread has seen before with the same
 * callers, which is most calls in loops.
 *
 * Why it is exact: the frames of a stack follow from the caller's return
 * address and stack pointer, the unwind rule of each return address, the
 * return-address slots above it and, for a frame whose CFA is rbp-based (a
 * function that realigns its stack or has variable-size frames), the slot
 * its rbp was restored from.  So the same caller at the same stack
 * position, with every cached return-address slot and rbp slot still
 * holding what it held, has the same frames and the same id.  Stacks where
 * such an rbp comes from the caller's register, which is not on the stack,
 * are not cached.  MPROF_UNWIND=check compares every hit with a full
 * capture.  (gcc's cc1 has an rbp-based frame near the root of every
 * stack: before rbp frames were allowed, none of its 2 M stacks was cached.)
 *
 * Owns each thread's table (an anonymous mapping made at its first store,
 * kept when the state is recycled; entries die by stamp, or when the log
 * has moved a whole lap past their frames).  Entries of 64 bytes with the
 * frames in a log, not 65 frames in every entry, so that a thread with a
 * few dozen stacks touches a few pages, not one page or two per stack.  Never writes the
 * program's stack, never takes a lock, never calls malloc.
 */
#include "preload/mem.h"
#include "preload/modules.h"
#include "preload/stack_sites.h"
#include "preload/unwind_fast.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The hash of call site (ip, cfa): its set in the top 5 bits, its tag in
 * bits 32..47. */
static inline uint64_t stack_sites_hash(uint64_t ip, uintptr_t cfa)
{
	return (ip ^ ((uint64_t)cfa * 0x9e3779b97f4a7c15ull)) * 0xbf58476d1ce4e5b9ull;
}

/* The tag of a call site's hash h (never 0: the tag of an unused way). */
static inline uint16_t stack_sites_tag(uint64_t h)
{
	return (uint16_t)((h >> 32) | 1);
}

/* The set of call site (ip, cfa): STACK_SITES_WAYS entries. */
static inline uint32_t stack_sites_set(uint64_t ip, uintptr_t cfa)
{
	return (uint32_t)(stack_sites_hash(ip, cfa) >> (64 - 5));
}
_Static_assert(STACK_SITES_SETS == 1u << 5, "stack_sites_set takes 5 hash bits");

/* The mapping: the tags (16 bits an entry, set by set: 32-byte aligned),
 * the hints (2 bytes a set), the entries (way by way, from a cache line
 * boundary), then the log; a thread with a few stacks touches the first
 * page (tags, hints and the first row of entries) and the log's first. */
#define STACK_SITES_HINTS_OFFSET (STACK_SITES_SETS * STACK_SITES_WAYS * sizeof(uint16_t))
#define STACK_SITES_ENTRIES_OFFSET                                                          \
	((STACK_SITES_HINTS_OFFSET + 2 * STACK_SITES_SETS + 63) & ~(size_t)63)
#define STACK_SITES_LOG_OFFSET \
	(STACK_SITES_ENTRIES_OFFSET + STACK_SITES_SETS * STACK_SITES_WAYS * sizeof(struct stack_site))
#define STACK_SITES_MAP_BYTES \
	(STACK_SITES_LOG_OFFSET + STACK_SITES_SLOTS * sizeof(union stack_site_slot))
_Static_assert(sizeof(struct stack_site) == 64, "an entry is one cache line");
_Static_assert(STACK_SITES_WAYS == 16, "stack_sites_tag_matches compares 16 tags");
_Static_assert((STACK_SITES_SLOTS & (STACK_SITES_SLOTS - 1)) == 0, "the log wraps by a mask");
_Static_assert(sizeof(union stack_site_slot) == 16, "a slot is a frame");

/* Way way of set set (t->sites is the mapping). */
static inline struct stack_site *stack_sites_entry(struct stack_site *sites, uint32_t set,
						   uint32_t way)
{
	return (struct stack_site *)((uint8_t *)sites + STACK_SITES_ENTRIES_OFFSET) +
	       way * STACK_SITES_SETS + set;
}

/* The tags of set's entries. */
static inline uint16_t *stack_sites_tags(struct stack_site *sites, uint32_t set)
{
	return (uint16_t *)sites + set * STACK_SITES_WAYS;
}

/* Per set: [0] the way found last, [1] the next way to replace. */
static inline uint8_t *stack_sites_hints(struct stack_site *sites, uint32_t set)
{
	return (uint8_t *)sites + STACK_SITES_HINTS_OFFSET + 2 * set;
}

/* The log slot at position pos (slots appended before it). */
static inline union stack_site_slot *stack_sites_log(struct stack_site *sites, uint64_t pos)
{
	return (union stack_site_slot *)((uint8_t *)sites + STACK_SITES_LOG_OFFSET) +
	       (pos & (STACK_SITES_SLOTS - 1));
}

/* A bit per way of the set whose tag is tag. */
static inline uint32_t stack_sites_tag_matches(const uint16_t *tags, uint16_t tag)
{
#ifdef __SSE2__
	__m128i want = _mm_set1_epi16((short)tag);
	__m128i lo = _mm_cmpeq_epi16(_mm_load_si128((const __m128i *)tags), want);
	__m128i hi = _mm_cmpeq_epi16(_mm_load_si128((const __m128i *)tags + 1), want);

	return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(lo, hi));
#else
	uint32_t bits = 0;

	for (uint32_t way = 0; way < STACK_SITES_WAYS; way++)
		bits |= (uint32_t)(tags[way] == tag) << way;
	return bits;
#endif
}

/* Whether entry e holds the stack of the call (ip at cfa - 8) now; its
 * frames are in the log unless later stacks overwrote them.  Always inline:
 * it is most of a hit's path, and gcc would otherwise call it. */
static inline __attribute__((always_inline)) int
stack_sites_match(const struct preload_thread *t, const struct stack_site *e, uint64_t ip,
		  uintptr_t cfa)
{
	const union stack_site_slot *frames;

	if (e->key_ip != ip || e->key_cfa != cfa || e->stamp != t->sites_stamp || !e->depth ||
	    t->sites_log_pos - e->log_pos > STACK_SITES_SLOTS ||
	    e->root_key >> 1 != modules_epoch())
		return 0;
	frames = stack_sites_log(t->sites, e->log_pos);
	if (frames[0].frame.cfa > t->stack_hi)
		return 0;
	/* The CFAs fall from frames[0] to the caller's (stack_sites_store
	 * checks it), so every slot read lies between caller_cfa and
	 * stack_hi: one compare per frame.  (callgrind, a malloc+free loop at
	 * depth ~17: this loop was most of the 218 instructions of a hit.) */
#pragma GCC unroll 4
	for (const union stack_site_slot *f = frames, *end = f + e->depth - 1; f < end; f++)
		if (*(const uintptr_t *)(f->frame.cfa - 8) != f->frame.ip)
			return 0;
	for (uint32_t i = 0; i < e->rbp_checks; i++) {
		const struct stack_site_rbp_check *c = &frames[e->depth + i].rbp;

		if (!c->slot) { /* the caller's rbp, read by the entry point */
			if (t->entry_bp_cfa != cfa || t->entry_bp != c->value)
				return 0;
			continue;
		}
		if (c->slot < cfa || c->slot > t->stack_hi - 8 ||
		    *(const uint64_t *)c->slot != c->value)
			return 0;
	}
	return 1;
}

/* The other ways of the set whose tag matches; out of line, so that the
 * usual hit, in the way found last, is a short path. */
static __attribute__((noinline)) uint64_t stack_sites_find_other(struct preload_thread *t,
								  uint32_t set, uint32_t first,
								  uint64_t ip, uintptr_t cfa)
{
	uint8_t *hints = stack_sites_hints(t->sites, set);
	uint16_t tag = stack_sites_tag(stack_sites_hash(ip, cfa));
	uint32_t ways = stack_sites_tag_matches(stack_sites_tags(t->sites, set), tag) &
			~(1u << first);

	while (ways) {
		uint32_t way = (uint32_t)__builtin_ctz(ways);

		ways &= ways - 1;
		struct stack_site *e = stack_sites_entry(t->sites, set, way);

		if (stack_sites_match(t, e, ip, cfa)) {
			hints[0] = (uint8_t)way;
			return e->stack_id;
		}
	}
	return 0;
}

/*
 * The hot path of a repeated call stack: the way of the set found last,
 * then the other ways whose tag matches, then one load per frame of a way
 * that holds this call site.  A hit costs a few ns instead of a walk
 * through the program's frames (~3 ns per frame) and the intern's hash
 * probes.  Most misses are one call site at one stack position reached by
 * several paths (python3's interpreter loop, a wrapper called from many
 * places), hence 16 ways: the two-thread microbenchmark's 16 paths per
 * site missed 14% of its stacks with 4 ways and 0.01% with 16; cc1 48% ->
 * 42% (bench/HISTORY.md, session 35).
 */
uint64_t stack_sites_find(struct preload_thread *t, void *caller_ip, void *caller_cfa)
{
	uint64_t ip = (uint64_t)(uintptr_t)caller_ip;
	uintptr_t cfa = (uintptr_t)caller_cfa;
	struct stack_site *e;
	uint8_t *hints;
	uint32_t set, first;

	if (!t->sites || atomic_load_explicit(&modules_dirty, memory_order_acquire))
		return 0;
	set = stack_sites_set(ip, cfa);
	hints = stack_sites_hints(t->sites, set);
	first = hints[0] & (STACK_SITES_WAYS - 1);
	e = stack_sites_entry(t->sites, set, first);
	if (stack_sites_match(t, e, ip, cfa))
		return e->stack_id; /* the usual case: no store */
	return stack_sites_find_other(t, set, first, ip, cfa);
}

/*
 * The slots the rbp-based frames of the cached stack got their rbp from,
 * with the values they held, into checks[]: carries rbp from the caller
 * (a register) to the root through the recorded restore slots.  A frame
 * whose rbp is the caller's register gets a check of slot 0, which compares
 * the rbp the entry point read (t->entry_bp, for the call at cfa), when it
 * read one and the walk found the same.  Returns the count, or -1 when some
 * rbp-based frame's rbp is the caller's register and the entry point read
 * none, or more than STACK_SITES_RBP_CHECKS slots are needed.
 */
static int stack_sites_rbp_checks(const struct preload_thread *t, uint32_t depth,
				  uintptr_t cfa, struct stack_site_rbp_check *checks)
{
	uintptr_t slot = 0; /* where the carried rbp came from; 0: the register */
	int n = 0;

	for (int32_t i = (int32_t)depth - 1; i >= (int32_t)t->cache_rsp_only; i--) {
		uintptr_t src = t->cache_bp_srcs[i];

		if ((uint32_t)i + 1 < depth && UNWIND_BP_SLOT(src))
			slot = UNWIND_BP_SLOT(src);
		if (!(src & UNWIND_BP_CFA))
			continue;
		if (!slot && (t->entry_bp_cfa != cfa || t->entry_bp != t->cache_bps[i]))
			return -1;
		if (n > 0 && checks[n - 1].slot == slot) {
			if (checks[n - 1].value != t->cache_bps[i])
				return -1; /* cannot be: trust neither */
			continue; /* checked already */
		}
		if (n == (int)STACK_SITES_RBP_CHECKS)
			return -1;
		checks[n].slot = slot;
		checks[n].value = t->cache_bps[i];
		n++;
	}
	return n;
}

/*
 * Where the stack of call (ip, cfa) goes: a way of its set never used
 * (tag 0), else the ways in turn, never the one found last.  (Ways of a
 * forgotten stamp or an old module epoch are replaced in turn too: looking
 * for them read all 16 entries on every store, 1.5% of cc1's instructions.)
 */
static struct stack_site *stack_sites_victim(struct preload_thread *t, uint64_t ip, uintptr_t cfa,
					     uint16_t **tag_slot, uint16_t *tag)
{
	uint32_t set = stack_sites_set(ip, cfa), way, unused;
	uint16_t *tags = stack_sites_tags(t->sites, set);
	uint8_t *hints = stack_sites_hints(t->sites, set);

	*tag = stack_sites_tag(stack_sites_hash(ip, cfa));
	unused = stack_sites_tag_matches(tags, 0);
	if (unused) {
		way = (uint32_t)__builtin_ctz(unused);
	} else {
		way = hints[1] % STACK_SITES_WAYS;
		if (way == hints[0])
			way = (way + 1) % STACK_SITES_WAYS;
		hints[1] = (uint8_t)((way + 1) % STACK_SITES_WAYS);
	}
	*tag_slot = &tags[way];
	return stack_sites_entry(t->sites, set, way);
}

/*
 * A truncated stack is cached with one more frame, the first past the kept
 * ones, as the outermost: the walk from the caller stops right after
 * reading that frame's return address (unwind_own_caller), so the same
 * slots holding the same values give the same truncated stack again.
 */
void stack_sites_store(struct preload_thread *t, void *caller_ip, void *caller_cfa,
		       uint32_t depth, uint64_t stack_id)
{
	uint64_t ip = (uint64_t)(uintptr_t)caller_ip;
	uintptr_t cfa = (uintptr_t)caller_cfa;
	struct stack_site_rbp_check checks[STACK_SITES_RBP_CHECKS];
	struct stack_site *e;
	union stack_site_slot *slots;
	uint16_t *tag_slot, tag;
	uint64_t pos;
	uint32_t need;
	int truncated = (int)(t->cache_root_key & 1), nchecks;
	uint32_t extra = truncated ? 1 : 0;

	if (!stack_id || !depth || depth + extra > STACK_SITES_FRAMES ||
	    t->cache_depth != depth || t->cache_ips[depth - 1] != ip ||
	    t->cache_cfas[depth - 1] != cfa)
		return;
	if (truncated ? !t->beyond_ip || t->beyond_cfa <= t->cache_cfas[0] : !t->cache_cfas_ok)
		return;
	for (uint32_t i = 1; i < depth; i++)
		if (t->cache_cfas[i] >= t->cache_cfas[i - 1])
			return; /* stack_sites_find relies on falling CFAs */
	nchecks = stack_sites_rbp_checks(t, depth, cfa, checks);
	if (nchecks < 0)
		return;
	if (!t->sites) {
		if (t->captures < THREAD_CACHES_AFTER_CAPTURES)
			return; /* a thread that allocates a few times goes without */
		t->sites = preload_mem_map(STACK_SITES_MAP_BYTES);
		if (!t->sites)
			return;
	}
	/* the stack's slots lie together: one that would wrap starts the next lap */
	need = depth + extra + (uint32_t)nchecks;
	pos = t->sites_log_pos;
	if ((pos & (STACK_SITES_SLOTS - 1)) + need > STACK_SITES_SLOTS)
		pos = (pos | (STACK_SITES_SLOTS - 1)) + 1;
	t->sites_log_pos = pos + need;
	slots = stack_sites_log(t->sites, pos);
	e = stack_sites_victim(t, ip, cfa, &tag_slot, &tag);
	e->stamp = t->sites_stamp;
	e->key_ip = ip;
	e->key_cfa = cfa;
	*tag_slot = tag;
	e->root_key = t->cache_root_key;
	e->stack_id = stack_id;
	e->log_pos = pos;
	e->depth = depth + extra;
	e->rbp_checks = (uint32_t)nchecks;
	if (extra) {
		slots[0].frame.ip = t->beyond_ip;
		slots[0].frame.cfa = t->beyond_cfa;
	}
	for (uint32_t i = 0; i < depth; i++) {
		slots[extra + i].frame.ip = t->cache_ips[i];
		slots[extra + i].frame.cfa = t->cache_cfas[i];
	}
	for (int i = 0; i < nchecks; i++)
		slots[e->depth + (uint32_t)i].rbp = checks[i];
}
