/*
 * analyze/symbolize/symbolize.h - symbolization: from (module epoch, instruction
 * pointer) to the frames a report shows, with libdw (function, file:line,
 * inlined frames) when debug info is found, .symtab/.dynsym names otherwise,
 * module+offset last.  C++ names are demangled with the C++ runtime's
 * __cxa_demangle.
 *
 * The same answers can be embedded in a trace (a SYMBOLS chunk, written by
 * `mprof-analyze symbolize` when `mprof run` ends) so that reports stay the
 * same after the binaries are gone; embedded answers are preferred.
 */
#ifndef MPROF_ANALYZE_SYMBOLS_H
#define MPROF_ANALYZE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/read/modules.h"

struct sym_frame {
	const char *function;   /* demangled name; NULL when unknown */
	const char *file;       /* source file; NULL without debug info */
	uint32_t line;          /* 0 when unknown */
	const char *module;     /* module path; "?" when no module holds the ip */
	uint64_t module_offset; /* ip - load bias (the ip itself when no module) */
	bool inlined;           /* this frame was inlined into the next one */
};

/* All frames of one instruction pointer, innermost (inlined callee) first. */
struct sym_location {
	const struct sym_frame *frames;
	size_t count;           /* at least 1 */
	bool has_debug_info;    /* file:line came from DWARF */
	bool has_symbol;        /* a function name was found */
};

struct symbolizer;

/* maps must outlive the symbolizer (or the next symbolizer_set_maps).
 * Returns NULL on out of memory. */
struct symbolizer *symbolizer_new(const struct module_maps *maps);

/*
 * Points s at the module maps of another trace (NULL: none; maps must
 * outlive that use).  The answers found so far and the module files libdw
 * opened are kept: the traces of one run share their modules, and one
 * symbolizer for all of them reads each module's debug info once instead
 * of once per trace.  symbolizer_export counts only lookups made from now
 * on.
 */
void symbolizer_set_maps(struct symbolizer *s, const struct module_maps *maps);

/* Adds the answers of a SYMBOLS chunk payload.  Returns 0 or -EBADMSG. */
int symbolizer_load_embedded(struct symbolizer *s, const uint8_t *data, size_t bytes);

/* Where a return address lies: the file of the module that held it (named
 * by path and build-id, so a library loaded again, at any address, is one
 * file) and the offset in it.  Two places that are equal symbolize the
 * same, whatever epochs and addresses they came from. */
struct sym_place {
	uint64_t offset;        /* ip - load bias; the ip itself when no module */
	uint32_t file;          /* the symbolizer's index; 0: no module held it */
};

/* Sets *p to the place of the return address ip recorded in epoch (the
 * module that held ip - 1 then).  Returns 0 or -ENOMEM. */
int symbolizer_place(struct symbolizer *s, uint64_t epoch, uint64_t ip, struct sym_place *p);

/*
 * Symbolizes place p (from symbolizer_place; looks up its offset - 1).
 * The result is owned by the symbolizer and valid until symbolizer_free;
 * lookups are cached.  Never NULL.
 */
const struct sym_location *symbolizer_lookup_place(struct symbolizer *s,
						   const struct sym_place *p);

/* Symbolizes the return address ip recorded in epoch: symbolizer_place,
 * then symbolizer_lookup_place.  Never NULL. */
const struct sym_location *symbolizer_lookup(struct symbolizer *s, uint64_t epoch, uint64_t ip);

/* Whether s's module maps have a map in force at epoch (module_maps_cover);
 * false when s has no maps. */
bool symbolizer_epoch_mapped(const struct symbolizer *s, uint64_t epoch);

/* True for the location symbolizer_lookup returns when memory ran out: one
 * shared location whose frame changes with each such lookup, so not one to
 * keep (every other result stays as it is until symbolizer_free). */
bool symbolizer_failed(const struct symbolizer *s, const struct sym_location *loc);

/*
 * Lets lookups take answers from the on-disk cache of past runs
 * (analyze/symbol_cache.h) before asking libdw, and symbolizer_cache_save
 * store new ones.  Returns 0, -ENOENT when caching is off
 * (MPROF_SYMBOL_CACHE set and empty, or no home folder), -ENOMEM.
 */
int symbolizer_use_cache(struct symbolizer *s);

/* Stores in the cache the answers of every module libdw answered for since
 * symbolizer_use_cache, with those it already held.  Returns 0, or -EIO
 * when some file could not be written (the cache is only an optimization). */
int symbolizer_cache_save(struct symbolizer *s);

/* Serializes every answer looked up so far (since the last
 * symbolizer_set_maps) as a SYMBOLS chunk payload (malloc'd, caller
 * frees).  Returns 0 or -ENOMEM. */
int symbolizer_export(struct symbolizer *s, uint8_t **data, size_t *bytes);

void symbolizer_free(struct symbolizer *s);

#endif
