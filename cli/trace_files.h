/*
 * cli/trace_files.h - the launcher's trace files: safe creation, naming of
 * the per-process traces, and the text chunks (META, END) around the events.
 */
#ifndef MPROF_CLI_TRACE_FILES_H
#define MPROF_CLI_TRACE_FILES_H

/*
 * Compression levels of EVENTS chunks (libdeflate's; see trace/chunk.h), by
 * effort: the collector compresses hard while a processor is to spare, and
 * fast when as many of the program's threads write as there are processors
 * or a ring is filling (a full ring makes the program's thread wait).
 * Measured on 26 MB of a C++ container benchmark's records, compressed a
 * chunk at a time: level 6 104 MB/s for 27.8% of the input, 4 162 MB/s for
 * 28.9%, 2 205 MB/s for 30.3%, 1 278 MB/s for 31.1% (zlib 1.2.13: level 6
 * 37 MB/s for 27.8%, level 1 133 MB/s for 33.1%).  Stored is what
 * cli/collector.c writes while the program's threads fill every processor.
 */
#define TRACE_LEVEL_SMALL 6
#define TRACE_LEVEL_MEDIUM 4
#define TRACE_LEVEL_QUICK 2
#define TRACE_LEVEL_FAST 1
#define TRACE_LEVEL_STORED 0

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/chunk.h"
#include "trace/chunk_index.h"

struct rezip_job;

struct trace_file {
	char *path;                /* as shown to the user, owned */
	int fd;                    /* -1 once closed */
	struct trace_writer w;
	int error;                 /* first write error (negative errno), or 0 */
	uint64_t events_raw_bytes; /* EVENTS payload bytes written, before compression */
	uint64_t chunks;           /* chunks written */
	uint64_t stored_bytes;     /* EVENTS payload bytes written at TRACE_LEVEL_STORED
	                            * and not deflated since (cli/rezip.h) */
	struct rezip_job *rezip;   /* the job deflating them, or NULL */
	bool rezip_failed;         /* one failed: the trace keeps them */
	struct chunk_index_writer index; /* an entry per EVENTS chunk written,
	                                  * some 20 bytes each (a chunk holds
	                                  * up to a quarter ring of records) */
};

/*
 * Creates path (O_EXCL|O_NOFOLLOW, mode 0600: never overwrites or follows a
 * link) and writes the file header.  Returns 0 or a negative errno; on
 * failure nothing is left on disk and tf owns nothing.
 */
int trace_file_create(struct trace_file *tf, const char *path);

/* Whether the traces created from now on hold sampled recordings (the file
 * header's TRACE_FLAG_SAMPLED). */
void trace_files_set_sampled(bool sampled);

/*
 * Creates the trace of another process of the run: base.PID, or base.PID.2,
 * base.PID.3 ... when that name is taken.  Returns 0 or a negative errno.
 */
int trace_file_create_for_pid(struct trace_file *tf, const char *base, unsigned pid);

/*
 * Compresses raw_bytes bytes at raw into one chunk of type (level
 * tf->w.level, see TRACE_LEVEL_*, with a compression buffer and
 * compressor shared by all trace files).  A chunk that could
 * not be written whole is cut off again, so the file stays readable up to
 * its last whole chunk.  After the first failure the file takes no more
 * chunks except an END chunk; the first error is kept in tf->error and
 * returned (negative errno).
 */
int trace_file_chunk(struct trace_file *tf, unsigned type, const void *raw, size_t raw_bytes);

/* The same, naming the chunk's stream in its header (EVENTS: slot + 1). */
int trace_file_chunk_stream(struct trace_file *tf, unsigned type, unsigned stream, const void *raw,
			    size_t raw_bytes);

/* An EVENTS chunk of stream from buf[0..bytes), split in place when it is
 * compressed (trace_writer_events_chunk: buf holds cap bytes, and its
 * contents are undefined afterwards). */
int trace_file_events_chunk(struct trace_file *tf, unsigned stream, uint8_t *buf, size_t bytes,
			    size_t cap);

/* An EVENTS chunk of stream from buf[0..bytes), as trace_file_events_chunk
 * writes it, noted in the trace's index as e (e->stream is set here). */
int trace_file_events_chunk_indexed(struct trace_file *tf, unsigned stream, uint8_t *buf,
				    size_t bytes, size_t cap, struct chunk_index_entry *e);

/* Writes the INDEX chunk of the EVENTS chunks written so far (deflated,
 * whatever the current level), unless one failed to be noted or written.
 * Returns 0 or a negative errno. */
int trace_file_index(struct trace_file *tf);

/* Closes the file (if open) and frees its path and index. */
void trace_file_close(struct trace_file *tf);

/* Closes the file and deletes it from disk (a trace that holds no data). */
void trace_file_discard(struct trace_file *tf);

/* Frees the shared compression buffer (at exit). */
void trace_files_release(void);

/* What the META chunk at the start of a trace says (mprof-trace(5)). */
struct trace_meta {
	bool is_root;              /* trace_role=root, else child */
	unsigned pid, ppid;
	unsigned ns_pid;           /* its pid in its own PID namespace, when
	                            * that is not the launcher's; 0: none */
	const char *exe;           /* the program image, /proc/PID/exe at its start */
	const char *command;       /* space-joined argv, or NULL when unknown */
	const char *comm;          /* its process name then, or NULL */
	uint64_t start_time_unix_ns;
	const char *hostname;
	unsigned max_frames;
	uint64_t sample_rate_bytes; /* mode=sampled with this interval; 0: exact */
	uint64_t sample_seed;      /* the process image's sampler seed (also in
	                            * exact mode: mprof_start may start sampling) */
	bool paused;               /* META paused=1: recording started stopped */
	bool no_children;          /* META no_children=1: mprof run --no-children */
	unsigned ring_bytes;
	unsigned slots;
	bool is_fork_child;        /* then parent_trace (may be NULL) and fork_seq */
	const char *parent_trace;
	uint64_t fork_seq;
	unsigned stack_stream;     /* chunk stream holding every STACK and MODULES
	                            * record (the shim's meta slot + 1); 0: none */
	uint64_t time_resolution_ns; /* the grain of the event clock that times
	                            * exact-mode events (trace/event_clock.h), ns;
	                            * 0: unknown */
};

/* What the END chunk says about how the process (and the run) ended. */
struct trace_end {
	bool has_status;           /* the program's pid: exit_status or signal */
	int wait_status;           /* from wait4, or made from the exit note */
	bool exit_unnoted;         /* an exit status (not a signal) of an image
	                            * that left no exit note: from wait4, a reap
	                            * or the zombie */
	bool is_root;              /* then the launcher's CPU time */
	long peak_rss_kib;         /* 0: unknown */
	const char *peak_rss_how;  /* "own" (exact) or "sampled" (at least) */
	uint64_t wall_ns;          /* the run's (root), the image's (child); 0: unknown */
	uint64_t launcher_cpu_ns;
	uint64_t recorder_kib;     /* the recorder's memory in the process, at most */
	uint64_t ring_waits;
	uint64_t unrecorded_allocs;
	uint64_t unrecorded_frees;
	uint32_t diag_flags;
	const char *diag_text;
	const char *process_state; /* "running", "ended" or "exec" */
	const char *collector_error; /* NULL, or why the collector stopped reading */
	uint32_t execs_unrecorded;   /* programs started with the recorder dropped */
	uint32_t children_unrecorded; /* children it made that run unrecorded (each
	                              * has a FORK record, as every child) */
	const char *exec_unrecorded_path; /* the first of them, as the call named it */
	const char *exec_into;     /* the program this image executed, of which no
	                            * trace was made, or NULL */
	const char *exec_into_why; /* why it was not recorded */
	const char *command;       /* the command line at its end where the
	                            * program changed it, else NULL */
	const char *comm;          /* the same of its process name */
	const char *name_how;      /* with either: "exit" (the recorder's exit
	                            * note), "filter" (the same, its process name
	                            * the one it had when it installed a seccomp
	                            * filter) or "seen" (the launcher's last look) */
};

/* Writes the META chunk.  Returns 0 or a negative errno. */
int trace_file_meta(struct trace_file *tf, const struct trace_meta *m);

/* Writes the END chunk (also after a write error, marking the trace
 * incomplete).  Returns 0 or a negative errno. */
int trace_file_end(struct trace_file *tf, const struct trace_end *e);

/* "key=value\n" text for META and END chunks.  Values are made single-line. */
struct kv_text {
	char *buf;    /* owned, NUL-terminated */
	size_t len;
	size_t cap;
};

/* Appends "key=<formatted value>\n".  Out of memory: the line is dropped. */
void kv_text_add(struct kv_text *t, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Writes t as one chunk of type to tf and frees t. */
int kv_text_write(struct kv_text *t, struct trace_file *tf, unsigned type);

#endif
