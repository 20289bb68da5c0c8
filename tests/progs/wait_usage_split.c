/*
 * tests/progs/wait_usage_split.c - wait4 and wait3 given a struct rusage
 * whose first 40 bytes are writable and the rest in a read-only page
 * (tests/e2e/wait-usage-split.sh).
 *
 * The program first spends 0.3 s of CPU time of its own, then for each
 * call starts a child that exits at once with 7 and reaps it with a
 * rusage pointer 40 bytes before a read-only page (its other bytes 0xab).
 * The kernel fails the call with EFAULT after the reap, having written
 * the child's usage up to the page's end: ru_utime (about 0 s, not this
 * process's 0.3 s), ru_stime and ru_maxrss.  stdout, one line a call:
 *   "wait4: -1 EFAULT, status 7, child's utime yes, maxrss written yes"
 * (and "wait3: ..."), then "again: ECHILD" when no child is left.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define WRITABLE_BYTES 40

/* Spends seconds of this process's CPU time. */
static void spend_cpu(double seconds)
{
	struct rusage ru;
	volatile unsigned long spin = 0;

	do {
		for (int i = 0; i < 1000000; i++)
			spin++;
		getrusage(RUSAGE_SELF, &ru);
	} while (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6 < seconds);
}

static void report(const char *name, pid_t r, int err, int status, const struct rusage *ru)
{
	const unsigned char *bytes = (const unsigned char *)ru;
	long maxrss;

	memcpy(&maxrss, bytes + offsetof(struct rusage, ru_maxrss), sizeof(maxrss));
	printf("%s: %d %s, status %d, child's utime %s, maxrss written %s\n", name, (int)r,
	       err == EFAULT ? "EFAULT" : strerror(err), WEXITSTATUS(status),
	       ru->ru_utime.tv_sec == 0 && ru->ru_utime.tv_usec < 100000 ? "yes" : "no",
	       maxrss != (long)0xabababababababab ? "yes" : "no");
}

int main(void)
{
	char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct rusage *ru;
	int status = 0;
	pid_t pid, r;

	if (pages == MAP_FAILED || mprotect(pages + 4096, 4096, PROT_READ) != 0)
		return 1;
	ru = (struct rusage *)(pages + 4096 - WRITABLE_BYTES);
	spend_cpu(0.3);
	for (int call = 0; call < 2; call++) {
		memset(pages + 4096 - WRITABLE_BYTES, 0xab, WRITABLE_BYTES);
		pid = fork();
		if (pid == 0)
			_exit(7);
		/* the status: the child's, from the kernel's write before the rusage's */
		r = call == 0 ? wait4(pid, &status, 0, ru) : wait3(&status, 0, ru);
		report(call == 0 ? "wait4" : "wait3", r, errno, status, ru);
	}
	errno = 0;
	r = wait(NULL);
	printf("again: %s\n", r < 0 && errno == ECHILD ? "ECHILD" : "a child");
	return 0;
}
