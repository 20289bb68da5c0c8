/*
 * tests/progs/foreign_class.c - a program built 32-bit (-m32) by
 * tests/e2e/foreign-class.sh, whose 64-bit recorder its loader cannot load.
 *
 * Usage: foreign_class.  Allocates and frees one block, writes
 * "foreign_class: stderr" to stderr and "foreign_class: 4-byte pointers"
 * (its pointer size) to stdout, and exits with status 7.
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	char *block = malloc(100);

	fprintf(stderr, "foreign_class: stderr\n");
	printf("foreign_class: %zu-byte pointers\n", sizeof(block));
	free(block);
	return 7;
}
