/*
 * unrecorded_fork_lib.c - a library whose constructor registers a fork
 * child handler, for tests/progs/unrecorded_fork.c.  Its constructor runs
 * before the recorder's (a library of the program's is initialised before
 * the preloaded one), so its child handler runs before the recorder's own
 * has made the child's trace: the free it makes cannot be recorded.
 */
#include <pthread.h>
#include <stdlib.h>

/* The block the child handler frees; set by the program before fork(). */
void *unrecorded_fork_block;

static void unrecorded_fork_child(void)
{
	free(unrecorded_fork_block);
	unrecorded_fork_block = NULL;
}

__attribute__((constructor)) static void unrecorded_fork_register(void)
{
	pthread_atfork(NULL, NULL, unrecorded_fork_child);
}
