/*
 * cli/diag_digest.c - holds the launcher's per-process diagnostics and
 * prints each distinct text once, with the number of processes that gave
 * it (see diag_digest.h).  Prints only through cli/die.h.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/diag_digest.h"
#include "cli/die.h"

enum { DIGEST_TEXT_BYTES = 2048 };

struct digest_entry {
	bool warning;
	char *who;      /* of the first process that gave it */
	char *text;
	unsigned count; /* processes that gave it */
};

static struct digest_entry digest[DIAG_DIGEST_MAX];
static size_t digest_used;

static void digest_print(bool warning, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints one line as mprof_warn or mprof_note. */
static void digest_print(bool warning, const char *fmt, ...)
{
	char line[DIGEST_TEXT_BYTES + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (warning)
		mprof_warn("%s", line);
	else
		mprof_note("%s", line);
}

/* The entry holding (warning, text), or NULL. */
static struct digest_entry *digest_find(bool warning, const char *text)
{
	for (size_t i = 0; i < digest_used; i++)
		if (digest[i].warning == warning && strcmp(digest[i].text, text) == 0)
			return &digest[i];
	return NULL;
}

void diag_digest_add(bool warning, const char *who, const char *fmt, ...)
{
	char text[DIGEST_TEXT_BYTES];
	struct digest_entry *e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	e = digest_find(warning, text);
	if (e) {
		e->count++;
		return;
	}
	if (digest_used == DIAG_DIGEST_MAX) {
		digest_print(warning, "%s%s", who, text);
		return;
	}
	e = &digest[digest_used];
	e->who = strdup(who);
	e->text = strdup(text);
	if (!e->who || !e->text) {
		free(e->who);
		free(e->text);
		digest_print(warning, "%s%s", who, text);
		return;
	}
	e->warning = warning;
	e->count = 1;
	digest_used++;
}

void diag_digest_flush(void)
{
	for (size_t i = 0; i < digest_used; i++) {
		struct digest_entry *e = &digest[i];

		if (e->count == 1)
			digest_print(e->warning, "%s%s", e->who, e->text);
		else
			digest_print(e->warning, "%s (in %u processes)", e->text, e->count);
		free(e->who);
		free(e->text);
	}
	digest_used = 0;
}
