/*
 * claimed_fds.c - a program that owns every descriptor number: it closes
 * all from 3 up, opens FILE (which gets 3), writes "hello\n" into it and
 * goes back to its start; with "all" it then dup2s the file over every
 * other number below RLIMIT_NOFILE.  Then it allocates from functions
 * without unwind information (a profiler's unwinder falls back to its most
 * careful path there, which checks memory before reading it), one of them
 * with a frame pointer into a page that cannot be read, and says what
 * became of its descriptors.
 *
 * Usage: claimed_fds all|low FILE [refuse-vm-read]
 * With refuse-vm-read it first installs a seccomp filter under which
 * process_vm_readv(2) fails with EPERM (x86-64 only; elsewhere it exits 77).
 * Expected facts (tests/e2e/claimed-fds.sh), the same as without a
 * profiler: stdout "open: 0 1 2 3" (low: no descriptor but the program's;
 * all: "open: 0 1 2 and 3 to LIMIT-1"), "not the file: none", "position: 0",
 * "read back: hello"; FILE holds exactly "hello\n"; 1000 allocations of 100
 * to 1099 bytes (599500 bytes), all freed, from no_cfi_alloc called by main;
 * 10 of 64 bytes, all freed, from no_cfi_bad_frame.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#include "no_cfi_alloc.h"

void *no_cfi_bad_frame(size_t n, void *frame);
#if defined(__x86_64__)
/* A frame-pointer frame with no CFI that points rbp at frame, as a frame
 * clobbering it would. */
__asm__(".text\n.globl no_cfi_bad_frame\n.type no_cfi_bad_frame,@function\nno_cfi_bad_frame:\n"
	"push %rbp\nmov %rsi,%rbp\ncall malloc@PLT\npop %rbp\nret\n"
	".size no_cfi_bad_frame,.-no_cfi_bad_frame\n");
#else
void *no_cfi_bad_frame(size_t n, void *frame)
{
	(void)frame;
	return malloc(n);
}
#endif

/* A seccomp filter under which process_vm_readv fails with EPERM; 0, or
 * -1 where it cannot be had. */
static int refuse_vm_read(void)
{
#if defined(__x86_64__)
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
#else
	return -1;
#endif
}

/* Whether fd is open on the same file as st. */
static int same_file(int fd, const struct stat *st)
{
	struct stat other;

	return fstat(fd, &other) == 0 && other.st_dev == st->st_dev && other.st_ino == st->st_ino;
}

/* Prints the open descriptors ("0 1 2 3", or "0 1 2 and 3 to N" when every
 * one from 3 up is), then those from 3 up that are not the file. */
static void report_fds(int limit, const struct stat *st)
{
	char text[256] = "";
	int open_from_3 = 0, others = 0;
	size_t used = 0;

	for (int fd = 0; fd < limit; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		if (fd >= 3)
			open_from_3++;
		if (fd >= 3 && !same_file(fd, st) && used + 12 < sizeof(text))
			used += (size_t)snprintf(text + used, sizeof(text) - used, " %d", fd);
		others += fd >= 3 && !same_file(fd, st);
	}
	if (open_from_3 == limit - 3 && limit > 4)
		printf("open: 0 1 2 and 3 to %d\n", limit - 1);
	else if (open_from_3 == 1 && fcntl(3, F_GETFD) >= 0)
		printf("open: 0 1 2 3\n");
	else
		printf("open: %d from 3 up\n", open_from_3);
	printf("not the file:%s\n", others ? text : " none");
}

int main(int argc, char **argv)
{
	struct rlimit lim;
	struct stat st;
	char back[16] = "";
	void *blocks[1000];
	char *unreadable;
	int fd, limit;

	if (argc < 3 || (strcmp(argv[1], "all") != 0 && strcmp(argv[1], "low") != 0))
		return 2;
	if (argc > 3 && strcmp(argv[3], "refuse-vm-read") == 0 && refuse_vm_read() != 0)
		return 77;
	if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur > 65536)
		return 3;
	limit = (int)lim.rlim_cur;
	unreadable = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (unreadable == MAP_FAILED)
		return 3;
	closefrom(3);
	fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd != 3 || write(fd, "hello\n", 6) != 6 || lseek(fd, 0, SEEK_SET) != 0 ||
	    fstat(fd, &st) != 0)
		return 4;
	if (strcmp(argv[1], "all") == 0)
		for (int other = 4; other < limit; other++)
			if (dup2(fd, other) != other)
				return 5;
	for (int i = 0; i < 1000; i++)
		blocks[i] = no_cfi_alloc(100 + (size_t)i);
	for (int i = 0; i < 10; i++)
		free(no_cfi_bad_frame(64, unreadable + 64));
	for (int i = 0; i < 1000; i++)
		free(blocks[i]);
	report_fds(limit, &st);
	printf("position: %ld\n", (long)lseek(fd, 0, SEEK_CUR));
	if (read(fd, back, sizeof(back) - 1) < 0)
		return 6;
	printf("read back: %s", back);
	return 0;
}
