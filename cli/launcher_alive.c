/*
 * cli/launcher_alive.c - the launcher file's word (trace/session.h): the
 * collecting thread's id, which the kernel clears when that thread ends.
 *
 * A recorder whose ring is full waits for the launcher to drain it and gives
 * up when the launcher is gone, or the program would hang.  kill(pid, 0)
 * cannot tell from a PID namespace the launcher is not in (ESRCH while it
 * runs), nor after the pid was reused.  A robust futex can:
 * the kernel walks a thread's robust list when the thread ends (exit, a
 * signal, exec), and in each word that holds the thread's id it clears the
 * id and sets FUTEX_OWNER_DIED, in the file's pages that every process maps.
 *
 * The same word tells a later run whether a session directory's launcher
 * is gone, in any namespace, before it removes the directory.
 *
 * Owns the main thread's robust list: set_robust_list(2) replaces the one
 * the C library registered, which only robust mutexes use (the launcher has
 * none).  The page stays mapped until the launcher ends.  Never prints.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/launcher_alive.h"
#include "trace/session.h"

static struct session_launcher *alive_page;
static struct robust_list alive_entry;
static struct robust_list_head alive_head;

/* Makes the file at path and maps it; NULL with errno set when it cannot. */
static struct session_launcher *alive_page_create(const char *path)
{
	void *page;
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0)
		return NULL;
	if (ftruncate(fd, SESSION_PAGE_BYTES) != 0) {
		int err = errno;

		close(fd);
		unlink(path);
		errno = err;
		return NULL;
	}
	page = mmap(NULL, SESSION_PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (page == MAP_FAILED) {
		unlink(path);
		return NULL;
	}
	return page;
}

int launcher_alive_start(const char *session_dir)
{
	char path[4096];
	struct session_launcher *page;
	int err;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", session_dir, SESSION_LAUNCHER_FILE) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	page = alive_page_create(path);
	if (!page)
		return -errno;
	page->magic = SESSION_LAUNCHER_MAGIC;
	page->version = SESSION_VERSION;
	atomic_store(&page->owner_tid, (uint32_t)syscall(SYS_gettid) & FUTEX_TID_MASK);
	/* a list of one entry, whose word lies futex_offset bytes from it */
	alive_entry.next = &alive_head.list;
	alive_head.list.next = &alive_entry;
	alive_head.futex_offset = (long)((char *)&page->owner_tid - (char *)&alive_entry);
	alive_head.list_op_pending = NULL;
	if (syscall(SYS_set_robust_list, &alive_head, sizeof(alive_head)) == 0) {
		alive_page = page;
		return 0;
	}
	/* unregistered, the word would outlive the launcher: no file, and
	 * the recorders fall back on its pid */
	err = errno;
	unlink(path);
	munmap(page, SESSION_PAGE_BYTES);
	return -err;
}

_Atomic uint32_t *launcher_alive_wake_word(void)
{
	return alive_page ? &alive_page->wake : NULL;
}

void launcher_alive_stop(void)
{
	if (alive_page)
		atomic_store(&alive_page->owner_tid, 0);
}

int launcher_alive_read(int dir_fd)
{
	struct session_launcher page;
	int fd = openat(dir_fd, SESSION_LAUNCHER_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, &page, sizeof(page), 0);
	close(fd);
	if (n != (ssize_t)sizeof(page) || page.magic != SESSION_LAUNCHER_MAGIC)
		return -1;
	return (atomic_load(&page.owner_tid) & FUTEX_TID_MASK) != 0;
}
