/*
 * cli/paths.c - where the preload library and the analyzer are.
 *
 * Three layouts, in this order: the environment (MPROF_PRELOAD_LIB,
 * MPROF_ANALYZE), the build tree (mprof in <build>/cli next to
 * <build>/preload/.libs and <build>/analyze), and an installed tree, found
 * relative to the running binary so that a copy made with
 * `make install DESTDIR=...` works, falling back to the configured absolute
 * paths.  Owns the static strings it returns; never exits or prints.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/paths.h"

#ifndef MPROF_PREFIX
#define MPROF_PREFIX "/usr/local"
#endif
#ifndef MPROF_BINDIR
#define MPROF_BINDIR MPROF_PREFIX "/bin"
#endif
#ifndef MPROF_PKGLIBDIR
#define MPROF_PKGLIBDIR MPROF_PREFIX "/lib/mprof"
#endif
#ifndef MPROF_PKGLIBEXECDIR
#define MPROF_PKGLIBEXECDIR MPROF_PREFIX "/libexec/mprof"
#endif

#define PRELOAD_NAME "libmprof_preload.so"
#define ANALYZER_NAME "mprof-analyze"

/* Directory of /proc/self/exe into dir (no trailing slash); 0 or -1. */
static int exe_dir_get(char *dir, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", dir, size - 1);
	char *slash;

	if (n <= 0 || (size_t)n >= size - 1)
		return -1;
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return 0;
}

/* The part of path below prefix ("/bin" for "/usr/bin" under "/usr"), or
 * NULL when path is not under prefix. */
static const char *path_below(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	while (n > 0 && prefix[n - 1] == '/')
		n--;
	if (strncmp(path, prefix, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return NULL;
	return path + n;
}

/* The runtime prefix: exe_dir without the configured bindir's suffix below
 * the prefix, or -1 when exe_dir does not end that way. */
static int runtime_prefix_get(const char *exe_dir, char *out, size_t size)
{
	const char *bin_rel = path_below(MPROF_BINDIR, MPROF_PREFIX);
	size_t dir_len = strlen(exe_dir), rel_len;

	if (!bin_rel || bin_rel[0] == '\0')
		return -1;
	rel_len = strlen(bin_rel);
	if (rel_len > dir_len || strcmp(exe_dir + dir_len - rel_len, bin_rel) != 0)
		return -1;
	if (dir_len - rel_len >= size)
		return -1;
	memcpy(out, exe_dir, dir_len - rel_len);
	out[dir_len - rel_len] = '\0';
	return 0;
}

/*
 * Fills out with the location of name: env override, build tree file
 * <exe_dir>/<build_rel>, installed <runtime prefix><configured dir below
 * prefix>/name, or <configured dir>/name.
 */
static const char *part_find(char *out, size_t size, const char *env, const char *build_rel,
			     const char *configured_dir, const char *name)
{
	char dir[PATH_MAX], prefix[PATH_MAX];
	const char *override = getenv(env), *rel;

	if (override && override[0]) {
		snprintf(out, size, "%s", override);
		return out;
	}
	if (exe_dir_get(dir, sizeof(dir)) == 0) {
		int n = snprintf(out, size, "%s/%s", dir, build_rel);

		if (n > 0 && (size_t)n < size && access(out, F_OK) == 0)
			return out;
		rel = path_below(configured_dir, MPROF_PREFIX);
		if (rel && runtime_prefix_get(dir, prefix, sizeof(prefix)) == 0) {
			n = snprintf(out, size, "%s%s/%s", prefix, rel, name);
			if (n > 0 && (size_t)n < size && access(out, F_OK) == 0)
				return out;
		}
	}
	snprintf(out, size, "%s/%s", configured_dir, name);
	return out;
}

const char *mprof_path_preload(void)
{
	static char path[PATH_MAX];

	if (!path[0])
		part_find(path, sizeof(path), "MPROF_PRELOAD_LIB", "../preload/.libs/" PRELOAD_NAME,
			  MPROF_PKGLIBDIR, PRELOAD_NAME);
	return path;
}

const char *mprof_path_analyzer(void)
{
	static char path[PATH_MAX];

	if (!path[0])
		part_find(path, sizeof(path), "MPROF_ANALYZE", "../analyze/" ANALYZER_NAME,
			  MPROF_PKGLIBEXECDIR, ANALYZER_NAME);
	return path;
}
