/*
 * analyze/demangle.c - a thin wrapper around the C++ runtime's demangler,
 * so the rest of the analyzer stays C.  Owns nothing; must never print.
 */
#include <stddef.h>
#include <string.h>

#include "analyze/demangle.h"

/* From the Itanium C++ ABI runtime (libstdc++ / libc++abi). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *demangle_cxx(const char *name)
{
	int status = 0;
	char *out;

	/* Only Itanium names: "_Z..." (and "__Z" as some tools print them). */
	if (!name || (strncmp(name, "_Z", 2) != 0 && strncmp(name, "__Z", 3) != 0))
		return NULL;
	out = __cxa_demangle(name[1] == '_' ? name + 1 : name, NULL, NULL, &status);
	if (status != 0)
		return NULL; /* out is NULL whenever status is non-zero */
	return out;
}
