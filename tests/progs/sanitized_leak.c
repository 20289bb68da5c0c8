/*
 * sanitized_leak.c - built with a sanitizer by tests/e2e/sanitizer-programs.sh:
 * 3 blocks of 100 bytes freed, one of 64 kept to the end and freed, a line
 * on stdout, exit status 5.  With SANITIZED_LEAK_KEEP set in the environment
 * the block of 64 bytes is leaked (tests/e2e/sanitizer-children.sh), which a
 * sanitizer's leak check reports (LeakSanitizer's exit status: 23).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char *volatile keep = malloc(64); /* volatile: kept by the compiler */
	unsigned sum = 0;

	for (int i = 0; i < 3; i++) {
		char *volatile p = malloc(100);

		memset((char *)p, i + 1, 100);
		sum += (unsigned char)p[99];
		free(p);
	}
	printf("sum %u\n", sum);
	if (!getenv("SANITIZED_LEAK_KEEP"))
		free(keep);
	return 5;
}
