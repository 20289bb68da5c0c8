/*
 * analyze/symbolize/debug_search.c - the proof that a module has no
 * separate debug file, see debug_search.h.  Owns nothing past a call; never
 * prints, never opens a candidate (stat only).
 *
 * The candidates are a superset of what libdw's standard search opens,
 * derived from its documented rules with the default debuginfo path
 * ":.debug:/usr/lib/debug": /usr/lib/debug/.build-id/XX/REST.debug, then
 * for the module path and its realpath, with DIR its directory, the names
 * DEBUGLINK, BASENAME.debug and BASENAME in DIR, DIR/.debug,
 * /usr/lib/debug and /usr/lib/debug/SUFFIX for every trailing part SUFFIX
 * of DIR.  A proof is text: the path, then "dev ino size mtime_s mtime_ns",
 * then one candidate per line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/symbolize/debug_search.h"

#define DEBUG_ROOT "/usr/lib/debug"

/* The identity of the file st describes, as the proof's second line (with
 * its newline), into buf; its length. */
static int identity_line(char *buf, size_t size, const struct stat *st)
{
	return snprintf(buf, size, "%ju %ju %jd %jd %ld\n", (uintmax_t)st->st_dev,
			(uintmax_t)st->st_ino, (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec,
			(long)st->st_mtim.tv_nsec);
}

/* Writes the candidates of the module file (an absolute path) to t, a line
 * each. */
static void candidates_add(FILE *t, const char *file, const char *debuglink)
{
	const char *base = strrchr(file, '/') + 1;
	int dir_len = (int)(base - 1 - file);
	const char *names[3];
	char name[PATH_MAX];
	size_t n = 0;

	snprintf(name, sizeof(name), "%s.debug", base);
	if (debuglink && *debuglink)
		names[n++] = debuglink;
	names[n++] = name;
	names[n++] = base;
	for (size_t i = 0; i < n; i++) {
		fprintf(t, "%.*s/%s\n", dir_len, file, names[i]);
		fprintf(t, "%.*s/.debug/%s\n", dir_len, file, names[i]);
		fprintf(t, DEBUG_ROOT "/%s\n", names[i]);
		/* every trailing part of the directory: /usr/bin, /bin */
		for (int k = 0; k < dir_len; k++)
			if (file[k] == '/')
				fprintf(t, DEBUG_ROOT "%.*s/%s\n", dir_len - k, file + k, names[i]);
	}
}

/* Whether a candidate line names an existing file other than the module
 * (module: the stat of the module file). */
static bool candidate_exists(const char *candidate, const struct stat *module)
{
	struct stat st;

	if (stat(candidate, &st) != 0)
		return errno != ENOENT && errno != ENOTDIR;
	return st.st_dev != module->st_dev || st.st_ino != module->st_ino;
}

int debug_search_proof_make(const char *path, const char *debuglink, const uint8_t *build_id,
			    size_t len, uint8_t **out, size_t *out_bytes)
{
	char identity[128], *data = NULL, *canon, *line;
	size_t bytes = 0;
	struct stat st;
	int failed;
	FILE *t;

	*out = NULL;
	*out_bytes = 0;
	if (path[0] != '/' || strchr(path, '\n') || (debuglink && strchr(debuglink, '\n')))
		return -EINVAL;
	if (stat(path, &st) != 0)
		return -errno;
	identity_line(identity, sizeof(identity), &st);
	t = open_memstream(&data, &bytes);
	if (!t)
		return -ENOMEM;
	fprintf(t, "%s\n%s", path, identity);
	if (len > 1) {
		char hex[2 * 64 + 1] = "";

		for (size_t i = 0; i < len && i < 64; i++)
			snprintf(hex + 2 * i, 3, "%02x", build_id[i]);
		fprintf(t, DEBUG_ROOT "/.build-id/%.2s/%s.debug\n", hex, hex + 2);
	}
	candidates_add(t, path, debuglink);
	canon = realpath(path, NULL);
	if (canon && strcmp(canon, path) != 0 && !strchr(canon, '\n'))
		candidates_add(t, canon, debuglink);
	free(canon);
	failed = ferror(t);
	if (fclose(t) != 0 || failed) {
		free(data);
		return -ENOMEM;
	}
	/* skip the path and identity lines, then check each candidate */
	line = strchr(strchr(data, '\n') + 1, '\n') + 1;
	for (char *end; *line; line = end + 1) {
		bool exists;

		end = strchr(line, '\n');
		*end = '\0';
		exists = candidate_exists(line, &st);
		*end = '\n';
		if (exists) {
			free(data);
			return -EEXIST;
		}
	}
	*out = (uint8_t *)data;
	*out_bytes = bytes;
	return 0;
}

bool debug_search_proof_holds(const uint8_t *data, size_t bytes, const char *path)
{
	struct stat st;
	const char *p = (const char *)data, *end = p + bytes, *eol;
	size_t path_len = strlen(path);
	char line[PATH_MAX + 64], now[128];
	int now_len;
	bool holds;

	/* line 1: the path */
	eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol || (size_t)(eol - p) != path_len || memcmp(p, path, path_len) != 0 ||
	    stat(path, &st) != 0)
		return false;
	/* line 2: the file's identity, as it is now */
	p = eol + 1;
	eol = memchr(p, '\n', (size_t)(end - p));
	now_len = identity_line(now, sizeof(now), &st);
	holds = eol && now_len > 0 && (size_t)now_len < sizeof(now) &&
		(size_t)(eol + 1 - p) == (size_t)now_len && memcmp(p, now, (size_t)now_len) == 0;
	/* then the candidates: none may exist */
	for (p = eol ? eol + 1 : end; holds && p < end; p = eol + 1) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol || (size_t)(eol - p) >= sizeof(line))
			return false;
		memcpy(line, p, (size_t)(eol - p));
		line[eol - p] = '\0';
		holds = !candidate_exists(line, &st);
	}
	return holds;
}
