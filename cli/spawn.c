/*
 * cli/spawn.c - locating the program and starting it.
 *
 * Owns the PATH search (with execvp's rules), the fork + wait-for-release
 * handshake (a pipe the child reads before it executes anything, so the
 * launcher can name the trace after the child's pid and create it before the
 * program runs), the child's recording environment, and the report of an exec
 * failure through a close-on-exec pipe.  The child never returns into the
 * launcher's code: it executes the program or _exits.  Every descriptor made
 * here is close-on-exec, so the program starts with only the descriptors
 * mprof itself inherited.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/die.h"
#include "cli/pid_info.h"
#include "cli/elf_check.h"
#include "cli/spawn.h"
#include "trace/session.h"
#include "trace/timens.h"

#define DEFAULT_PATH "/bin:/usr/bin"

/* Checks one candidate: 0 if it can be executed, else a negative errno. */
static int candidate_check(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	if (access(path, X_OK) != 0)
		return -errno;
	return 0;
}

int program_resolve(const char *name, char *out, size_t size)
{
	const char *path_env = getenv("PATH"), *p;
	int seen_eacces = 0, rc;

	if (!name[0])
		return -ENOENT;
	if (strchr(name, '/')) {
		if (strlen(name) >= size)
			return -ENAMETOOLONG;
		strcpy(out, name);
		return candidate_check(name);
	}
	if (!path_env)
		path_env = DEFAULT_PATH;
	p = path_env;
	for (;;) {
		const char *colon = strchr(p, ':');
		size_t dir_len = colon ? (size_t)(colon - p) : strlen(p);
		int n;

		if (dir_len == 0)
			n = snprintf(out, size, "%s", name);
		else
			n = snprintf(out, size, "%.*s/%s", (int)dir_len, p, name);
		if (n > 0 && (size_t)n < size) {
			rc = candidate_check(out);
			if (rc == 0)
				return 0;
			if (rc == -EACCES)
				seen_eacces = 1;
		}
		if (!colon)
			break;
		p = colon + 1;
	}
	return seen_eacces ? -EACCES : -ENOENT;
}

/* In the child: the launcher's time namespace offset, when it has one
 * (preload/timens.c); the child is still in the launcher's namespace.
 * Returns 0 or -1 (no memory). */
static int child_env_timens(void)
{
	char text[256], num[32];
	int fd = open("/proc/self/timens_offsets", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text)) : -1;
	int64_t offset_ns = n > 0 ? timens_parse_monotonic_ns(text, (size_t)n) : 0;

	if (fd >= 0)
		close(fd);
	if (offset_ns == 0)
		return unsetenv(SESSION_ENV_LAUNCHER_TIMENS);
	snprintf(num, sizeof(num), "%" PRId64, offset_ns);
	return setenv(SESSION_ENV_LAUNCHER_TIMENS, num, 1);
}

/* In the child: the recording environment.  Returns 0 or -1 (no memory). */
static int child_env_set(const struct spawn_env *env)
{
	char num[32], pidns[96], *preload;
	const char *old = getenv("LD_PRELOAD");
	int rc = 0;

	rc |= setenv(SESSION_ENV, env->session_dir, 1);
	snprintf(num, sizeof(num), "%ld", (long)getppid());
	rc |= setenv("MPROF_LAUNCHER_PID", num, 1);
	snprintf(num, sizeof(num), "%ld", (long)getpid());
	rc |= setenv(SESSION_ENV_ROOT_PID, num, 1);
	/* (the child is still in the launcher's PID namespace) */
	if (pid_info_pidns_word(pidns, sizeof(pidns)))
		rc |= setenv(SESSION_ENV_LAUNCHER_PIDNS, pidns, 1);
	else
		rc |= unsetenv(SESSION_ENV_LAUNCHER_PIDNS);
	rc |= child_env_timens();
	snprintf(num, sizeof(num), "%u", env->max_frames);
	rc |= setenv(SESSION_ENV_MAX_FRAMES, num, 1);
	if (env->sample_rate_bytes) {
		snprintf(num, sizeof(num), "%" PRIu64, env->sample_rate_bytes);
		rc |= setenv(SESSION_ENV_SAMPLE_RATE, num, 1);
	} else {
		rc |= unsetenv(SESSION_ENV_SAMPLE_RATE);
	}
	if (env->have_seed) {
		snprintf(num, sizeof(num), "%" PRIu64, env->sample_seed);
		rc |= setenv(SESSION_ENV_SAMPLE_SEED, num, 1);
	} else {
		rc |= unsetenv(SESSION_ENV_SAMPLE_SEED);
	}
	if (env->paused)
		rc |= setenv(SESSION_ENV_PAUSED, "1", 1);
	else
		rc |= unsetenv(SESSION_ENV_PAUSED);
	if (env->toggle_signal) {
		snprintf(num, sizeof(num), "%d", env->toggle_signal);
		rc |= setenv(SESSION_ENV_TOGGLE_SIGNAL, num, 1);
	} else {
		rc |= unsetenv(SESSION_ENV_TOGGLE_SIGNAL);
	}
	if (env->no_children)
		rc |= setenv(SESSION_ENV_NO_CHILDREN, "1", 1);
	else
		rc |= unsetenv(SESSION_ENV_NO_CHILDREN);
	if (old && old[0]) {
		preload = malloc(strlen(env->preload_path) + strlen(old) + 2);
		if (!preload)
			return -1;
		sprintf(preload, "%s:%s", env->preload_path, old);
		rc |= setenv("LD_PRELOAD", preload, 1);
		free(preload);
	} else {
		rc |= setenv("LD_PRELOAD", env->preload_path, 1);
	}
	return rc ? -1 : 0;
}

/* Executes path; a file without a #! line or ELF header goes to /bin/sh, as
 * execvp does (an ELF file the kernel cannot run, a 32-bit program on a
 * kernel without 32-bit support, fails as in a shell: execvp would hand it to
 * /bin/sh, which reads it as a script).  Returns the errno of the failure. */
static int exec_like_execvp(const char *path, char *const argv[])
{
	size_t argc = 0;
	char **sh_argv;

	execv(path, argv);
	if (errno != ENOEXEC || elf_check_is_elf(path))
		return errno;
	while (argv[argc])
		argc++;
	sh_argv = calloc(argc + 2, sizeof(*sh_argv));
	if (!sh_argv)
		return ENOMEM;
	sh_argv[0] = (char *)"/bin/sh";
	sh_argv[1] = (char *)path;
	for (size_t i = 1; i < argc; i++)
		sh_argv[i + 1] = argv[i];
	execv("/bin/sh", sh_argv);
	free(sh_argv);
	return ENOEXEC;
}

static _Noreturn void child_run(int go_rd, int err_wr, const char *path, char *const argv[],
				const struct spawn_env *env, const sigset_t *child_mask)
{
	char go;
	int err;
	ssize_t n;

	do
		n = read(go_rd, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(MPROF_EXIT_FAILED); /* the launcher gave up before the start */
	if (env->session_dir && child_env_set(env) < 0) {
		err = ENOMEM;
	} else {
		sigprocmask(SIG_SETMASK, child_mask, NULL);
		err = exec_like_execvp(path, argv);
	}
	if (write(err_wr, &err, sizeof(err)) < 0) {
		/* nothing left to tell anyone */
	}
	_exit(err == ENOENT ? MPROF_EXIT_NOTFOUND : MPROF_EXIT_NOEXEC);
}

int spawn_fork(struct spawn *sp, const char *path, char *const argv[],
	       const struct spawn_env *env, const sigset_t *child_mask)
{
	int go[2], err[2];
	pid_t pid;

	sp->pid = 0;
	sp->go_fd = sp->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) != 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) != 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		return -e;
	}
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		child_run(go[0], err[1], path, argv, env, child_mask);
	}
	close(go[0]);
	close(err[1]);
	sp->pid = pid;
	sp->go_fd = go[1];
	sp->err_fd = err[0];
	return 0;
}

int spawn_release(struct spawn *sp)
{
	char go = 'g';
	int err = 0, status;
	ssize_t n;

	if (write(sp->go_fd, &go, 1) != 1)
		err = errno ? errno : EPIPE;
	close(sp->go_fd);
	sp->go_fd = -1;
	do
		n = read(sp->err_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(sp->err_fd);
	sp->err_fd = -1;
	if (n == (ssize_t)sizeof(err) || (n <= 0 && err)) {
		while (waitpid(sp->pid, &status, 0) < 0 && errno == EINTR)
			;
		sp->pid = 0;
		return err ? err : EIO;
	}
	return 0;
}

void spawn_abort(struct spawn *sp)
{
	int status;

	if (sp->go_fd >= 0)
		close(sp->go_fd);
	if (sp->err_fd >= 0)
		close(sp->err_fd);
	sp->go_fd = sp->err_fd = -1;
	if (sp->pid > 0)
		while (waitpid(sp->pid, &status, 0) < 0 && errno == EINTR)
			;
	sp->pid = 0;
}

int spawn_exec_plain(const char *path, char *const argv[])
{
	fflush(stderr);
	return exec_like_execvp(path, argv);
}
