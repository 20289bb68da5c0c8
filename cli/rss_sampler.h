/*
 * cli/rss_sampler.h - the RSS of a recorded process over time: the launcher
 * samples /proc/PID/statm while the process runs and writes the samples
 * into its trace as RSS chunks (mprof-trace(5)).
 */
#ifndef MPROF_CLI_RSS_SAMPLER_H
#define MPROF_CLI_RSS_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "cli/pid_guard.h"
#include "cli/trace_files.h"

#define RSS_SAMPLER_CHUNK 64u /* samples per RSS chunk */

/* Samples not yet written (zeroed: none). */
struct rss_sampler {
	uint64_t time_ns[RSS_SAMPLER_CHUNK]; /* CLOCK_MONOTONIC */
	uint64_t rss_kib[RSS_SAMPLER_CHUNK];
	size_t count;
};

/*
 * Reads the RSS of g's process now (one read of /proc/PID/statm, a few
 * microseconds) and keeps it; writes an RSS chunk to tf when
 * RSS_SAMPLER_CHUNK are kept.  A process that has ended, or a guard that
 * holds none (pid_guard.h), gives no sample.  Write errors are tf's (kept
 * in tf->error).
 */
void rss_sampler_take(struct rss_sampler *s, const struct pid_guard *g, struct trace_file *tf);

/* Writes the samples kept, if any, as one RSS chunk (before END). */
void rss_sampler_flush(struct rss_sampler *s, struct trace_file *tf);

#endif
