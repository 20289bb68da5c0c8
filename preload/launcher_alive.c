/*
 * preload/launcher_alive.c - whether the launcher still collects, for a
 * writer that waits for room in its ring (see launcher_alive.h).
 *
 * The launcher keeps its collecting thread's id in a word of the launcher
 * file, a robust futex that the kernel clears when that thread ends
 * (cli/launcher_alive.c), so the answer needs neither the launcher's pid,
 * which a process in another PID namespace cannot see, nor a system call.
 *
 * Owns the read-only mapping of the launcher file.  Must never allocate;
 * the file's descriptor is closed before returning.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "preload/launcher_alive.h"
#include "preload/process.h"
#include "preload/seccomp_watch.h"
#include "preload/sys.h"

static const struct session_launcher *launcher_page;

void launcher_alive_map(const char *session_dir)
{
	char path[PATH_MAX];
	size_t dir_len = strlen(session_dir);
	const struct session_launcher *page;
	struct stat st;
	void *map;
	int fd;

	if (launcher_page || dir_len + 1 + sizeof(SESSION_LAUNCHER_FILE) > sizeof(path))
		return;
	memcpy(path, session_dir, dir_len);
	path[dir_len] = '/';
	memcpy(path + dir_len + 1, SESSION_LAUNCHER_FILE, sizeof(SESSION_LAUNCHER_FILE));
	fd = sys_open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0)
		return;
	map = fstat(fd, &st) == 0 && st.st_size >= (off_t)SESSION_PAGE_BYTES
		      ? mmap(NULL, SESSION_PAGE_BYTES, PROT_READ, MAP_SHARED, fd, 0)
		      : MAP_FAILED;
	sys_close(fd);
	if (map == MAP_FAILED)
		return;
	page = map;
	if (page->magic != SESSION_LAUNCHER_MAGIC || page->version != SESSION_VERSION) {
		munmap(map, SESSION_PAGE_BYTES);
		return;
	}
	launcher_page = page;
}

int preload_launcher_alive(void)
{
	int saved = errno, alive;

	if (launcher_page)
		return (atomic_load_explicit(&launcher_page->owner_tid, memory_order_acquire) &
			FUTEX_TID_MASK) != 0;
	if (preload_proc.cfg.launcher_pid <= 0 || preload_proc.view.same_ns == 0)
		return 1;
	alive = !(kill(preload_proc.cfg.launcher_pid, 0) < 0 && errno == ESRCH);
	errno = saved;
	return alive;
}

void preload_launcher_wake(void)
{
	int saved = errno;

	/* a filter may kill for futex: the launcher's idle wait ends by itself
	 * within 100 ms */
	if (launcher_page && !seccomp_watch_filtered())
		syscall(SYS_futex, &launcher_page->wake, FUTEX_WAKE, 1, NULL, NULL, 0);
	errno = saved;
}
