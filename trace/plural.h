/*
 * trace/plural.h - the noun after a count in text output: "1 block",
 * "2 blocks", "0 blocks".  Here because the analyzer and the CLI both link
 * libmprof_trace; header only.
 */
#ifndef MPROF_TRACE_PLURAL_H
#define MPROF_TRACE_PLURAL_H

#include <stdint.h>

/* one when count is 1, else many (both static strings, returned as is). */
static inline const char *plural(uint64_t count, const char *one, const char *many)
{
	return count == 1 ? one : many;
}

#endif
