/*
 * analyze/read/modules.h - the module maps of a process, one per module epoch,
 * parsed from MODULES records (mprof-trace(5)), and the lookup of the module
 * that holds an instruction pointer in a given epoch.
 *
 * Owns copies of every path and build-id; nothing points into trace buffers.
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
};

struct module_map {
	uint64_t epoch;
	struct module *modules;
	size_t count;
};

struct module_maps {
	struct module_map *maps; /* by rising epoch, owned */
	size_t count;
	size_t cap;
	size_t unordered;        /* maps that came after one of a later epoch */
};

/* Maps that may come out of epoch order: each such one moves the maps
 * after it.  The recorder writes epochs in order (a thread's record can
 * follow another's of a later epoch); a fuzzed trace of 400,000 records of
 * distinct epochs took 62 s while every record was compared with every map
 * before it. */
#define MODULE_MAPS_MAX_UNORDERED 4096

void module_maps_init(struct module_maps *m);
void module_maps_free(struct module_maps *m);

/* Parses one MODULES record payload and adds its map (a repeated epoch
 * replaces the earlier map).  Returns 0, -EBADMSG, -ENOMEM, or -E2BIG (an
 * out-of-order map past MODULE_MAPS_MAX_UNORDERED: not added). */
int module_maps_add_record(struct module_maps *m, const uint8_t *payload, size_t bytes);

/* The module holding ip in epoch (or, when that epoch has no map, in the
 * newest map with a smaller epoch); NULL when none does. */
const struct module *module_maps_find(const struct module_maps *m, uint64_t epoch, uint64_t ip);

#endif
