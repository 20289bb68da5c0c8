/*
 * preload/stack_sites.c - the per-thread cache of call stacks by call site
 * (stack_sites.h): the allocator's shortest path, taken when a call comes
 * from a site and stack position the thread has seen before with the same
 * callers, which is most calls in loops.
 *
 * Why it is exact: the frames of a stack follow from the caller's return
 * address and stack pointer, the unwind rule of each return address and
 * the return-address slots above it, as long as every CFA is rsp-based (an
 * rbp-based one, in a function that realigns its stack or has variable-size
 * frames, is not a function of the stack pointer alone: such stacks are not
 * cached).  So the same caller at the same stack position, with every
 * cached slot still holding its return address, has the same frames and
 * the same id.  MPROF_UNWIND=check compares every hit with a full capture.
 *
 * Owns each thread's table (an anonymous mapping made at its first store,
 * kept when the state is recycled; entries die by stamp).  Never writes the
 * program's stack, never takes a lock, never calls malloc.
 */
#include "preload/mem.h"
#include "preload/modules.h"
#include "preload/stack_sites.h"

/* The entry of call site (ip, cfa). */
static inline struct stack_site *stack_sites_entry(struct stack_site *sites, uint64_t ip,
						   uintptr_t cfa)
{
	uint64_t h = (ip ^ ((uint64_t)cfa * 0x9e3779b97f4a7c15ull)) * 0xbf58476d1ce4e5b9ull;

	return &sites[h >> (64 - 8)];
}
_Static_assert(STACK_SITES_ENTRIES == 1u << 8, "stack_sites_entry takes 8 hash bits");

/*
 * The hot path of a repeated call stack: one entry, then one load per
 * frame.  Measured on sqlite3 (1.85 M allocations, 256 entries): 76% of
 * the captures are found here, and each costs a few ns instead of a walk
 * through the shim's and the program's frames (~3 ns per frame) and the
 * intern's hash probes (a cache miss each in the shared table).  64
 * entries found 51%, 1024 found 80%.
 */
uint64_t stack_sites_find(struct preload_thread *t, void *caller_ip, void *caller_cfa)
{
	const struct stack_site *e;
	uint64_t ip = (uint64_t)(uintptr_t)caller_ip;
	uintptr_t cfa = (uintptr_t)caller_cfa;

	if (!t->sites || atomic_load_explicit(&modules_dirty, memory_order_relaxed))
		return 0;
	e = stack_sites_entry(t->sites, ip, cfa);
	if (e->stamp != t->sites_stamp || !e->depth || e->frames[e->depth - 1].ip != ip ||
	    e->frames[e->depth - 1].cfa != cfa || e->root_key != 2 * modules_epoch())
		return 0;
	for (uint32_t i = 0; i + 1 < e->depth; i++) {
		const struct stack_site_frame *f = &e->frames[i];

		if (f->cfa > t->stack_hi || *(const uintptr_t *)(f->cfa - 8) != f->ip)
			return 0;
	}
	return e->stack_id;
}

void stack_sites_store(struct preload_thread *t, void *caller_ip, void *caller_cfa,
		       uint32_t depth, uint64_t stack_id)
{
	uint64_t ip = (uint64_t)(uintptr_t)caller_ip;
	uintptr_t cfa = (uintptr_t)caller_cfa;
	struct stack_site *e;

	if (!stack_id || !depth || depth > STACK_SITES_FRAMES || !t->cache_cfas_ok ||
	    t->cache_depth != depth || t->cache_rsp_only < depth || t->cache_root_key & 1 ||
	    t->cache_ips[depth - 1] != ip || t->cache_cfas[depth - 1] != cfa)
		return;
	if (!t->sites) {
		t->sites = preload_mem_map(STACK_SITES_ENTRIES * sizeof(struct stack_site));
		if (!t->sites)
			return;
	}
	e = stack_sites_entry(t->sites, ip, cfa);
	e->stamp = t->sites_stamp;
	e->root_key = t->cache_root_key;
	e->stack_id = stack_id;
	e->depth = depth;
	for (uint32_t i = 0; i < depth; i++) {
		e->frames[i].ip = t->cache_ips[i];
		e->frames[i].cfa = t->cache_cfas[i];
	}
}
