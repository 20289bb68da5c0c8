/*
 * tests/progs/aot_fd_race.c - a program whose descriptor numbers must stay
 * its own while another thread allocates through a module without
 * .eh_frame_hdr (tests/progs/aot_frames_lib.c, as mono's AOT images).  The
 * recorder decides how to unwind such a module from its file's section
 * headers; it once opened the file at every rule-cache miss inside malloc,
 * so a descriptor the program did not open came and went under it.
 *
 * Main thread: ROUNDS times dlopen()s a library, the next of those named
 * by the arguments in turn, and dlclose()s it, calling malloc through its 64
 * call sites (aot_call_site) CALLS times in between: two libraries built
 * from aot_frames_lib.c, one with .eh_frame and one without, loaded in turn
 * where the other was, ask the recorder to decide each load afresh.  The second thread, until main is done:
 * open("/dev/null") must return the lowest free number (found at the start)
 * and the number above it must be free (fcntl F_GETFD fails), then it closes
 * it again (only while the library is loaded: dlopen opens a descriptor of
 * the program's own).  Prints "fd race: N surprises in M opens", then
 * "loads where the last one was: K", and exits 0 when N is 0, 1 otherwise;
 * 2 on a setup error.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ROUNDS 8
#define CALLS 2048

/* main sets go while the library is loaded (the loader opens its file at
 * dlopen: that descriptor is the program's own); the thread sets working
 * before it looks at go, so main, after clearing go, waits it out. */
static atomic_int done, go, working;
static int lowest;
static long surprises;
static atomic_long opens;

/* Global and volatile, so that the compiler keeps every malloc and free. */
void *volatile block;

__attribute__((noinline)) static int make_block(int i)
{
	block = malloc(16 + (size_t)(i % 7));
	free(block);
	return 0;
}

/* Opens and closes /dev/null until main is done, counting surprises. */
static void *fd_work(void *arg)
{
	(void)arg;
	while (!atomic_load(&done)) {
		int fd;

		atomic_store(&working, 1);
		if (!atomic_load(&go)) {
			atomic_store(&working, 0);
			sched_yield();
			continue;
		}
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		atomic_fetch_add(&opens, 1);
		if (fd != lowest || fcntl(lowest + 1, F_GETFD) != -1)
			surprises++;
		if (fd >= 0)
			close(fd);
		atomic_store(&working, 0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	void *last_base = NULL;
	int same_base = 0;

	if (argc < 2)
		return 2;
	lowest = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (lowest < 0 || fcntl(lowest + 1, F_GETFD) != -1)
		return 2;
	close(lowest);
	if (pthread_create(&t, NULL, fd_work, NULL) != 0)
		return 2;
	for (int r = 0; r < ROUNDS; r++) {
		void *lib = dlopen(argv[1 + r % (argc - 1)], RTLD_NOW);
		int (*call_site)(int (*)(int), int);
		Dl_info where;

		if (!lib)
			return 2;
		*(void **)&call_site = dlsym(lib, "aot_call_site");
		if (!call_site || !dladdr(*(void **)&call_site, &where))
			return 2;
		same_base += where.dli_fbase == last_base;
		last_base = where.dli_fbase;
		long before = atomic_load(&opens);

		atomic_store(&go, 1);
		while (atomic_load(&opens) == before)
			sched_yield(); /* the thread is at work */
		for (int i = 0; i < CALLS; i++)
			call_site(make_block, i);
		atomic_store(&go, 0);
		while (atomic_load(&working))
			sched_yield();
		dlclose(lib);
	}
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	printf("fd race: %ld surprises in %ld opens\n", surprises, atomic_load(&opens));
	printf("loads where the last one was: %d\n", same_base);
	return surprises != 0;
}
