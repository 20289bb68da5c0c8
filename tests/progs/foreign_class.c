/*
 * tests/progs/foreign_class.c - a program built 32-bit (-m32) by
 * tests/e2e/foreign-class.sh, whose 64-bit recorder its loader cannot load.
 *
 * Usage: foreign_class.  Allocates and frees one block, writes
 * "foreign_class: stderr" to stderr and "foreign_class: 4-byte pointers"
 * (its pointer size) to stdout, and exits with status 7.  With
 * FOREIGN_CLASS_SHOW_PRELOAD set it first writes "foreign_class:
 * LD_PRELOAD=VALUE" (or "LD_PRELOAD unset") to stdout
 * (tests/e2e/foreign-child.sh).
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	char *block = malloc(100);
	const char *preload = getenv("LD_PRELOAD");

	if (getenv("FOREIGN_CLASS_SHOW_PRELOAD")) {
		if (preload)
			printf("foreign_class: LD_PRELOAD=%s\n", preload);
		else
			printf("foreign_class: LD_PRELOAD unset\n");
	}

	fprintf(stderr, "foreign_class: stderr\n");
	printf("foreign_class: %zu-byte pointers\n", sizeof(block));
	free(block);
	return 7;
}
