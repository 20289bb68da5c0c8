/*
 * analyze/symbolize/dw_loader.c - dlopen and dlsym of libdw, see dw_loader.h.  Owns
 * the library's handle for the process's life; must never print.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "analyze/symbolize/dw_loader.h"

struct dw_functions dw_fn;

static pthread_once_t dw_once = PTHREAD_ONCE_INIT;
static bool dw_tried;
static bool dw_loaded;
static char dw_error[256];

static void dw_open(void)
{
	struct dw_functions found;
	void *lib;

	dw_tried = true;
	lib = dlopen(DW_LOADER_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		const char *why = dlerror();

		snprintf(dw_error, sizeof(dw_error), "%s", why ? why : DW_LOADER_SONAME);
		return;
	}
	memset(&found, 0, sizeof(found));
#define DW_LOADER_FIND(f)                                      \
	found.f = (__typeof__(f) *)dlsym(lib, #f);             \
	if (!found.f) {                                        \
		snprintf(dw_error, sizeof(dw_error), "%s has no %s", \
			 DW_LOADER_SONAME, #f);                  \
		return;                                        \
	}
	DW_LOADER_FUNCTIONS(DW_LOADER_FIND)
#undef DW_LOADER_FIND
	dw_fn = found;
	dw_loaded = true;
}

bool dw_load(void)
{
	pthread_once(&dw_once, dw_open);
	return dw_loaded;
}

bool dw_load_failed(void)
{
	return dw_tried && !dw_loaded;
}

const char *dw_load_error(void)
{
	return dw_error;
}
