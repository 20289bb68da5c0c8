/*
 * preload/pidns.c - which pids the launcher knows this process by (see
 * pidns.h).
 *
 * A process in a PID namespace of its own has pids there (getpid() gives 1
 * to the first) that mean another process, or none, to the launcher, which
 * names the trace after the pid and reads /proc/PID for the process's state
 * and RSS.  The kernel lists a process's pid in every namespace from the one
 * /proc belongs to down to its own (NStgid in /proc/PID/status), so when
 * /proc is the launcher's, the first one is the pid the launcher sees.
 *
 * Owns nothing.  Must never allocate; opens /proc/self/status only in a
 * namespace other than the launcher's, and closes it before returning.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/pidns.h"
#include "preload/sys.h"

/* Parses a decimal number at *s up to a character that is not a digit;
 * returns 0 when there is none or it overflows. */
static int pidns_parse_u64(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		uint64_t d = (uint64_t)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*s = p;
	*out = v;
	return 1;
}

void pidns_launcher_parse(const char *value, struct pidns_launcher *out)
{
	const char *p = value;

	memset(out, 0, sizeof(*out));
	if (!p || !pidns_parse_u64(&p, &out->ns_dev) || *p++ != ':' ||
	    !pidns_parse_u64(&p, &out->ns_ino) || *p++ != ':' ||
	    !pidns_parse_u64(&p, &out->proc_dev) || *p)
		return;
	out->known = 1;
}

/* The number after "\nNAME:" and blanks in a /proc status text, or 0. */
static uint32_t pidns_status_field(const char *status, const char *name_line)
{
	const char *p = strstr(status, name_line);
	uint64_t v;

	if (!p)
		return 0;
	for (p += strlen(name_line); *p == ' ' || *p == '\t'; p++)
		;
	return pidns_parse_u64(&p, &v) && v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* Fills out->pid and out->ppid from /proc/self/status, which shows the
 * launcher's namespace (NStgid's first field; PPid is given in /proc's
 * namespace too); leaves them 0 when it cannot be read. */
static void pidns_view_from_status(struct pidns_view *out)
{
	char status[4096];
	ssize_t n = sys_read_file("/proc/self/status", status, sizeof(status) - 1);

	if (n <= 0)
		return;
	status[n] = '\0';
	out->pid = pidns_status_field(status, "\nNStgid:");
	if (out->pid)
		out->ppid = pidns_status_field(status, "\nPPid:");
}

void pidns_view_read(const struct pidns_launcher *launcher, struct pidns_view *out,
		     int filtered)
{
	struct stat ns, proc;

	out->ns_pid = (uint32_t)getpid();
	out->pid = out->ns_pid;
	out->ppid = filtered ? 0 : (uint32_t)getppid();
	out->same_ns = -1;
	out->ns_dev = out->ns_ino = 0;
	if (stat("/proc/self/ns/pid", &ns) != 0)
		return;
	out->ns_dev = (uint64_t)ns.st_dev;
	out->ns_ino = (uint64_t)ns.st_ino;
	if (!launcher->known)
		return;
	out->same_ns = (uint64_t)ns.st_dev == launcher->ns_dev &&
		       (uint64_t)ns.st_ino == launcher->ns_ino;
	if (out->same_ns)
		return;
	out->pid = out->ppid = 0;
	if (!filtered && launcher->proc_dev && stat("/proc", &proc) == 0 &&
	    (uint64_t)proc.st_dev == launcher->proc_dev)
		pidns_view_from_status(out);
}
