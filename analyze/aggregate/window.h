/*
 * analyze/aggregate/window.h - a time window of a report (--from/--to, --at):
 * an event sink (read/event_sink.h) in front of the aggregation that lets
 * through only what the window keeps.
 *
 * Times are relative to the start of the recording.
 *  - A range [from, to) keeps the allocations made in it and the frees of
 *    those blocks (before or after `to`, so that "leaked" says whether they
 *    were still live at the end).  An event's time is its thread's newest
 *    TIME stamp at or before it (within about 10 ms, mprof-trace(5)), which
 *    the reader marks on each event (trace_info.window_range), and the
 *    start is the first TIME stamp of the trace's first EVENTS chunk, so
 *    that what the range keeps is the same whether or not the chunk index
 *    let the reader leave out laps before it.  Events before the range
 *    are dropped; frees made from its start on of blocks allocated outside
 *    it (before it, after it, inherited at fork or never recorded) are
 *    dropped and counted apart (frees_outside), not as unmatched frees.
 *    TIME stamps that stand before an event from before the range (the
 *    reader puts each right before its thread's next event), but the
 *    first, are dropped too.
 *  - At T keeps every event before T and drops the rest: what is live then
 *    is the heap at T (an event's time: the newest TIME stamp at or before
 *    it in sequence order, from the first).  The reader is told it may
 *    stop decoding events.
 * The aggregation sees a dropped event as the free part of a realloc of a
 * null pointer marked ALLOC_EV_PLACEHOLDER (it changes nothing but the
 * thread's "previous event" and is counted nowhere, not even in the
 * events), so that temporary allocations are judged on the thread's real
 * next event.
 */
#ifndef MPROF_ANALYZE_WINDOW_H
#define MPROF_ANALYZE_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/aggregate/aggregate.h"
#include "analyze/aggregate/block_table.h"
#include "analyze/aggregate/young_blocks.h"
#include "analyze/read/event_sink.h"
#include "analyze/read/event_stream.h"

/* A time as given on the command line: ns from the start, a share of the
 * run time, or a marker the program set ("marker:NAME", "marker:NAME#N"). */
struct window_time {
	bool given;
	bool percent;           /* share of the run time (END wall_ns) */
	double share;           /* percent: 0 .. 1 */
	uint64_t ns;            /* else: ns from the start */
	const char *text;       /* as given (argv's) */
	const char *marker;     /* a marker: its name (in text, marker_len bytes) */
	size_t marker_len;
	uint64_t marker_nth;    /* ... the nth of that name, from 1 */
};

/* What the user asked for: nothing, a range (either end may be open) or
 * a moment. */
struct window_spec {
	struct window_time from, to, at;
};

/*
 * Parses text ("2.5" or "2.5s" seconds, "300ms", "50%", "marker:NAME" or
 * "marker:NAME#N", the Nth marker of that name, N from 1) into t.  Returns
 * 0, or -EINVAL for anything else (negative, garbage, over 100%, too large,
 * an empty marker name, N of 0).
 */
int window_time_parse(const char *text, struct window_time *t);

/* Whether spec asks for a window at all. */
static inline bool window_spec_given(const struct window_spec *spec)
{
	return spec && (spec->from.given || spec->to.given || spec->at.given);
}

/* Whether spec asks for a range (--from or --to, without --at), which
 * counts the frees of inherited blocks apart and seeds no fork child. */
static inline bool window_spec_range(const struct window_spec *spec)
{
	return spec && !spec->at.given && (spec->from.given || spec->to.given);
}

/* A window resolved for one trace: what the report states. */
struct window_facts {
	bool range, at;         /* which kind (neither: no window) */
	uint64_t from_ns;       /* range: start, ns from the first TIME stamp */
	uint64_t to_ns;         /* range: end (excluded); UINT64_MAX: open */
	uint64_t at_ns;         /* at: the moment */
	uint64_t frees_outside; /* range: frees, from its start, of blocks
	                         * allocated outside it */
	uint64_t dropped_events;/* allocator events left out */
	bool stopped;           /* at: events after T were not decoded */
	uint64_t index_chunks_skipped; /* range: EVENTS chunks left unread (the
	                                * chunk index: before its start) */
	/* Ends given as markers: whether the marker came (its time, ns from
	 * the first TIME stamp, is then in from_ns, to_ns or at_ns), and the
	 * sequence number it stands after */
	bool from_marker, to_marker, at_marker;
	bool from_seen, to_seen, at_seen;
	uint64_t from_seq, to_seq, at_seq;
	uint64_t from_count, to_count, at_count; /* markers of the name seen */
	uint64_t from_abs_ns, to_abs_ns, at_abs_ns; /* the markers' own times
	                         * (CLOCK_MONOTONIC), for window_markers_time */
};

/* After the read: a marker end's time, ns from t0_ns (the report's first
 * TIME stamp, which the sink may have met after others). */
void window_markers_time(struct window_facts *f, uint64_t t0_ns);

/* Whether every marker the window names came (after the read), and the
 * range's start came before its end. */
static inline bool window_markers_found(const struct window_facts *f)
{
	return (!f->from_marker || f->from_seen) && (!f->to_marker || f->to_seen) &&
	       (!f->at_marker || f->at_seen);
}

/*
 * Resolves spec for a trace whose run time is run_ns (has_run: END wall_ns
 * is known; needed for percents) into f.  Returns 0, or -EINVAL with a
 * message in errbuf: a percent without a run time, or a start not before
 * the end.
 */
int window_resolve(const struct window_spec *spec, bool has_run, uint64_t run_ns,
		   struct window_facts *f, char *errbuf, size_t errbuf_bytes);

#define WINDOW_PIPELINE 16 /* a range's events held back while their bucket loads */

/* The sink: filters events for next (the aggregation's sink). */
struct window_sink {
	struct alloc_event pipeline[WINDOW_PIPELINE];
	unsigned pipe_head, pipe_count;
	struct window_facts *facts;  /* the resolved window, counts added */
	const struct event_sink *next;
	bool t0_known;
	uint64_t t0_ns, now_ns;      /* first and newest TIME stamps */
	bool done;                   /* at: T reached */
	struct block_table inside;   /* range: blocks allocated in it, live, */
	struct young_blocks young;   /* ... and those of them the reader saw
	                              * freed again soon (ALLOC_EV_PAIRED), as
	                              * the aggregation keeps them: disjoint */
	const struct window_spec *spec; /* the ends as given (markers' names) */
	const struct trace_info *info;  /* the reader's: names of the markers
	                                 * that MARKER events point at */
	int error;                   /* -ENOMEM */
};

/* Returns 0 or -ENOMEM.  facts and next must outlive w.  A window with
 * markers needs w->spec and w->info set before the read (the spec it was
 * resolved from, the trace_info the reader fills). */
int window_sink_init(struct window_sink *w, struct window_facts *facts,
		     const struct event_sink *next);
void window_sink_free(struct window_sink *w);

/* Fills sink to feed w (seq_limit: next's). */
void window_sink_bind(struct window_sink *w, struct event_sink *sink);

/* Hands on the events a range still holds back (window_emit); after the
 * last event. */
void window_sink_flush(struct window_sink *w);

#endif
