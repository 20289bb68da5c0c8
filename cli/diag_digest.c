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
	char *tail;     /* the same, diag_digest_add_at's; else NULL */
	char *text;     /* with DIAG_DIGEST_WHO where who goes when tail is set */
	unsigned count; /* processes that gave it */
};

static struct digest_entry digest[DIAG_DIGEST_MAX];
static size_t digest_used;

static void digest_print(bool warning, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void digest_vtake(bool warning, const char *who, const char *tail, const char *fmt,
			 va_list ap) __attribute__((format(printf, 4, 0)));

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

/* Prints e: as its one process gave it, or once for its count. */
static void digest_entry_print(const struct digest_entry *e)
{
	const char *mark = e->tail ? strstr(e->text, DIAG_DIGEST_WHO) : NULL;
	int before = mark ? (int)(mark - e->text) : 0;
	const char *after = mark ? mark + 1 : "";

	if (!mark && e->count == 1)
		digest_print(e->warning, "%s%s", e->who, e->text);
	else if (!mark)
		digest_print(e->warning, "%s (in %u processes)", e->text, e->count);
	else if (e->count == 1)
		digest_print(e->warning, "%.*s%s%s%s", before, e->text, e->who, after, e->tail);
	else
		digest_print(e->warning, "%.*sa process%s (in %u processes)", before, e->text,
			     after, e->count);
}

/* Counts the text once more, or holds it (who and tail copied; tail NULL:
 * diag_digest_add's); printed at once past DIAG_DIGEST_MAX texts or
 * without memory. */
static void digest_take(bool warning, const char *who, const char *tail, const char *text)
{
	struct digest_entry *e = digest_find(warning, text);
	struct digest_entry once = { warning, (char *)who, (char *)tail, (char *)text, 1 };

	if (e) {
		e->count++;
		return;
	}
	if (digest_used == DIAG_DIGEST_MAX) {
		digest_entry_print(&once);
		return;
	}
	e = &digest[digest_used];
	e->who = strdup(who);
	e->tail = tail ? strdup(tail) : NULL;
	e->text = strdup(text);
	if (!e->who || !e->text || (tail && !e->tail)) {
		free(e->who);
		free(e->tail);
		free(e->text);
		digest_entry_print(&once);
		return;
	}
	e->warning = warning;
	e->count = 1;
	digest_used++;
}

/* digest_take of the text fmt and ap give. */
static void digest_vtake(bool warning, const char *who, const char *tail, const char *fmt,
			 va_list ap)
{
	char text[DIGEST_TEXT_BYTES];

	vsnprintf(text, sizeof(text), fmt, ap);
	digest_take(warning, who, tail, text);
}

void diag_digest_add(bool warning, const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	digest_vtake(warning, who, NULL, fmt, ap);
	va_end(ap);
}

void diag_digest_add_at(bool warning, const char *who, const char *tail, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	digest_vtake(warning, who, tail, fmt, ap);
	va_end(ap);
}

void diag_digest_flush(void)
{
	for (size_t i = 0; i < digest_used; i++) {
		struct digest_entry *e = &digest[i];

		digest_entry_print(e);
		free(e->who);
		free(e->tail);
		free(e->text);
	}
	digest_used = 0;
}
