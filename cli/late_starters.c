/*
 * cli/late_starters.c - finding the run's processes that have no process
 * file yet (late_starters.h), from /proc/PID/environ and /proc/PID/maps.
 *
 * Owns nothing between calls.  Never prints; a process that ends or cannot
 * be read during the scan is simply not reported.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/late_starters.h"
#include "cli/pid_info.h"
#include "trace/session.h"

/* Environments (and maps) larger than this are read only this far. */
#define LATE_READ_LIMIT ((size_t)4 << 20)

/* Reads /proc/pid/what whole (up to LATE_READ_LIMIT) into *buf (grown as
 * needed, owned by the caller).  Returns the bytes read, or -1. */
static long proc_read(unsigned pid, const char *what, char **buf, size_t *cap)
{
	char path[64];
	size_t len = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/%s", pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n;

		if (len == *cap) {
			size_t ncap = *cap ? *cap * 2 : 16384;
			char *nb;

			if (ncap > LATE_READ_LIMIT || !(nb = realloc(*buf, ncap)))
				break;
			*buf = nb;
			*cap = ncap;
		}
		n = read(fd, *buf + len, *cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	return (long)len;
}

/* Whether the NUL-separated entries of env[0..len) hold entry exactly. */
static bool env_has(const char *env, size_t len, const char *entry, size_t entry_len)
{
	size_t i = 0;

	while (i < len) {
		const char *end = memchr(env + i, '\0', len - i);
		size_t n = end ? (size_t)(end - (env + i)) : len - i;

		if (n == entry_len && memcmp(env + i, entry, n) == 0)
			return true;
		i += n + 1;
	}
	return false;
}

/* Whether text[0..len) contains needle. */
static bool text_has(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; n && i + n <= len; i++)
		if (text[i] == needle[0] && memcmp(text + i, needle, n) == 0)
			return true;
	return false;
}

size_t late_starters_find(const char *session_dir, const char *recorder_path,
			  unsigned long long since_ticks,
			  bool (*known)(unsigned pid, void *arg), void *arg,
			  struct late_starter *out, size_t cap)
{
	unsigned self = (unsigned)getpid();
	size_t entry_len = strlen(SESSION_ENV) + 1 + strlen(session_dir), found = 0;
	char *entry = malloc(entry_len + 1), *buf = NULL;
	size_t buf_cap = 0;
	struct dirent *e;
	DIR *d;

	if (!entry)
		return 0;
	snprintf(entry, entry_len + 1, "%s=%s", SESSION_ENV, session_dir);
	d = opendir("/proc");
	while (d && (e = readdir(d)) != NULL) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);
		long len;

		if (*end || !pid || pid == self || pid > 0xffffffffu || known((unsigned)pid, arg))
			continue;
		/* the run's processes all started after the launcher (and
		 * zombies and kernel threads give 0) */
		if (pid_info_start_ticks((unsigned)pid) < since_ticks)
			continue;
		len = proc_read((unsigned)pid, "environ", &buf, &buf_cap);
		if (len <= 0) {
			/* In the middle of an exec the environment is not there
			 * yet (an empty read, or an error while the process
			 * changes images): it may well be ours. */
			if (found < cap)
				out[found] = (struct late_starter){ (unsigned)pid, false };
			found++;
			continue;
		}
		if (!env_has(buf, (size_t)len, entry, entry_len))
			continue;
		if (found < cap) {
			out[found].pid = (unsigned)pid;
			len = recorder_path ? proc_read((unsigned)pid, "maps", &buf, &buf_cap) : -1;
			out[found].recorder_mapped = len > 0 && text_has(buf, (size_t)len, recorder_path);
		}
		found++;
	}
	if (d)
		closedir(d);
	free(buf);
	free(entry);
	return found;
}
