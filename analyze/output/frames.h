/*
 * analyze/output/frames.h - a frame's name as the stack-shaped formats
 * (folded, flamegraph, speedscope, pprof) show it, and a site's frames from
 * the root down.
 */
#ifndef MPROF_ANALYZE_OUTPUT_FRAMES_H
#define MPROF_ANALYZE_OUTPUT_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/profile/sites.h"

/*
 * Writes frame f's name into buf (size bytes, NUL-terminated, cut to fit):
 * its function when known, else "[MODULE+0xOFFSET]" with the module's file
 * name (no folder), else "[unknown]".  Returns buf.
 */
const char *output_frame_name(const struct site_frame *f, char *buf, size_t size);

/* The name a site without a usable stack gets as its only frame:
 * "[inherited at fork]" or "[no stack]". */
const char *output_site_stackless_name(const struct site *s);

/* The file name part of path (after its last '/'). */
const char *output_base_name(const char *path);

#endif
