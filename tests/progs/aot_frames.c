/*
 * tests/progs/aot_frames.c - mallocs called through code no unwind table
 * covers, of both kinds a managed runtime has: a stub written at run time
 * into an anonymous executable page (JIT code: in no module) and a function
 * of a library loaded without .eh_frame_hdr (tests/progs/aot_frames_lib.c,
 * as mono's AOT images: a module, but one with no search table).  Both keep
 * frame pointers, so an unwinder can only guess them, as libunwind does;
 * the recorder's own unwinder must guess the same frames without giving up
 * to libunwind at every capture (it gave up at every frame of a module
 * without .eh_frame_hdr: mono's mallocs cost a libunwind walk, a
 * process_vm_readv and two sigprocmask calls each).
 *
 * Facts (tests/e2e/aot-frames.sh): main -> the stub (in no module) ->
 *   aot_call (libaot_frames_lib.so) -> make_block -> malloc: 4000 mallocs
 *   of 48 B, the last 6 live at exit (288 B); the stack is make_block,
 *   aot_call, the stub, main.  stdout "aot frames: done", exit status 0.
 *   Exit 77 on a machine that is not x86-64 (the stub is its code).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define AOT_FRAMES_CALLS 4000
#define AOT_FRAMES_KEPT 6

int aot_call(int (*fn)(int), int i);

/* Global and volatile, so that the compiler keeps every malloc and free. */
void *volatile kept[AOT_FRAMES_KEPT + 1];

/* Allocates one 48-byte block; the last AOT_FRAMES_KEPT calls keep theirs. */
__attribute__((noinline)) static int make_block(int i)
{
	kept[AOT_FRAMES_KEPT] = malloc(48);
	if (i >= AOT_FRAMES_CALLS - AOT_FRAMES_KEPT)
		kept[i - (AOT_FRAMES_CALLS - AOT_FRAMES_KEPT)] = kept[AOT_FRAMES_KEPT];
	else
		free(kept[AOT_FRAMES_KEPT]);
	return 0;
}

/* push rbp; mov rbp, rsp; movabs rax, aot_call; call rax; pop rbp; ret:
 * a frame-pointer frame with no CFI, as JIT code keeps; its two arguments
 * (rdi, rsi) pass through to aot_call. */
static void stub_write(unsigned char *at)
{
	static const unsigned char head[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8 };
	static const unsigned char tail[] = { 0xff, 0xd0, 0x5d, 0xc3 };
	uint64_t target = (uint64_t)(uintptr_t)aot_call;

	memcpy(at, head, sizeof(head));
	memcpy(at + sizeof(head), &target, sizeof(target));
	memcpy(at + sizeof(head) + sizeof(target), tail, sizeof(tail));
}

int main(void)
{
#if defined(__x86_64__)
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int (*stub)(int (*)(int), int);

	if (page == MAP_FAILED)
		return 2;
	stub_write(page);
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
		return 2;
	stub = (int (*)(int (*)(int), int))(void *)page;
	for (int i = 0; i < AOT_FRAMES_CALLS; i++)
		stub(make_block, i);
	puts("aot frames: done");
	return 0;
#else
	return 77;
#endif
}
