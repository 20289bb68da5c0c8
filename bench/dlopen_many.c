/*
 * dlopen_many.c DIR N - dlopens DIR/lib0.so ... DIR/lib{N-1}.so one after
 * another (RTLD_NOW) and calls each one's lib_alloc right after its dlopen,
 * so that every library is new to mprof at its first allocation (exact
 * mode rescans the modules N times).  bench/dlopen_many.sh builds the
 * libraries and times `mprof run` of it.  Exits 1 when a library cannot be
 * loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	char path[4096];
	int n;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	for (int i = 0; i < n; i++) {
		void *h;
		void (*alloc)(void);

		snprintf(path, sizeof(path), "%s/lib%d.so", argv[1], i);
		h = dlopen(path, RTLD_NOW);
		alloc = h ? (void (*)(void))dlsym(h, "lib_alloc") : NULL;
		if (!alloc) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		alloc();
	}
	return 0;
}
