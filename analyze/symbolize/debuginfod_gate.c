/*
 * analyze/symbolize/debuginfod_gate.c - keeps libdw from loading its debuginfod
 * client when no debuginfod server is configured.
 *
 * libdw 0.188 (Debian 12) dlopens libdebuginfod.so.1 the first time a
 * module's separate debug file is not found locally, whether or not
 * DEBUGINFOD_URLS names a server, and that pulls in some thirty libraries
 * (curl, TLS, LDAP, Kerberos): the symbolize step of `python3 -c pass`
 * (Debian's python3, no debug info installed) took 7.1 ms with it and 2.7
 * ms without.  This dlopen, found before libc's because the executable
 * defines it, refuses that one library while DEBUGINFOD_URLS is unset or
 * empty (libdw then goes on without debuginfod, as it does when the
 * library is not installed) and passes every other call to the next
 * definition.  `mprof-analyze symbolize` unsets DEBUGINFOD_URLS unless
 * MPROF_DEBUGINFOD is set (cmd/symbolize.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* The soname libdw asks for (DEBUGINFOD_SONAME in elfutils). */
#define DEBUGINFOD_SONAME "libdebuginfod.so.1"

void *dlopen(const char *file, int mode)
{
	static void *(*next)(const char *, int);
	const char *urls = getenv("DEBUGINFOD_URLS");
	const char *base = file ? strrchr(file, '/') : NULL;

	base = base ? base + 1 : file;
	if (base && strcmp(base, DEBUGINFOD_SONAME) == 0 && (!urls || !*urls))
		return NULL;
	if (!next)
		next = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	return next ? next(file, mode) : NULL;
}
