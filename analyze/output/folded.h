/*
 * analyze/output/folded.h - how the folded-stacks format (folded.c) makes a
 * frame's name safe for the three readers of the format (flamegraph.pl,
 * inferno, speedscope), apart so that it can be tested alone.
 */
#ifndef MPROF_ANALYZE_OUTPUT_FOLDED_H
#define MPROF_ANALYZE_OUTPUT_FOLDED_H

/*
 * Rewrites name in place (its length does not change) so that it reads
 * back as one frame wherever it stands in a line: ';' becomes ':' (the
 * frame separator has no escape), every ASCII control character (tab,
 * newline, ...) becomes '_', a C1 control in UTF-8 (two bytes) "__", a byte
 * that is not part of a valid UTF-8 character '?' (inferno reads UTF-8, and
 * flamegraph.pl's SVG must be valid XML), and '_' also replaces a leading
 * space or '#'
 * (inferno trims lines and skips "# " comments), a trailing space, and the
 * space before a trailing run of digits and dots (flamegraph.pl and inferno
 * would read "alloc 2" as a second count).  Returns name.
 */
char *output_folded_name_clean(char *name);

#endif
