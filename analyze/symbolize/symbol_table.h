/*
 * analyze/symbolize/symbol_table.h - the SYMBOLS chunk payload: encoding the
 * symbolizer's answers and decoding them back (layout in symbol_table.c and
 * man/mprof-trace.5).
 */
#ifndef MPROF_ANALYZE_SYMBOL_TABLE_H
#define MPROF_ANALYZE_SYMBOL_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/symbolize/symbolize.h"

#define SYMBOL_TABLE_VERSION 1
#define SYMBOL_TABLE_MAX_FRAMES 1024 /* inlined frames per address, at most */

/* One answer: what the instruction pointer at module_offset (return address
 * - load bias, bytes) of the module file (path, build-id) symbolizes to. */
struct symbol_table_answer {
	const char *module_path;
	const uint8_t *build_id;    /* NULL when build_id_len is 0 */
	size_t build_id_len;
	uint64_t module_offset;
	const struct sym_location *loc;
};

/*
 * Encodes count answers as one SYMBOLS payload (the frames' module and
 * module_offset fields are not stored: they follow from the answer).
 * *data is malloc'd; the caller frees it.  Returns 0 or -ENOMEM.
 */
int symbol_table_encode(const struct symbol_table_answer *answers, size_t count,
			uint8_t **data, size_t *bytes);

/*
 * Calls fn once per answer of the payload in data[0..bytes), after checking
 * the whole payload first: garbage gives -EBADMSG and no call at all.  The
 * answer and everything it points to is valid only during the call (frame
 * module fields point at the answer's module_path).  A non-zero return of
 * fn stops the walk and is returned.  Returns 0, -EBADMSG, -ENOMEM.
 */
int symbol_table_decode(const uint8_t *data, size_t bytes,
			int (*fn)(void *ctx, const struct symbol_table_answer *answer),
			void *ctx);

#endif
