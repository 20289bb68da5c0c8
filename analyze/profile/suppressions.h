/*
 * analyze/profile/suppressions.h - known leaks, in LeakSanitizer's
 * suppressions syntax (--suppressions FILE): one "leak:PATTERN" a line,
 * '#' starting a comment line, blank lines ignored, spaces around a line
 * trimmed.  A site is suppressed when PATTERN matches the function, the
 * source file or the module (its path) of one of its frames, as LSan
 * matches: anywhere in the name unless it starts with '^' or ends with
 * '$', '*' standing for any run of characters.
 */
#ifndef MPROF_ANALYZE_SUPPRESSIONS_H
#define MPROF_ANALYZE_SUPPRESSIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/profile/sites.h"

struct suppressions {
	char **patterns;        /* owned: each pattern as a '*' pattern of a
	                         * whole name (an unanchored end gets a '*') */
	size_t count;
};

/*
 * Reads the suppressions file at path into s.  Returns 0, -ENOMEM, or
 * another negative errno with a message naming the file (and the line of
 * a suppression of another type, or without a pattern, or of a line longer
 * than 4095 bytes or holding a NUL byte) in errbuf.
 */
int suppressions_load(struct suppressions *s, const char *path, char *errbuf,
		      size_t errbuf_bytes);

void suppressions_free(struct suppressions *s);

/* Whether pattern matches name, as LSan's suppressions do (above). */
bool suppression_pattern_match(const char *pattern, const char *name);

/* Whether a suppression of s matches a frame of site (of table t). */
bool suppressions_match_site(const struct suppressions *s, const struct site_table *t,
			     const struct site *site);

#endif
