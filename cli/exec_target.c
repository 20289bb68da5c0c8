/*
 * cli/exec_target.c - why a program that a recorded process image executed
 * was not recorded (cli/exec_target.h).  Looks at the program's file as
 * cli/elf_check.h does for the program mprof starts itself.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/elf_check.h"
#include "cli/exec_target.h"
#include "cli/pid_info.h"

/* The file path names, into out[size]: as it is when absolute, but for a
 * path through the process's own /proc entry or descriptors (/proc/self/exe,
 * /proc/thread-self/..., /dev/fd/N: fexecve's), which names the file of the
 * process (pid), not mprof's; under the process's working directory when
 * relative (while the process lives), else under mprof's own; the first
 * executable of that name in $PATH when it has no '/'.  Returns false when
 * none is found. */
static bool target_file(unsigned pid, const char *path, char *out, size_t size)
{
	static const char *const own[][2] = {
		{"/proc/self/", ""}, {"/proc/thread-self/", ""}, {"/dev/fd/", "fd/"},
	};
	const char *dirs = getenv("PATH");

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		size_t n = strlen(own[i][0]);

		if (strncmp(path, own[i][0], n) == 0)
			return snprintf(out, size, "/proc/%u/%s%s", pid, own[i][1], path + n) <
				       (int)size && access(out, F_OK) == 0;
	}
	if (path[0] == '/')
		return snprintf(out, size, "%s", path) < (int)size;
	if (strchr(path, '/')) {
		if (snprintf(out, size, "/proc/%u/cwd/%s", pid, path) < (int)size &&
		    access(out, F_OK) == 0)
			return true;
		/* the process is gone: most often it ran where mprof was started */
		return snprintf(out, size, "%s", path) < (int)size && access(out, F_OK) == 0;
	}
	while (dirs && *dirs) {
		size_t n = strcspn(dirs, ":");

		if (n && snprintf(out, size, "%.*s/%s", (int)n, dirs, path) < (int)size &&
		    access(out, X_OK) == 0)
			return true;
		dirs += n + (dirs[n] == ':');
	}
	return false;
}

const char *exec_target_why(unsigned pid, const char *path, bool env_dropped,
			    bool session_unseen, uint32_t exec_euid, char *why, size_t size)
{
	char file[PATH_MAX];
	const char *secure, *kind, *sanitizer;
	char soname[64];
	/* the file the checks below look at, found once */
	bool have_file = !env_dropped && target_file(pid, path, file, sizeof(file));

	if (env_dropped) {
		snprintf(why, size, "its environment dropped mprof's LD_PRELOAD or MPROF_SESSION");
	} else if (have_file && elf_check_link(file) == ELF_LINK_STATIC) {
		snprintf(why, size, "it is statically linked: LD_PRELOAD cannot reach it");
	} else if (have_file &&
		   (kind = elf_check_foreign_kind(file)) != NULL) {
		snprintf(why, size, "it is %s: its loader cannot load mprof's recorder", kind);
	} else if (have_file &&
		   (secure = elf_check_secure_exec(file)) != NULL) {
		snprintf(why, size, "it runs %s: the loader ignores LD_PRELOAD", secure);
	} else if (have_file &&
		   (sanitizer = elf_check_sanitizer(file, soname, sizeof(soname))) != NULL) {
		snprintf(why, size, "it is built with %s (it loads %s), whose runtime serves malloc "
				    "itself and must come first, so it ran without mprof's recorder",
			 sanitizer, soname);
	} else if (session_unseen) {
		snprintf(why, size, "%s", EXEC_TARGET_UNSEEN_WHY);
	} else if (exec_euid != 0 && exec_euid != (uint32_t)geteuid()) {
		snprintf(why, size, "the process had changed its user to uid %u (as su and daemons "
				    "dropping root do), which cannot write in mprof's session "
				    "directory, so the recorder could not start in it", exec_euid);
	} else if (pid_info_running(pid)) {
		/* a background process that executed as the run ended */
		snprintf(why, size, "it was starting as mprof finished (the process runs on, "
				    "past the end of the recording)");
	} else {
		snprintf(why, size, "the recorder did not start in it (its loader could not "
				    "load mprof's library, as in a chroot without it, or it ended "
				    "first)");
	}
	return why;
}
