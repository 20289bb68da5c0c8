/*
 * cli/pid_info.c - small questions about a process, answered from kill(pid,
 * 0) and /proc: is it still running (zombies count as ended), what is its
 * command line, and when did it start.  Never prints; errors just mean
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
#include <unistd.h>

#include "cli/pid_info.h"

/* The kernel's PF_KTHREAD, in the flags of /proc/PID/stat (field 9). */
#define PID_PF_KTHREAD 0x00200000ull

bool pid_info_running(unsigned pid)
{
	char path[64], buf[512], *rparen;
	ssize_t n;
	int fd;

	if (pid == 0 || pid > INT_MAX || (kill((pid_t)pid, 0) != 0 && errno != EPERM))
		return false;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')'. */
	rparen = strrchr(buf, ')');
	return !(rparen && rparen[1] == ' ' && (rparen[2] == 'Z' || rparen[2] == 'X'));
}

void pid_info_cmdline(unsigned pid, char *out, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, out, size - 1);
	close(fd);
	if (n <= 0)
		return;
	while (n > 0 && out[n - 1] == '\0')
		n--;
	out[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (out[i] == '\0')
			out[i] = ' ';
}

unsigned long long pid_info_start_ticks(unsigned pid)
{
	char path[64], buf[1024];
	unsigned long long ticks = 0;
	const char *p;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the command name, field 2, is in parentheses and may hold spaces */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z')
		return 0;
	p += 2; /* field 3, the state */
	for (field = 3; field < 22 && p; field++) {
		if (field == 9 && (strtoull(p, NULL, 10) & PID_PF_KTHREAD))
			return 0; /* a kernel thread */
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		ticks = strtoull(p, NULL, 10);
	return ticks;
}
