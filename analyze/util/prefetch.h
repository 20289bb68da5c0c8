/*
 * analyze/util/prefetch.h - starting the load of a cache line that a later
 * step will read, for the aggregation's lookahead over its events.  A hint
 * only: it never faults and changes no result.
 */
#ifndef MPROF_ANALYZE_UTIL_PREFETCH_H
#define MPROF_ANALYZE_UTIL_PREFETCH_H

/* Starts loading the cache line holding p (any address, even unmapped). */
static inline void prefetch_line(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	/* gcc 12 drops __builtin_prefetch in block_table_prefetch (measured:
	 * no instruction) */
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p);
#endif
}

#endif
