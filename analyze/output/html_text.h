/*
 * analyze/output/html_text.h - text written into an HTML page's markup
 * (outside <script>, where output/script_json.h applies), for any writer of
 * a page.
 */
#ifndef MPROF_ANALYZE_OUTPUT_HTML_TEXT_H
#define MPROF_ANALYZE_OUTPUT_HTML_TEXT_H

#include <stdio.h>

/* Writes s (UTF-8, NUL-terminated) to out with '&', '<' and '>' as
 * entities, so that it reads as text in an element's content. */
void output_html_text(FILE *out, const char *s);

#endif
