/*
 * tests/progs/cfi_expression.c - mallocs called through a frame whose CFI
 * gives its CFA by a DWARF expression (DW_CFA_def_cfa_expression, as
 * hand-written assembly and the PLT have): the recorder's own unwinder
 * cannot walk it and falls back to libunwind, which the recorder loads
 * only when first needed, at a point where the loader's lock cannot be
 * held.  Prints whether libunwind is mapped at the end.
 *
 * usage: cfi_expression single|thread|none
 *   single: 1 malloc through the frame (before libunwind is loaded), 1
 *     malloc from main (a safe point), then 100 through the frame.
 *   thread: a thread is made and joined first (libunwind is loaded
 *     before it), then 101 through the frame.
 *   none: 101 mallocs from main only; nothing falls back.
 *
 * Facts (tests/e2e/libunwind-late.sh): through_expression -> leaf_block,
 * 40 B each, none live at exit; main -> plain_block (calloc), 24 B, none live.
 * stdout "libunwind: yes" (single, thread) or "libunwind: no" (none).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *through_expression(size_t size);

/* noinline: its frame is the allocator's caller. */
__attribute__((noinline)) void *leaf_block(size_t size)
{
	void *p = malloc(size);

	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

/* Calls leaf_block(size) from a frame whose CFA rule is the expression
 * "rsp + 16" (DW_OP_breg7 16), the same as a plain rule would say. */
__asm__(".text\n"
	".globl through_expression\n"
	".type through_expression, @function\n"
	"through_expression:\n"
	"	.cfi_startproc\n"
	"	subq $8, %rsp\n"
	"	.cfi_escape 0x0f, 0x02, 0x77, 0x10\n"
	"	call leaf_block\n"
	"	addq $8, %rsp\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size through_expression, .-through_expression\n");

__attribute__((noinline)) static void *plain_block(size_t size)
{
	void *p = calloc(1, size);

	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

static void *thread_main(void *arg)
{
	return arg;
}

/* Whether a libunwind is among the mappings (read without allocating
 * through the recorded allocator's sites above). */
static int libunwind_mapped(void)
{
	char line[4096];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/libunwind.so"))
			found = 1;
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int n = 101;

	if (strcmp(mode, "single") == 0) {
		free(through_expression(40));
		free(plain_block(24));
		n = 100;
	} else if (strcmp(mode, "thread") == 0) {
		pthread_t th;

		if (pthread_create(&th, NULL, thread_main, NULL) != 0 ||
		    pthread_join(th, NULL) != 0)
			return 1;
	} else if (strcmp(mode, "none") != 0) {
		fprintf(stderr, "usage: cfi_expression single|thread|none\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		free(strcmp(mode, "none") == 0 ? plain_block(24) : through_expression(40));
	printf("libunwind: %s\n", libunwind_mapped() ? "yes" : "no");
	return 0;
}
