/*
 * toggle_raw.c - run with `mprof run --paused` (SIGUSR2 toggles): makes the
 * rt_sigaction system call through syscall(2) on SIGUSR2 as a program that
 * checks the kernel's answers may: a new action at an unreadable address
 * (a PROT_NONE page, and address 8) is refused with EFAULT, and the old
 * action read back is the default one (mprof's handler stands for it), all
 * zero.
 *
 * Facts (tests/e2e/toggle-raw.sh): stdout, exit status 0:
 *   unreadable page: -1 EFAULT
 *   address 8: -1 EFAULT
 *   read back: 0, handler 0, flags 0, restorer 0, mask 0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* rt_sigaction(SIGUSR2, act, old) with the kernel's 8-byte mask, as
 * "RC ERRNO-NAME". */
static void try(const char *what, void *act, void *old)
{
	long rc;

	errno = 0;
	rc = syscall(SYS_rt_sigaction, SIGUSR2, act, old, 8);
	printf("%s: %ld %s\n", what, rc, rc == 0 ? "ok" : errno == EFAULT ? "EFAULT" : strerror(errno));
}

int main(void)
{
	void *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long old[4];
	long rc;

	if (none == MAP_FAILED)
		return 1;
	setvbuf(stdout, NULL, _IONBF, 0);
	try("unreadable page", none, NULL);
	try("address 8", (void *)8, NULL);
	memset(old, 0x55, sizeof(old));
	rc = syscall(SYS_rt_sigaction, SIGUSR2, NULL, old, 8);
	printf("read back: %ld, handler %lu, flags %#lx, restorer %lu, mask %#lx\n", rc, old[0],
	       old[1], old[2], old[3]);
	return 0;
}
