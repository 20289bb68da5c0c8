/*
 * analyze/read/modules.h - the module maps of a process, one per module epoch,
 * parsed from MODULES and MODULES_DELTA records (mprof-trace(5)), and the
 * lookup of the module that holds an instruction pointer in a given epoch.
 *
 * Owns copies of every path and build-id; nothing points into trace buffers.
 * A module is parsed once and shared by every map that a chain of deltas
 * makes from the map that brought it, and a delta's map shares all but a
 * few nodes of its base's tree (module_tree.h): memory grows with the
 * records, not with maps times modules.
 */
#ifndef MPROF_ANALYZE_MODULES_H
#define MPROF_ANALYZE_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/read/module_tree.h"

struct module_segment {
	uint64_t start;         /* relative to the load bias, bytes */
	uint64_t size;          /* bytes */
};

struct module {
	uint64_t bias;          /* load bias: runtime address - ELF address */
	char *path;             /* as the loader named it ("" never: the main
	                         * program gets its /proc/self/exe path) */
	uint8_t *build_id;      /* NULL when the module has none */
	size_t build_id_len;
	struct module_segment *segments;
	size_t segment_count;
	uint64_t id;            /* its id in the maps that hold it, for
	                         * MODULES_DELTA records to name it */
	uint64_t low;           /* lowest runtime address of its segments
	                         * (UINT64_MAX: none), its place in a map */
	uint64_t reach_low;     /* every address it holds is in
	                         * [reach_low, reach_high] (reach_low >
	                         * reach_high: none) */
	uint64_t reach_high;
};

/* One module map: the modules of one record, or those of a delta's base
 * map changed by the delta.  Maps are never freed before their module_maps,
 * since later maps look up ids in the maps they were made from. */
struct module_map {
	uint32_t root;           /* its tree in module_maps.forest (0: empty) */
	uint32_t base;           /* the map a delta was made from
	                          * (MODULE_MAP_NONE: a MODULES record) */
	uint32_t jump;           /* an ancestor further up the bases, so that
	                          * finding one takes O(log depth) steps */
	uint32_t depth;          /* bases up to a MODULES record */
	size_t count;            /* modules */
	uint64_t first_id;       /* the id of the first module its record added */
	uint64_t next_id;        /* the id a delta's first added module gets */
	uint32_t *added;         /* pool indices of the modules its record
	                          * added, by id from first_id; owned */
	size_t added_count;
};

#define MODULE_MAP_NONE UINT32_MAX

/* Which map is in force from an epoch on. */
struct module_epoch {
	uint64_t epoch;
	uint32_t map;            /* index in module_maps.maps */
};

struct module_maps {
	struct module_map *maps; /* in the order the records came, owned */
	size_t map_count;
	size_t map_cap;
	struct module_epoch *epochs; /* by rising epoch, owned */
	size_t count;
	size_t cap;
	size_t unordered;        /* maps that came after one of a later epoch */
	struct module **pool;    /* every module of every map, each once, in
	                          * the order the records brought them; owned */
	size_t pool_count;
	size_t pool_cap;
	struct module_forest forest; /* the nodes of every map's tree */
	uint64_t record_bytes;   /* payload bytes of the records added */
};

/* Maps that may come out of epoch order: each such one moves the maps
 * after it.  The recorder writes epochs in order (a thread's record can
 * follow another's of a later epoch); a fuzzed trace of 400,000 records of
 * distinct epochs took 62 s while every record was compared with every map
 * before it. */
#define MODULE_MAPS_MAX_UNORDERED 4096

/* A delta's map shares its base's tree but for some tens of nodes per
 * module loaded or unloaded, fewer than one per byte of real traces'
 * records; a crafted trace can make more, so a delta is refused when the
 * nodes would pass this many per byte of the records (32 bytes each), or
 * MODULE_MAPS_FREE_NODES in all (32 MiB). */
#define MODULE_MAPS_NODES_PER_BYTE 4
#define MODULE_MAPS_FREE_NODES ((uint64_t)1 << 20)

void module_maps_init(struct module_maps *m);
void module_maps_free(struct module_maps *m);

/* Parses one MODULES record payload and adds its map (a repeated epoch
 * replaces the earlier map).  Returns 0, -EBADMSG, -ENOMEM, or -E2BIG (an
 * out-of-order map past MODULE_MAPS_MAX_UNORDERED: not added). */
int module_maps_add_record(struct module_maps *m, const uint8_t *payload, size_t bytes);

/* Parses one MODULES_DELTA record payload and adds the map it makes from
 * its base epoch's map, as module_maps_add_record does.  Returns as that,
 * -EBADMSG also when the base epoch has no map or a removed id is not in
 * it, and -E2BIG when the maps would pass MODULE_MAPS_NODES_PER_BYTE. */
int module_maps_add_delta(struct module_maps *m, const uint8_t *payload, size_t bytes);

/* Adds the map of an extended record of kind TRACE_REC_EXT_MODULES or
 * TRACE_REC_EXT_MODULES_DELTA; returns as those, 1 for another kind. */
int module_maps_add_ext(struct module_maps *m, unsigned kind, const uint8_t *payload,
			size_t bytes);

/* The module holding ip in epoch (or, when that epoch has no map, in the
 * newest map with a smaller epoch); NULL when none does. */
const struct module *module_maps_find(const struct module_maps *m, uint64_t epoch, uint64_t ip);

/* Whether a map is in force at epoch: one of epoch or of a smaller epoch
 * (what module_maps_find looks in).  A stack of an epoch without one names
 * a module map whose records were lost. */
bool module_maps_cover(const struct module_maps *m, uint64_t epoch);

#endif
