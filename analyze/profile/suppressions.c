/*
 * analyze/profile/suppressions.c - reading LSan-style suppressions files and
 * matching their patterns against sites' frames (suppressions.h).
 *
 * Owns the patterns read.  Never prints: errors go back with a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/profile/suppressions.h"

#define SUPPRESSIONS_MAX_LINE 4096

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
			   end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static char *pattern_compile(const char *pattern);

/*
 * Reads one line of f into line[0..bytes) with its newline dropped and a
 * terminator added.  Returns its length, -1 at the end of the file (or a
 * read error: ferror tells), -2 for a line that does not fit and -3 for a
 * NUL byte: a file that is not text (/dev/zero would otherwise give empty
 * lines for ever).
 */
static long read_line(FILE *f, char *line, size_t bytes)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0')
			return -3;
		if (n + 1 >= bytes)
			return -2;
		line[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return -1;
	line[n] = '\0';
	return (long)n;
}

static int suppressions_add(struct suppressions *s, const char *pattern)
{
	char **v = realloc(s->patterns, (s->count + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->patterns = v;
	v[s->count] = pattern_compile(pattern);
	if (!v[s->count])
		return -ENOMEM;
	s->count++;
	return 0;
}

int suppressions_load(struct suppressions *s, const char *path, char *errbuf,
		      size_t errbuf_bytes)
{
	char line[SUPPRESSIONS_MAX_LINE];
	FILE *f = fopen(path, "r");
	unsigned lineno = 0;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	if (!f) {
		rc = -errno;
		snprintf(errbuf, errbuf_bytes, "cannot read %s: %s", path, strerror(errno));
		return rc;
	}
	errno = 0;
	while (rc == 0) {
		long len = read_line(f, line, sizeof(line));
		char *l = line;

		if (len == -1)
			break;
		lineno++;
		if (len < 0) {
			if (len == -2)
				snprintf(errbuf, errbuf_bytes, "%s:%u: a line longer than %d bytes",
					 path, lineno, SUPPRESSIONS_MAX_LINE - 1);
			else
				snprintf(errbuf, errbuf_bytes, "%s:%u: a NUL byte: not a text file",
					 path, lineno);
			rc = -EINVAL;
			break;
		}
		l = trim(line);
		if (!*l || *l == '#')
			continue;
		if (strncmp(l, "leak:", 5) != 0 || !*trim(l + 5)) {
			snprintf(errbuf, errbuf_bytes, "%s:%u: not a suppression of the form "
				 "leak:PATTERN", path, lineno);
			rc = -EINVAL;
			break;
		}
		rc = suppressions_add(s, trim(l + 5));
		if (rc < 0)
			snprintf(errbuf, errbuf_bytes, "out of memory reading %s", path);
	}
	if (rc == 0 && ferror(f)) {
		rc = errno ? -errno : -EIO;
		snprintf(errbuf, errbuf_bytes, "cannot read %s: %s", path, strerror(-rc));
	}
	fclose(f);
	if (rc < 0)
		suppressions_free(s);
	return rc;
}

void suppressions_free(struct suppressions *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->patterns[i]);
	free(s->patterns);
	memset(s, 0, sizeof(*s));
}

/* Whether p[0..plen) with '*' wildcards matches all of name[0..nlen),
 * backtracking to the last '*' on a mismatch (linear in practice). */
static bool star_match(const char *p, size_t plen, const char *name, size_t nlen)
{
	size_t i = 0, j = 0, star = (size_t)-1, mark = 0;

	while (j < nlen) {
		if (i < plen && p[i] == '*') {
			star = i++;
			mark = j;
		} else if (i < plen && p[i] == name[j]) {
			i++;
			j++;
		} else if (star != (size_t)-1) {
			i = star + 1;
			j = ++mark;
		} else {
			return false;
		}
	}
	while (i < plen && p[i] == '*')
		i++;
	return i == plen;
}

/* LSan's pattern as a plain '*' pattern matched against a whole name:
 * an end without its anchor ('^' first, '$' last) gets a '*'.  Owned by
 * the caller; NULL when out of memory. */
static char *pattern_compile(const char *pattern)
{
	size_t plen = strlen(pattern);
	bool anchor_start = pattern[0] == '^', anchor_end;
	char *full;

	if (anchor_start) {
		pattern++;
		plen--;
	}
	anchor_end = plen && pattern[plen - 1] == '$';
	if (anchor_end)
		plen--;
	full = malloc(plen + 3);
	if (full)
		sprintf(full, "%s%.*s%s", anchor_start ? "" : "*", (int)plen, pattern,
			anchor_end ? "" : "*");
	return full;
}

static bool compiled_match(const char *full, const char *name)
{
	return name && *name && star_match(full, strlen(full), name, strlen(name));
}

bool suppression_pattern_match(const char *pattern, const char *name)
{
	char *full = pattern_compile(pattern);
	bool m = full && compiled_match(full, name);

	free(full);
	return m;
}

bool suppressions_match_site(const struct suppressions *s, const struct site_table *t,
			     const struct site *site)
{
	uint32_t buf[SITES_MAX_FRAMES];
	const uint32_t *ids = site_frame_ids(t, site, buf);

	for (uint32_t i = 0; i < site->frame_count; i++) {
		const struct site_frame *f = &t->frames[ids[i]];

		for (size_t k = 0; k < s->count; k++)
			if (compiled_match(s->patterns[k], f->function) ||
			    compiled_match(s->patterns[k], f->file) ||
			    compiled_match(s->patterns[k], f->module))
				return true;
	}
	return false;
}
