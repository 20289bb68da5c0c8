/*
 * inlined_site.c - an allocation made inside an always_inline function.
 * Built with -O2 -g, make_record has no code of its own: its malloc call sits
 * inside fill_table, and only the DWARF inline information says where it came
 * from.
 *
 * Expected facts (tests/e2e/inlined-site.sh):
 *   make_record: 6 allocations / 24000 bytes, all live at exit; its frame is
 *   marked inlined, with file inlined_site.c and the line marked
 *   INLINE_ALLOC_LINE; the frame after it (its caller) is fill_table, at the
 *   line marked INLINE_CALL_LINE.
 * stdout: "records: 6\n"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile table[8];

static inline __attribute__((always_inline)) void *make_record(size_t bytes, int tag)
{
	char *r = malloc(bytes); /* INLINE_ALLOC_LINE */
	if (r)
		memset(r, tag, 16);
	return r;
}

__attribute__((noinline)) static int fill_table(int n)
{
	int made = 0;
	for (int i = 0; i < n; i++) {
		table[i] = make_record(4000, i); /* INLINE_CALL_LINE */
		made += table[i] != NULL;
	}
	return made;
}

int main(void)
{
	printf("records: %d\n", fill_table(6));
	return 0;
}
