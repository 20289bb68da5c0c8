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
 *   through_stack_frame (a no-CFI frame whose rbp chain gives a stack
 *     address as the return address) -> make_stack_block: 1000 mallocs of
 *     56 B, 2 live at exit (112 B); its stack ends, truncated, at the
 *     no-CFI frame: the stack address is no frame (busybox's stacks showed
 *     one as "?? (0x7ffdf3ac49ac)").
 *   through_record with argv[0]'s address (the strings above the main
 *     stack) -> make_args_block: 500 mallocs of 72 B, 1 live (72 B);
 *     with 0x2f3d485441505f59 ("Y_PATH=/" read as an address, above user
 *     space) -> make_text_block: 400 mallocs of 88 B, 1 live (88 B);
 *     both stacks end, truncated, at through_record.
 *   stdout "no cfi frames: done", exit status 0.
 */
#include <stdio.h>
#include <stdlib.h>

/* Call fn(arg) from a frame with no CFI: through_frame pushes rbp and
 * makes it the frame pointer; through_no_frame pushes rbp and zeroes it;
 * through_stack_frame points rbp at a frame record {0, a stack address},
 * as a program without frame pointers leaves rbp holding any stack data;
 * through_record the same with the return address ra.
 * Top-level asm gets no .cfi directives. */
void through_frame(void (*fn)(int), int arg);
void through_no_frame(void (*fn)(int), int arg);
void through_stack_frame(void (*fn)(int), int arg);
void through_record(void (*fn)(int), int arg, unsigned long ra);
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
	".size through_no_frame, .-through_no_frame\n"
	".globl through_stack_frame\n"
	".type through_stack_frame, @function\n"
	"through_stack_frame:\n"
	"	push %rbp\n"
	"	sub $16, %rsp\n"
	"	movq $0, (%rsp)\n"
	"	mov %rsp, 8(%rsp)\n"
	"	mov %rsp, %rbp\n"
	"	mov %rdi, %rax\n"
	"	mov %esi, %edi\n"
	"	call *%rax\n"
	"	add $16, %rsp\n"
	"	pop %rbp\n"
	"	ret\n"
	".size through_stack_frame, .-through_stack_frame\n"
	".globl through_record\n"
	".type through_record, @function\n"
	"through_record:\n"
	"	push %rbp\n"
	"	sub $16, %rsp\n"
	"	movq $0, (%rsp)\n"
	"	mov %rdx, 8(%rsp)\n"
	"	mov %rsp, %rbp\n"
	"	mov %rdi, %rax\n"
	"	mov %esi, %edi\n"
	"	call *%rax\n"
	"	add $16, %rsp\n"
	"	pop %rbp\n"
	"	ret\n"
	".size through_record, .-through_record\n");

/* Global and volatile, so that the compiler keeps every malloc and free. */
void *volatile kept[16];

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

/* Allocates one 56-byte block; the last 2 of the calls keep theirs. */
__attribute__((noinline)) static void make_stack_block(int i)
{
	kept[11] = malloc(56);
	if (i >= 998)
		kept[8 + i - 998] = kept[11];
	else
		free(kept[11]);
}

/* Allocates one 72-byte block; the last call keeps it. */
__attribute__((noinline)) static void make_args_block(int i)
{
	kept[15] = malloc(72);
	if (i == 499)
		kept[12] = kept[15];
	else
		free(kept[15]);
}

/* Allocates one 88-byte block; the last call keeps it. */
__attribute__((noinline)) static void make_text_block(int i)
{
	kept[14] = malloc(88);
	if (i == 399)
		kept[13] = kept[14];
	else
		free(kept[14]);
}

int main(int argc, char **argv)
{
	for (int i = 0; i < 3000; i++)
		through_frame(make_frame_block, i);
	for (int i = 0; i < 2000; i++)
		through_no_frame(make_bare_block, i);
	for (int i = 0; i < 1000; i++)
		through_stack_frame(make_stack_block, i);
	for (int i = 0; i < 500 && argc > 0; i++)
		through_record(make_args_block, i, (unsigned long)argv[0]);
	for (int i = 0; i < 400; i++)
		through_record(make_text_block, i, 0x2f3d485441505f59ul);
	printf("no cfi frames: done\n");
	return 0;
}
