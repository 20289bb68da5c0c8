/*
 * analyze/output/script_json.h - JSON made safe to embed in an HTML
 * <script> element (an interactive page's data), for any writer of a page.
 */
#ifndef MPROF_ANALYZE_OUTPUT_SCRIPT_JSON_H
#define MPROF_ANALYZE_OUTPUT_SCRIPT_JSON_H

#include <stdio.h>

/*
 * Opens a stream whose bytes go on to out with '<', '>' and '&' written as
 * \u003c, \u003e, \u0026 and the line separators U+2028 and U+2029 as
 * \u2028 and \u2029.  Valid JSON written to it stays the same JSON value
 * (those characters can only stand inside strings), and can no longer end
 * the element ("</script>"), open a comment ("<!--") or end a line of
 * script.  fclose it before writing to out directly again; the stream
 * owns nothing of out.  Returns NULL when out of memory.
 */
FILE *output_script_json_open(FILE *out);

#endif
