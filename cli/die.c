/*
 * cli/die.c - printing mprof's own messages and leaving with a documented
 * exit status.  Owns the "mprof: " prefix and the quiet flag.  Must never
 * write to stdout: the profiled program's output has to stay untouched.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/die.h"
#include "trace/argv_quote.h"

bool mprof_quiet;

/* A message is one line whatever it quotes (a command line from /proc or
 * a trace): control characters and bytes that are not UTF-8 are written as
 * \xNN (argv_quote.h). */
static void message_print(const char *prefix, const char *fmt, va_list ap)
{
	enum { LINE_BYTES = 4096, PRINTABLE_BYTES = 4 * LINE_BYTES };
	char line[LINE_BYTES];
	/* on the heap: 16 KiB more of stack is too much under a low
	 * `ulimit -s`, which mprof shares with the program */
	char *printable = malloc(PRINTABLE_BYTES);

	vsnprintf(line, sizeof(line), fmt, ap);
	if (printable)
		argv_quote_printable(line, printable, PRINTABLE_BYTES);
	else /* out of memory: still one line */
		for (char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
	/* One write per message so lines from several processes do not mix. */
	fprintf(stderr, "mprof: %s%s\n", prefix, printable ? printable : line);
	free(printable);
}

void mprof_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message_print("", fmt, ap);
	va_end(ap);
	exit(status);
}

void mprof_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message_print("warning: ", fmt, ap);
	va_end(ap);
}

void mprof_note(const char *fmt, ...)
{
	va_list ap;

	if (mprof_quiet)
		return;
	va_start(ap, fmt);
	message_print("", fmt, ap);
	va_end(ap);
}
