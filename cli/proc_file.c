/*
 * cli/proc_file.c - opening, checking and mapping one process file.
 *
 * The shim creates the file, sizes it, fills the header and then stores a
 * state other than PROC_STARTING; until then the launcher only reads the
 * header through the descriptor.  The geometry (slots, ring size, ring offset) is
 * checked against the file size and copied, so that a program scribbling on
 * its header cannot make the launcher read outside the mapping.  Owns the
 * descriptor until the file is mapped, then only the mapping.  Never prints.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/proc_file.h"
#include "trace/format.h"
#include "trace/varint.h"

#define SLOT_LIMIT (1u << 20)
/* A ring's bytes plus the EVENTS chunk header must fit one chunk. */
#define RING_LIMIT_BYTES (TRACE_CHUNK_MAX_RAW_BYTES - 3 * VARINT_MAX_BYTES)
_Static_assert(SESSION_RING_MAX_BYTES <= RING_LIMIT_BYTES,
	       "the largest ring the recorder makes is one the launcher takes");

int proc_file_open(struct proc_file *pf, int dirfd, const char *name)
{
	struct stat st;

	memset(pf, 0, sizeof(*pf));
	pf->fd = openat(dirfd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (pf->fd < 0)
		return -errno;
	if (fstat(pf->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(pf->fd);
		pf->fd = -1;
		return -EINVAL;
	}
	return 0;
}

/* Checks a header (a private copy) against the file size: -EPROTO for
 * another layout version, -EBADMSG for a header no recorder writes (the
 * program wrote over it: the recorder wrote all of it before its state). */
static int header_check(const struct session_proc_header *h, uint64_t file_bytes)
{
	uint64_t slots_end, rings_end;

	if (h->magic != SESSION_PROC_MAGIC)
		return -EBADMSG;
	if (h->version != SESSION_VERSION)
		return -EPROTO;
	if (h->nslots == 0 || h->nslots > SLOT_LIMIT)
		return -EBADMSG;
	if (h->ring_bytes < SESSION_PAGE_BYTES || h->ring_bytes % SESSION_PAGE_BYTES != 0 ||
	    h->ring_bytes > RING_LIMIT_BYTES)
		return -EBADMSG;
	slots_end = SESSION_SLOTS_OFFSET + (uint64_t)h->nslots * sizeof(struct session_slot);
	rings_end = h->ring_offset + (uint64_t)h->nslots * h->ring_bytes;
	if (h->ring_offset % SESSION_PAGE_BYTES != 0 || h->ring_offset < slots_end ||
	    h->ring_offset > file_bytes || rings_end > file_bytes)
		return -EBADMSG;
	return 0;
}

int proc_file_map(struct proc_file *pf)
{
	struct session_proc_header copy;
	struct stat st;
	uint32_t state;
	void *base;
	int rc;

	if (pf->base)
		return 1;
	if (pf->fd < 0)
		return -EBADF;
	/* Read, not loaded through a mapping: until the shim has written the
	 * header its page may have no memory (on a full tmpfs a load there is
	 * SIGBUS, a read gives zeros or a short count), and a header page
	 * mapped only to be copied cost a map, a fault and an unmap's TLB
	 * flush for every process. */
	if (pread(pf->fd, &state, sizeof(state), offsetof(struct session_proc_header, state)) !=
		    (ssize_t)sizeof(state) ||
	    state == PROC_STARTING)
		return 0;
	atomic_thread_fence(memory_order_acquire);
	if (pread(pf->fd, &copy, sizeof(copy), 0) != (ssize_t)sizeof(copy))
		return 0;
	if (fstat(pf->fd, &st) != 0)
		return -errno;
	rc = header_check(&copy, (uint64_t)st.st_size);
	if (rc < 0)
		return rc;
	if ((uint64_t)st.st_size > SIZE_MAX)
		return -EPROTO;
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, pf->fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	close(pf->fd);
	pf->fd = -1;
	pf->base = base;
	pf->map_bytes = (size_t)st.st_size;
	pf->h = base;
	pf->nslots = copy.nslots;
	pf->ring_bytes = copy.ring_bytes;
	pf->ring_offset = copy.ring_offset;
	pf->id = (struct proc_file_id){
		.pid = copy.pid,
		.ppid = copy.ppid,
		.ns_pid = copy.ns_pid,
		.is_fork_child = copy.is_fork_child,
		.flags = copy.flags,
		.fork_seq = copy.fork_seq,
		.pidns_dev = copy.pidns_dev,
		.pidns_ino = copy.pidns_ino,
	};
	return 1;
}

void proc_file_abandon(struct proc_file *pf)
{
	uint32_t state = PROC_ABANDONED;

	if (pf->base)
		atomic_store_explicit(&pf->h->state, PROC_ABANDONED, memory_order_release);
	else if (pf->fd >= 0 &&
		 pwrite(pf->fd, &state, sizeof(state),
			offsetof(struct session_proc_header, state)) != (ssize_t)sizeof(state))
		return; /* (a full file system: nothing else to do) */
}

void proc_file_close(struct proc_file *pf)
{
	if (pf->base)
		munmap(pf->base, pf->map_bytes);
	if (pf->fd >= 0)
		close(pf->fd);
	pf->base = NULL;
	pf->h = NULL;
	pf->fd = -1;
}

bool proc_file_withdrawn(const struct proc_file *pf)
{
	struct stat st;

	return pf->fd >= 0 && fstat(pf->fd, &st) == 0 && st.st_nlink == 0;
}

unsigned proc_file_name_pid(const char *name)
{
	unsigned long v;

	if (strncmp(name, "p.", 2) != 0)
		return 0;
	v = strtoul(name + 2, NULL, 10);
	return v <= INT_MAX ? (unsigned)v : 0;
}
