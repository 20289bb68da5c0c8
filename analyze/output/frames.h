/*
 * analyze/output/frames.h - a frame's name as the stack-shaped formats
 * (folded, flamegraph, speedscope, pprof) show it, its place (file, line) as
 * the text formats show it, and a site's frames from the root down.
 */
#ifndef MPROF_ANALYZE_OUTPUT_FRAMES_H
#define MPROF_ANALYZE_OUTPUT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/profile/sites.h"

/*
 * Writes frame f's name into buf (size bytes, NUL-terminated, cut to fit):
 * its function when known, else "[MODULE+0xOFFSET]" with the module's file
 * name (no folder), else "[unknown]".  Returns buf.
 */
const char *output_frame_name(const struct site_frame *f, char *buf, size_t size);

/*
 * Writes where frame f is into buf (size bytes, NUL-terminated, cut to
 * fit) as the text formats show it between parentheses, FILE being the
 * file name without its folder: "FILE:LINE", or "FILE" without a line; for
 * a frame of the diff that stands for frames on several lines
 * (lines_differ: struct diff_frame), "FILE, lines differ", or "files
 * differ" when they differ in file too (f->file NULL).  Returns buf, or
 * NULL when there is no place to show (no file, lines not differing).
 */
const char *output_frame_place(const struct site_frame *f, bool lines_differ, char *buf,
			       size_t size);

/* The name a site without a usable stack gets as its only frame:
 * "[inherited at fork]" or "[no stack]". */
const char *output_site_stackless_name(const struct site *s);

/* The file name part of path (after its last '/'). */
const char *output_base_name(const char *path);

#endif
