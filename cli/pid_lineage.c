/*
 * cli/pid_lineage.c - walking a process's parent links in /proc, to tell
 * whether it belongs to the program's process tree.  Called from a signal
 * handler: no stdio, no allocation, only open(), read() and close().
 */
#include "config.h"

#include <fcntl.h>
#include <unistd.h>

#include "cli/pid_lineage.h"

/* Deeper process trees than this are not walked (a program's workers are a
 * few levels below it); the loop also ends at pid 1 or a read failure. */
#define PID_LINEAGE_MAX_STEPS 256

/* "/proc/PID/stat" into path (at least 32 bytes) without snprintf, which
 * is not async-signal-safe. */
static void stat_path(pid_t pid, char *path)
{
	static const char head[] = "/proc/";
	static const char tail[] = "/stat";
	char digits[16];
	size_t n = 0, len = 0;
	unsigned long v = (unsigned long)pid;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(digits));
	for (size_t i = 0; i < sizeof(head) - 1; i++)
		path[len++] = head[i];
	while (n)
		path[len++] = digits[--n];
	for (size_t i = 0; i < sizeof(tail); i++)
		path[len++] = tail[i];
}

/* The parent pid in /proc/pid/stat ("PID (COMM) STATE PPID ..."; COMM may
 * hold spaces and parentheses, so the fields after the last ')'), or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[32], buf[512];
	ssize_t got;
	long ppid = 0;
	int fd, i, close_paren = -1;

	stat_path(pid, path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = read(fd, buf, sizeof(buf));
	close(fd);
	if (got <= 0)
		return -1;
	for (i = 0; i < got; i++)
		if (buf[i] == ')')
			close_paren = i;
	/* ") S 1234 ": the state letter, then the parent pid */
	i = close_paren + 4;
	if (close_paren < 0 || i >= got || buf[i - 1] != ' ')
		return -1;
	for (; i < got && buf[i] >= '0' && buf[i] <= '9'; i++)
		ppid = ppid * 10 + (buf[i] - '0');
	return i < got && buf[i] == ' ' ? (pid_t)ppid : -1;
}

bool pid_lineage_below(pid_t pid, pid_t ancestor)
{
	if (ancestor <= 0)
		return false;
	for (int step = 0; step <= PID_LINEAGE_MAX_STEPS; step++) {
		if (pid == ancestor)
			return true;
		if (pid <= 1)
			return false;
		pid = parent_of(pid);
	}
	return false;
}
