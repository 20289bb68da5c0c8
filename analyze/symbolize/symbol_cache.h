/*
 * analyze/symbolize/symbol_cache.h - symbolization answers kept on disk between runs,
 * one file per module build-id, so that the symbolize step at the end of
 * `mprof run` does not inflate the same debug info again (libdw decompresses
 * every debug section of a module when it opens it: ~30 ms and ~25 MB for
 * Debian's libc6-dbg, which every call stack passes through).
 *
 * The directory is $MPROF_SYMBOL_CACHE when set (set and empty: no cache),
 * else $XDG_CACHE_HOME/mprof, else $HOME/.cache/mprof; the files live in its
 * "symbols-FORMAT-VERSION" folder (mprof's version: another mprof never reads
 * them) and are named by the build-id in hex.  Answers made with the
 * module's DWARF debug info are kept in that file: they are the best any
 * file with that build-id can give.  Answers made without DWARF (the symbol
 * table) would hide the debug info of a copy that has it, or of a debug
 * file installed later, so they go in BUILD-ID.symtab with a proof that no
 * debug file exists (debug_search.h), and are used only while the proof
 * holds and the build-id has no DWARF file (a stripped program's frames then
 * need neither libdw nor an index of its symbol table).  A file is:
 *   0  8 bytes magic "MPROFSYC"
 *   8  u8  flags: SYMBOL_CACHE_DWARF in BUILD-ID, SYMBOL_CACHE_SYMTAB in
 *          BUILD-ID.symtab (a file without its kind's flag is ignored)
 *   9  3 bytes zero
 *  12  u32 CRC-32 (zlib's crc32) of the payload, little-endian
 *  16  payload: a SYMBOLS chunk payload (analyze/symbol_table.h); in a
 *      .symtab file preceded by a u32 (little-endian) byte count and that
 *      many bytes of proof
 * Files are replaced whole (written aside, then renamed), so a reader sees
 * an old file or a new one, never half of one; anything that does not
 * check, or is not a regular file, is ignored.  Only modules with a
 * build-id are cached: the build-id names the exact code the answers were
 * computed from.
 */
#ifndef MPROF_ANALYZE_SYMBOL_CACHE_H
#define MPROF_ANALYZE_SYMBOL_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define SYMBOL_CACHE_DWARF 1u   /* answers made with DWARF */
#define SYMBOL_CACHE_SYMTAB 2u  /* answers made without, with a proof */

struct symbol_cache_file {
	uint8_t *payload;       /* malloc'd SYMBOLS payload; the caller frees it */
	size_t payload_bytes;
	unsigned flags;         /* SYMBOL_CACHE_* */
};

/*
 * Writes the cache folder's path into buf (cap bytes).  Returns 0, or
 * -ENOENT when caching is off or no directory is named, -ENAMETOOLONG.
 */
int symbol_cache_folder(char *buf, size_t cap);

/*
 * Reads the cached answers of build-id (len bytes) from folder, from the
 * file of kind (SYMBOL_CACHE_DWARF or SYMBOL_CACHE_SYMTAB).  Returns 0 with
 * *out filled, -ENOENT when there are none, -EBADMSG for a damaged file,
 * -ENOMEM.
 */
int symbol_cache_read(const char *folder, const uint8_t *build_id, size_t len, unsigned kind,
		      struct symbol_cache_file *out);

/*
 * Replaces the cached answers of build-id with payload (payload_bytes) in
 * the file of kind flags, creating the folder when missing.  Returns 0 or a negative errno; the
 * cache is an optimization, so callers may ignore failures.
 */
int symbol_cache_write(const char *folder, const uint8_t *build_id, size_t len,
		       unsigned flags, const uint8_t *payload, size_t payload_bytes);

#endif
