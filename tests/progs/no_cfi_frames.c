/*
 * tests/progs/no_cfi_frames.c - mallocs called through frames that have no
 * CFI at all (hand-written assembly, as Go's runtime.asmcgocall that every
 * cgo call passes through, or JIT code): no FDE of .eh_frame_hdr covers
 * them, so an unwinder can only guess.  libunwind guesses a frame-pointer
 * frame when rbp lies at most 16 KiB above sp and ends the stack there
 * otherwise; the recorder's own unwinder must give the same frames without
 * falling back to libunwind at every capture (it did: 10 times the cost of
 * a capture through C frames).
 *
 * Facts (tests/e2e/no-cfi-frames.sh):
 *   through_frame (a no-CFI frame that keeps a frame pointer) ->
 *     make_frame_block: 3000 mallocs of 40 B, 5 live at exit (200 B);
 *     its stack goes on through the no-CFI frame to main.
 *   through_no_frame (a no-CFI frame whose rbp is 0, not a frame
 *     pointer) -> make_bare_block: 2000 mallocs of 24 B, 3 live at exit
 *     (72 B); its stack ends at the no-CFI frame.
 *   stdout "no cfi frames: done", exit status 0.
 */
#include <stdio.h>
#include <stdlib.h>

/* Call fn(arg) from a frame with no CFI: through_frame pushes rbp and
 * makes it the frame pointer; through_no_frame pushes rbp and zeroes it.
 * Top-level asm gets no .cfi directives. */
void through_frame(void (*fn)(int), int arg);
void through_no_frame(void (*fn)(int), int arg);
__asm__(".text\n"
	".globl through_frame\n"
	".type through_frame, @function\n"
	"through_frame:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	mov %rdi, %rax\n"
	"	mov %esi, %edi\n"
	"	call *%rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size through_frame, .-through_frame\n"
	".globl through_no_frame\n"
	".type through_no_frame, @function\n"
	"through_no_frame:\n"
	"	push %rbp\n"
	"	xor %ebp, %ebp\n"
	"	mov %rdi, %rax\n"
	"	mov %esi, %edi\n"
	"	call *%rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size through_no_frame, .-through_no_frame\n");

/* Global and volatile, so that the compiler keeps every malloc and free. */
void *volatile kept[8];

/* Allocates one 40-byte block; the last 5 of the calls keep theirs. */
__attribute__((noinline)) static void make_frame_block(int i)
{
	kept[7] = malloc(40);
	if (i >= 2995)
		kept[i - 2995] = kept[7];
	else
		free(kept[7]);
}

/* Allocates one 24-byte block; the last 3 of the calls keep theirs. */
__attribute__((noinline)) static void make_bare_block(int i)
{
	kept[7] = malloc(24);
	if (i >= 1997)
		kept[5 + i - 1997] = kept[7];
	else
		free(kept[7]);
}

int main(void)
{
	for (int i = 0; i < 3000; i++)
		through_frame(make_frame_block, i);
	for (int i = 0; i < 2000; i++)
		through_no_frame(make_bare_block, i);
	printf("no cfi frames: done\n");
	return 0;
}
