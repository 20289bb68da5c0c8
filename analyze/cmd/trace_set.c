/*
 * analyze/cmd/trace_set.c - expanding `report`'s operands into trace paths
 * (trace_set.h).  Owns the path list; prints only "no trace matches"
 * messages; never opens a trace (a path that is no trace is the reader's to
 * report).
 */
#define _GNU_SOURCE /* strverscmp */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/util/error.h"
#include "analyze/cmd/trace_set.h"
#include "analyze/read/event_stream.h"
#include "trace/plural.h"

/* Adds a copy of path unless it is there already. */
static int set_add(struct trace_set *set, const char *path)
{
	for (size_t i = 0; i < set->count; i++)
		if (strcmp(set->paths[i], path) == 0)
			return 0;
	if (set->count == set->cap) {
		size_t cap = set->cap ? 2 * set->cap : 16;
		char **v = realloc(set->paths, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		set->paths = v;
		set->cap = cap;
	}
	set->paths[set->count] = strdup(path);
	if (!set->paths[set->count])
		return -ENOMEM;
	set->count++;
	return 0;
}

static int version_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Whether s is "NUMBER" or "NUMBER.NUMBER" (what FILE.PID[.N] adds). */
static bool pid_suffix(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (!n)
		return false;
	if (!s[n])
		return true;
	return s[n] == '.' && s[n + 1] && !s[n + 1 + strspn(s + n + 1, "0123456789")];
}

/* Adds the other traces of first's run: first.PID[.N] in its directory. */
static int siblings_add(struct trace_set *set, const char *first)
{
	const char *slash = strrchr(first, '/'), *base = slash ? slash + 1 : first;
	size_t dir_len = slash ? (size_t)(slash - first + 1) : 0, base_len = strlen(base);
	char *dir = strndup(first, dir_len ? dir_len : 0), **names = NULL;
	size_t count = 0, cap = 0;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (!dir)
		return -ENOMEM;
	d = opendir(dir_len ? dir : ".");
	while (d && rc == 0 && (e = readdir(d))) {
		char **v;

		if (strncmp(e->d_name, base, base_len) || e->d_name[base_len] != '.' ||
		    !pid_suffix(e->d_name + base_len + 1))
			continue;
		if (count == cap) {
			cap = cap ? 2 * cap : 16;
			v = realloc(names, cap * sizeof(*v));
			if (!v) {
				rc = -ENOMEM;
				break;
			}
			names = v;
		}
		names[count] = malloc(dir_len + strlen(e->d_name) + 1);
		if (!names[count]) {
			rc = -ENOMEM;
			break;
		}
		memcpy(names[count], first, dir_len);
		strcpy(names[count] + dir_len, e->d_name);
		count++;
	}
	if (d)
		closedir(d);
	if (count) /* names is NULL when none was found */
		qsort(names, count, sizeof(*names), version_cmp);
	for (size_t i = 0; i < count; i++) {
		if (rc == 0)
			rc = set_add(set, names[i]);
		free(names[i]);
	}
	free(names);
	free(dir);
	return rc;
}

/* Adds the matches of pattern; 1 when there is none. */
static int pattern_add(struct trace_set *set, const char *pattern, bool all)
{
	glob_t g;
	int rc = glob(pattern, 0, NULL, &g);

	if (rc == GLOB_NOSPACE)
		return -ENOMEM;
	if (rc != 0) {
		analyze_error("no trace matches '%s'", pattern);
		return 1;
	}
	qsort(g.gl_pathv, g.gl_pathc, sizeof(*g.gl_pathv), version_cmp);
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
		rc = set_add(set, g.gl_pathv[i]);
		if (rc == 0 && all)
			rc = siblings_add(set, g.gl_pathv[i]);
	}
	globfree(&g);
	return rc;
}

int trace_set_expand(struct trace_set *set, char *const operands[], size_t n, bool all)
{
	int status = 0, rc = 0;

	memset(set, 0, sizeof(*set));
	for (size_t i = 0; i < n && rc >= 0; i++) {
		struct stat st;

		if (stat(operands[i], &st) != 0 && strpbrk(operands[i], "*?[")) {
			rc = pattern_add(set, operands[i], all);
			if (rc == 1)
				status = 1;
			continue;
		}
		rc = set_add(set, operands[i]);
		if (rc == 0 && all)
			rc = siblings_add(set, operands[i]);
	}
	return rc < 0 ? rc : status;
}

void trace_set_free(struct trace_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		free(set->paths[i]);
	free(set->paths);
	memset(set, 0, sizeof(*set));
}

void trace_set_warn(const struct trace_info *info)
{
	if (info->truncated)
		analyze_error("warning: %s: trace truncated at offset %" PRIu64
			      ": the program was probably killed; events up to there are reported",
			      info->path, info->truncated_offset);
	if (info->chunks_lost)
		analyze_error("warning: %s: %" PRIu64 " %s lost (corrupt or not mprof's)", info->path,
			      info->chunks_lost, plural(info->chunks_lost, "chunk", "chunks"));
	if (info->conflicting_chunks)
		analyze_error("warning: %s: %" PRIu64 " META, END or SYMBOLS %s unlike the "
			      "first of their kind ignored", info->path, info->conflicting_chunks,
			      plural(info->conflicting_chunks, "chunk", "chunks"));
	if (info->other_trace_offset)
		analyze_error("warning: %s: a second trace from offset %" PRIu64 " (another file "
			      "header), not read", info->path, info->other_trace_offset);
}
