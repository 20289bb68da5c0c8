/*
 * analyze/read/modules.c - the module maps of one process, parsed from MODULES
 * and MODULES_DELTA records (layout at the end of trace/format.h), and the
 * lookup of the module that held an instruction pointer in a given module
 * epoch.
 *
 * Owns copies of every path, build-id and segment list, in a pool of
 * modules that the maps' trees (module_tree.h) name by index (a delta's map
 * shares its base's modules and most of its tree), and never keeps a
 * pointer into a trace buffer.  Trace bytes are untrusted: every count and
 * length is checked against the bytes left in the payload before anything
 * is allocated, so garbage yields -EBADMSG, never a crash or a huge
 * allocation.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/read/module_tree.h"
#include "analyze/read/modules.h"
#include "trace/format.h"
#include "trace/modules_delta.h"
#include "trace/varint.h"

void module_maps_init(struct module_maps *m)
{
	*m = (struct module_maps){ 0 };
	module_forest_init(&m->forest);
}

static void module_free(struct module *mod)
{
	if (!mod)
		return;
	free(mod->path);
	free(mod->build_id);
	free(mod->segments);
	free(mod);
}

void module_maps_free(struct module_maps *m)
{
	for (size_t i = 0; i < m->map_count; i++)
		free(m->maps[i].added);
	for (size_t i = 0; i < m->pool_count; i++)
		module_free(m->pool[i]);
	free(m->maps);
	free(m->epochs);
	free(m->pool);
	module_forest_free(&m->forest);
	module_maps_init(m);
}

/* Reads a length-prefixed byte string; the length must fit in what is left. */
static int get_bytes(const uint8_t **pp, const uint8_t *end, const uint8_t **data, size_t *len)
{
	uint64_t n;

	if (varint_get_u64(pp, end, &n) < 0 || n > (uint64_t)(end - *pp))
		return -EBADMSG;
	*data = *pp;
	*len = (size_t)n;
	*pp += n;
	return 0;
}

/* Sets the lowest address of a module's segments and the range of those it
 * holds (a segment whose end wraps past 2^64 holds low addresses too). */
static void module_place(struct module *mod)
{
	mod->low = UINT64_MAX;
	mod->reach_low = UINT64_MAX;
	mod->reach_high = 0;
	for (size_t k = 0; k < mod->segment_count; k++) {
		uint64_t start = mod->segments[k].start + mod->bias;
		uint64_t last = start + (mod->segments[k].size - 1);

		if (start < mod->low)
			mod->low = start;
		if (mod->segments[k].size == 0)
			continue;
		if (last < start) {
			mod->reach_low = 0;
			mod->reach_high = UINT64_MAX;
		}
		if (start < mod->reach_low)
			mod->reach_low = start;
		if (last > mod->reach_high && last >= start)
			mod->reach_high = last;
	}
}

/* Parses one module entry into *mod (zeroed by the caller). */
static int module_parse(const uint8_t **pp, const uint8_t *end, struct module *mod)
{
	const uint8_t *path, *bid;
	size_t path_len, bid_len;
	uint64_t nseg;

	if (varint_get_u64(pp, end, &mod->bias) < 0 || get_bytes(pp, end, &path, &path_len) < 0 ||
	    get_bytes(pp, end, &bid, &bid_len) < 0 || varint_get_u64(pp, end, &nseg) < 0)
		return -EBADMSG;
	/* Each segment takes at least two bytes. */
	if (nseg > (uint64_t)(end - *pp) / 2)
		return -EBADMSG;
	mod->path = malloc(path_len + 1);
	if (!mod->path)
		return -ENOMEM;
	memcpy(mod->path, path, path_len);
	mod->path[path_len] = '\0';
	if (bid_len > 0) {
		mod->build_id = malloc(bid_len);
		if (!mod->build_id)
			return -ENOMEM;
		memcpy(mod->build_id, bid, bid_len);
		mod->build_id_len = bid_len;
	}
	if (nseg > 0) {
		mod->segments = calloc((size_t)nseg, sizeof(*mod->segments));
		if (!mod->segments)
			return -ENOMEM;
	}
	for (uint64_t i = 0; i < nseg; i++) {
		struct module_segment *seg = &mod->segments[mod->segment_count];

		if (varint_get_u64(pp, end, &seg->start) < 0 ||
		    varint_get_u64(pp, end, &seg->size) < 0)
			return -EBADMSG;
		mod->segment_count++;
	}
	module_place(mod);
	return 0;
}


/*
 * Parses count module entries from p into mods[0..count) (new modules,
 * ids first_id and up), all of the payload up to end.  On error frees
 * what it made.  Returns 0, -EBADMSG or -ENOMEM.
 */
static int modules_parse_entries(const uint8_t *p, const uint8_t *end, uint64_t count,
				 uint64_t first_id, struct module **mods)
{
	int rc = 0;
	uint64_t made = 0;

	for (; made < count && rc == 0; made++) {
		mods[made] = calloc(1, sizeof(**mods));
		if (!mods[made])
			rc = -ENOMEM;
		else
			rc = module_parse(&p, end, mods[made]);
		if (mods[made])
			mods[made]->id = first_id + made;
	}
	if (rc == 0 && p != end)
		rc = -EBADMSG;
	if (rc < 0)
		for (uint64_t i = 0; i < made; i++)
			module_free(mods[i]);
	return rc;
}

/* Makes room for n more modules in the pool (whose indices are 32-bit);
 * 0, -ENOMEM or -E2BIG. */
static int module_pool_reserve(struct module_maps *m, size_t n)
{
	size_t cap = m->pool_cap ? m->pool_cap : 16;
	struct module **grown;

	if (n >= UINT32_MAX - m->pool_count)
		return -E2BIG;
	if (m->pool_count + n <= m->pool_cap)
		return 0;
	while (cap < m->pool_count + n)
		cap *= 2;
	grown = realloc(m->pool, cap * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	m->pool = grown;
	m->pool_cap = cap;
	return 0;
}

/* Puts the count new modules of mods into the pool (room reserved). */
static void module_pool_take(struct module_maps *m, struct module *const *mods, size_t count)
{
	if (count == 0) /* an empty map: pool and mods may both be NULL */
		return;
	memcpy(m->pool + m->pool_count, mods, count * sizeof(*mods));
	m->pool_count += count;
}

/* Index of the first epoch of m that is epoch or later (m->count if none
 * is). */
static size_t module_maps_lower(const struct module_maps *m, uint64_t epoch)
{
	size_t lo = 0, hi = m->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->epochs[mid].epoch < epoch)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Where a map of epoch goes, in *at: returns 1 when it replaces the map
 * there, 0 when it goes in before it, -E2BIG when it would be out of order
 * past MODULE_MAPS_MAX_UNORDERED. */
static int module_maps_slot(const struct module_maps *m, uint64_t epoch, size_t *at)
{
	*at = module_maps_lower(m, epoch);
	if (*at < m->count && m->epochs[*at].epoch == epoch)
		return 1;
	if (*at < m->count && m->unordered >= MODULE_MAPS_MAX_UNORDERED)
		return -E2BIG;
	return 0;
}

/* Adds *map (its added array taken over: freed on error) to the maps and
 * makes it the map of epoch; a repeated epoch replaces the earlier map,
 * which stays for the maps made from it.  Returns 0, -ENOMEM or -E2BIG. */
static int module_maps_insert(struct module_maps *m, uint64_t epoch, struct module_map *map)
{
	size_t at;
	int rc = module_maps_slot(m, epoch, &at);

	if (rc >= 0 && m->map_count == m->map_cap) {
		size_t cap = m->map_cap ? m->map_cap * 2 : 8;
		struct module_map *grown = cap < MODULE_MAP_NONE ?
			realloc(m->maps, cap * sizeof(*grown)) : NULL;

		if (grown) {
			m->maps = grown;
			m->map_cap = cap;
		}
		rc = grown ? rc : -ENOMEM;
	}
	if (rc == 0 && m->count == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 8;
		struct module_epoch *grown = realloc(m->epochs, cap * sizeof(*grown));

		if (grown) {
			m->epochs = grown;
			m->cap = cap;
		}
		rc = grown ? rc : -ENOMEM;
	}
	if (rc < 0) {
		free(map->added);
		return rc;
	}
	m->maps[m->map_count] = *map;
	if (rc == 1) {
		m->epochs[at].map = (uint32_t)m->map_count++;
		return 0;
	}
	if (at < m->count) {
		memmove(&m->epochs[at + 1], &m->epochs[at], (m->count - at) * sizeof(*m->epochs));
		m->unordered++;
	}
	m->epochs[at] = (struct module_epoch){epoch, (uint32_t)m->map_count++};
	m->count++;
	return 0;
}

/* Orders pool indices by their modules' (low, id). */
static int pool_key_cmp(const void *pa, const void *pb, void *pool)
{
	struct module *const *mods = pool;

	return module_key_cmp(mods[*(const uint32_t *)pa], mods[*(const uint32_t *)pb]);
}

static int module_ptr_key_cmp(const void *pa, const void *pb)
{
	return module_key_cmp(*(struct module *const *)pa, *(struct module *const *)pb);
}

int module_maps_add_record(struct module_maps *m, const uint8_t *payload, size_t bytes)
{
	const uint8_t *p = payload, *end = payload + bytes;
	struct module_map map = {.base = MODULE_MAP_NONE, .jump = (uint32_t)m->map_count};
	struct module **mods;
	uint32_t *sorted;
	uint64_t epoch, count;
	size_t at, first = m->pool_count;
	int rc;

	if (!payload || varint_get_u64(&p, end, &epoch) < 0 || varint_get_u64(&p, end, &count) < 0)
		return -EBADMSG;
	m->record_bytes += bytes;
	/* A module entry takes at least four bytes (bias, two lengths, count). */
	if (count > (uint64_t)(end - p) / 4)
		return -EBADMSG;
	rc = module_pool_reserve(m, (size_t)count);
	if (rc < 0)
		return rc;
	mods = malloc((count ? (size_t)count : 1) * sizeof(*mods));
	if (!mods)
		return -ENOMEM;
	rc = modules_parse_entries(p, end, count, 0, mods);
	if (rc == 0)
		module_pool_take(m, mods, (size_t)count);
	free(mods);
	if (rc < 0)
		return rc;
	/* its modules stay in the pool (pprof's mappings) when it is refused */
	if (module_maps_slot(m, epoch, &at) < 0)
		return -E2BIG;
	map.added = malloc((count ? (size_t)count : 1) * sizeof(*map.added));
	sorted = malloc((count ? (size_t)count : 1) * sizeof(*sorted));
	rc = map.added && sorted ? module_forest_reserve(&m->forest, (size_t)count) : -ENOMEM;
	if (rc == 0) {
		for (size_t i = 0; i < count; i++)
			map.added[i] = sorted[i] = (uint32_t)(first + i);
		qsort_r(sorted, (size_t)count, sizeof(*sorted), pool_key_cmp, m->pool);
		map.root = module_tree_build(&m->forest, m->pool, sorted, (size_t)count);
		map.count = map.added_count = map.next_id = (size_t)count;
	}
	free(sorted);
	if (rc < 0) {
		free(map.added);
		return rc;
	}
	return module_maps_insert(m, epoch, &map);
}

/* The pool index of the module with id in map v, or MODULE_MAP_NONE when v
 * has none: the map that added id is the nearest of v's bases whose first
 * id is at or below it, as first ids only grow from a map to those made
 * from it. */
static uint32_t module_maps_id(const struct module_maps *m, uint32_t v, uint64_t id)
{
	uint32_t u = v, pool_index;

	while (m->maps[u].first_id > id) {
		uint32_t j = m->maps[u].jump;

		u = m->maps[j].first_id > id ? j : m->maps[u].base;
	}
	if (id - m->maps[u].first_id >= m->maps[u].added_count)
		return MODULE_MAP_NONE;
	pool_index = m->maps[u].added[id - m->maps[u].first_id];
	return module_tree_holds(&m->forest, m->pool, m->maps[v].root, pool_index) ?
		       pool_index :
		       MODULE_MAP_NONE;
}

/* Sets map's base b and its jump: the skew-binary jump pointers of Myers'
 * random access lists, which reach any base in O(log depth) steps. */
static void module_map_link(const struct module_maps *m, struct module_map *map, uint32_t b)
{
	uint32_t j = m->maps[b].jump, jj = m->maps[j].jump;

	map->base = b;
	map->depth = m->maps[b].depth + 1;
	if (m->maps[b].depth - m->maps[j].depth == m->maps[j].depth - m->maps[jj].depth)
		map->jump = jj;
	else
		map->jump = b;
}

/* The nodes a delta of nremoved and nadded modules on a map of count may
 * take, and whether it rebuilds the tree instead of changing its base's
 * (when that takes fewer). */
static size_t module_delta_nodes(size_t count, size_t nremoved, size_t nadded, bool *rebuild)
{
	size_t after = count - nremoved + nadded, changes = nremoved + nadded;
	size_t per_change = module_tree_change_nodes(count + nadded);

	*rebuild = changes > after / per_change * 3;
	if (*rebuild || changes > SIZE_MAX / per_change)
		return after;
	return changes * per_change;
}

/* Whether the forest may take nodes more (record_bytes counted already). */
static bool module_maps_budget(const struct module_maps *m, size_t nodes)
{
	uint64_t cap = m->record_bytes * MODULE_MAPS_NODES_PER_BYTE;

	if (cap < MODULE_MAPS_FREE_NODES)
		cap = MODULE_MAPS_FREE_NODES;
	return m->forest.count <= cap && nodes <= cap - m->forest.count;
}

/*
 * The tree of base's modules but the removed ones (pool indices, sorted by
 * key) plus the added ones (sorted), built whole; room reserved.  Returns
 * its root, or 0 with *rc = -ENOMEM.
 */
static uint32_t module_tree_rebuild(struct module_maps *m, const struct module_map *base,
				    const uint32_t *removed, size_t nremoved, const uint32_t *added,
				    size_t nadded, int *rc)
{
	uint32_t *old = malloc((base->count + 1) * sizeof(*old));
	uint32_t *ids = malloc((base->count + nadded + 1) * sizeof(*ids));
	size_t n = 0, r = 0, a = 0, count = 0;
	uint32_t root = 0;

	if (old && ids) {
		count = module_tree_list(&m->forest, base->root, old);
		for (size_t i = 0; i < count; i++) {
			if (r < nremoved && old[i] == removed[r]) {
				r++;
				continue;
			}
			while (a < nadded && module_key_cmp(m->pool[added[a]], m->pool[old[i]]) < 0)
				ids[n++] = added[a++];
			ids[n++] = old[i];
		}
		while (a < nadded)
			ids[n++] = added[a++];
		root = module_tree_build(&m->forest, m->pool, ids, n);
	} else {
		*rc = -ENOMEM;
	}
	free(old);
	free(ids);
	return root;
}

/*
 * Makes *map from the map at index b without the modules of pool indices
 * removed[0..nremoved) and with pool indices added[0..nadded) (both sorted
 * by key): changes b's tree, or rebuilds it when that takes fewer nodes.
 * Returns 0 or -ENOMEM.
 */
static int module_map_derive(struct module_maps *m, uint32_t b, uint32_t *removed, size_t nremoved,
			     uint32_t *added, size_t nadded, struct module_map *map)
{
	bool rebuild;
	size_t nodes = module_delta_nodes(m->maps[b].count, nremoved, nadded, &rebuild);
	int rc = module_forest_reserve(&m->forest, nodes);
	uint32_t root = m->maps[b].root;

	if (rc < 0)
		return rc;
	if (rebuild) {
		root = module_tree_rebuild(m, &m->maps[b], removed, nremoved, added, nadded, &rc);
	} else {
		for (size_t i = 0; i < nremoved; i++)
			root = module_tree_remove(&m->forest, m->pool, root, removed[i]);
		for (size_t i = 0; i < nadded; i++)
			root = module_tree_insert(&m->forest, m->pool, root, added[i]);
	}
	map->root = root;
	map->count = m->maps[b].count - nremoved + nadded;
	module_map_link(m, map, b);
	return rc;
}

/*
 * Finds the pool indices of base's removed ids (sorted by key into out);
 * the added modules of the delta are not in the pool yet.  Returns 0 or
 * -EBADMSG when base lacks one.
 */
static int module_maps_removed(const struct module_maps *m, uint32_t b, const uint64_t *ids,
			       size_t n, uint32_t *out)
{
	for (size_t i = 0; i < n; i++) {
		out[i] = module_maps_id(m, b, ids[i]);
		if (out[i] == MODULE_MAP_NONE)
			return -EBADMSG;
	}
	qsort_r(out, n, sizeof(*out), pool_key_cmp, m->pool);
	return 0;
}

/*
 * Parses a delta's added modules (ids from base b's next id) and finds its
 * removed ones in b (pool indices sorted by key into gone), then puts the
 * added ones into the pool by key (as pprof's mappings always took them)
 * and their pool indices into sorted and, by id, into map->added (room for
 * them all).  Returns 0, -ENOMEM or -EBADMSG (nothing pooled).
 */
static int module_delta_take(struct module_maps *m, const struct modules_delta_head *h,
			     uint32_t b, uint32_t *gone, uint32_t *sorted, struct module_map *map)
{
	size_t nadded = (size_t)h->added_count, first = m->pool_count;
	uint64_t *removed = malloc((h->removed_count ? (size_t)h->removed_count : 1) *
				   sizeof(*removed));
	struct module **added = malloc((nadded ? nadded : 1) * sizeof(*added));
	int rc = removed && added ? 0 : -ENOMEM;

	if (rc == 0)
		rc = modules_parse_entries(h->modules, h->end, nadded, m->maps[b].next_id, added);
	if (rc == 0) {
		modules_delta_get_removed(h, removed);
		rc = module_maps_removed(m, b, removed, (size_t)h->removed_count, gone);
		if (rc < 0)
			for (size_t i = 0; i < nadded; i++)
				module_free(added[i]);
	}
	if (rc == 0) {
		qsort(added, nadded, sizeof(*added), module_ptr_key_cmp);
		module_pool_take(m, added, nadded);
		for (size_t i = 0; i < nadded; i++) {
			sorted[i] = (uint32_t)(first + i);
			map->added[added[i]->id - m->maps[b].next_id] = sorted[i];
		}
		map->first_id = m->maps[b].next_id;
		map->next_id = map->first_id + nadded;
		map->added_count = nadded;
	}
	free(removed);
	free(added);
	return rc;
}

int module_maps_add_delta(struct module_maps *m, const uint8_t *payload, size_t bytes)
{
	struct modules_delta_head h;
	struct module_map map = { 0 };
	uint32_t *gone, *sorted, b;
	size_t at, nadded;
	bool rebuild;
	int rc;

	if (modules_delta_get_head(payload, bytes, &h) < 0)
		return -EBADMSG;
	m->record_bytes += bytes;
	at = module_maps_lower(m, h.base_epoch);
	if (at == m->count || m->epochs[at].epoch != h.base_epoch || h.base_epoch == h.epoch)
		return -EBADMSG;
	b = m->epochs[at].map;
	if (h.removed_count > m->maps[b].count || m->maps[b].next_id > UINT64_MAX - h.added_count)
		return -EBADMSG;
	nadded = (size_t)h.added_count;
	if (!module_maps_budget(m, module_delta_nodes(m->maps[b].count, (size_t)h.removed_count,
						      nadded, &rebuild)))
		return -E2BIG;
	rc = module_pool_reserve(m, nadded);
	if (rc < 0)
		return rc;
	gone = malloc((h.removed_count ? (size_t)h.removed_count : 1) * sizeof(*gone));
	sorted = malloc((nadded ? nadded : 1) * sizeof(*sorted));
	map.added = malloc((nadded ? nadded : 1) * sizeof(*map.added));
	rc = gone && sorted && map.added ? module_delta_take(m, &h, b, gone, sorted, &map) : -ENOMEM;
	/* its modules stay in the pool (pprof's mappings) when it is refused */
	if (rc == 0 && module_maps_slot(m, h.epoch, &at) < 0)
		rc = -E2BIG;
	if (rc == 0)
		rc = module_map_derive(m, b, gone, (size_t)h.removed_count, sorted, nadded, &map);
	free(gone);
	free(sorted);
	if (rc < 0) {
		free(map.added);
		return rc;
	}
	return module_maps_insert(m, h.epoch, &map);
}

int module_maps_add_ext(struct module_maps *m, unsigned kind, const uint8_t *payload,
			size_t bytes)
{
	if (kind == TRACE_REC_EXT_MODULES)
		return module_maps_add_record(m, payload, bytes);
	if (kind == TRACE_REC_EXT_MODULES_DELTA)
		return module_maps_add_delta(m, payload, bytes);
	return 1;
}

const struct module *module_maps_find(const struct module_maps *m, uint64_t epoch, uint64_t ip)
{
	size_t at = module_maps_lower(m, epoch);

	/* the map of epoch, else the one with the largest smaller epoch */
	if (at == m->count || m->epochs[at].epoch != epoch) {
		if (at == 0)
			return NULL;
		at--;
	}
	return module_tree_find(&m->forest, m->pool, m->maps[m->epochs[at].map].root, ip);
}

bool module_maps_cover(const struct module_maps *m, uint64_t epoch)
{
	size_t at = module_maps_lower(m, epoch);

	return at < m->count ? m->epochs[at].epoch == epoch || at > 0 : at > 0;
}
