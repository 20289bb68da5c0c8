/*
 * preload/stack_table.c - the process-wide prefix tree of call stacks.
 *
 * Owns the hash tables of nodes (open addressing, linear probing) and the
 * id counter.  Readers never lock: an entry is published by a release store
 * of its key word after its fields are written, and 0 means empty.  Inserts
 * happen under one small lock, taken only when a node is missing; growth
 * maps a bigger table under that lock, copies and publishes it.  Old tables
 * stay mapped because other threads may still be probing them, with their
 * entries' pages given back (zeros: a prober misses, takes the lock and
 * looks again in the current one).  Must never
 * allocate with malloc.
 *
 * A node's slot comes from the hash of its whole path (root key and every
 * ip from the root down), not of (parent id, ip): the hashes of all the
 * frames a capture did not share with the previous stack are known before
 * the first lookup, so their slots are prefetched together and the cache
 * misses overlap instead of following one another.  The key compared is
 * still (parent id, ip), so a hash collision only costs a probe.  Measured
 * on gcc's cc1 (4.3 M lookups in a 3 MB table, ~3.5 per capture): ~70 ns
 * per lookup, nearly all of it the miss on the entry, before prefetching.
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/lock.h"
#include "preload/mem.h"
#include "preload/modules.h"
#include "preload/stack_table.h"

/* 16 KiB: slots are hashed, so a table touches about a page per 4 KiB of
 * it even when few nodes are in it (256 KiB for memcached's 179); it
 * doubles at 3/4 full. */
#define STACK_TABLE_FIRST_ENTRIES (1u << 10)
#define STACK_TABLE_PREFETCH 16u   /* slots prefetched ahead, at most */

/* 16 bytes: the path hash is not kept here but in stack_hashes, by id, as
 * only growing the table needs it (24-byte entries with it took half as
 * much memory again per node: 160 MiB against heaptrack's 133 for 2.4 M
 * nodes). */
struct stack_entry {
	_Atomic uint64_t key;    /* id | parent id << 32; 0: empty */
	uint64_t ip;
};

struct stack_table {
	struct stack_table *older; /* the table this one replaced */
	size_t map_bytes;
	uint64_t mask;             /* entries - 1 */
	uint64_t used;
	struct stack_entry entries[];
};

static _Atomic(struct stack_table *) stack_current;
static struct preload_lock stack_lock;
static uint64_t stack_next_id = 1;
/* The path hash of every node, by id (under the lock only). */
static uint64_t *stack_hashes;
static uint64_t stack_hashes_cap;
/* Bumped when the table is emptied (fork child): per-thread caches die. */
static _Atomic uint64_t stack_generation = 1;

/* The path hash of a node: its parent's path hash (0 for a root) and ip. */
static inline uint64_t stack_path_hash(uint64_t parent_hash, uint64_t ip)
{
	uint64_t h = (parent_hash ^ ip) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	return h ^ (h >> 32);
}

/* A table index from a path hash: its high half. */
static inline uint64_t stack_slot(const struct stack_table *tab, uint64_t hash)
{
	return (hash >> 32) & tab->mask;
}

/* The key word of node id under parent (both below 2^32, id never 0). */
static inline uint64_t stack_key(uint64_t id, uint64_t parent)
{
	return id | parent << 32;
}

static inline uint64_t stack_key_id(uint64_t key)
{
	return key & 0xffffffffu;
}

/* Notes node id's path hash, growing the array when needed (lock held);
 * -1 when out of memory. */
static int stack_hash_note(uint64_t id, uint64_t hash)
{
	if (id >= stack_hashes_cap) {
		uint64_t cap = stack_hashes_cap ? 2 * stack_hashes_cap : STACK_TABLE_FIRST_ENTRIES;
		uint64_t *grown = preload_mem_map(cap * sizeof(*grown));

		if (!grown)
			return -1;
		if (stack_hashes) {
			memcpy(grown, stack_hashes, stack_hashes_cap * sizeof(*grown));
			preload_mem_unmap(stack_hashes, stack_hashes_cap * sizeof(*grown));
		}
		stack_hashes = grown;
		stack_hashes_cap = cap;
	}
	stack_hashes[id] = hash;
	return 0;
}

static struct stack_table *stack_table_map(uint64_t entries)
{
	size_t bytes = sizeof(struct stack_table) + entries * sizeof(struct stack_entry);
	struct stack_table *tab = preload_mem_map(bytes);

	if (!tab)
		return NULL;
	tab->map_bytes = bytes;
	tab->mask = entries - 1;
	return tab;
}

int stack_table_init(void)
{
	struct stack_table *tab = stack_table_map(STACK_TABLE_FIRST_ENTRIES);

	if (!tab)
		return -1;
	atomic_store_explicit(&stack_current, tab, memory_order_release);
	return 0;
}

/* Lock-free lookup of node (parent, ip) whose path hash is hash; returns
 * the id or 0. */
static uint64_t stack_table_find(const struct stack_table *tab, uint64_t parent, uint64_t ip,
				 uint64_t hash)
{
	for (uint64_t i = stack_slot(tab, hash);; i = (i + 1) & tab->mask) {
		const struct stack_entry *e = &tab->entries[i];
		uint64_t key = atomic_load_explicit(&e->key, memory_order_acquire);

		if (!key)
			return 0;
		if (key >> 32 == parent && e->ip == ip)
			return stack_key_id(key);
	}
}

/* Stores a node into tab at its path hash's slot (lock held, room
 * guaranteed); key as in struct stack_entry. */
static void stack_table_put(struct stack_table *tab, uint64_t key, uint64_t ip, uint64_t hash)
{
	uint64_t i = stack_slot(tab, hash);

	while (atomic_load_explicit(&tab->entries[i].key, memory_order_relaxed))
		i = (i + 1) & tab->mask;
	tab->entries[i].ip = ip;
	atomic_store_explicit(&tab->entries[i].key, key, memory_order_release);
	tab->used++;
}

/* Replaces the current table by one twice its size (lock held). */
static struct stack_table *stack_table_grow(struct stack_table *old)
{
	struct stack_table *tab = stack_table_map(2 * (old->mask + 1));

	if (!tab)
		return NULL;
	for (uint64_t i = 0; i <= old->mask; i++) {
		uint64_t key = atomic_load_explicit(&old->entries[i].key, memory_order_relaxed);

		if (key)
			stack_table_put(tab, key, old->entries[i].ip,
					stack_hashes[stack_key_id(key)]);
	}
	tab->older = old;
	atomic_store_explicit(&stack_current, tab, memory_order_release);
	/* The old entries' pages go back to the kernel; the mapping stays, so a
	 * reader still probing it reads zeros, misses, and looks again in the
	 * current table under the lock.  (Kept, the old tables held as much
	 * memory as the current one.) */
	if (old->map_bytes > PRELOAD_PAGE_BYTES &&
	    madvise((char *)old + PRELOAD_PAGE_BYTES, old->map_bytes - PRELOAD_PAGE_BYTES,
		    MADV_DONTNEED) == 0)
		preload_mem_count_returned(old->map_bytes - PRELOAD_PAGE_BYTES);
	return tab;
}

/* Finds or creates node (parent, ip) with path hash hash; a new one is
 * appended to t->new_nodes.  Returns 0 when out of memory (or of ids). */
static uint64_t stack_table_node(struct preload_thread *t, uint64_t parent, uint64_t ip,
				 uint64_t hash)
{
	struct stack_table *tab = atomic_load_explicit(&stack_current, memory_order_acquire);
	uint64_t id = stack_table_find(tab, parent, ip, hash);

	if (id)
		return id;
	preload_lock_take(&stack_lock);
	tab = atomic_load_explicit(&stack_current, memory_order_relaxed);
	id = stack_table_find(tab, parent, ip, hash);
	if (!id && 4 * (tab->used + 1) > 3 * (tab->mask + 1))
		tab = stack_table_grow(tab);
	if (!id && tab && stack_next_id <= 0xffffffffu &&
	    stack_hash_note(stack_next_id, hash) == 0) {
		id = stack_next_id++;
		stack_table_put(tab, stack_key(id, parent), ip, hash);
		t->new_nodes[t->new_count++] = (struct stack_new_node){ id, parent, ip };
	}
	preload_lock_give(&stack_lock);
	return id;
}

/* Whether some frame from index 'from' on lies in no module of the map. */
static int stack_frames_unmapped(const struct preload_thread *t, uint32_t from, uint32_t depth)
{
	for (uint32_t i = from; i < depth; i++)
		if (!modules_contains(t->ips[i]))
			return 1;
	return 0;
}

/* Forgets t's cached previous stack unless it belongs to root_key now
 * (first copying the frames the capture left in it into t->ips). */
static void stack_cache_check(struct preload_thread *t, uint64_t root_key)
{
	uint64_t gen = atomic_load_explicit(&stack_generation, memory_order_acquire);

	if (t->cache_generation == gen && t->cache_root_key == root_key && t->cache_root_id)
		return;
	stack_table_ips_fill(t);
	t->ips_known = 0;
	t->cache_generation = gen;
	t->cache_root_key = root_key;
	t->cache_root_id = 0;
	t->cache_depth = 0;
}

uint64_t stack_table_intern(struct preload_thread *t, uint32_t depth, uint64_t root_key,
			    int check_modules)
{
	struct stack_table *tab;
	uint64_t parent, hash, root_hash = stack_path_hash(0, root_key);
	uint32_t i = 0;

	stack_cache_check(t, root_key);
	if (!t->cache_root_id)
		t->cache_root_id = stack_table_node(t, 0, root_key, root_hash);
	parent = t->cache_root_id;
	hash = root_hash;
	if (!parent)
		return 0;
	/* The outer frames shared with the previous stack keep their ids: those
	 * the unwinder found shared on the live stack, then equal ones. */
	if (t->ips_known && t->ips_known <= t->cache_depth) {
		i = t->ips_known;
		parent = t->cache_ids[i - 1];
		hash = t->cache_hashes[i - 1];
	} else {
		stack_table_ips_fill(t);
		t->ips_known = 0;
	}
	while (i < depth && i < t->cache_depth && t->cache_ips[i] == t->ips[i]) {
		parent = t->cache_ids[i];
		hash = t->cache_hashes[i++];
	}
	/* The path hashes of the other frames, their slots prefetched. */
	tab = atomic_load_explicit(&stack_current, memory_order_acquire);
	for (uint32_t k = i, h = 0; k < depth; k++) {
		hash = stack_path_hash(hash, t->ips[k]);
		t->cache_hashes[k] = hash;
		if (h++ < STACK_TABLE_PREFETCH)
			__builtin_prefetch(&tab->entries[stack_slot(tab, hash)]);
	}
	/* Then lock-free lookups as long as the nodes exist. */
	for (; i < depth; i++) {
		uint64_t id;

		tab = atomic_load_explicit(&stack_current, memory_order_acquire);
		id = stack_table_find(tab, parent, t->ips[i], t->cache_hashes[i]);
		if (!id)
			break;
		t->cache_ips[i] = t->ips[i];
		t->cache_ids[i] = parent = id;
	}
	/* (t->ips_known stays set: the next attempt copies those frames.)
	 * The new nodes' frames must lie in the map of root_key's epoch: when
	 * another thread published a newer map since the caller read the
	 * epoch, the frames were checked against that one (a frame in a
	 * module only it has would stay unsymbolized under the old root),
	 * and the intern starts again under the newer epoch.  (A review helper
	 * saw 2 unsymbolized frames in 1-2 of 12 runs of a 4-thread dlopen
	 * stress before.)  A module unloaded past the shim's dlclose (iconv's,
	 * by glibc itself) leaves its range in the map: a library loaded there
	 * since would get its frames, so new nodes wait for a rescan then too. */
	if (i < depth && check_modules &&
	    (((stack_frames_unmapped(t, i, depth) || modules_unload_unseen()) &&
	      modules_refresh_moved(t) > 0) ||
	     modules_epoch() != root_key >> 1)) {
		t->cache_depth = 0;
		return STACK_TABLE_RESTART;
	}
	t->ips_known = 0;
	for (; i < depth; i++) {
		uint64_t id = stack_table_node(t, parent, t->ips[i], t->cache_hashes[i]);

		if (!id) {
			t->cache_depth = i;
			return 0;
		}
		t->cache_ips[i] = t->ips[i];
		t->cache_ids[i] = parent = id;
	}
	t->cache_depth = depth;
	return parent;
}

void stack_table_fork_prepare(void)
{
	preload_lock_take(&stack_lock);
}

void stack_table_fork_parent(void)
{
	preload_lock_give(&stack_lock);
}

int stack_table_fork_child(void)
{
	struct stack_table *tab = atomic_load_explicit(&stack_current, memory_order_relaxed);

	while (tab) {
		struct stack_table *older = tab->older;

		preload_mem_unmap(tab, tab->map_bytes);
		tab = older;
	}
	atomic_store_explicit(&stack_current, NULL, memory_order_relaxed);
	preload_mem_unmap(stack_hashes, stack_hashes_cap * sizeof(*stack_hashes));
	stack_hashes = NULL;
	stack_hashes_cap = 0;
	stack_next_id = 1;
	atomic_fetch_add_explicit(&stack_generation, 1, memory_order_release);
	preload_lock_reset(&stack_lock);
	return stack_table_init();
}
