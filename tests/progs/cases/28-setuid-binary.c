/*
 * 28-setuid-binary.c - hard case 28: a set-user-ID (or set-group-ID)
 * executable owned by root, started by an unprivileged user.  The kernel
 * runs it in secure-execution mode (AT_SECURE), and the dynamic loader then
 * drops LD_PRELOAD entries that contain a slash or lie outside the trusted
 * system directories: an LD_PRELOAD profiler is silently not loaded.
 *
 * Why profilers get this wrong: the recorder never starts and the tool
 * shows no data or an obscure error instead of the reason (uftrace#164 on
 * ping; tcmalloc#45 lists it among the preloading pitfalls).  The program
 * must run unchanged, and mprof must say that the program is set-user-ID /
 * set-group-ID and that nothing is recorded.
 *
 * The program proves its own premise by printing AT_SECURE and its real
 * and effective ids.
 *
 * Expected facts (tests/cases/28-setuid-binary.sh; the test runs it as
 * uid/gid 65534, the file belongs to root:root):
 *   1. mode 4755: stdout exactly
 *        "secure=1 ruid=65534 euid=0 rgid=65534 egid=65534"
 *      mode 2755: stdout exactly
 *        "secure=1 ruid=65534 euid=65534 rgid=65534 egid=0"
 *      exit status 6 (or mprof refuses before running it: non-zero
 *      status, no output).
 *   2. `mprof run` returns within 10 s.
 *   3. mprof says the program is set-user-ID (set-group-ID) and that no
 *      allocation will be recorded; it leaves no empty trace behind.
 *   Control, the 4755 file started by root itself (no privilege gained, so
 *   no secure mode): stdout "secure=0 ruid=0 euid=0 rgid=0 egid=0", exit
 *   status 6, no such message, and the trace shows
 *      privileged_hoard  5 x malloc(1200), kept   5 / 6000   leak 5 / 6000
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

#define HOARDED 5

static void *volatile hoard[HOARDED];

__attribute__((noinline)) static void privileged_hoard(void)
{
	for (int k = 0; k < HOARDED; k++)
		hoard[k] = malloc(1200);
}

int main(void)
{
	privileged_hoard();
	printf("secure=%lu ruid=%u euid=%u rgid=%u egid=%u\n", getauxval(AT_SECURE),
	       (unsigned)getuid(), (unsigned)geteuid(), (unsigned)getgid(),
	       (unsigned)getegid());
	return 6;
}
