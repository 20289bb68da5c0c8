/*
 * analyze/output/frames.c - frame names for the stack-shaped formats
 * (frames.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/output/frames.h"

const char *output_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

const char *output_frame_name(const struct site_frame *f, char *buf, size_t size)
{
	if (f->function)
		snprintf(buf, size, "%s", f->function);
	else if (f->module && strcmp(f->module, "?") != 0)
		snprintf(buf, size, "[%s+0x%" PRIx64 "]", output_base_name(f->module),
			 f->module_offset);
	else
		snprintf(buf, size, "[unknown]");
	return buf;
}

const char *output_frame_place(const struct site_frame *f, bool lines_differ, char *buf,
			       size_t size)
{
	if (lines_differ && f->file)
		snprintf(buf, size, "%s, lines differ", output_base_name(f->file));
	else if (lines_differ)
		snprintf(buf, size, "files differ");
	else if (f->file && f->line)
		snprintf(buf, size, "%s:%" PRIu32, output_base_name(f->file), f->line);
	else if (f->file)
		snprintf(buf, size, "%s", output_base_name(f->file));
	else
		return NULL;
	return buf;
}

const char *output_site_stackless_name(const struct site *s)
{
	return s->inherited ? "[inherited at fork]" : "[no stack]";
}
