/*
 * cli/session_dir.c - making and removing the session directory.
 *
 * Prefers /dev/shm (tmpfs: the process files are shared memory that never
 * reaches a disk), then $TMPDIR, then /tmp, skipping places with less than
 * ROOM_WANTED_BYTES free when another has more.  The directory is private to the
 * user (mkdtemp makes it 0700) and named after the launcher's pid,
 * mprof-PID-XXXXXX, so that a later run can remove the directories of
 * launchers that were killed before they could (it asks their launcher
 * file first: the pid may be another PID namespace's).  Only deletes this
 * user's session directories; never prints or exits.
 */
#include "config.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "cli/launcher_alive.h"
#include "cli/session_dir.h"

#define ROOM_WANTED_BYTES (UINT64_C(256) << 20)
#define STALE_AGE_S 10

/* Whether the launcher of session directory name (in parent_fd) is gone:
 * its launcher file says so; without one (an older mprof's), its pid is no
 * process, which kill can tell in this PID namespace only (a launcher in
 * another one sharing /dev/shm had its live directory removed). */
static bool dir_launcher_gone(int parent_fd, const char *name, pid_t pid)
{
	int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	int alive = fd >= 0 ? launcher_alive_read(fd) : -1;

	if (fd >= 0)
		close(fd);
	if (alive >= 0)
		return !alive;
	return kill(pid, 0) != 0 && errno == ESRCH;
}

/*
 * Removes session directories "mprof-PID-XXXXXX" in parent that belong to
 * this user and whose launcher is gone (a launcher killed by SIGKILL cannot
 * clean up; its rings would hold memory in /dev/shm until reboot).
 * Directories younger than STALE_AGE_S are left alone.
 */
static void dir_sweep_stale(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	char path[PATH_MAX];
	time_t now = time(NULL);

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		char *end;
		unsigned long pid;

		if (strncmp(e->d_name, "mprof-", 6) != 0)
			continue;
		pid = strtoul(e->d_name + 6, &end, 10);
		if (pid == 0 || pid > INT_MAX || *end != '-' || strlen(end + 1) != 6)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || now - st.st_mtime < STALE_AGE_S)
			continue;
		if (!dir_launcher_gone(dirfd(d), e->d_name, (pid_t)pid))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", parent, e->d_name) < sizeof(path))
			session_dir_remove(path);
	}
	closedir(d);
}

static int dir_try(const char *parent, char *out, size_t size)
{
	int n;

	if (!parent || parent[0] != '/')
		return -EINVAL;
	dir_sweep_stale(parent);
	n = snprintf(out, size, "%s/mprof-%ld-XXXXXX", parent, (long)getpid());
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (!mkdtemp(out))
		return -errno;
	return 0;
}

/* Free bytes for an unprivileged user in the file system of dir (0 when unknown). */
static uint64_t dir_free_bytes(const char *dir)
{
	struct statvfs vfs;

	if (!dir || dir[0] != '/' || statvfs(dir, &vfs) != 0 || (vfs.f_flag & ST_RDONLY))
		return 0;
	return (uint64_t)vfs.f_bavail * vfs.f_frsize;
}

int session_dir_create(char *out, size_t size)
{
	const char *candidates[] = { "/dev/shm", getenv("TMPDIR"), "/tmp" };
	const size_t n = sizeof(candidates) / sizeof(candidates[0]);
	bool roomy[sizeof(candidates) / sizeof(candidates[0])];
	int rc = -ENOENT;

	/* The rings live in these files: a file system that runs full would make
	 * the program's writes fault, so places with room come first. */
	for (size_t i = 0; i < n; i++)
		roomy[i] = dir_free_bytes(candidates[i]) >= ROOM_WANTED_BYTES;
	for (size_t i = 0; i < n && rc < 0; i++)
		if (roomy[i])
			rc = dir_try(candidates[i], out, size);
	for (size_t i = 0; i < n && rc < 0; i++)
		if (!roomy[i])
			rc = dir_try(candidates[i], out, size);
	return rc;
}

int session_dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT)
			rc = -errno;
	}
	closedir(d);
	if (rmdir(dir) != 0 && rc == 0)
		rc = -errno;
	return rc;
}
