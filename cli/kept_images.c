/*
 * cli/kept_images.c - keeps a descriptor of each program that recorded
 * processes run, so the symbolize step at the end of the run can read its
 * symbols even when its file is gone from its path by then (deleted or
 * replaced while it ran or after it ended, or a memfd that never had a
 * path): a file opened through /proc/PID/exe while the process lives stays
 * readable after it ends.  One descriptor per distinct file (device and
 * inode), a bounded number, most of them left for files already deleted
 * when looked at.  Never prints.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/kept_images.h"

static const char deleted_suffix[] = " (deleted)";

/* Whether link is exe with the kernel's " (deleted)" after it, or exe
 * itself when the recorder already saw it deleted (a memfd). */
static bool link_is_deleted_exe(const char *link, const char *exe)
{
	size_t exe_len = strlen(exe), link_len = strlen(link);
	size_t suffix_len = sizeof(deleted_suffix) - 1;

	if (link_len < suffix_len || strcmp(link + link_len - suffix_len, deleted_suffix) != 0)
		return false;
	if (strcmp(link, exe) == 0)
		return true;
	return link_len == exe_len + suffix_len && strncmp(link, exe, exe_len) == 0;
}

/* Whether the file of st is kept already. */
static bool kept_images_has(const struct kept_images *k, const struct stat *st)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].dev == st->st_dev && k->v[i].ino == st->st_ino)
			return true;
	return false;
}

void kept_images_look(struct kept_images *k, unsigned pid, const char *exe)
{
	char path[64], link[4096];
	bool deleted;
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return; /* ended, or not ours to read */
	link[n] = '\0';
	deleted = link_is_deleted_exe(link, exe);
	if (!deleted && strcmp(link, exe) != 0)
		return; /* it runs another program now */
	if (k->n == KEPT_IMAGES_MAX || (!deleted && k->present == KEPT_IMAGES_PRESENT_MAX))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || kept_images_has(k, &st) || !(k->v[k->n].exe = strdup(exe))) {
		close(fd);
		return;
	}
	k->v[k->n].fd = fd;
	k->v[k->n].dev = st.st_dev;
	k->v[k->n].ino = st.st_ino;
	k->n++;
	k->present += !deleted;
}

void kept_images_hand_over(const struct kept_images *k)
{
	size_t cap = 1, len = 0;
	char *value;

	for (size_t i = 0; i < k->n; i++)
		cap += 32 + strlen(k->v[i].exe);
	value = k->n ? malloc(cap) : NULL;
	if (!value)
		return;
	value[0] = '\0';
	for (size_t i = 0; i < k->n; i++) {
		if (fcntl(k->v[i].fd, F_SETFD, 0) != 0)
			continue;
		len += (size_t)snprintf(value + len, cap - len, "/proc/self/fd/%d\t%s\n", k->v[i].fd,
					k->v[i].exe);
	}
	if (len)
		setenv(KEPT_IMAGES_ENV, value, 1);
	free(value);
}

void kept_images_close(struct kept_images *k)
{
	for (size_t i = 0; i < k->n; i++) {
		close(k->v[i].fd);
		free(k->v[i].exe);
	}
	k->n = 0;
	k->present = 0;
}
