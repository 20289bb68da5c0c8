/*
 * deep_bind_late_main.c - DIR N LIB: loads DIR/lib0.so .. lib(N-1).so
 * (copies of tests/progs/dlopen_chain_lib.c built with -DPLUG=plug, none
 * called), then LIB (tests/progs/deep_bind_late_lib.c, linked with lazy
 * binding) with dlopen(RTLD_LAZY | RTLD_DEEPBIND), and calls its
 * late_lib_run with main_cb (1 block of 48 bytes, freed by main): a stack through
 * LIB, so mprof looks at LIB while its malloc slot is not bound yet.  LIB's
 * first late_lib_alloc (1 block of 111 bytes, kept) then binds that slot
 * to the C library's malloc, past mprof; DIR/lib<N>.so loaded and its
 * plug_alloc called (8 bytes, kept) make mprof look again, after which
 * late_lib_alloc's 5 blocks of 222 bytes come through it.  LIB is then
 * closed and loaded again (RTLD_NOW | RTLD_DEEPBIND: its slot bound to the
 * C library's at once), DIR/lib<N+1>.so loaded and called, and
 * late_lib_alloc's 3 blocks of 333 bytes must come through mprof too.
 * main frees every block of late_lib_alloc's but the first.  Writes "same
 * address" or "moved" (whether LIB came back where it was), then "done",
 * with write(2), and exits 0; 1 when a library cannot be loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *volatile late_main_sink;

__attribute__((noinline)) void *main_cb(size_t size_bytes)
{
	return malloc(size_bytes);
}

/* Loads dir/lib<i>.so, and calls its plug_alloc when call is set; 0, or -1
 * when it cannot. */
static int load_copy(const char *dir, int i, int call)
{
	char path[4096];
	void (*plug_alloc)(void);
	void *h;

	snprintf(path, sizeof(path), "%s/lib%d.so", dir, i);
	h = dlopen(path, RTLD_NOW);
	if (!h)
		return -1;
	if (!call)
		return 0;
	plug_alloc = (void (*)(void))dlsym(h, "plug_alloc");
	if (!plug_alloc)
		return -1;
	plug_alloc();
	return 0;
}

/* n blocks of size_bytes from LIB's late_lib_alloc, freed by main. */
static void lib_blocks(void *h, int n, size_t size_bytes)
{
	void *(*alloc)(size_t) = (void *(*)(size_t))dlsym(h, "late_lib_alloc");

	for (int i = 0; i < n; i++)
		free(alloc(size_bytes));
}

static int say(const char *text)
{
	return write(1, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : 1;
}

int main(int argc, char **argv)
{
	void *(*run)(void *(*)(size_t));
	void *(*alloc)(size_t);
	void *h, *first;
	int n;

	if (argc != 4)
		return 2;
	n = atoi(argv[2]);
	for (int i = 0; i < n; i++)
		if (load_copy(argv[1], i, 0) < 0)
			return 1;
	h = dlopen(argv[3], RTLD_LAZY | RTLD_DEEPBIND);
	run = h ? (void *(*)(void *(*)(size_t)))dlsym(h, "late_lib_run") : NULL;
	alloc = h ? (void *(*)(size_t))dlsym(h, "late_lib_alloc") : NULL;
	if (!run || !alloc)
		return 1;
	free(run(main_cb));
	late_main_sink = alloc(111);
	if (load_copy(argv[1], n, 1) < 0)
		return 1;
	lib_blocks(h, 5, 222);
	first = (void *)alloc;
	dlclose(h);
	h = dlopen(argv[3], RTLD_NOW | RTLD_DEEPBIND);
	if (!h || load_copy(argv[1], n + 1, 1) < 0)
		return 1;
	lib_blocks(h, 3, 333);
	if (say(dlsym(h, "late_lib_alloc") == first ? "same address\n" : "moved\n"))
		return 1;
	return say("done\n");
}
