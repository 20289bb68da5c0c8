/*
 * analyze/util/error.c - analyze_error and analyze_name (util/error.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/error.h"
#include "trace/argv_quote.h"

const char *analyze_name(void)
{
	const char *name = getenv("MPROF_ANALYZE_NAME");

	return name && strcmp(name, "mprof") == 0 ? "mprof" : "mprof-analyze";
}

/* The message is one line whatever it quotes from a trace (a marker's
 * name, a program's): its control characters and bytes that are not UTF-8
 * are written as \xNN, so a trace cannot send escape sequences to the
 * terminal. */
void analyze_error(const char *fmt, ...)
{
	char text[2048], printable[4 * sizeof(text)];
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	argv_quote_printable(text, printable, sizeof(printable));
	fprintf(stderr, "%s: %s\n", analyze_name(), printable);
}
