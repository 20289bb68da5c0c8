/*
 * tests/progs/jit_frames.c - mallocs called from code compiled at run time,
 * as a JIT's (V8, the JVM): two copies of a stub in an anonymous executable
 * page, which no module holds and no symbol names, each calling
 * leak_small(n).  The page lies at an address that differs with argv[1]
 * (as a JIT's code does from run to run), so `mprof diff` of two runs must
 * match the stubs' frames by what they are, not by their address.
 *
 * Facts (tests/e2e/diff-jit.sh), for argv[1] = K (1 or 2):
 *   the page at 0x3K0000000000 (exit 2 when it cannot be mapped there);
 *   each stub -> leak_small(K * 50): K * 50 mallocs of 32 B, all live at
 *   exit (2 * K * 50 in all); stdout "jit frames: done", exit status 0.
 *   Exit 77 on a machine that is not x86-64 (the stubs are its code).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define STUB_BYTES 64 /* the second stub's offset in the page */

static void *volatile kept;

/* 32-byte blocks, kept: a site the diff compares. */
__attribute__((noinline)) void leak_small(int n)
{
	for (int i = 0; i < n; i++) {
		void **p = malloc(32);
		*p = kept; /* a chain, so every block stays reachable */
		kept = p;
	}
}

/* push rbp; mov rbp, rsp; movabs rax, leak_small; call rax; pop rbp; ret:
 * a frame-pointer frame, as JIT code keeps, with no CFI. */
static void stub_write(unsigned char *at)
{
	static const unsigned char head[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8 };
	static const unsigned char tail[] = { 0xff, 0xd0, 0x5d, 0xc3 };
	uint64_t target = (uint64_t)(uintptr_t)leak_small;

	memcpy(at, head, sizeof(head));
	memcpy(at + sizeof(head), &target, sizeof(target));
	memcpy(at + sizeof(head) + sizeof(target), tail, sizeof(tail));
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	int k = argc > 1 ? atoi(argv[1]) : 1;
	void *hint = (void *)(uintptr_t)(0x300000000000ull + (uint64_t)k * 0x10000000000ull);
	unsigned char *page = mmap(hint, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (k < 1 || k > 2 || page != hint)
		return 2;
	stub_write(page);
	stub_write(page + STUB_BYTES);
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
		return 2;
	((void (*)(int))(void *)page)(k * 50);
	((void (*)(int))(void *)(page + STUB_BYTES))(k * 50);
	puts("jit frames: done");
	return 0;
#else
	(void)argc;
	(void)argv;
	return 77;
#endif
}
