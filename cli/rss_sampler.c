/*
 * cli/rss_sampler.c - sampling a recorded process's RSS into its trace
 * (rss_sampler.h).  Runs in the launcher's collector loop: must not block
 * and keeps at most one chunk's samples per process.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli/rss_sampler.h"
#include "trace/format.h"
#include "trace/varint.h"

/* The resident set size of pid in KiB (field 2 of /proc/PID/statm, pages),
 * or 0 when it cannot be read. */
static uint64_t statm_rss_kib(unsigned pid)
{
	char path[64], buf[256];
	unsigned long long size, resident;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/statm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &size, &resident) != 2)
		return 0;
	return (uint64_t)resident * ((uint64_t)sysconf(_SC_PAGESIZE) / 1024);
}

void rss_sampler_take(struct rss_sampler *s, const struct pid_guard *g, struct trace_file *tf)
{
	struct timespec ts;
	uint64_t kib;

	if (!pid_guard_current(g)) /* ended: no failed reads of /proc */
		return;
	kib = statm_rss_kib(g->pid);
	/* read from a process that got the pid after g's was reaped: not g's */
	if (!kib || !pid_guard_current(g) || clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return;
	s->time_ns[s->count] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	s->rss_kib[s->count] = kib;
	if (++s->count == RSS_SAMPLER_CHUNK)
		rss_sampler_flush(s, tf);
}

void rss_sampler_flush(struct rss_sampler *s, struct trace_file *tf)
{
	uint8_t buf[VARINT_MAX_BYTES * (1 + 2 * RSS_SAMPLER_CHUNK)], *p = buf;
	uint64_t prev = 0;

	if (!s->count)
		return;
	p = varint_put_u64(p, s->count);
	for (size_t i = 0; i < s->count; i++) {
		p = varint_put_u64(p, s->time_ns[i] - prev);
		p = varint_put_u64(p, s->rss_kib[i]);
		prev = s->time_ns[i];
	}
	trace_file_chunk(tf, TRACE_CHUNK_RSS, buf, (size_t)(p - buf));
	s->count = 0;
}
