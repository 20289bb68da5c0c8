/*
 * cli/self_command.c - self_command (self_command.h): which word runs this
 * mprof again, decided by comparing files (device and inode) with
 * /proc/self/exe, so that a build-tree ./cli/mprof is never called plain
 * "mprof" when that name finds another copy or none.  Looks only at the
 * file system and PATH; never prints or exits.
 */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/self_command.h"
#include "trace/argv_quote.h"

static const char *self_argv0;
static char self_word[2 * PATH_MAX];

void self_command_init(const char *argv0)
{
	self_argv0 = argv0;
}

/* Whether path is an executable file and the same file as self. */
static bool file_is_self(const char *path, const struct stat *self)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0 &&
	       st.st_dev == self->st_dev && st.st_ino == self->st_ino;
}

/* Whether the shell, looking name (no '/') up on PATH, runs self: the first
 * executable file of that name in PATH's folders decides (an empty entry is
 * the current folder). */
static bool path_finds_self(const char *name, const struct stat *self)
{
	char file[PATH_MAX];

	for (const char *dir = getenv("PATH"); dir; ) {
		size_t n = strcspn(dir, ":");
		struct stat st;
		int len = snprintf(file, sizeof(file), "%.*s%s%s", (int)n, dir, n ? "/" : "", name);

		if (len > 0 && (size_t)len < sizeof(file) && stat(file, &st) == 0 &&
		    S_ISREG(st.st_mode) && access(file, X_OK) == 0)
			return st.st_dev == self->st_dev && st.st_ino == self->st_ino;
		dir = dir[n] ? dir + n + 1 : NULL;
	}
	return false;
}

/* The word before quoting, by self_command.h's order; into exe (size
 * bytes) when it is /proc/self/exe's target. */
static const char *self_command_pick(char *exe, size_t size)
{
	const char *argv0 = self_argv0 && *self_argv0 ? self_argv0 : NULL;
	struct stat self;
	ssize_t n;

	if (stat("/proc/self/exe", &self) != 0) /* no /proc: what was typed */
		return argv0 && strchr(argv0, '/') ? argv0 : "mprof";
	if (path_finds_self("mprof", &self))
		return "mprof";
	if (argv0 && (strchr(argv0, '/') ? file_is_self(argv0, &self)
					 : path_finds_self(argv0, &self)))
		return argv0;
	n = readlink("/proc/self/exe", exe, size - 1);
	if (n <= 0 || (size_t)n >= size - 1)
		return argv0 ? argv0 : "mprof";
	exe[n] = '\0';
	return exe;
}

const char *self_command(void)
{
	char exe[PATH_MAX];
	const char *word;
	size_t len;

	if (self_word[0])
		return self_word;
	word = self_command_pick(exe, sizeof(exe));
	len = argv_quote_append(self_word, sizeof(self_word) - 1, 0, word, strlen(word));
	self_word[len] = '\0';
	return self_word;
}
