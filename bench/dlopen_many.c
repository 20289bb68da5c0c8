/*
 * dlopen_many.c DIR N [CHURN] - dlopens DIR/lib0.so ... DIR/lib{N-1}.so one
 * after another (RTLD_NOW) and calls each one's lib_alloc right after its
 * dlopen, so that every library is new to mprof at its first allocation
 * (exact mode rescans the modules N times); then CHURN times dlcloses one
 * of them (spread over all N) and loads it again, calling lib_alloc after
 * each load.  bench/dlopen_many.sh builds the libraries and times `mprof
 * run` of it.  Exits 1 when a library cannot be loaded or unloaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* Loads DIR/lib{i}.so and calls its lib_alloc; the handle, or NULL. */
static void *load(const char *dir, int i)
{
	char path[4096];
	void *h;
	void (*alloc)(void);

	snprintf(path, sizeof(path), "%s/lib%d.so", dir, i);
	h = dlopen(path, RTLD_NOW);
	alloc = h ? (void (*)(void))dlsym(h, "lib_alloc") : NULL;
	if (!alloc) {
		fprintf(stderr, "%s\n", dlerror());
		return NULL;
	}
	alloc();
	return h;
}

int main(int argc, char **argv)
{
	static void *handles[100000];
	int n, churn;

	if (argc != 3 && argc != 4)
		return 2;
	n = atoi(argv[2]);
	churn = argc == 4 ? atoi(argv[3]) : 0;
	if (n < 1 || n > 100000)
		return 2;
	for (int i = 0; i < n; i++)
		if (!(handles[i] = load(argv[1], i)))
			return 1;
	for (int k = 0; k < churn; k++) {
		int i = (int)((k * 7919L) % n);

		if (dlclose(handles[i]) != 0 || !(handles[i] = load(argv[1], i)))
			return 1;
	}
	return 0;
}
