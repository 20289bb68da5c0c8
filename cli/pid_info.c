/*
 * cli/pid_info.c - small questions about a process, answered from kill(pid,
 * 0) and /proc: is it still running (zombies count as ended), is it
 * stopped, what is its program, command line and process name, when did it
 * start, and its peak RSS so far.  Never prints; errors just mean
 * "unknown".
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/pid_info.h"
#include "cli/pid_lineage.h"
#include "cli/pid_window.h"
#include "trace/argv_quote.h"

/* The kernel's PF_KTHREAD, in the flags of /proc/PID/stat (field 9). */
#define PID_PF_KTHREAD 0x00200000ull

/*
 * Reads /proc/pid/stat into buf (size bytes) and returns its fields from the
 * third, the state, on ("pid (comm) S ...": the command name may hold spaces
 * and parentheses, so the state follows the last ')').  NULL when the file
 * cannot be opened (errno says why), or reads empty or malformed (errno 0).
 */
ssize_t pid_info_file_read(unsigned pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/%s", pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size);
	close(fd);
	return n > 0 ? n : 0;
}

static const char *stat_fields(unsigned pid, char *buf, size_t size)
{
	const char *rparen;
	ssize_t n = pid_info_file_read(pid, "stat", buf, size - 1);

	if (n < 0)
		return NULL;
	errno = 0;
	if (n == 0)
		return NULL;
	buf[n] = '\0';
	rparen = strrchr(buf, ')');
	return rparen && rparen[1] == ' ' ? rparen + 2 : NULL;
}

/* Whether a process whose /proc/PID/stat gives state has ended.  A main
 * thread that left by pthread_exit() reads 'Z' while the other threads of
 * its process go on: only a zombie with no thread left (Threads: 1, itself)
 * has ended. */
static bool state_ended(unsigned pid, char state)
{
	char buf[4096];
	const char *line;
	ssize_t n;

	if (state == 'X')
		return true;
	if (state != 'Z')
		return false;
	n = pid_info_file_read(pid, "status", buf, sizeof(buf) - 1);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	line = strstr(buf, "\nThreads:");
	return !line || strtoul(line + 9, NULL, 10) <= 1;
}

/* Field 22 (the start, in clock ticks since boot) of stat fields f (at
 * field 3, the state); 0 for a kernel thread or a short line. */
static unsigned long long fields_start_ticks(const char *f)
{
	int field;

	for (field = 3; field < 22 && f; field++) {
		if (field == 9 && (strtoull(f, NULL, 10) & PID_PF_KTHREAD))
			return 0; /* a kernel thread */
		f = strchr(f, ' ');
		if (f)
			f++;
	}
	return f ? strtoull(f, NULL, 10) : 0;
}

bool pid_info_running_start(unsigned pid, unsigned long long *start_ticks)
{
	char buf[1024];
	const char *state;

	*start_ticks = 0;
	if (pid == 0 || pid > INT_MAX || (kill((pid_t)pid, 0) != 0 && errno != EPERM))
		return false;
	state = stat_fields(pid, buf, sizeof(buf));
	if (!state)
		return errno != ENOENT;
	*start_ticks = fields_start_ticks(state);
	return !state_ended(pid, *state);
}

bool pid_info_running(unsigned pid)
{
	unsigned long long start_ticks;

	return pid_info_running_start(pid, &start_ticks);
}

char pid_info_state_start(unsigned pid, unsigned long long *start_ticks)
{
	char buf[1024];
	const char *state = stat_fields(pid, buf, sizeof(buf));

	*start_ticks = state ? fields_start_ticks(state) : 0;
	return state ? *state : 0;
}

char pid_info_state(unsigned pid)
{
	unsigned long long start_ticks;

	return pid_info_state_start(pid, &start_ticks);
}

bool pid_info_zombie_status(unsigned pid, int *wait_status)
{
	char buf[1024];
	const char *f = stat_fields(pid, buf, sizeof(buf));
	char *end;
	long code;

	if (!f || *f != 'Z' || !state_ended(pid, *f))
		return false;
	/* f is field 3 (state); exit_code is field 52 */
	for (int field = 3; field < 52; field++) {
		f = strchr(f, ' ');
		if (!f)
			return false;
		f++;
	}
	errno = 0;
	code = strtol(f, &end, 10);
	if (errno || end == f || code < 0 || code > 0xffff)
		return false;
	*wait_status = (int)code;
	return true;
}

bool pid_info_exe(unsigned pid, char *out, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	n = readlink(path, out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	return n > 0;
}

void pid_info_program(unsigned pid, char *out, size_t size)
{
	char buf[512];
	const char *lparen, *rparen;

	if (pid_info_exe(pid, out, size))
		return;
	snprintf(out, size, "?");
	/* "pid (comm) S ...": comm may hold parentheses; it ends at the last ')' */
	if (!stat_fields(pid, buf, sizeof(buf)))
		return;
	lparen = strchr(buf, '(');
	rparen = strrchr(buf, ')');
	if (lparen && rparen > lparen)
		snprintf(out, size, "[%.*s]", (int)(rparen - lparen - 1), lparen + 1);
}

void pid_info_cmdline(unsigned pid, char *out, size_t size)
{
	char raw[8192];
	ssize_t n = pid_info_file_read(pid, "cmdline", raw, sizeof(raw));

	out[0] = '\0';
	if (n > 0)
		argv_quote_cmdline(out, size, raw, (size_t)n);
}

void pid_info_comm(unsigned pid, char *out, size_t size)
{
	ssize_t n = pid_info_file_read(pid, "comm", out, size - 1);

	if (n < 0)
		n = 0;
	if (n > 0 && out[n - 1] == '\n')
		n--;
	out[n] = '\0';
}

/* pid's start (field 22), 0 when unreadable or a kernel thread; with
 * ended_too false also 0 for a process that has ended (a zombie). */
static unsigned long long start_ticks_of(unsigned pid, bool ended_too)
{
	char buf[1024];
	const char *p = stat_fields(pid, buf, sizeof(buf));

	if (!p || (!ended_too && *p == 'Z' && state_ended(pid, *p)))
		return 0;
	return fields_start_ticks(p);
}

unsigned long long pid_info_start_ticks(unsigned pid)
{
	return start_ticks_of(pid, false);
}

unsigned long long pid_info_start_ticks_any(unsigned pid)
{
	return start_ticks_of(pid, true);
}

unsigned long long pid_info_peak_rss_kib(unsigned pid)
{
	char buf[4096];
	const char *line;
	ssize_t n = pid_info_file_read(pid, "status", buf, sizeof(buf) - 1);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	line = strstr(buf, "\nVmHWM:");
	return line ? strtoull(line + 7, NULL, 10) : 0;
}

bool pid_info_signal_handled(unsigned pid, int sig)
{
	static const char *const fields[] = { "\nSigCgt:", "\nSigIgn:" };
	char buf[4096];
	ssize_t n = pid_info_file_read(pid, "status", buf, sizeof(buf) - 1);

	if (n <= 0 || sig < 1 || sig > 64)
		return false;
	buf[n] = '\0';
	for (size_t i = 0; i < 2; i++) {
		const char *line = strstr(buf, fields[i]);

		if (line && (strtoull(line + 8, NULL, 16) >> (sig - 1)) & 1)
			return true;
	}
	return false;
}

bool pid_info_descends_from(unsigned pid, unsigned ancestor)
{
	return pid != ancestor && pid <= INT_MAX && ancestor <= INT_MAX &&
	       pid_lineage_below((pid_t)pid, (pid_t)ancestor);
}

int pid_info_thread_alive(unsigned pid, unsigned tid)
{
	char name[32], buf[512];
	const char *rparen;
	ssize_t n;

	if (pid == 0 || tid == 0 || tid > INT_MAX)
		return 0;
	snprintf(name, sizeof(name), "task/%u/stat", tid);
	n = pid_info_file_read(pid, name, buf, sizeof(buf) - 1);
	if (n < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -1;
	buf[n] = '\0';
	rparen = strrchr(buf, ')');
	if (!rparen || rparen[1] != ' ')
		return n == 0 ? 0 : -1; /* empty: the task ended while read */
	return rparen[2] != 'Z' && rparen[2] != 'X';
}

bool pid_info_own_pidns(uint64_t *dev, uint64_t *ino)
{
	struct stat ns;

	if (!pid_window_proc_is_own() || stat("/proc/self/ns/pid", &ns) != 0)
		return false;
	*dev = (uint64_t)ns.st_dev;
	*ino = (uint64_t)ns.st_ino;
	return true;
}

bool pid_info_pidns_word(char *out, size_t size)
{
	struct stat ns, proc;
	unsigned long long proc_dev = 0;

	if (stat("/proc/self/ns/pid", &ns) != 0)
		return false;
	if (pid_window_proc_is_own() && stat("/proc", &proc) == 0)
		proc_dev = (unsigned long long)proc.st_dev;
	snprintf(out, size, "%llu:%llu:%llu", (unsigned long long)ns.st_dev,
		 (unsigned long long)ns.st_ino, proc_dev);
	return true;
}
