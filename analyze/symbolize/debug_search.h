/*
 * analyze/symbolize/debug_search.h - proof that a module has no separate
 * debug file: the module file's identity and every path where libdw's
 * standard search (dwfl_standard_find_debuginfo, offline, no debuginfod)
 * may look for one, all absent.  The symbol cache keeps answers made
 * without DWARF only with such a proof, and uses them only while it holds
 * (symbol_cache.h), so that a debug file installed later is never hidden.
 */
#ifndef MPROF_ANALYZE_DEBUG_SEARCH_H
#define MPROF_ANALYZE_DEBUG_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Writes into *out (malloc'd, *out_bytes bytes) the proof for the module
 * file path (absolute), whose .gnu_debuglink names debuglink (NULL: none)
 * and whose build-id is build_id (len bytes).  Returns 0, -EEXIST when a
 * candidate debug file exists now, -EINVAL for a relative path or one with
 * a newline, -errno when path cannot be stat'ed, -ENOMEM.
 */
int debug_search_proof_make(const char *path, const char *debuglink, const uint8_t *build_id,
			    size_t len, uint8_t **out, size_t *out_bytes);

/*
 * Whether the proof data (bytes) still holds for the module file path: the
 * same path, the same file (device, inode, size, modification time), and
 * no candidate debug file there but the module itself.
 */
bool debug_search_proof_holds(const uint8_t *data, size_t bytes, const char *path);

#endif
