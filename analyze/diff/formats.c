/*
 * analyze/diff/formats.c - the table of `mprof diff` formats (diff.h): a new
 * format is one write_NAME.c in diff/ and one line here.
 */
#include <string.h>

#include "analyze/diff/diff.h"

static const struct diff_format diff_formats[] = {
	{ "text", diff_write_text, false, false },
	{ "json", diff_write_json, false, false },
	{ "folded", diff_write_folded, false, true },
	{ "flamegraph", diff_write_flamegraph, false, false },
	{ "html", diff_write_html, true, false },
};

const char diff_format_names[] = "text, json, folded, flamegraph or html";

const struct diff_format *diff_format_find(const char *name)
{
	for (size_t i = 0; i < sizeof(diff_formats) / sizeof(diff_formats[0]); i++)
		if (strcmp(diff_formats[i].name, name) == 0)
			return &diff_formats[i];
	return NULL;
}
