/*
 * analyze/symbolize/demangle.c - thin wrappers around two demanglers, so the rest of
 * the analyzer stays C: libiberty's rust_demangle for Rust names (linked
 * statically when configured with it), the C++ runtime's __cxa_demangle for
 * C++ names.  Owns the one handle of the C++ runtime it opens; must never
 * print.
 *
 * The runtime is loaded with dlopen the first time a mangled name comes,
 * not linked: loading libstdc++ (and the libm and libgcc_s it needs) at
 * start-up added 1.3 MiB to the peak RSS of every report, measured with
 * /proc/PID/smaps at the peak of python3's report (860 KiB of libstdc++'s
 * pages, 324 of libm's, 88 of libgcc_s'), and most reports read traces
 * whose names were demangled when they were symbolized.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

#include "analyze/symbolize/demangle.h"

/* The Itanium C++ ABI's demangler (libstdc++ / libc++abi). */
typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;
static cxa_demangle_fn cxa_demangle;

/* Finds __cxa_demangle: in the process already (a sanitizer runtime or a
 * library may have brought a C++ runtime), else in the first C++ runtime
 * that loads.  The handle stays open for the process's life. */
static void load_runtime(void)
{
	static const char *const sonames[] = { "libstdc++.so.6", "libc++abi.so.1" };

	cxa_demangle = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	for (size_t i = 0; !cxa_demangle && i < sizeof(sonames) / sizeof(sonames[0]); i++) {
		void *lib = dlopen(sonames[i], RTLD_LAZY | RTLD_LOCAL);

		if (lib)
			cxa_demangle = (cxa_demangle_fn)dlsym(lib, "__cxa_demangle");
	}
}

char *demangle_cxx(const char *name)
{
	int status = 0;
	char *out;

	/* Only Itanium names: "_Z..." (and "__Z" as some tools print them). */
	if (!name || (strncmp(name, "_Z", 2) != 0 && strncmp(name, "__Z", 3) != 0))
		return NULL;
	pthread_once(&runtime_once, load_runtime);
	if (!cxa_demangle)
		return NULL; /* no C++ runtime: the name stays as it is */
	out = cxa_demangle(name[1] == '_' ? name + 1 : name, NULL, NULL, &status);
	if (status != 0)
		return NULL; /* out is NULL whenever status is non-zero */
	return out;
}

char *demangle_rust(const char *name)
{
#ifdef HAVE_LIBIBERTY
	/* v0 names start "_R"; legacy ones are Itanium-like "_ZN...17h<hash>E",
	 * which rust_demangle tells from C++ by the hash.  Options 0: no hash,
	 * no crate disambiguators (DMGL_VERBOSE would print them). */
	if (!name || (strncmp(name, "_R", 2) != 0 && strncmp(name, "_ZN", 3) != 0))
		return NULL;
	return rust_demangle(name, 0);
#else
	(void)name;
	return NULL;
#endif
}

char *demangle_symbol(const char *name)
{
	char *out = demangle_rust(name);

	return out ? out : demangle_cxx(name);
}
