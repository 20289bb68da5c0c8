/*
 * analyze/util/error.c - analyze_error and analyze_name (util/error.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/error.h"

const char *analyze_name(void)
{
	const char *name = getenv("MPROF_ANALYZE_NAME");

	return name && strcmp(name, "mprof") == 0 ? "mprof" : "mprof-analyze";
}

void analyze_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", analyze_name());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
