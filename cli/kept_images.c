/*
 * cli/kept_images.c - keeps a descriptor of each program that a recorded
 * process runs after its file was deleted or replaced (a rebuild, a
 * temporary folder cleaned, `go run`'s binary) or that never had a path (a
 * memfd given to fexecve), so the symbolize step at the end of the run can
 * still read its symbols: a file opened through /proc/PID/exe while the
 * process lives stays readable after it ends.  Never prints.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

bool kept_images_look(struct kept_images *k, unsigned pid, const char *exe)
{
	char path[64], link[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return true; /* ended, or not ours to read */
	link[n] = '\0';
	if (!link_is_deleted_exe(link, exe))
		return strcmp(link, exe) != 0; /* still there, or another program now */
	if (k->n == KEPT_IMAGES_MAX)
		return true;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		k->fds[k->n++] = fd;
	return true;
}

void kept_images_hand_over(const struct kept_images *k)
{
	char value[KEPT_IMAGES_MAX * 28 + 1];
	size_t len = 0;

	if (k->n == 0)
		return;
	for (size_t i = 0; i < k->n; i++) {
		if (fcntl(k->fds[i], F_SETFD, 0) != 0)
			continue;
		len += (size_t)snprintf(value + len, sizeof(value) - len, "%s/proc/self/fd/%d",
					len ? ":" : "", k->fds[i]);
	}
	if (len)
		setenv(KEPT_IMAGES_ENV, value, 1);
}

void kept_images_close(struct kept_images *k)
{
	for (size_t i = 0; i < k->n; i++)
		close(k->fds[i]);
	k->n = 0;
}
