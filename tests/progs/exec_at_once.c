/*
 * exec_at_once.c - an image that executes another program at once, as a
 * shell's `exec` or a version manager's shim does: `exec_at_once PROG
 * ARGS...` prints its own peak RSS (VmHWM, "hwm KIB") and executes PROG.
 * It does so twice, the first time executing a program that does not
 * exist (the exec fails), so that every page the second reading and exec
 * touch is already resident: the second line is the peak RSS the image
 * ends with.  Allocates nothing itself.  Facts: its trace's peak RSS is
 * the second line's, the image's own (not sampled), though the launcher
 * may never read it while it runs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* VmHWM in KiB, read without allocating; 0 when unknown. */
static unsigned long hwm_kib(void)
{
	char buf[4096];
	const char *p;
	unsigned long kib = 0;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nVmHWM:");
	if (!p)
		return 0;
	for (p += 7; *p == ' ' || *p == '\t'; p++)
		;
	for (; *p >= '0' && *p <= '9'; p++)
		kib = kib * 10 + (unsigned long)(*p - '0');
	return kib;
}

/* Writes "hwm N\n" with write(2) (no stdio buffer). */
static void print_hwm(unsigned long kib)
{
	char line[32], digits[24];
	size_t n = 0, d = 0;

	memcpy(line, "hwm ", 4);
	n = 4;
	do {
		digits[d++] = (char)('0' + kib % 10);
		kib /= 10;
	} while (kib);
	while (d)
		line[n++] = digits[--d];
	line[n++] = '\n';
	if (write(1, line, n) < 0)
		_exit(3);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	for (int i = 0; i < 2; i++) {
		print_hwm(hwm_kib());
		execv(i ? argv[1] : "/nonexistent/exec_at_once", argv + 1);
	}
	return 127;
}
