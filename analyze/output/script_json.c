/*
 * analyze/output/script_json.c - a stdio stream (glibc's fopencookie) that
 * escapes JSON for an HTML <script> element on its way to another stream
 * (script_json.h).
 */
#define _GNU_SOURCE /* fopencookie, fwrite_unlocked */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "analyze/output/script_json.h"

struct script_json {
	FILE *out;
	size_t pending;  /* bytes of E2 80 (the start of U+2028/9) held back */
};

static void emit(FILE *out, const char *s, size_t n)
{
	fwrite_unlocked(s, 1, n, out);
}

static const char line_start[2] = {'\xe2', '\x80'};

/* Writes the bytes held back, as they were. */
static void script_json_flush_pending(struct script_json *sj)
{
	emit(sj->out, line_start, sj->pending);
	sj->pending = 0;
}

static ssize_t script_json_write(void *cookie, const char *buf, size_t size)
{
	struct script_json *sj = cookie;
	size_t run = 0; /* buf[run..i) needs no escape */

	for (size_t i = 0; i < size; i++) {
		unsigned char c = (unsigned char)buf[i];
		const char *esc = NULL;

		if (sj->pending) {
			if (sj->pending == 1 && c == 0x80) {
				sj->pending = 2;
				run = i + 1;
				continue;
			}
			if (sj->pending == 2 && (c == 0xa8 || c == 0xa9)) {
				emit(sj->out, c == 0xa8 ? "\\u2028" : "\\u2029", 6);
				sj->pending = 0;
				run = i + 1;
				continue;
			}
			script_json_flush_pending(sj);
			run = i;
		}
		switch (c) {
		case '<': esc = "\\u003c"; break;
		case '>': esc = "\\u003e"; break;
		case '&': esc = "\\u0026"; break;
		case 0xe2: break;
		default: continue;
		}
		emit(sj->out, buf + run, i - run);
		run = i + 1;
		if (esc)
			emit(sj->out, esc, 6);
		else
			sj->pending = 1;
	}
	emit(sj->out, buf + run, size - run);
	return (ssize_t)size;
}

static int script_json_close(void *cookie)
{
	struct script_json *sj = cookie;

	script_json_flush_pending(sj);
	free(sj);
	return 0;
}

FILE *output_script_json_open(FILE *out)
{
	struct script_json *sj = calloc(1, sizeof(*sj));
	cookie_io_functions_t io = {.write = script_json_write, .close = script_json_close};
	FILE *f;

	if (!sj)
		return NULL;
	sj->out = out;
	f = fopencookie(sj, "w", io);
	if (!f)
		free(sj);
	return f;
}
