/*
 * analyze/read/modules.c - the module maps of one process, parsed from MODULES
 * and MODULES_DELTA records (layout at the end of trace/format.h), and the
 * lookup of the module that held an instruction pointer in a given module
 * epoch.
 *
 * Owns copies of every path, build-id and segment list, in a pool of
 * modules that the maps point into (a delta's map shares its base's
 * modules), and never keeps a pointer into a trace buffer.  Trace bytes are
 * untrusted: every count and length is checked against the bytes left in
 * the payload before anything is allocated, so garbage yields -EBADMSG,
 * never a crash or a huge allocation.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/read/modules.h"
#include "trace/format.h"
#include "trace/modules_delta.h"
#include "trace/varint.h"

void module_maps_init(struct module_maps *m)
{
	m->maps = NULL;
	m->count = 0;
	m->cap = 0;
	m->unordered = 0;
	m->pool = NULL;
	m->pool_count = 0;
	m->pool_cap = 0;
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

static void module_map_clear(struct module_map *map)
{
	free(map->modules);
	map->modules = NULL;
	map->count = 0;
}

void module_maps_free(struct module_maps *m)
{
	for (size_t i = 0; i < m->count; i++)
		module_map_clear(&m->maps[i]);
	for (size_t i = 0; i < m->pool_count; i++)
		module_free(m->pool[i]);
	free(m->maps);
	free(m->pool);
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
	return 0;
}

/* Lowest runtime address of a module's segments (UINT64_MAX: none). */
static uint64_t module_low(const struct module *mod)
{
	uint64_t low = UINT64_MAX;

	for (size_t k = 0; k < mod->segment_count; k++) {
		if (mod->segments[k].start + mod->bias < low)
			low = mod->segments[k].start + mod->bias;
	}
	return low;
}

static int module_low_cmp(const void *pa, const void *pb)
{
	uint64_t a = module_low(*(struct module *const *)pa);
	uint64_t b = module_low(*(struct module *const *)pb);

	return a < b ? -1 : a > b;
}

/*
 * Parses count module entries from *pp into mods[0..count) (new modules,
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

/* Makes room for n more modules in the pool; 0 or -ENOMEM. */
static int module_pool_reserve(struct module_maps *m, size_t n)
{
	size_t cap = m->pool_cap ? m->pool_cap : 16;
	struct module **grown;

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

/* Index of the first map of m whose epoch is epoch or later (m->count if
 * none is). */
static size_t module_maps_lower(const struct module_maps *m, uint64_t epoch)
{
	size_t lo = 0, hi = m->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->maps[mid].epoch < epoch)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether maps may take a map of count more modules (record_bytes
 * counted already). */
static bool module_maps_budget(const struct module_maps *m, uint64_t count)
{
	uint64_t cap = m->record_bytes * MODULE_MAPS_SLOTS_PER_BYTE;

	if (cap < MODULE_MAPS_FREE_SLOTS)
		cap = MODULE_MAPS_FREE_SLOTS;
	return m->slots <= cap && count <= cap - m->slots;
}

/* Adds map (its module array taken over; freed on error) in epoch order;
 * a repeated epoch replaces the earlier map.  Returns 0, -ENOMEM or
 * -E2BIG. */
static int module_maps_insert(struct module_maps *m, struct module_map *map)
{
	size_t at = module_maps_lower(m, map->epoch);

	m->slots += map->count;

	if (at < m->count && m->maps[at].epoch == map->epoch) {
		module_map_clear(&m->maps[at]);
		m->maps[at] = *map;
		return 0;
	}
	if (at < m->count && m->unordered >= MODULE_MAPS_MAX_UNORDERED) {
		module_map_clear(map);
		return -E2BIG;
	}
	if (m->count == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 8;
		struct module_map *grown = realloc(m->maps, cap * sizeof(*grown));

		if (!grown) {
			module_map_clear(map);
			return -ENOMEM;
		}
		m->maps = grown;
		m->cap = cap;
	}
	if (at < m->count) {
		memmove(&m->maps[at + 1], &m->maps[at], (m->count - at) * sizeof(*m->maps));
		m->unordered++;
	}
	m->maps[at] = *map;
	m->count++;
	return 0;
}

/* Puts the count new modules of mods into the pool (room reserved). */
static void module_pool_take(struct module_maps *m, struct module *const *mods, size_t count)
{
	memcpy(m->pool + m->pool_count, mods, count * sizeof(*mods));
	m->pool_count += count;
}

int module_maps_add_record(struct module_maps *m, const uint8_t *payload, size_t bytes)
{
	const uint8_t *p = payload, *end = payload + bytes;
	struct module_map map = { 0 };
	uint64_t count;
	int rc;

	if (!payload || varint_get_u64(&p, end, &map.epoch) < 0 ||
	    varint_get_u64(&p, end, &count) < 0)
		return -EBADMSG;
	m->record_bytes += bytes;
	/* A module entry takes at least four bytes (bias, two lengths, count). */
	if (count > (uint64_t)(end - p) / 4)
		return -EBADMSG;
	if (module_pool_reserve(m, (size_t)count) < 0)
		return -ENOMEM;
	map.modules = malloc((count ? (size_t)count : 1) * sizeof(*map.modules));
	if (!map.modules)
		return -ENOMEM;
	rc = modules_parse_entries(p, end, count, 0, map.modules);
	if (rc < 0) {
		free(map.modules);
		return rc;
	}
	module_pool_take(m, map.modules, (size_t)count);
	map.count = (size_t)count;
	map.next_id = count;
	if (map.count > 1)
		qsort(map.modules, map.count, sizeof(*map.modules), module_low_cmp);
	return module_maps_insert(m, &map);
}

/*
 * Makes out (room for base's count plus added) of base's modules not in
 * removed[0..nremoved) and the added ones, merged by lowest address (added
 * sorted already).  Returns the count, or -1 when a removed id is not in
 * base.
 */
static long module_map_merge(const struct module_map *base, const uint64_t *removed,
			     size_t nremoved, struct module *const *added, size_t nadded,
			     struct module **out)
{
	size_t n = 0, gone = 0, a = 0;

	for (size_t i = 0; i < base->count; i++) {
		struct module *mod = base->modules[i];

		if (modules_delta_id_listed(removed, nremoved, mod->id)) {
			gone++;
			continue;
		}
		while (a < nadded && module_low(added[a]) < module_low(mod))
			out[n++] = added[a++];
		out[n++] = mod;
	}
	while (a < nadded)
		out[n++] = added[a++];
	return gone == nremoved ? (long)n : -1;
}

int module_maps_add_delta(struct module_maps *m, const uint8_t *payload, size_t bytes)
{
	struct modules_delta_head h;
	struct module_map map = { 0 };
	const struct module_map *base;
	struct module **added = NULL;
	uint64_t *removed = NULL;
	size_t at, nadded;
	long n;
	int rc;

	if (modules_delta_get_head(payload, bytes, &h) < 0)
		return -EBADMSG;
	m->record_bytes += bytes;
	at = module_maps_lower(m, h.base_epoch);
	if (at == m->count || m->maps[at].epoch != h.base_epoch || h.base_epoch == h.epoch ||
	    h.removed_count > m->maps[at].count || m->maps[at].next_id > UINT64_MAX - h.added_count)
		return -EBADMSG;
	if (!module_maps_budget(m, m->maps[at].count + h.added_count))
		return -E2BIG;
	nadded = (size_t)h.added_count;
	if (module_pool_reserve(m, nadded) < 0)
		return -ENOMEM;
	removed = malloc((h.removed_count ? (size_t)h.removed_count : 1) * sizeof(*removed));
	added = malloc((nadded ? nadded : 1) * sizeof(*added));
	map.modules = malloc((m->maps[at].count + nadded + 1) * sizeof(*map.modules));
	rc = removed && added && map.modules ? 0 : -ENOMEM;
	if (rc == 0)
		rc = modules_parse_entries(h.modules, h.end, nadded, m->maps[at].next_id, added);
	if (rc == 0) {
		base = &m->maps[at];
		modules_delta_get_removed(&h, removed);
		if (nadded > 1)
			qsort(added, nadded, sizeof(*added), module_low_cmp);
		n = module_map_merge(base, removed, (size_t)h.removed_count, added, nadded,
				     map.modules);
		if (n < 0) {
			for (size_t i = 0; i < nadded; i++)
				module_free(added[i]);
			rc = -EBADMSG;
		} else {
			module_pool_take(m, added, nadded);
			map.count = (size_t)n;
			map.epoch = h.epoch;
			map.next_id = base->next_id + nadded;
		}
	}
	free(removed);
	free(added);
	if (rc < 0) {
		free(map.modules);
		return rc;
	}
	return module_maps_insert(m, &map);
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

/* The map of epoch, else the one with the largest smaller epoch, else NULL. */
static const struct module_map *module_maps_pick(const struct module_maps *m, uint64_t epoch)
{
	size_t at = module_maps_lower(m, epoch);

	if (at < m->count && m->maps[at].epoch == epoch)
		return &m->maps[at];
	return at > 0 ? &m->maps[at - 1] : NULL;
}

static bool module_holds(const struct module *mod, uint64_t ip)
{
	uint64_t rel = ip - mod->bias;

	for (size_t k = 0; k < mod->segment_count; k++) {
		if (rel - mod->segments[k].start < mod->segments[k].size)
			return true;
	}
	return false;
}

/*
 * A map's modules are sorted by their lowest address, so the module holding
 * ip is normally the last one starting at or below it; a miss falls back to
 * a scan (modules whose segments interleave, ips in no module).
 */
const struct module *module_maps_find(const struct module_maps *m, uint64_t epoch, uint64_t ip)
{
	const struct module_map *map = module_maps_pick(m, epoch);
	size_t lo = 0, hi;

	if (!map)
		return NULL;
	hi = map->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (module_low(map->modules[mid]) <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && module_holds(map->modules[lo - 1], ip))
		return map->modules[lo - 1];
	for (size_t i = 0; i < map->count; i++) {
		if (module_holds(map->modules[i], ip))
			return map->modules[i];
	}
	return NULL;
}
