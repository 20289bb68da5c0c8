/*
 * analyze/read/event_stream.h - reading one trace file for a report: chunks in
 * file order, per-slot decoding, allocator events merged into exact sequence
 * order and handed to a sink (event_sink.h), plus everything a report states
 * (META/END key=value pairs, diagnostics, process info, lost chunks, stack
 * nodes, module maps, embedded symbols).
 */
#ifndef MPROF_ANALYZE_EVENT_STREAM_H
#define MPROF_ANALYZE_EVENT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/read/event_sink.h"
#include "analyze/read/modules.h"
#include "analyze/read/rss_series.h"
#include "analyze/read/stack_nodes.h"

#define TRACE_INFO_MAX_LOST_OFFSETS 32 /* offsets of lost chunks kept for the report */
#define TRACE_INFO_MAX_DIAGS 64        /* distinct diagnostics kept */
#define TRACE_MARKER_NAME_MAX 255      /* bytes of a marker's name kept */

struct kv_pair {
	char *key;    /* owned */
	char *value;  /* owned */
};

struct kv_list {
	struct kv_pair *pairs; /* owned */
	size_t count, cap;
};

/* The value of key in l (the last one when repeated), or NULL. */
const char *kv_list_get(const struct kv_list *l, const char *key);

/* Parses a META or END payload's "key=value\n" lines into l (empty or
 * holding earlier pairs); lines without '=' are ignored.  Returns 0,
 * -ENOMEM, or -E2BIG (too many lines: nothing added). */
int kv_list_parse(struct kv_list *l, const uint8_t *data, size_t bytes);

/* The stream that holds the stack nodes and module maps, as META's
 * stack_stream names it; 0 when it names none or none that can be. */
unsigned meta_stack_stream(const struct kv_list *meta);

struct trace_diag {
	uint64_t code;  /* enum trace_diag_code */
	char *text;     /* owned, NUL-terminated */
	uint64_t count; /* times it was recorded */
};

/* A named marker the program set (MARKER record, minor 2). */
struct trace_marker {
	char *name;        /* owned, NUL-terminated (NULs made spaces; a newline
	                    * kept: each output escapes it) */
	uint64_t time_ns;  /* CLOCK_MONOTONIC, as TIME stamps */
	uint64_t seq;      /* the sequence number it stands after */
	uint64_t tid;      /* thread that set it */
};

/* Recording stopped or started (CONTROL record, minor 2). */
struct trace_control {
	uint64_t time_ns;  /* CLOCK_MONOTONIC */
	uint64_t seq;      /* the sequence number it stands after */
	bool started;      /* true: recording started; false: stopped */
	uint64_t sample_rate_bytes; /* started: the rate from here on (0: exact) */
};

struct trace_info {
	char *path;                 /* owned copy */
	uint32_t flags;             /* TRACE_FLAG_* */
	uint16_t version_minor;     /* the header's format minor */
	bool sampled;               /* the header's flag, or a CONTROL record
	                             * started sampling: some weights are
	                             * estimates */
	struct kv_list meta, end;   /* META and END chunks */
	bool has_end;

	/* process (EXT_PROCESS; the last one wins) */
	bool has_process;
	uint64_t pid, ppid;
	char *exe, *cmdline;        /* owned; cmdline's NULs turned into spaces */
	uint64_t forks;             /* EXT_FORK records */

	/* what the trace rests on */
	uint64_t chunks;            /* chunks read */
	uint64_t chunks_lost;       /* corrupt / continuing lost data / unknown kinds */
	uint64_t repeated_chunks;   /* EVENTS chunks of a stretch of their slot
	                             * read already: dropped unread */
	uint64_t repeated_info_chunks; /* META, END or SYMBOLS chunks the same,
	                             * byte for byte, as the first of their
	                             * kind: dropped (harmless) */
	uint64_t conflicting_chunks; /* META, END or SYMBOLS chunks unlike the
	                             * first of their kind: ignored, the first
	                             * is read; no events are lost by it */
	uint64_t unknown_chunks;    /* chunks of a type this reader does not
	                             * know (a newer writer's): skipped by
	                             * their length, no events lost */
	unsigned unknown_chunk_type; /* the first of them's type */
	uint64_t trace_copies;      /* copies of the whole trace after the
	                             * first (a file written twice): skipped
	                             * unread, nothing lost (trace_reader) */
	uint64_t cut_copy_offset;   /* where a copy cut short ends (the next
	                             * copy's file header, or the file's end):
	                             * a whole copy gave its chunks (0: none) */
	uint64_t other_trace_offset; /* a file header of another trace here:
	                             * not read, the report is of the first
	                             * (0: none) */
	uint64_t conflicting_offset; /* the first of these, and its kind */
	const char *conflicting_kind; /* "META", "END", "SYMBOLS" (static) */
	uint64_t lost_offsets[TRACE_INFO_MAX_LOST_OFFSETS];
	char lost_reasons[TRACE_INFO_MAX_LOST_OFFSETS][96];
	size_t lost_offset_count;
	bool truncated;             /* the file ends inside a chunk */
	uint64_t truncated_offset;
	uint64_t unrecorded_allocs, unrecorded_frees; /* EXT_UNRECORDED sums
	                              * (saturating: see unrecorded_saturated) */
	bool unrecorded_saturated;  /* a sum stopped at UINT64_MAX */
	bool has_unrecorded;
	uint64_t alloc_records, free_records, realloc_records, skip_records;
	uint64_t time_records, stack_records, thread_records;
	uint64_t stack_errors;      /* STACK records refused (bad id) */
	uint64_t alloc_errors;      /* ALLOC and REALLOC records refused: a
	                             * size above PTRDIFF_MAX or a weight above
	                             * UINT32_MAX, which no call can have had
	                             * (taken as sequence numbers used by no
	                             * event, ALLOC_EV_REFUSED) */
	uint64_t module_errors;     /* MODULES records refused */
	uint64_t first_seq;         /* first sequence number expected */

	struct trace_diag diags[TRACE_INFO_MAX_DIAGS];
	size_t diag_count;
	uint64_t diags_dropped;

	/* MARKER and CONTROL records in the order decoded (events name them
	 * by index), in sequence order after trace_info_order_stamps */
	struct trace_marker *markers; /* owned */
	size_t marker_count, marker_cap;
	struct trace_control *controls; /* owned */
	size_t control_count, control_cap;
	uint64_t ext_errors;        /* MARKER or CONTROL records that did not
	                             * decode: stamps naming none of these */

	struct rss_series rss;      /* RSS chunks: the program's RSS over time */
	uint64_t rss_chunks_bad;    /* RSS chunks that did not decode */

	/* SYMBOLS chunk payloads, in file order (owned) */
	uint8_t **symbols;
	size_t *symbols_bytes;
	size_t symbols_count;

	/* optional, set by the caller: told of reading progress after each
	 * chunk (bytes read so far, file size) */
	void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
	void *progress_ctx;

	/* optional, set by the caller: a report's time range (window.h), ns
	 * from the start of the recording (the first TIME stamp of the first
	 * EVENTS chunk); window_to_ns 0: open.  The reader then marks every
	 * event by its thread's clock (ALLOC_EV_EARLY, ALLOC_EV_LATE), hands
	 * the sink a TIME event of the start before any other, and with a
	 * start, leaves out what the chunk index says is before it
	 * (index_plan.h) unless no_index */
	bool window_range;
	uint64_t window_from_ns, window_to_ns;
	/* optional, set by the caller of a read up to a moment (--at): hand
	 * the sink the start of the recording before any event, as a range's
	 * read does */
	bool window_at;
	bool no_index;
	/* what the chunk index did for it */
	bool index_used;
	uint64_t index_chunks_skipped;  /* EVENTS chunks left unread */
	char index_note[160];           /* why an index was not used, or "" */

	/* merge statistics */
	uint64_t seq_gaps, seq_missing, late_events;
	uint64_t repeated_events;   /* merged already, dropped (reorder.h) */
	uint64_t cut_unknown;       /* missing numbers that were calls the
	                             * process's end cut short (CUT_CALLS) */
	size_t buffered_bytes_max;  /* most event data that waited to be merged */
};

/* Frees the pairs of l. */
void kv_list_free(struct kv_list *l);

/* Reads only the META chunk of the trace at path (the first chunk the
 * launcher writes) into meta.  Returns 0 (meta empty when the trace has
 * none among its first chunks) or a negative errno. */
int event_stream_read_meta(const char *path, struct kv_list *meta);

/* Reads only the END chunk of the trace at path into end, skipping every
 * other chunk by its header (for a report that needs the run time before
 * the events).  Returns 0 (end empty when there is none, or the file is
 * damaged before it) or a negative errno. */
int event_stream_read_end(const char *path, struct kv_list *end);

/* Puts info's markers and controls in sequence order (two at one seq come
 * from one slot, whose order their times keep), once no event that names
 * one by its index is still to be handled; a control timed before the one
 * before it takes that one's time, so the controls' times never decrease. */
void trace_info_order_stamps(struct trace_info *info);

/* trace_info_free keeps nothing; trace_info_init clears everything,
 * including the progress callback. */
void trace_info_init(struct trace_info *info);
void trace_info_free(struct trace_info *info);

/*
 * Reads the trace at path: fills info, adds STACK records to nodes and
 * MODULES records to maps, and hands every allocator event to sink in exact
 * sequence order.  Warnings (lost chunks, truncation) are recorded in info,
 * not printed.
 *
 * Returns 0 (possibly with lost data counted in info), -ENOMEM, or another
 * negative errno when the file cannot be opened or is not a trace; then
 * errbuf (errbuf_bytes) holds a message naming the path.
 */
int event_stream_read(const char *path, struct trace_info *info, struct stack_nodes *nodes,
		      struct module_maps *maps, const struct event_sink *sink, char *errbuf,
		      size_t errbuf_bytes);

#endif
