/*
 * cli/late_starters.c - finding the run's processes that have no process
 * file yet (late_starters.h), from /proc/PID/environ, maps, auxv, stat and
 * exe, and telling whether the recorder can still start in each.
 *
 * Owns nothing between calls.  Never prints; a process that ends or cannot
 * be read during the scan is simply not reported.
 */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/elf_check.h"
#include "cli/late_starters.h"
#include "cli/pid_info.h"
#include "trace/session.h"

/* Environments (and maps) larger than this are read only this far. */
#define LATE_READ_LIMIT ((size_t)4 << 20)

/* Reads /proc/pid/what whole (up to LATE_READ_LIMIT) into *buf (grown as
 * needed, owned by the caller).  Returns the bytes read, or -1 with errno
 * set when nothing could be read. */
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
		if (n < 0 && len == 0) {
			int err = errno;

			close(fd);
			errno = err;
			return -1;
		}
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	return (long)len;
}

/* The value of variable name (name_len bytes, "NAME=") in the
 * NUL-separated entries of env[0..len), NUL-terminated by the caller's
 * buffer; NULL when absent. */
static const char *env_value(const char *env, size_t len, const char *name, size_t name_len)
{
	size_t i = 0;

	while (i < len) {
		const char *end = memchr(env + i, '\0', len - i);
		size_t n = end ? (size_t)(end - (env + i)) : len - i;

		if (end && n >= name_len && memcmp(env + i, name, name_len) == 0)
			return env + i + name_len;
		i += n + 1;
	}
	return NULL;
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

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Whether an LD_PRELOAD value (entries separated by colons or spaces, as
 * the loader reads it) names the recorder: the same file, or for a
 * relative entry the same file name. */
static bool preload_names(const char *value, const char *recorder_path)
{
	char entry[PATH_MAX], real[PATH_MAX];

	while (*value) {
		size_t n = strcspn(value, ": ");

		if (n && n < sizeof(entry)) {
			memcpy(entry, value, n);
			entry[n] = '\0';
			if (strcmp(base_name(entry), base_name(recorder_path)) == 0 ||
			    (entry[0] == '/' && realpath(entry, real) && strcmp(real, recorder_path) == 0))
				return true;
		}
		value += n;
		value += strspn(value, ": ");
	}
	return false;
}

/* Whether the kernel started pid's image in secure-execution mode
 * (AT_SECURE in /proc/PID/auxv), in which the loader ignores LD_PRELOAD. */
static bool auxv_secure(unsigned pid, char **buf, size_t *cap)
{
	long len = proc_read(pid, "auxv", buf, cap);
	unsigned long v[2];

	for (long i = 0; i + (long)sizeof(v) <= len; i += (long)sizeof(v)) {
		memcpy(v, *buf + i, sizeof(v));
		if (v[0] == AT_SECURE)
			return v[1] != 0;
		if (v[0] == AT_NULL)
			break;
	}
	return false;
}

/* Fills s for a process of the run (its environment env[0..len) names the
 * session): whether and why the recorder cannot start in it, whether it is
 * stopped, whether the recorder is mapped in it.  Uses buf for reads (env
 * must not be in it). */
static void classify(const struct late_query *q, struct late_starter *s, const char *preload,
		     char **buf, size_t *cap)
{
	char exe[64];
	char st;
	long len;

	snprintf(exe, sizeof(exe), "/proc/%u/exe", s->pid);
	s->state = LATE_UNREACHABLE;
	if (auxv_secure(s->pid, buf, cap)) {
		s->why = "it runs in secure-execution mode (set-user-ID, set-group-ID or file "
			 "capabilities), in which the loader ignores LD_PRELOAD";
		return;
	}
	if (elf_check_link(exe) == ELF_LINK_STATIC) {
		s->why = "it is statically linked: no dynamic loader loads the recorder into it";
		return;
	}
	if (q->recorder_path && (!preload || !preload_names(preload, q->recorder_path))) {
		s->why = "LD_PRELOAD in its environment does not name the recorder";
		return;
	}
	st = pid_info_state(s->pid);
	s->state = st == 'T' || st == 't' ? LATE_STOPPED : LATE_STARTING;
	len = q->recorder_path ? proc_read(s->pid, "maps", buf, cap) : -1;
	s->recorder_mapped = len > 0 && text_has(*buf, (size_t)len, q->recorder_path);
}

/* Whether pid, whose environment reads empty, is in the middle of an exec:
 * its new address space is mapped (an exiting process has none left) and
 * its command line, like its environment, not yet set up.  Uses buf. */
static bool in_exec(unsigned pid, char **buf, size_t *cap)
{
	long cmdline = proc_read(pid, "cmdline", buf, cap);

	return cmdline == 0 && proc_read(pid, "maps", buf, cap) > 0;
}

size_t late_starters_find(const struct late_query *q, struct late_starter *out, size_t cap)
{
	unsigned self = (unsigned)getpid();
	static const char session_name[] = SESSION_ENV "=", preload_name[] = "LD_PRELOAD=";
	char *env = NULL, *buf = NULL, exe[LATE_PROGRAM_BYTES];
	size_t env_cap = 0, buf_cap = 0, found = 0;
	struct dirent *e;
	DIR *d;

	d = opendir("/proc");
	while (d && (e = readdir(d)) != NULL) {
		struct late_starter s = { 0 };
		const char *session, *preload;
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);
		long len;

		if (*end || !pid || pid == self || pid == q->helper_pid || pid > 0xffffffffu ||
		    (q->window && !pid_window_holds(q->window, (unsigned)pid)))
			continue;
		/* the run's processes all started after the launcher (and
		 * zombies and kernel threads give 0) */
		if (pid_info_start_ticks((unsigned)pid) < q->since_ticks)
			continue;
		pid_info_exe((unsigned)pid, exe, sizeof(exe));
		if (q->known((unsigned)pid, exe, q->arg))
			continue;
		s.pid = (unsigned)pid;
		len = proc_read(s.pid, "environ", &env, &env_cap);
		if (len < 0 && (errno == ENOENT || errno == ESRCH))
			continue; /* gone */
		if (len < 0) {
			s.state = LATE_UNREADABLE;
		} else if (len == 0) {
			/* In the middle of an exec the environment is not
			 * there yet: it may well be ours, if it descends from
			 * the launcher, or if its parent has ended (a child
			 * the program spawned just before its end).  An
			 * exiting process reads empty too (a shell of another
			 * job on the machine was named as a process of the
			 * run that was never recorded): it has no address
			 * space left, where one in its exec has the new one. */
			s.descends = pid_info_descends_from(s.pid, self);
			s.state = s.descends || in_exec(s.pid, &buf, &buf_cap) ? LATE_EXECUTING
									 : LATE_UNREADABLE;
		} else {
			session = env_value(env, (size_t)len, session_name, sizeof(session_name) - 1);
			if (!session || strcmp(session, q->session_dir) != 0)
				continue;
			preload = env_value(env, (size_t)len, preload_name, sizeof(preload_name) - 1);
			classify(q, &s, preload, &buf, &buf_cap);
		}
		if (found < cap) {
			memcpy(s.exe, exe, sizeof(s.exe));
			if (exe[0])
				memcpy(s.program, exe, sizeof(s.program));
			else
				pid_info_program(s.pid, s.program, sizeof(s.program));
			out[found] = s;
		}
		found++;
	}
	if (d)
		closedir(d);
	free(buf);
	free(env);
	return found;
}

const char *late_starter_reason(const struct late_starter *s)
{
	switch (s->state) {
	case LATE_EXECUTING:
		return "it was still in the middle of an exec";
	case LATE_UNREADABLE:
		return "mprof cannot read its environment";
	case LATE_STOPPED:
		return "it is stopped, and its recorder had not started";
	case LATE_UNREACHABLE:
		return s->why;
	case LATE_STARTING:
		break;
	}
	return s->recorder_mapped ? "its recorder had not started yet"
				  : "the recorder library was not loaded in it yet";
}
