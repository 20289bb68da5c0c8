/*
 * analyze/output/html_text.c - text made safe in an HTML element's
 * content.
 */
#include "analyze/output/html_text.h"

#include <stdint.h>
#include <string.h>

#include "trace/argv_quote.h"

void output_html_text_cut(FILE *out, const char *text, size_t max)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n = strlen(text), i = 0;

	while (i < n) {
		size_t len = argv_quote_utf8_len(s + i), bytes = len ? len : 1;

		if (i + bytes > max)
			break;
		if (argv_quote_char_escaped(s + i, len))
			for (size_t k = 0; k < bytes; k++)
				fprintf(out, "\\x%02x", s[i + k]);
		else if (s[i] == '<')
			fputs("&lt;", out);
		else if (s[i] == '>')
			fputs("&gt;", out);
		else if (s[i] == '&')
			fputs("&amp;", out);
		else if (s[i] == '"')
			fputs("&quot;", out);
		else
			fwrite(s + i, 1, bytes, out);
		i += bytes;
	}
	if (i < n)
		fputs("...", out);
}

void output_html_text(FILE *out, const char *s)
{
	output_html_text_cut(out, s, SIZE_MAX);
}
