/*
 * debug_lib.c - a shared library's allocation, for symbolization through
 * a separate debug file.  Built twice: with -DDEBUG_LIB_LIBRARY as the
 * library (lib_alloc), without it as the program that calls it.
 *
 * Expected facts (tests/e2e/separate-debug.sh): lib_alloc, at the line
 * marked LIB_ALLOC_LINE, 10 allocations of 100 bytes, all freed; the
 * program prints "lib allocations: 10".
 */
#include <stdio.h>
#include <stdlib.h>

#ifdef DEBUG_LIB_LIBRARY
__attribute__((noinline)) void *lib_alloc(size_t bytes)
{
	return malloc(bytes); /* LIB_ALLOC_LINE */
}
#else
void *lib_alloc(size_t bytes);

int main(void)
{
	int n = 0;

	for (int i = 0; i < 10; i++) {
		void *p = lib_alloc(100);

		n += p != NULL;
		free(p);
	}
	printf("lib allocations: %d\n", n);
	return 0;
}
#endif
