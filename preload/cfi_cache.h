/*
 * preload/cfi_cache.h - the process-wide cache of unwind rules, keyed by
 * lookup address (an instruction address, or a return address minus one).
 */
#ifndef MPROF_PRELOAD_CFI_CACHE_H
#define MPROF_PRELOAD_CFI_CACHE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/cfi_parse.h"

/*
 * A cached rule, packed in one word:
 *   bits 0-1   enum cfi_rule_kind
 *   bit  2     the CFA is based on rbp (else rsp)
 *   bit  3     the caller's rbp is saved at CFA + rbp offset
 *   bits 4-33  CFA offset in bytes (unsigned, < 2^30)
 *   bits 34-63 rbp offset from the CFA in bytes (signed, |x| < 2^29)
 * 0 is CFI_RULE_UNSUPPORTED.  CFI_RULE_NO_CFI carries the frame-pointer
 * frame's rule (CFA = rbp + 16, rbp saved at CFA - 16) that libunwind
 * guesses for such an address.
 */
typedef uint64_t cfi_packed_rule;

#define CFI_PACKED_KIND(r) ((unsigned)((r) & 3u))
#define CFI_PACKED_CFA_IS_RBP(r) (((r) >> 2) & 1u)
#define CFI_PACKED_RBP_SAVED(r) (((r) >> 3) & 1u)
#define CFI_PACKED_CFA_OFFSET(r) ((uintptr_t)(((r) >> 4) & ((1u << 30) - 1)))
#define CFI_PACKED_RBP_OFFSET(r) ((intptr_t)((int64_t)(r) >> 34))

/* One slot: key 0 is empty; a slot, once filled, is never rewritten. */
struct cfi_cache_entry {
	_Atomic uint64_t key;
	_Atomic uint64_t rule;
};

/* One table (open addressing, linear probing).  Replaced, never emptied in
 * place: on growth and when the module map changes. */
struct cfi_cache_table {
	uint64_t epoch;       /* modules_epoch() it was made for */
	uint64_t removals;    /* modules_removals when it was made */
	int made_dirty;       /* made while a dlclose awaited its rescan */
	_Atomic int unmapped; /* holds a rule of an address no module held */
	unsigned shift;       /* 64 - log2(entries) */
	uint64_t mask;        /* entries - 1 */
	uint64_t used;        /* filled slots (under the insert lock) */
	size_t map_bytes;
	struct cfi_cache_entry *entries;
};

extern _Atomic(struct cfi_cache_table *) cfi_cache_current;

/* Packs a parsed rule (CFI_RULE_UNSUPPORTED when an offset does not fit). */
cfi_packed_rule cfi_cache_pack(const struct cfi_rule *rule);

/*
 * Lock-free lookup in tab.  Returns 1 and stores the rule when lookup_ip
 * is cached, else 0.  Never takes a lock, never allocates.
 */
static inline int cfi_cache_find(const struct cfi_cache_table *tab, uintptr_t lookup_ip,
				 cfi_packed_rule *out)
{
	uint64_t key = (uint64_t)lookup_ip;
	uint64_t i = (key * 0x9e3779b97f4a7c15ull) >> tab->shift;

	for (;; i = (i + 1) & tab->mask) {
		const struct cfi_cache_entry *e = &tab->entries[i];
		uint64_t k = atomic_load_explicit(&e->key, memory_order_acquire);

		if (k == key) {
			*out = atomic_load_explicit(&e->rule, memory_order_relaxed);
			return 1;
		}
		if (k == 0)
			return 0;
	}
}

/*
 * The table to use now: the current one when no module was removed since it
 * was made (no dlclose is pending, and when it holds a rule of an address
 * outside every module, JIT code, the epoch is still the same), else NULL:
 * the caller then calls cfi_cache_renew under the fork guard.  A load alone
 * keeps the table: with a table per epoch, 1500 dlopens one by one spent a
 * fifth of their time giving tables back (madvise's TLB flushes).
 */
struct cfi_cache_table *cfi_cache_table_for_now(void);

/*
 * Makes a new, empty current table for the current module map unless
 * another thread just did.  Takes the insert lock; call it only inside the
 * unwinder's fork guard.  Returns the table, or NULL when out of memory.
 */
struct cfi_cache_table *cfi_cache_renew(void);

/*
 * The slow path of a lookup: parses the rule of lookup_ip (cfi_parse_rule,
 * which takes the loader's lock) and inserts it.  Call only inside the
 * unwinder's fork guard, holding no lock.  Returns the rule (0 when
 * unsupported or out of memory).
 */
cfi_packed_rule cfi_cache_fill(uintptr_t lookup_ip);

#endif
