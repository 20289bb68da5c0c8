/*
 * seccomp_waits.c - a program under a seccomp filter that kills the process
 * on sched_yield, nanosleep, clock_nanosleep and futex (calls it never
 * makes itself), whose recorder must wait for room in a full ring
 * (tests/e2e/seccomp-waits.sh).  Run as the launcher's child under
 * `mprof run`.
 * 1. Stops the launcher (SIGSTOP, until /proc shows it stopped) and starts
 *    a thread that lets it go on (SIGCONT) 300 ms later; the thread is
 *    never joined (joining may wait on a futex).
 * 2. Installs the filter with prctl(PR_SET_SECCOMP): only this thread is
 *    under it.
 * 3. Makes 200000 allocations of 64 bytes from churn, each freed at once:
 *    with the launcher stopped the ring fills and its recorder waits.
 * 4. Prints "done" and returns 0.
 * Facts: 200002 allocations (churn's 200000, all freed; the thread's DTV;
 * stdout's buffer); the recorder waited at least once; exit status 0 (not
 * SIGSYS).
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "launcher_stop.h"
#include "seccomp_raw.h"

void *volatile seccomp_waits_sink;

__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 200000; i++) {
		seccomp_waits_sink = malloc(64);
		free(seccomp_waits_sink);
	}
}

#define KILL_ON(nr)                                      \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

static void sandbox(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		KILL_ON(SYS_sched_yield),
		KILL_ON(SYS_nanosleep),
		KILL_ON(SYS_clock_nanosleep),
		KILL_ON(SYS_futex),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	seccomp_install(0, &prog);
}

int main(void)
{
	pthread_t t;

	if (launcher_stop_300ms(&t) != 0)
		return 1;
	sandbox();
	churn();
	printf("done\n");
	return 0;
}
