/*
 * preload/cfi_cache.c - the process-wide cache of unwind rules (see
 * cfi_cache.h): lock-free readers, inserts under one small lock on a miss.
 *
 * Owns the current table and the insert lock.  A slot is filled once (rule
 * first, then its key with a release store) and never rewritten, so a reader
 * that sees its key sees its rule.  A table is replaced, not emptied, when it
 * fills up (a bigger copy) and when a module was removed from the map (an
 * empty one: a dlclose may put another library's code at the same
 * addresses; a table holding a rule of an address outside every module is
 * also replaced at each new map, as one was at any change before).  Replaced
 * tables stay mapped because other threads may still be probing them, but
 * their slots are given back to the kernel (MADV_DONTNEED reads as zeros,
 * i.e. empty), so a late reader only misses.  In a fork child the cache stays
 * valid (same mappings); the lock is never held across fork because it is
 * only taken inside the unwinder's fork guard.  Must never call malloc.
 */
#include <sys/mman.h>

#include "preload/cfi_cache.h"
#include "preload/lock.h"
#include "preload/mem.h"
#include "preload/modules.h"

/* 8 KiB of slots: hashed, so every page of a table gets touched early
 * (128 KiB for memcached's 123 rules); it doubles at half full. */
#define CFI_CACHE_FIRST_ENTRIES (1u << 9)

_Atomic(struct cfi_cache_table *) cfi_cache_current;
static struct preload_lock cfi_cache_lock;

cfi_packed_rule cfi_cache_pack(const struct cfi_rule *rule)
{
	uint64_t r;

	if (rule->kind == CFI_RULE_OUTERMOST)
		return CFI_RULE_OUTERMOST;
	if (rule->kind == CFI_RULE_NO_CFI)
		return CFI_RULE_NO_CFI | 1u << 2 | 1u << 3 | (uint64_t)16 << 4 |
		       (uint64_t)(int64_t)-16 << 34;
	if (rule->kind != CFI_RULE_FRAME || rule->cfa_offset_bytes <= 0 ||
	    rule->cfa_offset_bytes >= (1 << 30) || rule->rbp_offset_bytes >= (1 << 29) ||
	    rule->rbp_offset_bytes <= -(1 << 29))
		return CFI_RULE_UNSUPPORTED;
	r = CFI_RULE_FRAME;
	r |= (uint64_t)(rule->cfa_is_rbp ? 1 : 0) << 2;
	r |= (uint64_t)(rule->rbp_saved ? 1 : 0) << 3;
	r |= (uint64_t)rule->cfa_offset_bytes << 4;
	if (rule->rbp_saved)
		r |= (uint64_t)(int64_t)rule->rbp_offset_bytes << 34;
	return r;
}

/* Maps an empty table of 'entries' slots (a power of two). */
static struct cfi_cache_table *cfi_cache_map(uint64_t entries, uint64_t epoch, uint64_t removals,
					     int made_dirty)
{
	size_t bytes = PRELOAD_PAGE_BYTES + entries * sizeof(struct cfi_cache_entry);
	struct cfi_cache_table *tab = preload_mem_map(bytes);
	unsigned bits = 0;

	if (!tab)
		return NULL;
	while ((1ull << bits) < entries)
		bits++;
	tab->epoch = epoch;
	tab->removals = removals;
	tab->made_dirty = made_dirty;
	tab->shift = 64 - bits;
	tab->mask = entries - 1;
	tab->map_bytes = bytes;
	tab->entries = (struct cfi_cache_entry *)((uint8_t *)tab + PRELOAD_PAGE_BYTES);
	return tab;
}

/* Gives a replaced table's slots back; its header page stays readable. */
static void cfi_cache_retire(struct cfi_cache_table *old)
{
	if (old && madvise(old->entries, old->map_bytes - PRELOAD_PAGE_BYTES, MADV_DONTNEED) == 0)
		preload_mem_count_returned(old->map_bytes - PRELOAD_PAGE_BYTES);
}

/* Stores a rule into tab (lock held, room guaranteed, key absent). */
static void cfi_cache_put(struct cfi_cache_table *tab, uint64_t key, cfi_packed_rule rule)
{
	uint64_t i = (key * 0x9e3779b97f4a7c15ull) >> tab->shift;

	while (atomic_load_explicit(&tab->entries[i].key, memory_order_relaxed))
		i = (i + 1) & tab->mask;
	atomic_store_explicit(&tab->entries[i].rule, rule, memory_order_relaxed);
	atomic_store_explicit(&tab->entries[i].key, key, memory_order_release);
	tab->used++;
}

/* Whether tab may serve lookups now. */
static int cfi_cache_is_fresh(const struct cfi_cache_table *tab)
{
	if (!tab || tab->removals != atomic_load_explicit(&modules_removals, memory_order_acquire) ||
	    (atomic_load_explicit(&tab->unmapped, memory_order_relaxed) &&
	     tab->epoch != modules_epoch()))
		return 0;
	return !atomic_load_explicit(&modules_dirty, memory_order_relaxed) || tab->made_dirty;
}

struct cfi_cache_table *cfi_cache_table_for_now(void)
{
	struct cfi_cache_table *tab = atomic_load_explicit(&cfi_cache_current, memory_order_acquire);

	return cfi_cache_is_fresh(tab) ? tab : NULL;
}

struct cfi_cache_table *cfi_cache_renew(void)
{
	struct cfi_cache_table *tab, *old;

	preload_lock_take(&cfi_cache_lock);
	old = atomic_load_explicit(&cfi_cache_current, memory_order_relaxed);
	if (cfi_cache_is_fresh(old)) {
		preload_lock_give(&cfi_cache_lock);
		return old;
	}
	tab = cfi_cache_map(CFI_CACHE_FIRST_ENTRIES, modules_epoch(),
			    atomic_load_explicit(&modules_removals, memory_order_acquire),
			    atomic_load_explicit(&modules_dirty, memory_order_relaxed));
	if (tab) {
		atomic_store_explicit(&cfi_cache_current, tab, memory_order_release);
		cfi_cache_retire(old);
	}
	preload_lock_give(&cfi_cache_lock);
	return tab;
}

/* Replaces tab by a copy twice its size (lock held); NULL when out of memory. */
static struct cfi_cache_table *cfi_cache_grow(struct cfi_cache_table *old)
{
	struct cfi_cache_table *tab = cfi_cache_map(2 * (old->mask + 1), old->epoch, old->removals,
						    old->made_dirty);

	if (!tab)
		return NULL;
	atomic_store_explicit(&tab->unmapped, atomic_load_explicit(&old->unmapped, memory_order_relaxed),
			      memory_order_relaxed);
	for (uint64_t i = 0; i <= old->mask; i++) {
		uint64_t key = atomic_load_explicit(&old->entries[i].key, memory_order_relaxed);

		if (key)
			cfi_cache_put(tab, key,
				      atomic_load_explicit(&old->entries[i].rule,
							   memory_order_relaxed));
	}
	atomic_store_explicit(&cfi_cache_current, tab, memory_order_release);
	cfi_cache_retire(old);
	return tab;
}

cfi_packed_rule cfi_cache_fill(uintptr_t lookup_ip)
{
	struct cfi_rule parsed;
	cfi_packed_rule rule, found;
	struct cfi_cache_table *tab;

	cfi_parse_rule(lookup_ip, &parsed);
	rule = cfi_cache_pack(&parsed);
	preload_lock_take(&cfi_cache_lock);
	tab = atomic_load_explicit(&cfi_cache_current, memory_order_relaxed);
	if (tab && lookup_ip && !cfi_cache_find(tab, lookup_ip, &found)) {
		if (2 * (tab->used + 1) > tab->mask + 1)
			tab = cfi_cache_grow(tab);
		if (tab && parsed.kind == CFI_RULE_NO_CFI)
			atomic_store_explicit(&tab->unmapped, 1, memory_order_relaxed);
		if (tab)
			cfi_cache_put(tab, lookup_ip, rule);
	}
	preload_lock_give(&cfi_cache_lock);
	return rule;
}
