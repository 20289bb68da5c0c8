/*
 * analyze/output/html_text.c - text made safe in an HTML element's
 * content.
 */
#include "analyze/output/html_text.h"

void output_html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
		else
			putc(*s, out);
	}
}
