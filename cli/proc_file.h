/*
 * cli/proc_file.h - the launcher's view of one process file in the session
 * directory (layout in trace/session.h): waiting for its header, mapping it,
 * and reaching its slots and rings through geometry copied once.
 */
#ifndef MPROF_CLI_PROC_FILE_H
#define MPROF_CLI_PROC_FILE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "trace/session.h"

struct proc_file {
	int fd;                          /* until mapped, then -1 */
	uint8_t *base;                   /* the whole file, read/write, once ready */
	size_t map_bytes;
	struct session_proc_header *h;   /* = base; the program can write it too */
	/* Geometry checked and copied when mapped: never re-read from h. */
	uint32_t nslots;
	uint32_t ring_bytes;
	uint64_t ring_offset;
	/* The image's identity and flags, copied when mapped with the
	 * geometry (the program may write over them later): the header's
	 * fields of the same names. */
	struct proc_file_id {
		uint32_t pid, ppid, ns_pid;
		uint32_t is_fork_child;
		uint32_t flags;
		uint64_t fork_seq;
		uint64_t pidns_dev, pidns_ino;
	} id;
};

/* Opens name in the directory dirfd, without mapping it yet.  Returns 0 or
 * a negative errno. */
int proc_file_open(struct proc_file *pf, int dirfd, const char *name);

/*
 * Maps the file once the shim has finished its header (state is no longer
 * PROC_STARTING).  Returns 1 when mapped, 0 while the header is not ready,
 * -EPROTO for a header of another layout version, -EBADMSG for one no
 * recorder writes (the program wrote over it), or another negative errno.
 */
int proc_file_map(struct proc_file *pf);

/* Tells the file's recorder that the launcher will not read it (stores
 * PROC_ABANDONED in the header's state, through the mapping or the
 * descriptor), so that its threads stop recording instead of waiting for
 * room in their rings for ever.  Does nothing when pf holds neither. */
void proc_file_abandon(struct proc_file *pf);

/* Unmaps and closes whatever pf holds. */
void proc_file_close(struct proc_file *pf);

/* Whether the file of a pf not mapped yet was removed by its recorder,
 * which does so when it gives up making it (a full file system): the
 * process that started it counts that process as not recorded. */
bool proc_file_withdrawn(const struct proc_file *pf);

/* The reap table of a mapped file (trace/session.h). */
static inline const struct session_reaps *proc_file_reaps(const struct proc_file *pf)
{
	return (const struct session_reaps *)(pf->base + SESSION_REAPS_OFFSET);
}

static inline struct session_slot *proc_file_slot(const struct proc_file *pf, uint32_t i)
{
	return (struct session_slot *)(pf->base + SESSION_SLOTS_OFFSET) + i;
}

static inline uint8_t *proc_file_ring(const struct proc_file *pf, uint32_t i)
{
	return pf->base + pf->ring_offset + (uint64_t)i * pf->ring_bytes;
}

/* The pid in a process file name "p.PID.SERIAL", or 0. */
unsigned proc_file_name_pid(const char *name);

#endif
