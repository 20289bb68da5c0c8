/*
 * exit_threads.c - a process that ends by exit() in one thread while three
 * others allocate and free as fast as they can: the end kills them
 * anywhere, often right after the recorder took a call's sequence number
 * (the kill waits for that locked add).  Built -O0 for the e2e test, whose
 * slower loop made that spot likelier (4 runs in 10 before the fix).
 * For tests/e2e/cut-calls.sh: exit status 7; every realloc succeeds.
 */
#include <pthread.h>
#include <stdlib.h>

static void *churn(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < 2000000; i++) {
		void *p = malloc(16 + (size_t)(i & 255)), *q;

		if (id == 0 && i == 100000)
			exit(7);
		/* a realloc takes two numbers, other threads' in between */
		q = realloc(p, 300 + (size_t)(i & 255));
		free(q ? q : p);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, churn, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
