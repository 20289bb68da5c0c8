/*
 * analyze/output/formats.c - the table of report formats (output.h): a new
 * format is one file in output/ and one line here.
 */
#include <string.h>

#include "analyze/output/output.h"

const struct output_format *const output_formats[] = {
	&output_text,
	&output_json,
	&output_html,
	&output_folded,
	&output_flamegraph,
	&output_massif,
	&output_pprof,
	&output_dhat,
	&output_dhat_json,
	&output_speedscope,
	NULL,
};

const struct output_format *output_find(const char *name)
{
	for (size_t i = 0; output_formats[i]; i++)
		if (strcmp(output_formats[i]->name, name) == 0)
			return output_formats[i];
	return NULL;
}

const char *output_format_names(void)
{
	static char names[256];

	if (!names[0])
		for (size_t i = 0; output_formats[i]; i++) {
			if (i)
				strncat(names, ", ", sizeof(names) - strlen(names) - 1);
			strncat(names, output_formats[i]->name, sizeof(names) - strlen(names) - 1);
		}
	return names;
}
