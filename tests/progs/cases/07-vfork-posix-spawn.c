/*
 * 07-vfork-posix-spawn.c - hard case 07: children that share the parent's
 * memory until they exec: vfork() + execv(), posix_spawn() with file actions
 * (glibc runs the child with clone(CLONE_VM | CLONE_VFORK)) and system().
 * The parent allocates between the spawns and checks every exit status.
 *
 * The spawned children are this program again ("child K"): child_role()
 * allocates three 321-byte blocks, frees two and exits with status K % 4,
 * so a child that is not really this image, or runs with a damaged parent,
 * shows in the statuses.  A few vfork children exec a path that does not
 * exist and leave with _exit(127) without any exec, still in the parent's
 * address space.  system("exit 6") runs /bin/sh.
 *
 * Why profilers get this wrong: a preloaded library that wraps vfork() in an
 * ordinary C function lets the child return through the wrapper's frame on
 * the stack it shares with the parent, which the parent then finds clobbered
 * (aether#667, sanitizers#925); hooks that run in the vfork child touch
 * state the parent still uses; and a profiler that mixes the exec'd
 * children's events into the parent's profile, or loses the parent's
 * stacks, makes both wrong (opentelemetry-ebpf-profiler#876).
 *
 * Expected facts (tests/cases/07-vfork-posix-spawn.sh; "N / B" =
 * allocations / bytes, "leak" = blocks / bytes live at exit):
 *   1. exit status 0 (under mprof within 10 s), stdout exactly
 *        "spawned 85 + 10 by system(), wrong exit statuses: 0, blocks kept: 85"
 *      (40 by vfork + exec, 5 by vfork with a failing exec, 40 by
 *      posix_spawn).
 *   2. note_spawn      85 x malloc(96), kept       85 / 8160  leak 85 / 8160
 *   3. spawn_with_actions: the file-action bookkeeping of glibc (2 per
 *      spawn with glibc 2.36: the action list and the copied path), all
 *      freed: leak 0 / 0.
 *   4. the parent's profile has no site of child_role and no frame of
 *      /bin/sh; a child that mprof follows gets its own trace file
 *      (FILE.PID), readable; each traced copy of this program has
 *        child_role     3 x malloc(321), 2 freed   3 / 963    leak 1 / 321
 *      and no site of note_spawn.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BY_VFORK 40
#define BY_VFORK_FAILING 5
#define BY_SPAWN 40
#define BY_SYSTEM 10

extern char **environ;

static void *volatile notes[BY_VFORK + BY_VFORK_FAILING + BY_SPAWN];
static int nnotes;
static void *volatile child_keep;

/* The parent's own allocation after each spawn. */
__attribute__((noinline)) static void note_spawn(void)
{
	notes[nnotes++] = malloc(96);
	__asm__ volatile("" ::: "memory");
}

/* What an exec'd copy of this program does. */
__attribute__((noinline)) static int child_role(const char *arg)
{
	char *a = malloc(321), *b = malloc(321), *c = malloc(321);

	if (a && b && c) {
		memset(a, 1, 321);
		memset(b, 2, 321);
		memset(c, 3, 321);
	}
	child_keep = b;
	free(a);
	free(c);
	return atoi(arg) % 4;
}

static int status_of(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 200 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* vfork() called right here: the child only execs or _exits. */
static int spawn_by_vfork(const char *path, char *const argv[])
{
	pid_t pid = vfork();

	if (pid == 0) {
		execv(path, argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	return status_of(pid);
}

__attribute__((noinline)) static int spawn_with_actions(const char *self, char *const argv[])
{
	posix_spawn_file_actions_t actions;
	pid_t pid;
	int rc;

	posix_spawn_file_actions_init(&actions);
	/* the child's stdout and stderr both go to /dev/null */
	posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, 1, 2);
	rc = posix_spawn(&pid, self, &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (rc != 0)
		return -1;
	return status_of(pid);
}

int main(int argc, char **argv)
{
	char self[4096], number[16];
	char *child_argv[] = { self, "child", number, NULL };
	int wrong = 0, spawned = 0;
	ssize_t len;

	if (argc > 2 && strcmp(argv[1], "child") == 0)
		return child_role(argv[2]);

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		perror("readlink /proc/self/exe");
		return 2;
	}
	self[len] = '\0';

	for (int k = 0; k < BY_VFORK; k++) {
		snprintf(number, sizeof(number), "%d", k);
		wrong += spawn_by_vfork(self, child_argv) != k % 4;
		spawned++;
		note_spawn();
	}
	for (int k = 0; k < BY_VFORK_FAILING; k++) {
		char *none_argv[] = { "no-such-program", NULL };

		wrong += spawn_by_vfork("/nonexistent/case07/no-such-program", none_argv) != 127;
		spawned++;
		note_spawn();
	}
	for (int k = 0; k < BY_SPAWN; k++) {
		snprintf(number, sizeof(number), "%d", k + 1);
		wrong += spawn_with_actions(self, child_argv) != (k + 1) % 4;
		spawned++;
		note_spawn();
	}
	for (int k = 0; k < BY_SYSTEM; k++) {
		int st = system("exit 6");

		wrong += !(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 6);
	}
	printf("spawned %d + %d by system(), wrong exit statuses: %d, blocks kept: %d\n",
	       spawned, BY_SYSTEM, wrong, nnotes);
	return wrong ? 1 : 0;
}
