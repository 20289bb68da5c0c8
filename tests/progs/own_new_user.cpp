/*
 * own_new_user.cpp - a C++ program that allocates with operator new and with
 * malloc, for tests/e2e/real3-foreign-new.sh (run with
 * tests/progs/own_new_alloc.c behind the recorder, or without it).
 *
 * Facts: stdout "made 300 objects and 40 malloc blocks", exit status 0.
 * Sites: new_objects makes 200 allocations of new int[6] (24 bytes) and 100
 * of new long (8 bytes), all deleted; malloc_blocks makes 40 malloc(48),
 * all freed.
 */
#include <cstdio>
#include <cstdlib>

/* Where each block's address goes, so that the compiler keeps every new and
 * delete (it may drop a pair whose block nothing else sees). */
static void *volatile sink;

__attribute__((noinline)) static void new_objects(void)
{
	for (int i = 0; i < 100; i++) {
		int *a = new int[6];
		int *b = new int[6];
		long *l = new long(i);

		a[0] = b[0] = (int)*l;
		sink = a;
		sink = b;
		sink = l;
		delete[] a;
		delete[] b;
		delete l;
	}
}

__attribute__((noinline)) static void malloc_blocks(void)
{
	for (int i = 0; i < 40; i++) {
		void *p = malloc(48);

		sink = p;
		free(p);
	}
}

int main(void)
{
	new_objects();
	malloc_blocks();
	printf("made 300 objects and 40 malloc blocks\n");
	return 0;
}
