/*
 * cli/process_limit.c - how close the launcher's user and cgroup are to
 * their limits on processes.  The pids controller counts every task (each
 * thread too) of a cgroup and refuses a fork past pids.max; so does the
 * kernel past RLIMIT_NPROC for the user's tasks.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/process_limit.h"

/* The non-negative number a file starts with, or -1 (missing, "max", not a number). */
static long long file_number(const char *path)
{
	long long v;
	FILE *f;
	int got;

	f = fopen(path, "re");
	if (!f)
		return -1;
	got = fscanf(f, "%lld", &v);
	fclose(f);
	return got == 1 && v >= 0 ? v : -1;
}

/* RLIMIT_NPROC set below the kernel's default (threads-max / 2). */
static bool nproc_lowered(void)
{
	long long threads_max;
	struct rlimit rl;

	if (getuid() == 0 || getrlimit(RLIMIT_NPROC, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return false;
	threads_max = file_number("/proc/sys/kernel/threads-max");
	return threads_max < 0 || rl.rlim_cur < (unsigned long long)threads_max / 2;
}

/* The number in dir/name, or -1 (missing, "max", not a number). */
static long long cgroup_number(const char *dir, const char *name)
{
	char *path;
	long long v;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -1;
	v = file_number(path);
	free(path);
	return v;
}

long long process_limit_cgroup_headroom(const char *mount_dir, const char *cgroup_dir)
{
	size_t mount_len = strlen(mount_dir);
	long long least = -1;
	char *dir = strdup(cgroup_dir);
	char *slash;

	if (!dir)
		return -1;
	for (;;) {
		long long max = cgroup_number(dir, "pids.max");

		if (max >= 0) {
			long long current = cgroup_number(dir, "pids.current");
			long long room = current >= 0 && current < max ? max - current : 0;

			if (least < 0 || room < least)
				least = room;
		}
		slash = strrchr(dir, '/');
		if (strlen(dir) <= mount_len || !slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	return least;
}

/* Whether the comma-separated list has word. */
static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0' || p[n] == '\n'))
			return true;
	return false;
}

/*
 * The launcher's cgroup path in the hierarchy holding the pids controller
 * (a v1 hierarchy listing "pids", else the v2 one), allocated; *v2 says
 * which.  NULL when there is none.  Buffers are on the heap: the launcher
 * may run under a small stack limit (ulimit -s), the program's.
 */
static char *cgroup_pids_path(bool *v2)
{
	char *line = NULL, *found = NULL, *unified = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return NULL;
	while (!found && getline(&line, &cap, f) > 0) {
		char *controllers = strchr(line, ':'), *p;

		if (!controllers || !(p = strchr(++controllers, ':')))
			continue;
		*p++ = '\0';
		p[strcspn(p, "\n")] = '\0';
		if (strcmp(line, "0") == 0 && *controllers == '\0') {
			free(unified);
			unified = strdup(p);
		} else if (list_has(controllers, "pids")) {
			found = strdup(p);
		}
	}
	free(line);
	fclose(f);
	*v2 = !found;
	if (found)
		free(unified);
	return found ? found : unified;
}

/*
 * The directory of cgroup path in a mount of the pids hierarchy (v1: type
 * cgroup with option pids; v2: type cgroup2) into *dir, and that mount's
 * directory into *mount_dir, both allocated.  False when no mount shows it.
 */
static bool cgroup_pids_dir(const char *path, bool v2, char **dir, char **mount_dir)
{
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *field[5], *rest = line, *dash = strstr(line, " - ");
		char type[16], *options;
		size_t root_len;
		int i;

		/* after the dash: type, source, super options */
		if (!dash || sscanf(dash + 3, "%15s", type) != 1 ||
		    !(options = strrchr(dash + 3, ' ')))
			continue;
		if (v2 ? strcmp(type, "cgroup2") != 0
		       : strcmp(type, "cgroup") != 0 || !list_has(options + 1, "pids"))
			continue;
		for (i = 0; i < 5 && (field[i] = strsep(&rest, " ")) != NULL; i++)
			;
		if (i < 5)
			continue;
		/* field[3]: the mount's root in the hierarchy; field[4]: where */
		root_len = strcmp(field[3], "/") == 0 ? 0 : strlen(field[3]);
		if (strncmp(path, field[3], root_len) != 0 ||
		    (path[root_len] != '/' && path[root_len] != '\0'))
			continue;
		*mount_dir = strdup(field[4]);
		if (!*mount_dir || asprintf(dir, "%s%s", field[4],
					    strcmp(path + root_len, "/") == 0 ? "" : path + root_len) < 0) {
			free(*mount_dir);
			break;
		}
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

bool process_limit_near(void)
{
	char *path, *dir, *mount_dir;
	long long room;
	bool v2, found;

	if (nproc_lowered())
		return true;
	path = cgroup_pids_path(&v2);
	found = path && cgroup_pids_dir(path, v2, &dir, &mount_dir);
	free(path);
	if (!found)
		return false;
	room = process_limit_cgroup_headroom(mount_dir, dir);
	free(dir);
	free(mount_dir);
	return room >= 0 && room < PROCESS_LIMIT_CGROUP_HEADROOM;
}
