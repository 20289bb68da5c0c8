/*
 * preload/procfile.c - the process file: the shared mapping in which this
 * process image's threads leave their records for the launcher.
 *
 * Owns the creation of the file and the filling of its header.  The
 * descriptor is closed before returning (the target may close or dup2 over
 * any descriptor at any time), the file is never overwritten (O_EXCL,
 * O_NOFOLLOW) and is private to the user (0600).  Must not allocate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "preload/control.h"
#include "preload/init.h"
#include "preload/mem.h"
#include "preload/populate.h"
#include "preload/procfile.h"
#include "preload/sample.h"
#include "preload/sys.h"
#include "preload/timens.h"
#include "trace/argv_quote.h"

char *procfile_put_dec(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *procfile_put_hex64(char *p, uint64_t v)
{
	for (int shift = 60; shift >= 0; shift -= 4)
		*p++ = "0123456789abcdef"[(v >> shift) & 15];
	return p;
}

/* The serial: CLOCK_MONOTONIC in ns when the file is made, in the
 * launcher's time namespace (timens.h).  The clock is the system's, so serials order the files of all processes by creation
 * (the launcher relies on it: file times are too coarse to tell an image
 * from the one it executed a moment later); a clash is retried. */
static uint64_t procfile_serial(void)
{
	return timens_mono_ns();
}

/* Writes "p.PID.SERIAL" into name (64 bytes); PID as the launcher sees it. */
static void procfile_name(char *name, uint32_t pid)
{
	char *p = name;

	*p++ = 'p';
	*p++ = '.';
	p = procfile_put_dec(p, pid);
	*p++ = '.';
	p = procfile_put_hex64(p, procfile_serial());
	*p = '\0';
}

/* Opens a new, unique process file; returns the descriptor or -errno. */
static int procfile_open(struct preload_process *proc, char *path, size_t path_size)
{
	size_t dir_len = strlen(proc->cfg.session_dir);

	if (dir_len + 1 + sizeof(proc->file_name) > path_size)
		return -ENAMETOOLONG;
	for (int attempt = 0; attempt < 16; attempt++) {
		int fd;

		procfile_name(proc->file_name, proc->view.pid);
		memcpy(path, proc->cfg.session_dir, dir_len);
		path[dir_len] = '/';
		strcpy(path + dir_len + 1, proc->file_name);
		fd = sys_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int procfile_command(char *out, size_t cap)
{
	char raw[2048];
	ssize_t n = sys_read_file("/proc/self/cmdline", raw, sizeof(raw));
	size_t len = 0;

	out[0] = '\0';
	if (n > 0)
		len = argv_quote_cmdline(out, cap, raw, (size_t)n);
	/* a quoted text cut where out is full is cap - 1 long */
	return n > 0 && (size_t)n < sizeof(raw) && len > 0 && len < cap - 1;
}

void procfile_comm(char *out, size_t cap)
{
	ssize_t n = sys_read_file("/proc/self/comm", out, cap - 1);

	if (n < 0)
		n = 0;
	if (n > 0 && out[n - 1] == '\n')
		n--;
	out[n] = '\0';
}

int procfile_comm_own(char *out, size_t cap)
{
	char name[16 + 1] = { 0 };
	size_t n;

	out[0] = '\0';
	if (preload_tid() != getpid() || prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
		return 0;
	n = strnlen(name, 16);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, name, n);
	out[n] = '\0';
	return 1;
}

/* Fills the header and marks it running; returns false when the launcher
 * gave the file up meanwhile (PROC_ABANDONED stays: a plain store of
 * RUNNING over it made threads fill rings no one reads). */
static bool procfile_fill(struct preload_process *proc, struct session_proc_header *h,
			  uint64_t ring_offset, const struct procfile_origin *origin)
{
	uint32_t starting = PROC_STARTING;

	h->magic = SESSION_PROC_MAGIC;
	h->version = SESSION_VERSION;
	h->pid = proc->view.pid;
	h->ppid = proc->view.ppid;
	h->ns_pid = proc->view.ns_pid;
	h->pidns_dev = proc->view.ns_dev;
	h->pidns_ino = proc->view.ns_ino;
	h->nslots = proc->cfg.nslots;
	h->ring_bytes = proc->cfg.ring_bytes;
	h->ring_offset = ring_offset;
	h->file_bytes = proc->file_bytes;
	h->launcher_pid = (uint32_t)proc->cfg.launcher_pid;
	h->is_fork_child = (uint32_t)origin->is_fork_child;
	h->fork_seq = origin->fork_seq;
	if (origin->parent_file)
		strncpy(h->parent_file, origin->parent_file, sizeof(h->parent_file) - 1);
	memcpy(h->exe, proc->exe, sizeof(h->exe));
	h->exe[sizeof(h->exe) - 1] = '\0';
	proc->command_whole = procfile_command(h->command, sizeof(h->command));
	/* a path walk in /proc spared at every start (the main thread's name) */
	if (!procfile_comm_own(h->comm, sizeof(h->comm)))
		procfile_comm(h->comm, sizeof(h->comm));
	h->flags = SESSION_FLAG_META_SLOT; /* preload/meta.c owns slot 0 */
	h->sample_seed = sample_seed_get();
	if (origin->is_fork_child) {
		/* a child starts as its parent was at the fork, which mprof_start,
		 * mprof_stop or the toggle signal may have changed since exec */
		uint64_t w = atomic_load_explicit(&control_word, memory_order_relaxed);

		h->sample_rate = control_word_rate(w);
		h->paused = !(w & CONTROL_RUNNING);
	} else {
		h->sample_rate = proc->cfg.sample_interval_bytes;
		h->paused = proc->cfg.paused != 0;
	}
	atomic_store_explicit(&h->seq, origin->fork_seq, memory_order_relaxed);
	if (proc->cfg.test_start_delay_ms) {
		struct timespec delay = { proc->cfg.test_start_delay_ms / 1000,
					  (long)(proc->cfg.test_start_delay_ms % 1000) * 1000000L };

		while (nanosleep(&delay, &delay) < 0 && errno == EINTR)
			;
	}
	return atomic_compare_exchange_strong_explicit(&h->state, &starting, PROC_RUNNING,
						       memory_order_release, memory_order_relaxed);
}

/* Bytes of a process file with nslots slots of ring_bytes; its rings
 * start at *ring_offset. */
static uint64_t procfile_bytes(uint32_t nslots, uint32_t ring_bytes, uint64_t *ring_offset)
{
	uint64_t slots_bytes = (uint64_t)nslots * sizeof(struct session_slot);

	*ring_offset = (SESSION_SLOTS_OFFSET + slots_bytes + SESSION_PAGE_BYTES - 1) &
		       ~(uint64_t)(SESSION_PAGE_BYTES - 1);
	return *ring_offset + (uint64_t)nslots * ring_bytes;
}

/*
 * Sizes the file at fd for proc->cfg.nslots and maps it.  When the
 * address space is short (ENOMEM: an RLIMIT_AS, or a program that used
 * nearly all of it), tries again with half the slots, down to 2 (the meta
 * stream's and one thread's), and leaves cfg.nslots at what fitted.
 */
static void *procfile_map(struct preload_process *proc, int fd, uint64_t *file_bytes,
			  uint64_t *ring_offset)
{
	for (;;) {
		void *base;

		*file_bytes = procfile_bytes(proc->cfg.nslots, proc->cfg.ring_bytes, ring_offset);
		if (ftruncate(fd, (off_t)*file_bytes) < 0)
			return MAP_FAILED;
		base = mmap(preload_mem_far_hint(*file_bytes), *file_bytes, PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0);
		if (base != MAP_FAILED || errno != ENOMEM || proc->cfg.nslots <= 2)
			return base;
		proc->cfg.nslots = proc->cfg.nslots / 2 < 2 ? 2 : proc->cfg.nslots / 2;
	}
}

int procfile_create(struct preload_process *proc, const struct procfile_origin *origin)
{
	char path[PATH_MAX];
	uint64_t ring_offset;
	uint64_t file_bytes = procfile_bytes(proc->cfg.nslots, proc->cfg.ring_bytes, &ring_offset);
	struct rlimit fsize;
	void *base;
	int fd, err;

	/* Growing the file past RLIMIT_FSIZE would raise SIGXFSZ in the program
	 * (a signal it did not ask for): with such a limit, do not record. */
	if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY &&
	    fsize.rlim_cur < file_bytes)
		return -EFBIG;
	fd = procfile_open(proc, path, sizeof(path));
	if (fd < 0)
		return fd;
	base = procfile_map(proc, fd, &file_bytes, &ring_offset);
	if (base == MAP_FAILED)
		goto fail;
	/* the header and the reap table are written from now on (populate.h) */
	if (populate_pages(base, SESSION_SLOTS_OFFSET) < 0) {
		munmap(base, file_bytes);
		errno = ENOSPC;
		goto fail;
	}
	sys_close(fd);
	if (!procfile_fill(proc, base, ring_offset, origin)) {
		/* the launcher stopped waiting and removed the file: not recorded */
		munmap(base, file_bytes);
		return -ECANCELED;
	}
	proc->hdr = base;
	proc->file_bytes = file_bytes;
	proc->ring_offset = ring_offset;
	atomic_store_explicit(&proc->hdr->recorder_map_bytes, preload_mem_mapped(),
			      memory_order_relaxed);
	return 0;
fail:
	err = -errno;
	sys_close(fd);
	unlink(path);
	return err;
}
