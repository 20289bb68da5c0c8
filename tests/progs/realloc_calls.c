/*
 * realloc_calls.c - 50 calls of realloc(NULL, 100), each block freed, then
 * one malloc(10) grown by 3 reallocs of the live block and freed: 53
 * realloc calls, 3 of them reallocs of a block (tests/e2e/realloc-calls.sh).
 * Prints nothing; exits with status 0.
 */
#include <stdlib.h>

void *volatile realloc_calls_sink;
void *volatile realloc_calls_null; /* NULL the compiler cannot see (it makes
                                     * realloc(NULL, n) a malloc) */

int main(void)
{
	void *q;

	for (int i = 0; i < 50; i++) {
		realloc_calls_sink = realloc(realloc_calls_null, 100);
		free(realloc_calls_sink);
	}
	q = malloc(10);
	for (int size = 20; size <= 40; size += 10)
		q = realloc(q, (size_t)size);
	realloc_calls_sink = q;
	free(q);
	return 0;
}
