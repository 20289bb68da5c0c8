/*
 * cli/pid_window.c - process IDs given out since a point in time
 * (pid_window.h), from /proc/sys/kernel/ns_last_pid, pid_max and the
 * "processes" line of /proc/stat.
 *
 * Owns nothing between calls; never prints.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/pid_window.h"

/* The kernel's first ID after a wrap (its RESERVED_PIDS). */
#define PID_WINDOW_WRAP_TO 300u
/* Tasks other programs may create between the launcher's own creation and
 * pid_window_start (the launcher's start-up), counted against the cycle. */
#define PID_WINDOW_MARGIN 4096ull

/* Reads a small /proc file whole into buf (NUL-terminated); its length, or
 * -1 when it cannot be read. */
static long small_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long len = 0;

	if (fd < 0)
		return -1;
	while ((size_t)len + 1 < cap) {
		ssize_t n = read(fd, buf + len, cap - 1 - (size_t)len);

		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

/* The number at the start of a one-line /proc file, or 0. */
static unsigned long long proc_number(const char *path)
{
	char buf[64];

	return small_read(path, buf, sizeof(buf)) > 0 ? strtoull(buf, NULL, 10) : 0;
}

/* Tasks created since boot ("processes" in /proc/stat), or 0. */
static unsigned long long tasks_created(void)
{
	/* the line comes after one line per processor: read in pieces */
	char buf[4096];
	unsigned long long n = 0;
	size_t keep = 0;
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t got = read(fd, buf + keep, sizeof(buf) - 1 - keep);
		char *line, *nl;

		if (got <= 0)
			break;
		buf[keep + (size_t)got] = '\0';
		line = buf;
		while ((nl = strchr(line, '\n')) != NULL) {
			if (strncmp(line, "processes ", 10) == 0) {
				n = strtoull(line + 10, NULL, 10);
				close(fd);
				return n;
			}
			line = nl + 1;
		}
		keep = strlen(line);
		if (keep >= sizeof(buf) / 2)
			keep = 0; /* no line is this long: drop it */
		memmove(buf, line, keep);
	}
	close(fd);
	return n;
}

/* Tasks alive on the machine now (the total of /proc/loadavg's fourth
 * field, "running/total"), or 0. */
static unsigned long long tasks_alive(void)
{
	char buf[256], *slash;

	if (small_read("/proc/loadavg", buf, sizeof(buf)) <= 0 || !(slash = strchr(buf, '/')))
		return 0;
	return strtoull(slash + 1, NULL, 10);
}

unsigned long long pid_window_tasks_since(const struct pid_window *w)
{
	unsigned long long now = tasks_created();

	if (!w->tasks_start || now < w->tasks_start)
		return ULLONG_MAX;
	return now - w->tasks_start + PID_WINDOW_MARGIN;
}

bool pid_window_proc_is_own(void)
{
	char link[32], want[32];
	ssize_t n = readlink("/proc/self", link, sizeof(link) - 1);

	if (n <= 0)
		return false;
	link[n] = '\0';
	snprintf(want, sizeof(want), "%u", (unsigned)getpid());
	return strcmp(link, want) == 0;
}

void pid_window_start(struct pid_window *w)
{
	w->first = (unsigned)getpid();
	w->last = w->first;
	w->tasks_start = tasks_created();
	w->alive_start = tasks_alive();
	w->all = w->tasks_start == 0 || w->alive_start == 0 || !pid_window_proc_is_own();
}

bool pid_window_cycle_safe(unsigned long long created, unsigned long long alive,
			   unsigned long long pid_max)
{
	if (pid_max <= PID_WINDOW_WRAP_TO || created > pid_max || alive > pid_max)
		return false;
	return 2 * created + alive + PID_WINDOW_MARGIN < pid_max - PID_WINDOW_WRAP_TO;
}

void pid_window_update(struct pid_window *w)
{
	unsigned long long last, max, tasks;

	if (w->all)
		return;
	last = proc_number("/proc/sys/kernel/ns_last_pid");
	max = proc_number("/proc/sys/kernel/pid_max");
	tasks = tasks_created();
	if (!last || last > 0xffffffffull || tasks < w->tasks_start ||
	    !pid_window_cycle_safe(tasks - w->tasks_start, w->alive_start, max)) {
		w->all = true;
		return;
	}
	w->last = (unsigned)last;
}

bool pid_window_holds(const struct pid_window *w, unsigned pid)
{
	if (w->all)
		return true;
	if (w->first <= w->last)
		return pid > w->first && pid <= w->last;
	return pid > w->first || pid <= w->last; /* wrapped */
}
