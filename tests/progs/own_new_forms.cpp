/*
 * own_new_forms.cpp - a C++ program that uses every kind of operator new
 * and delete, for tests/e2e/real3-foreign-new.sh (run with
 * tests/progs/own_new_alloc.c behind the recorder, which serves them).
 * Argument: the path of tests/progs/own_new_plugin.cpp built as a library.
 *
 * Facts: stdout "caught bad_alloc\nnothrow gave NULL\nplugin made 60\n
 * forms done", exit status 0.  Sites (all deleted unless said):
 * array_objects 50 new char[100] (5000 bytes); nothrow_objects 30
 * new (nothrow) int[4] (480 bytes); aligned_objects 20 new of a 64-byte
 * struct aligned to 64 (1280 bytes) and 10 new (nothrow) of it (640 bytes);
 * failing_new 1 allocation, freed, under 1 KiB: the C++ library's
 * exception object (one new and one nothrow new of 1 TiB fail, none made);
 * thread_objects 40 new long on a second thread (320 bytes); kept_objects
 * 5 new int[8] (160 bytes), never deleted; plugin_objects (in the plugin,
 * loaded with dlopen(RTLD_LAZY)) 60 new short[10] (1200 bytes).
 */
#include <cstdio>
#include <dlfcn.h>
#include <new>
#include <pthread.h>

/* Where each block's address goes, so that the compiler keeps every new and
 * delete. */
static void *volatile sink;

struct alignas(64) Line {
	char bytes[64];
};

__attribute__((noinline)) static void array_objects(void)
{
	for (int i = 0; i < 50; i++) {
		char *a = new char[100];

		sink = a;
		delete[] a;
	}
}

__attribute__((noinline)) static void nothrow_objects(void)
{
	for (int i = 0; i < 30; i++) {
		int *a = new (std::nothrow) int[4];

		sink = a;
		delete[] a;
	}
}

__attribute__((noinline)) static void aligned_objects(void)
{
	for (int i = 0; i < 20; i++) {
		Line *l = new Line;

		sink = l;
		delete l;
	}
	for (int i = 0; i < 10; i++) {
		Line *l = new (std::nothrow) Line;

		sink = l;
		delete l;
	}
}

/* A new and a nothrow new of 1 TiB, which fail: bit 0 of the result says
 * that the first threw std::bad_alloc, bit 1 that the second gave NULL
 * (the caller prints: stdout's buffer is not this site's). */
__attribute__((noinline)) static int failing_new(void)
{
	size_t huge = (size_t)1 << 40;
	int failed = 0;

	try {
		char *a = new char[huge];

		sink = a;
		delete[] a;
	} catch (const std::bad_alloc &) {
		failed |= 1;
	}
	char *b = new (std::nothrow) char[huge];
	if (!b)
		failed |= 2;
	delete[] b;
	return failed;
}

__attribute__((noinline)) static void *thread_objects(void *arg)
{
	for (int i = 0; i < 40; i++) {
		long *l = new long(i);

		sink = l;
		delete l;
	}
	return arg;
}

__attribute__((noinline)) static void kept_objects(void)
{
	for (int i = 0; i < 5; i++)
		sink = new int[8];
}

int main(int argc, char **argv)
{
	pthread_t thread;

	if (argc < 2)
		return 2;
	array_objects();
	nothrow_objects();
	aligned_objects();
	int failed = failing_new();
	if (failed & 1)
		printf("caught bad_alloc\n");
	if (failed & 2)
		printf("nothrow gave NULL\n");
	if (pthread_create(&thread, nullptr, thread_objects, nullptr) != 0 ||
	    pthread_join(thread, nullptr) != 0)
		return 3;
	kept_objects();
	void *plugin = dlopen(argv[1], RTLD_LAZY);
	int (*made)(void) = plugin ? (int (*)(void))dlsym(plugin, "plugin_run") : nullptr;
	if (!made)
		return 4;
	printf("plugin made %d\n", made());
	printf("forms done\n");
	return 0;
}
