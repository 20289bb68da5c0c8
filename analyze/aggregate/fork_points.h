/*
 * analyze/aggregate/fork_points.h - a fork parent's trace read once for
 * several of its children: the aggregation of the parent's events up to
 * each child's fork, in fork order, exactly as a read up to that fork alone
 * (aggregate_read_trace with its seq_limit) gives it, for the time of one
 * read: a report of a pre-fork server's workers reads the parent once, not
 * once per worker.
 */
#ifndef MPROF_ANALYZE_FORK_POINTS_H
#define MPROF_ANALYZE_FORK_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/aggregate/aggregate.h"

/* The parent at one fork. */
struct fork_point {
	const struct aggregate *parent; /* its events up to seq aggregated (the
	                                 * pipeline flushed); valid during the
	                                 * call only */
	uint64_t seq;                   /* the fork's sequence number */
	uint64_t time_ns;               /* the parent's clock there, as a read
	                                 * stopped there has it */
};

/* Called once for each fork point, in order (index into the seqs given);
 * returns 0, or a negative errno that ends the read. */
typedef int (*fork_point_fn)(void *ctx, size_t index, const struct fork_point *fp);

/*
 * Reads the trace at path into agg (initialized, and seeded with what the
 * trace itself inherited when it is a fork child; left unfinished) and
 * calls fn for seqs[0..n) (non-decreasing, nonzero) in order.  *served says
 * for how many it did: all n, or fewer when the read failed, when fn ended
 * it, or when an event came late (a damaged trace: lost chunks) so that
 * the aggregation for the next fork could differ from a read of its own;
 * then the caller reads again, into a new aggregation, for the rest.
 * Memory: agg's, and the events of the chunk that crossed a fork point
 * held until fn returns.  Returns 0, fn's negative errno, or the reader's
 * (-ENOMEM, or another with a message naming path in errbuf).
 */
int fork_points_read(const char *path, struct aggregate *agg, const uint64_t *seqs, size_t n,
		     fork_point_fn fn, void *ctx, size_t *served, char *errbuf,
		     size_t errbuf_bytes);

#endif
