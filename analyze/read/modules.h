/*
 * analyze/read/modules.h - the module maps of a process, one per module epoch,
 * parsed from MODULES and MODULES_DELTA records (mprof-trace(5)), and the
 * lookup of the module that holds an instruction pointer in a given epoch.
 *
 * Owns copies of every path and build-id; nothing points into trace buffers.
 * A module is parsed once and shared by every map that a chain of deltas
 * makes from the map that brought it.
 */
#ifndef MPROF_ANALYZE_MODULES_H
#define MPROF_ANALYZE_MODULES_H

#include <stddef.h>
#include <stdint.h>

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
};

struct module_map {
	uint64_t epoch;
	struct module **modules; /* by lowest address; the modules are the
	                          * pool's */
	size_t count;
	uint64_t next_id;        /* the id a delta's first added module gets */
};

struct module_maps {
	struct module_map *maps; /* by rising epoch, owned */
	size_t count;
	size_t cap;
	size_t unordered;        /* maps that came after one of a later epoch */
	struct module **pool;    /* every module of every map, each once, in
	                          * the order the records brought them; owned */
	size_t pool_count;
	size_t pool_cap;
	uint64_t slots;          /* module pointers of all maps */
	uint64_t record_bytes;   /* payload bytes of the records added */
};

/* Maps that may come out of epoch order: each such one moves the maps
 * after it.  The recorder writes epochs in order (a thread's record can
 * follow another's of a later epoch); a fuzzed trace of 400,000 records of
 * distinct epochs took 62 s while every record was compared with every map
 * before it. */
#define MODULE_MAPS_MAX_UNORDERED 4096

/* Each map has an array of its modules, so a delta of a few bytes costs a
 * pointer per module of its map: the maps may hold this many pointers per
 * byte of their records, or MODULE_MAPS_FREE_SLOTS in all (32 MiB), before
 * a further map is refused.  2000 libraries loaded one by one make 2 million
 * pointers from some 200 KB of records; the cap is reached past some 10,000
 * libraries. */
#define MODULE_MAPS_SLOTS_PER_BYTE 64
#define MODULE_MAPS_FREE_SLOTS ((uint64_t)1 << 22)

void module_maps_init(struct module_maps *m);
void module_maps_free(struct module_maps *m);

/* Parses one MODULES record payload and adds its map (a repeated epoch
 * replaces the earlier map).  Returns 0, -EBADMSG, -ENOMEM, or -E2BIG (an
 * out-of-order map past MODULE_MAPS_MAX_UNORDERED: not added). */
int module_maps_add_record(struct module_maps *m, const uint8_t *payload, size_t bytes);

/* Parses one MODULES_DELTA record payload and adds the map it makes from
 * its base epoch's map, as module_maps_add_record does.  Returns as that,
 * -EBADMSG also when the base epoch has no map or a removed id is not in
 * it, and -E2BIG when the maps would pass MODULE_MAPS_SLOTS_PER_BYTE. */
int module_maps_add_delta(struct module_maps *m, const uint8_t *payload, size_t bytes);

/* Adds the map of an extended record of kind TRACE_REC_EXT_MODULES or
 * TRACE_REC_EXT_MODULES_DELTA; returns as those, 1 for another kind. */
int module_maps_add_ext(struct module_maps *m, unsigned kind, const uint8_t *payload,
			size_t bytes);

/* The module holding ip in epoch (or, when that epoch has no map, in the
 * newest map with a smaller epoch); NULL when none does. */
const struct module *module_maps_find(const struct module_maps *m, uint64_t epoch, uint64_t ip);

#endif
