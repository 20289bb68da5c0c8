/*
 * tests/progs/deflate_alloc_count.c - a library preloaded into
 * mprof-analyze that counts its libdeflate_alloc_compressor calls and
 * passes each on to libdeflate's.  At exit it writes "compressors N" to
 * the file $DEFLATE_ALLOC_COUNT_FILE names.  tests/e2e/symbolize-together.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

struct libdeflate_compressor;

static unsigned long compressors;

struct libdeflate_compressor *libdeflate_alloc_compressor(int level)
{
	struct libdeflate_compressor *(*next)(int) =
		(struct libdeflate_compressor * (*)(int)) dlsym(RTLD_NEXT, "libdeflate_alloc_compressor");

	compressors++;
	return next ? next(level) : NULL;
}

__attribute__((destructor)) static void deflate_alloc_count_write(void)
{
	const char *path = getenv("DEFLATE_ALLOC_COUNT_FILE");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (!f)
		return;
	fprintf(f, "compressors %lu\n", compressors);
	fclose(f);
}
