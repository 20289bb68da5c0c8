/*
 * vanished_program.c - a program whose file is gone from its path before
 * it ends (tests/e2e/vanished-programs.sh):
 *   vanished_program deleted           deletes its own file, then runs
 *   vanished_program replaced OTHER    renames the file OTHER (another
 *                                      build) onto its own path, then runs
 *   vanished_program memfd             copies itself into a memfd and
 *                                      executes that (fexecve), which runs
 *   vanished_program after             runs itself as a child (fork, exec),
 *                                      which runs; once it has ended,
 *                                      deletes its own file
 * Running: 10 blocks of 4321 bytes from vanished_alloc, never freed; under
 * mprof it then waits (up to 30 s) until the launcher holds its program
 * open, so the test never depends on the launcher's 100 ms rounds; prints
 * "MODE done" and exits with status 0.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
void *volatile vanished_sink;

__attribute__((noinline)) void vanished_alloc(void)
{
	for (int i = 0; i < 10; i++)
		vanished_sink = malloc(4321);
}

/* Whether process pid has a descriptor open on the file /proc/self/exe
 * names (the same device and inode). */
static int holds_my_program(const char *pid)
{
	char dir[64], path[400];
	struct stat mine, st;
	struct dirent *e;
	int found = 0;
	DIR *d;

	if (stat("/proc/self/exe", &mine) != 0)
		return 0;
	snprintf(dir, sizeof(dir), "/proc/%s/fd", pid);
	d = opendir(dir);
	while (d && !found && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		found = e->d_name[0] != '.' && stat(path, &st) == 0 && st.st_dev == mine.st_dev &&
			st.st_ino == mine.st_ino;
	}
	if (d)
		closedir(d);
	return found;
}

static int run(const char *mode)
{
	const char *launcher = getenv("MPROF_LAUNCHER_PID");
	struct timespec step = { 0, 10 * 1000 * 1000 };

	vanished_alloc();
	for (int i = 0; launcher && i < 3000 && !holds_my_program(launcher); i++)
		nanosleep(&step, NULL);
	printf("%s done\n", mode);
	return 0;
}

int main(int argc, char **argv)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (argc < 2 || n <= 0)
		return 2;
	self[n] = '\0';
	if (strcmp(argv[1], "deleted") == 0) {
		if (unlink(self) != 0)
			return 3;
		return run(argv[1]);
	}
	if (strcmp(argv[1], "replaced") == 0 && argc == 3) {
		if (rename(argv[2], self) != 0)
			return 3;
		return run(argv[1]);
	}
	if (strcmp(argv[1], "memfd") == 0) {
		int src = open(self, O_RDONLY | O_CLOEXEC), mem = memfd_create("vanished", 0);
		struct stat st;
		char *args[] = { argv[0], (char *)"memfd-run", NULL };

		if (src < 0 || mem < 0 || fstat(src, &st) != 0 ||
		    sendfile(mem, src, NULL, (size_t)st.st_size) != st.st_size)
			return 3;
		fexecve(mem, args, environ);
		return 4;
	}
	if (strcmp(argv[1], "memfd-run") == 0)
		return run("memfd");
	if (strcmp(argv[1], "after") == 0) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			execl(self, argv[0], "after-run", (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0 || unlink(self) != 0)
			return 3;
		return 0;
	}
	if (strcmp(argv[1], "after-run") == 0)
		return run("after");
	return 2;
}
