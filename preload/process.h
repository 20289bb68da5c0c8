/*
 * preload/process.h - the shim's process-wide state: its phase, its
 * configuration and the mapped process file (trace/session.h).
 *
 * The phase decides what every entry point does:
 *   UNSTARTED     nobody has begun initialising; the first caller will.
 *   INITIALIZING  one thread is initialising: every call is forwarded to the
 *                 real allocator (or the bootstrap arena) without waiting.
 *   READY         calls are recorded.
 *   INERT         the shim only forwards: no session, AT_SECURE, a child
 *                 that is not to be recorded, or no process file.
 *   DISABLED      recording stopped for good (the launcher went away).
 */
#ifndef MPROF_PRELOAD_PROCESS_H
#define MPROF_PRELOAD_PROCESS_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "preload/pidns.h"
#include "trace/session.h"

enum preload_phase {
	PRELOAD_UNSTARTED = 0,
	PRELOAD_INITIALIZING = 1,
	PRELOAD_READY = 2,
	PRELOAD_INERT = 3,
	PRELOAD_DISABLED = 4,
};

/* What the environment asked for (preload/settings.c). */
struct preload_config {
	char session_dir[PATH_MAX]; /* absolute, from MPROF_SESSION */
	uint32_t max_frames;        /* frames kept per call stack */
	uint32_t ring_bytes;        /* bytes per thread ring, whole pages */
	uint32_t nslots;            /* thread slots in the process file */
	pid_t launcher_pid;         /* writers give up when it is gone; 0: unknown */
	struct pidns_launcher launcher_pidns; /* the launcher's PID namespace */
	uint64_t root_pid;          /* the first program's pid; 0: unknown */
	int record_children;        /* 0: MPROF_NO_CHILDREN=1 */
	uint32_t test_start_delay_ms; /* testing aid (preload/settings.h); 0: none */
	uint64_t sample_interval_bytes; /* MPROF_SAMPLE_RATE; 0: exact mode */
	int have_sample_seed;       /* MPROF_SAMPLE_SEED is set (--sample-seed) */
	uint64_t sample_seed;       /* ... to this */
	int paused;                 /* MPROF_PAUSED=1: recording starts stopped */
	int toggle_signal;          /* MPROF_TOGGLE_SIGNAL; 0: none */
};

struct preload_process {
	struct preload_config cfg;
	struct session_proc_header *hdr; /* the mapped process file, or NULL */
	size_t file_bytes;               /* size of that mapping */
	/* The file offset of ring 0, as hdr->ring_offset was made: the
	 * recorder reaches its rings through this copy, as the program can
	 * write over the header. */
	uint64_t ring_offset;
	char file_name[64];              /* "p.PID.SERIAL" */
	struct pidns_view view;          /* this image's pids, as the launcher
	                                  * sees them (set with the file) */
	char exe[1024];                  /* /proc/self/exe, NUL-terminated */
	int command_whole;               /* hdr->command is the whole command
	                                  * line (procfile_command) */
	pthread_key_t thread_key;        /* its destructor retires a thread's slot */
	int have_thread_key;
	/* 1 when a Valgrind tool serves the program's allocations (set by the
	 * initializer before READY, never cleared): the calls that still reach
	 * the shim (reallocarray, __libc_malloc, the pool API ...) have their
	 * blocks freed past it, so no thread gets a state and every call
	 * forwards unrecorded and uncounted (preload_thread_enter_slow). */
	int forward_only;
};

extern struct preload_process preload_proc;
extern _Atomic int preload_phase;

/*
 * Stops recording for good: phase DISABLED, the process file marked
 * PROC_DISABLED with the DIAG_DISABLED flag and reason_text.  Safe to call
 * from several threads; only the first reason is kept.
 */
void preload_process_disable(const char *reason_text);

/*
 * Counts a call served without recording it (bootstrap, re-entry, thread
 * set-up): in the process file once it exists, in a static counter before.
 * is_free: 1 for a free, 0 for an allocation.
 */
void preload_count_unrecorded(int is_free);

/* Moves the counts kept before the process file existed into its header:
 * at the end of initialisation, and in a forked child once its own file
 * exists. */
void preload_flush_early_counts(void);

#endif
