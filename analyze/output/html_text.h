/*
 * analyze/output/html_text.h - text written into an HTML page's markup
 * (outside <script>, where output/script_json.h applies), for any writer of
 * a page.
 */
#ifndef MPROF_ANALYZE_OUTPUT_HTML_TEXT_H
#define MPROF_ANALYZE_OUTPUT_HTML_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Writes s (NUL-terminated text from a trace) to out with '&', '<', '>'
 * and '"' as entities, so that it reads as text in an element's content or
 * a quoted attribute, and controls, C1 controls and bytes that are not
 * UTF-8 as \xNN, as terminal text writes them (trace/argv_quote.h): the
 * page stays valid UTF-8. */
void output_html_text(FILE *out, const char *s);

/* The same for at most max bytes of s (not cutting a character), with
 * "..." when cut. */
void output_html_text_cut(FILE *out, const char *s, size_t max);

#endif
