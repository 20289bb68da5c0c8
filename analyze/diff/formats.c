/*
 * analyze/diff/formats.c - the table of `mprof diff` formats (diff.h): a new
 * format is one write_NAME.c in diff/ and one line here.
 */
#include <string.h>

#include "analyze/diff/diff.h"

static const struct diff_format diff_formats[] = {
	/* name, write, shows_gate, bare, takes_metric, takes_top */
	{ "text", diff_write_text, false, false, true, true },
	{ "json", diff_write_json, false, false, false, false },
	{ "folded", diff_write_folded, false, true, true, false },
	{ "flamegraph", diff_write_flamegraph, false, false, true, false },
	{ "html", diff_write_html, true, false, true, false },
};

const char diff_format_names[] = "text, json, folded, flamegraph or html";

const struct diff_format *diff_format_find(const char *name)
{
	for (size_t i = 0; i < sizeof(diff_formats) / sizeof(diff_formats[0]); i++)
		if (strcmp(diff_formats[i].name, name) == 0)
			return &diff_formats[i];
	return NULL;
}
