/*
 * tests/progs/preload_entry.c - spawns /bin/true with LD_PRELOAD entries
 * longer than the 2 KiB the exec wrappers copy of one, and with two
 * LD_PRELOAD entries, of which the loader uses the last
 * (tests/e2e/preload-entry.sh).
 *
 * Usage: preload_entry long|two.  In order, each child waited for
 * (posix_spawn, environ's other entries kept); long runs 1 to 3, two 4
 * and 5:
 *   1. LD_PRELOAD = 500 times "libc.so.6 " then the program's own value
 *      (the recorder last, past the first 2 KiB): recorded;
 *   2. LD_PRELOAD = spaces then the program's own value, placed so that
 *      the recorder's name "libmprof_preload" begins 8 bytes before the
 *      copy's end (across the cut): recorded;
 *   3. LD_PRELOAD = 500 times "libc.so.6 ": the recorder dropped;
 *   4. "LD_PRELOAD=libc.so.6" first, the program's own entry last:
 *      recorded;
 *   5. the program's own entry first, "LD_PRELOAD=libc.so.6" last, and
 *      /bin/sh -c : spawned, not /bin/true: the recorder dropped.
 * stdout: "preload_entry done\n".  Exit 0; 1 when a spawn fails.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define ENTRY_BYTES 16384
#define COPY_BYTES 2048 /* preload/exec_args.h's EXEC_ARGS_PRELOAD_BYTES */

/* Spawns path (/bin/true, or /bin/sh -c :) with first (NULL: none),
 * environ less LD_PRELOAD, and entry; 0 or 1. */
static int spawn_around(const char *path, char *first, char *entry)
{
	char *argv_true[] = { "true", NULL }, *argv_sh[] = { "sh", "-c", ":", NULL }, *env[512];
	char **argv = strcmp(path, "/bin/sh") == 0 ? argv_sh : argv_true;
	size_t n = 0;
	pid_t pid;

	if (first)
		env[n++] = first;
	int status;

	for (size_t i = 0; environ[i] && n + 2 < sizeof(env) / sizeof(env[0]); i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			env[n++] = environ[i];
	env[n++] = entry;
	env[n] = NULL;
	if (posix_spawn(&pid, path, NULL, NULL, argv, env) != 0)
		return 1;
	return waitpid(pid, &status, 0) == pid && status == 0 ? 0 : 1;
}

static int spawn_with(char *entry)
{
	return spawn_around("/bin/true", NULL, entry);
}

int main(int argc, char **argv)
{
	static char entry[ENTRY_BYTES];
	const char *own = getenv("LD_PRELOAD"), *name;
	size_t pad;
	int failed = 0;

	if (!own)
		own = "";
	if (argc > 1 && strcmp(argv[1], "two") == 0) {
		snprintf(entry, sizeof(entry), "LD_PRELOAD=%s", own);
		failed |= spawn_around("/bin/true", "LD_PRELOAD=libc.so.6", entry);
		failed |= spawn_around("/bin/sh", entry, "LD_PRELOAD=libc.so.6");
		printf("preload_entry done\n");
		return failed;
	}
	strcpy(entry, "LD_PRELOAD=");
	for (int i = 0; i < 500; i++)
		strcat(entry, "libc.so.6 ");
	if (strlen(entry) + strlen(own) >= ENTRY_BYTES)
		return 1;
	strcat(entry, own);
	failed |= spawn_with(entry);

	name = strstr(own, "libmprof_preload");
	pad = name ? COPY_BYTES - 1 - 8 - 11 - (size_t)(name - own) : 0;
	if (pad + 11 + strlen(own) >= ENTRY_BYTES)
		return 1;
	strcpy(entry, "LD_PRELOAD=");
	memset(entry + 11, ' ', pad);
	strcpy(entry + 11 + pad, own);
	failed |= spawn_with(entry);

	strcpy(entry, "LD_PRELOAD=");
	for (int i = 0; i < 500; i++)
		strcat(entry, "libc.so.6 ");
	failed |= spawn_with(entry);

	printf("preload_entry done\n");
	return failed;
}
