/*
 * cli/pid_find.c - finding a process by its pid in its own PID namespace
 * (pid_find.h).
 *
 * A process in a PID namespace whose /proc is its own (unshare
 * --mount-proc, container runtimes) cannot read the pid mprof knows it by,
 * and its recorder leaves the header's pid 0.  A pid names one live process
 * in a namespace, so the process mprof sees as PID is that one when the last
 * field of NStgid in /proc/PID/status (its pid in its innermost namespace)
 * is the recorder's getpid() and /proc/PID/ns/pid is the recorder's
 * namespace.  Reading the namespace link needs the right to inspect the
 * process (ptrace's read mode): another user's may not be told.
 *
 * Owns nothing between calls; never prints.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/pid_find.h"
#include "cli/pid_info.h"

/* The last field of NStgid in /proc/PID/status, or 0. */
static unsigned innermost_pid(unsigned pid)
{
	char buf[4096];
	const char *line, *end;
	unsigned long last = 0;
	ssize_t n = pid_info_file_read(pid, "status", buf, sizeof(buf) - 1);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	line = strstr(buf, "\nNStgid:");
	if (!line)
		return 0;
	line += 8;
	end = strchr(line, '\n');
	for (char *next; !end || line < end; line = next) {
		unsigned long v = strtoul(line, &next, 10);

		if (next == line)
			break;
		last = v;
	}
	return last <= 0xffffffffu ? (unsigned)last : 0;
}

int pid_find_is(unsigned pid, const struct pid_find_key *key)
{
	char path[64];
	struct stat st;

	if (!pid || innermost_pid(pid) != key->ns_pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/ns/pid", pid);
	if (stat(path, &st) != 0)
		return errno == EACCES || errno == EPERM ? -1 : 0;
	return (uint64_t)st.st_dev == key->ns_dev && (uint64_t)st.st_ino == key->ns_ino;
}

/* Looks in /proc/PARENT/task/TID/children (pids separated by spaces). */
static bool child_in_list(unsigned parent, const char *tid, const struct pid_find_key *key,
			  unsigned *pid)
{
	char path[96], buf[4096], *p, *next;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/task/%s/children", parent, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (p = buf;; p = next) {
		unsigned long child = strtoul(p, &next, 10);

		if (next == p)
			return false;
		if (child && child <= 0xffffffffu && pid_find_is((unsigned)child, key) == 1) {
			*pid = (unsigned)child;
			return true;
		}
	}
}

bool pid_find_child(unsigned parent, const struct pid_find_key *key, unsigned *pid)
{
	char path[64];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/task", parent);
	d = opendir(path);
	while (d && !found && (e = readdir(d)) != NULL)
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			found = child_in_list(parent, e->d_name, key, pid);
	if (d)
		closedir(d);
	return found;
}

enum pid_find_result pid_find_scan(const struct pid_window *window, const struct pid_find_key *key,
				   unsigned *pid)
{
	enum pid_find_result result = PID_FIND_GONE;
	struct dirent *e;
	DIR *d = opendir("/proc");

	if (!d)
		return PID_FIND_UNSURE;
	while ((e = readdir(d)) != NULL) {
		char *end;
		unsigned long candidate = strtoul(e->d_name, &end, 10);
		int is;

		if (*end || !candidate || candidate > 0xffffffffu ||
		    (window && !pid_window_holds(window, (unsigned)candidate)))
			continue;
		is = pid_find_is((unsigned)candidate, key);
		if (is == 1) {
			*pid = (unsigned)candidate;
			result = PID_FIND_FOUND;
			break;
		}
		if (is < 0)
			result = PID_FIND_UNSURE;
	}
	closedir(d);
	return result;
}
