/*
 * deep_bind_main.c - loads LIB (tests/progs/deep_bind_lib.c) with
 * dlopen(RTLD_NOW | RTLD_DEEPBIND), as PHP loads its extensions, and calls
 * deep_bind_lib_run with main_cb_alloc (3 blocks of 48 bytes, which the
 * library frees); then 7 blocks of 333 bytes from main_alloc, never freed
 * (tests/e2e/deep-bind.sh).  Writes "done" with write(2) (no stdio
 * buffer) and exits with status 0; status 1 when LIB cannot be loaded.
 * With a second argument "sandboxed", first installs a seccomp filter
 * (prctl) that kills the process on pwrite64, as a sandbox that allows
 * only what it expects does.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp_raw.h"

void *volatile deep_bind_main_sink;

__attribute__((noinline)) void *main_cb_alloc(size_t size_bytes)
{
	return malloc(size_bytes);
}

__attribute__((noinline)) void main_alloc(void)
{
	for (int i = 0; i < 7; i++)
		deep_bind_main_sink = malloc(333);
}

static void sandbox(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pwrite64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	seccomp_install(0, &prog);
}

int main(int argc, char **argv)
{
	void (*run)(void *(*)(size_t));
	void *h;

	if (argc != 2 && (argc != 3 || strcmp(argv[2], "sandboxed") != 0))
		return 2;
	if (argc == 3)
		sandbox();
	h = dlopen(argv[1], RTLD_NOW | RTLD_DEEPBIND);
	run = h ? (void (*)(void *(*)(size_t)))dlsym(h, "deep_bind_lib_run") : NULL;
	if (!run)
		return 1;
	run(main_cb_alloc);
	main_alloc();
	return write(1, "done\n", 5) == 5 ? 0 : 1;
}
