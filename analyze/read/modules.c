/*
 * analyze/read/modules.c - the module maps of one process, parsed from MODULES
 * records (layout at the end of trace/format.h), and the lookup of the module
 * that held an instruction pointer in a given module epoch.
 *
 * Owns copies of every path, build-id and segment list; never keeps a
 * pointer into a trace buffer.  Trace bytes are untrusted: every count and
 * length is checked against the bytes left in the payload before anything is
 * allocated, so garbage yields -EBADMSG, never a crash or a huge allocation.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/read/modules.h"
#include "trace/varint.h"

void module_maps_init(struct module_maps *m)
{
	m->maps = NULL;
	m->count = 0;
	m->cap = 0;
	m->unordered = 0;
}

static void module_map_clear(struct module_map *map)
{
	for (size_t i = 0; i < map->count; i++) {
		free(map->modules[i].path);
		free(map->modules[i].build_id);
		free(map->modules[i].segments);
	}
	free(map->modules);
	map->modules = NULL;
	map->count = 0;
}

void module_maps_free(struct module_maps *m)
{
	for (size_t i = 0; i < m->count; i++)
		module_map_clear(&m->maps[i]);
	free(m->maps);
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
	uint64_t a = module_low(pa), b = module_low(pb);

	return a < b ? -1 : a > b;
}

/* Parses a whole payload into *map (zeroed by the caller; cleared on error). */
static int module_map_parse(struct module_map *map, const uint8_t *p, const uint8_t *end)
{
	uint64_t count;
	int rc = 0;

	if (varint_get_u64(&p, end, &map->epoch) < 0 || varint_get_u64(&p, end, &count) < 0)
		return -EBADMSG;
	/* A module entry takes at least four bytes (bias, two lengths, count). */
	if (count > (uint64_t)(end - p) / 4)
		return -EBADMSG;
	if (count > 0) {
		map->modules = calloc((size_t)count, sizeof(*map->modules));
		if (!map->modules)
			return -ENOMEM;
	}
	for (uint64_t i = 0; i < count && rc == 0; i++) {
		rc = module_parse(&p, end, &map->modules[map->count]);
		map->count++; /* counted even on failure so the clear frees it */
	}
	if (rc == 0 && p != end)
		rc = -EBADMSG;
	if (rc < 0)
		module_map_clear(map);
	else if (map->count > 1)
		qsort(map->modules, map->count, sizeof(*map->modules), module_low_cmp);
	return rc;
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

int module_maps_add_record(struct module_maps *m, const uint8_t *payload, size_t bytes)
{
	struct module_map map = { 0 };
	size_t at;
	int rc;

	if (!payload && bytes > 0)
		return -EBADMSG;
	rc = module_map_parse(&map, payload, payload + bytes);
	if (rc < 0)
		return rc;
	at = module_maps_lower(m, map.epoch);
	if (at < m->count && m->maps[at].epoch == map.epoch) {
		module_map_clear(&m->maps[at]);
		m->maps[at] = map;
		return 0;
	}
	if (at < m->count && m->unordered >= MODULE_MAPS_MAX_UNORDERED) {
		module_map_clear(&map);
		return -E2BIG;
	}
	if (m->count == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 8;
		struct module_map *grown = realloc(m->maps, cap * sizeof(*grown));

		if (!grown) {
			module_map_clear(&map);
			return -ENOMEM;
		}
		m->maps = grown;
		m->cap = cap;
	}
	if (at < m->count) {
		memmove(&m->maps[at + 1], &m->maps[at], (m->count - at) * sizeof(*m->maps));
		m->unordered++;
	}
	m->maps[at] = map;
	m->count++;
	return 0;
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

		if (module_low(&map->modules[mid]) <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && module_holds(&map->modules[lo - 1], ip))
		return &map->modules[lo - 1];
	for (size_t i = 0; i < map->count; i++) {
		if (module_holds(&map->modules[i], ip))
			return &map->modules[i];
	}
	return NULL;
}
