/*
 * thread_first_use.c - threads whose first allocator call comes from inside
 * a C-library function that holds the thread's own lock: pthread_getattr_np
 * allocates its CPU set while holding it, as every thread of a Rust, JVM or
 * Ruby program does when it starts.  Four threads on stacks of the C
 * library's and one on a stack of the program's own (pthread_attr_setstack)
 * each then make 25 allocations of 64 bytes in alloc_in_thread and free them.
 * Facts: exit 0, "threads done: 5"; alloc_in_thread: 125 allocations,
 * 8000 bytes, none leaked, called from thread_main.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define THREADS_LIBC 4
#define BLOCKS 25
#define OWN_STACK_BYTES (256u << 10)

__attribute__((noinline)) static void alloc_in_thread(void)
{
	void *blocks[BLOCKS];

	for (int i = 0; i < BLOCKS; i++)
		blocks[i] = malloc(64);
	for (int i = 0; i < BLOCKS; i++)
		free(blocks[i]);
}

static void *thread_main(void *arg)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	(void)arg;
	if (pthread_getattr_np(pthread_self(), &attr) != 0 ||
	    pthread_attr_getstack(&attr, &addr, &size) != 0 || !size)
		return NULL;
	pthread_attr_destroy(&attr);
	alloc_in_thread();
	return arg;
}

int main(void)
{
	pthread_t threads[THREADS_LIBC + 1];
	pthread_attr_t own;
	void *stack = mmap(NULL, OWN_STACK_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int done = 0;

	if (stack == MAP_FAILED)
		return 1;
	for (int i = 0; i < THREADS_LIBC; i++)
		if (pthread_create(&threads[i], NULL, thread_main, &threads[i]) != 0)
			return 1;
	pthread_attr_init(&own);
	if (pthread_attr_setstack(&own, stack, OWN_STACK_BYTES) != 0 ||
	    pthread_create(&threads[THREADS_LIBC], &own, thread_main, &threads[THREADS_LIBC]) != 0)
		return 1;
	for (int i = 0; i <= THREADS_LIBC; i++) {
		void *ret;

		pthread_join(threads[i], &ret);
		done += ret == &threads[i];
	}
	printf("threads done: %d\n", done);
	return 0;
}
