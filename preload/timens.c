/*
 * preload/timens.c - CLOCK_MONOTONIC in the launcher's time namespace (see
 * timens.h).
 *
 * A program started in a time namespace of its own (unshare --time,
 * containers restored by CRIU) reads CLOCK_MONOTONIC shifted by that
 * namespace's offset; the launcher orders process files by the time in
 * their names and compares exit and reap times with its own clock, so a
 * shift of hours made an executed program look older than its exec ("not
 * recorded").  The shift is read once, from /proc/self/timens_offsets (a
 * file only kernels with time namespaces have: 0 otherwise).  A fork child
 * of a process that entered a new time namespace itself keeps its
 * parent's shift.  Must never allocate.
 */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "preload/clock.h"
#include "preload/settings.h"
#include "preload/sys.h"
#include "preload/timens.h"
#include "trace/timens.h"

/* This image's monotonic offset minus the launcher's, ns. */
static int64_t timens_shift_ns;

void timens_start(void)
{
	char text[256];
	const char *launcher = preload_getenv(SESSION_ENV_LAUNCHER_TIMENS);
	ssize_t n = sys_read_file("/proc/self/timens_offsets", text, sizeof(text));
	int64_t own = n > 0 ? timens_parse_monotonic_ns(text, (size_t)n) : 0;
	int64_t theirs = 0;

	if (launcher) {
		const char *p = launcher;

		theirs = timens_parse_i64(&p, launcher + strlen(launcher));
	}
	timens_shift_ns = own - theirs;
}

uint64_t timens_launcher_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec - (uint64_t)timens_shift_ns;
}

static uint64_t timens_read(clockid_t clock)
{
	struct timespec ts;

	preload_clock_gettime(clock, &ts);
	return timens_launcher_ns(&ts);
}

uint64_t timens_mono_ns(void)
{
	return timens_read(CLOCK_MONOTONIC);
}
