/*
 * analyze/util/error.c - analyze_error, analyze_name, analyze_command and
 * analyze_launcher_command (util/error.h).
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

static const char *analyze_argv0;

void analyze_command_init(const char *argv0)
{
	analyze_argv0 = argv0;
}

const char *analyze_launcher_command(void)
{
	const char *given = getenv("MPROF_ANALYZE_COMMAND");

	return strcmp(analyze_name(), "mprof") == 0 && given && *given ? given : "mprof";
}

const char *analyze_command(void)
{
	static char word[8192];
	size_t len;

	if (strcmp(analyze_name(), "mprof") == 0)
		return analyze_launcher_command();
	if (!analyze_argv0 || !strchr(analyze_argv0, '/'))
		return "mprof-analyze";
	len = argv_quote_append(word, sizeof(word) - 1, 0, analyze_argv0, strlen(analyze_argv0));
	word[len] = '\0';
	return word;
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
