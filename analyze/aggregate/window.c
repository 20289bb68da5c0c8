/*
 * analyze/aggregate/window.c - the time window's sink (window.h): parses and
 * resolves --from/--to/--at, and filters the merged events on their way to
 * the aggregation.
 *
 * Owns the table of blocks allocated in a range that are still live (by
 * address only), so that their frees are told from the frees of other
 * blocks; memory grows with those blocks as the aggregation's does.
 * Runs on the reader's thread, in front of the aggregation's thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/aggregate/window.h"

#define WINDOW_MAX_SECONDS 1e9 /* some 31 years: beyond any run */

#define WINDOW_MARKER_PREFIX "marker:"

/* "marker:NAME" or "marker:NAME#N" (N digits, from 1) into t. */
static int window_marker_parse(const char *text, struct window_time *t)
{
	const char *name = text + strlen(WINDOW_MARKER_PREFIX);
	const char *hash = strrchr(name, '#');
	size_t len = strlen(name);

	t->marker_nth = 1;
	if (hash && hash[1] && strspn(hash + 1, "0123456789") == strlen(hash + 1)) {
		if (strlen(hash + 1) > 9 || (t->marker_nth = strtoull(hash + 1, NULL, 10)) == 0)
			return -EINVAL;
		len = (size_t)(hash - name);
	}
	if (len == 0)
		return -EINVAL;
	t->marker = name;
	t->marker_len = len;
	t->given = true;
	t->text = text;
	return 0;
}

int window_time_parse(const char *text, struct window_time *t)
{
	const char *p = text, *unit;
	size_t digits = 0;
	double v;

	memset(t, 0, sizeof(*t));
	if (strncmp(text, WINDOW_MARKER_PREFIX, strlen(WINDOW_MARKER_PREFIX)) == 0)
		return window_marker_parse(text, t);
	/* digits with an optional fraction; strtod alone would also take
	 * signs, "inf", "nan" and hex */
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (!digits)
		return -EINVAL;
	unit = p;
	v = strtod(text, NULL);
	if (strcmp(unit, "%") == 0) {
		if (v > 100.0)
			return -EINVAL;
		t->percent = true;
		t->share = v / 100.0;
	} else if (strcmp(unit, "") == 0 || strcmp(unit, "s") == 0) {
		if (v > WINDOW_MAX_SECONDS)
			return -EINVAL;
		t->ns = (uint64_t)(v * 1e9 + 0.5);
	} else if (strcmp(unit, "ms") == 0) {
		if (v > WINDOW_MAX_SECONDS * 1e3)
			return -EINVAL;
		t->ns = (uint64_t)(v * 1e6 + 0.5);
	} else {
		return -EINVAL;
	}
	t->given = true;
	t->text = text;
	return 0;
}

/* t in ns from the start, for a run of run_ns. */
static uint64_t window_time_ns(const struct window_time *t, uint64_t run_ns)
{
	return t->percent ? (uint64_t)(t->share * (double)run_ns + 0.5) : t->ns;
}

int window_resolve(const struct window_spec *spec, bool has_run, uint64_t run_ns,
		   struct window_facts *f, char *errbuf, size_t errbuf_bytes)
{
	const struct window_time *times[] = {&spec->from, &spec->to, &spec->at};

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < 3; i++)
		if (times[i]->given && times[i]->percent && !has_run) {
			snprintf(errbuf, errbuf_bytes, "%s: the run time is not known (the trace "
				 "has no END chunk and fewer than two time stamps): give "
				 "the time in s or ms",
				 times[i]->text);
			return -EINVAL;
		}
	if (spec->at.given) {
		f->at = true;
		f->at_marker = spec->at.marker != NULL;
		f->at_ns = f->at_marker ? UINT64_MAX : window_time_ns(&spec->at, run_ns);
		return 0;
	}
	if (!spec->from.given && !spec->to.given)
		return 0;
	f->range = true;
	f->from_marker = spec->from.marker != NULL;
	f->to_marker = spec->to.marker != NULL;
	f->from_ns = spec->from.given && !f->from_marker ? window_time_ns(&spec->from, run_ns) : 0;
	f->to_ns = spec->to.given && !f->to_marker ? window_time_ns(&spec->to, run_ns) : UINT64_MAX;
	/* a marker's time is known when it comes */
	if (!f->from_marker && !f->to_marker && f->from_ns >= f->to_ns) {
		if (spec->from.given)
			snprintf(errbuf, errbuf_bytes, "--from %s is not before --to %s",
				 spec->from.text, spec->to.text);
		else
			snprintf(errbuf, errbuf_bytes,
				 "--to %s is not after the recording's start: the window is empty",
				 spec->to.text);
		return -EINVAL;
	}
	return 0;
}

int window_sink_init(struct window_sink *w, struct window_facts *facts,
		     const struct event_sink *next)
{
	memset(w, 0, sizeof(*w));
	w->facts = facts;
	w->next = next;
	return block_table_init(&w->inside) < 0 ? -ENOMEM : 0;
}

void window_sink_free(struct window_sink *w)
{
	block_table_free(&w->inside);
	memset(w, 0, sizeof(*w));
}

/* Hands ev on in the place of a dropped event: the free part of a realloc
 * of a null pointer, which the aggregation takes as the thread's event and
 * counts nowhere else. */
static void window_pass_placeholder(struct window_sink *w, const struct alloc_event *ev)
{
	struct alloc_event ph = *ev;

	ph.type = ALLOC_EV_REALLOC_FREE;
	ph.addr = 0;
	ph.flags = ALLOC_EV_PLACEHOLDER;
	w->facts->dropped_events++;
	w->next->emit(w->next->ctx, &ph);
}

/* Notes the block allocated in the range by ev (flags: its pairing hint)
 * as live, replacing any at its address: among the young blocks when it
 * is freed again soon and there is room, else in the table. */
static void window_note_inside(struct window_sink *w, uint64_t addr, uint8_t flags)
{
	struct live_block b = {.addr = addr}, old;
	int rc;

	if (!addr)
		return;
	if ((flags & ALLOC_EV_PAIRED) && w->young.count < YOUNG_MAX) {
		if (!(w->young.count && young_remove(&w->young, addr, &old)) && w->inside.count)
			block_table_remove(&w->inside, addr, &old);
		young_insert(&w->young, &b);
		return;
	}
	rc = block_table_insert(&w->inside, &b, &old);
	if (rc < 0)
		w->error = -ENOMEM;
	else if (rc == 0 && w->young.count)
		young_remove(&w->young, addr, &old);
}

/* Whether ev frees a block allocated in the range (which is then no
 * longer live); the hint says which table to look in first. */
static bool window_take_inside(struct window_sink *w, const struct alloc_event *ev)
{
	struct live_block old;

	if (!ev->addr)
		return false;
	if (ev->flags & ALLOC_EV_PAIRED)
		return (w->young.count && young_remove(&w->young, ev->addr, &old)) ||
		       (w->inside.count && block_table_remove(&w->inside, ev->addr, &old));
	return (w->inside.count && block_table_remove(&w->inside, ev->addr, &old)) ||
	       (w->young.count && young_remove(&w->young, ev->addr, &old));
}

/* Whether the MARKER event ev is the one t names (counting it in *count
 * when its name matches). */
static bool window_marker_is(const struct window_sink *w, const struct window_time *t,
			     const struct alloc_event *ev, uint64_t *count)
{
	const char *name;

	if (!t->marker || !w->info || ev->addr >= w->info->marker_count)
		return false;
	name = w->info->markers[ev->addr].name;
	if (strlen(name) != t->marker_len || memcmp(name, t->marker, t->marker_len) != 0)
		return false;
	return ++*count == t->marker_nth;
}

/* A MARKER event at rel_ns: the start, end or moment it may be. */
static void window_marker(struct window_sink *w, const struct alloc_event *ev, uint64_t rel_ns)
{
	struct window_facts *f = w->facts;

	if (!w->spec)
		return;
	if (f->at_marker && window_marker_is(w, &w->spec->at, ev, &f->at_count)) {
		f->at_seen = true;
		f->at_ns = rel_ns;
		f->at_abs_ns = ev->value;
		f->at_seq = ev->seq;
		w->done = true;
	}
	if (f->from_marker && window_marker_is(w, &w->spec->from, ev, &f->from_count)) {
		f->from_seen = true;
		f->from_ns = rel_ns;
		f->from_abs_ns = ev->value;
		f->from_seq = ev->seq;
	}
	if (f->to_marker && window_marker_is(w, &w->spec->to, ev, &f->to_count)) {
		f->to_seen = true;
		f->to_ns = rel_ns;
		f->to_abs_ns = ev->value;
		f->to_seq = ev->seq;
	}
}

void window_markers_time(struct window_facts *f, uint64_t t0_ns)
{
	if (f->from_seen)
		f->from_ns = f->from_abs_ns > t0_ns ? f->from_abs_ns - t0_ns : 0;
	if (f->to_seen)
		f->to_ns = f->to_abs_ns > t0_ns ? f->to_abs_ns - t0_ns : 0;
	if (f->at_seen)
		f->at_ns = f->at_abs_ns > t0_ns ? f->at_abs_ns - t0_ns : 0;
}

/*
 * A range: one allocator event, marked by the reader (ALLOC_EV_EARLY,
 * ALLOC_EV_LATE: its thread's clock was before the range or at or after
 * its end) or, for an end given as a marker, by whether the marker came.
 * What is before the range is dropped without a trace (the chunk index may
 * have left it unread); what is after it stands in as a placeholder.  A
 * free is the range's when it frees a block allocated in it, wherever it
 * comes.
 */
static void window_range_event(struct window_sink *w, const struct alloc_event *ev)
{
	const struct window_facts *f = w->facts;
	/* an end given as a marker: before the start's marker came, or after
	 * the end's */
	bool early = (ev->flags & ALLOC_EV_EARLY) || (f->from_marker && !f->from_seen);
	bool inside = !early && !(ev->flags & ALLOC_EV_LATE) && !(f->to_marker && f->to_seen);

	switch (ev->type) {
	case ALLOC_EV_ALLOC:
	case ALLOC_EV_REALLOC_ALLOC:
		if (inside) {
			window_note_inside(w, ev->addr, ev->flags);
			break;
		}
		if (!early)
			window_pass_placeholder(w, ev);
		return;
	case ALLOC_EV_FREE:
	case ALLOC_EV_REALLOC_FREE:
		if (window_take_inside(w, ev))
			break;
		if (early)
			return;
		/* a block allocated outside the range, counted apart; free(NULL)
		 * counts where it was called */
		if (ev->addr || !inside) {
			if (ev->addr)
				w->facts->frees_outside++;
			window_pass_placeholder(w, ev);
			return;
		}
		break;
	default: /* a failed realloc */
		if (early)
			return;
		if (!inside) {
			window_pass_placeholder(w, ev);
			return;
		}
	}
	w->next->emit(w->next->ctx, ev);
}

/*
 * A range: a TIME stamp.  The first (the reader's, of the start of the
 * recording) goes on, and after it, with a start, those that follow an
 * event of the range or after it (marked by the reader): the others have
 * no place among the other threads' events that is the same with and
 * without the chunk index.
 */
static void window_range_time(struct window_sink *w, const struct alloc_event *ev)
{
	if (!w->t0_known) {
		w->t0_known = true;
		w->t0_ns = ev->value;
	} else if (w->facts->from_ns && (ev->flags & ALLOC_EV_EARLY)) {
		return;
	}
	w->next->emit(w->next->ctx, ev);
}

/* One event, in order. */
static void window_process(struct window_sink *w, const struct alloc_event *ev)
{
	uint64_t rel_ns;

	if (w->done || w->error)
		return;
	if (ev->type == ALLOC_EV_TIME) {
		if (w->facts->range) {
			window_range_time(w, ev);
			return;
		}
		if (!w->t0_known) {
			w->t0_known = true;
			w->t0_ns = ev->value;
		}
		if (ev->value > w->now_ns)
			w->now_ns = ev->value;
		w->next->emit(w->next->ctx, ev);
		return;
	}
	if (alloc_event_is_stamp(ev->type)) {
		/* markers and recording stops end or start a window; the
		 * aggregation sees them too (their SEQ_SKIP is no failed
		 * realloc) */
		if (ev->type == ALLOC_EV_MARKER)
			window_marker(w, ev, w->t0_known && ev->value > w->t0_ns
						     ? ev->value - w->t0_ns : 0);
		w->next->emit(w->next->ctx, ev);
		return;
	}
	if (w->facts->range) {
		window_range_event(w, ev);
		return;
	}
	rel_ns = w->t0_known && w->now_ns > w->t0_ns ? w->now_ns - w->t0_ns : 0;
	if (rel_ns >= w->facts->at_ns) {
		w->done = true;
		return;
	}
	w->next->emit(w->next->ctx, ev);
}

/* The sink's emit: a range's events wait WINDOW_PIPELINE events, their
 * block's bucket loading meanwhile (as the aggregation's do: without it the
 * table's cache misses made a report from 90% of mallocbench's trace on
 * twice as long as the whole report). */
static void window_emit(void *ctx, const struct alloc_event *ev)
{
	struct window_sink *w = ctx;
	unsigned slot;

	if (!w->facts->range) {
		window_process(w, ev);
		return;
	}
	if (ev->addr && w->inside.count)
		block_table_prefetch(&w->inside, ev->addr);
	if (w->pipe_count < WINDOW_PIPELINE) {
		w->pipeline[(w->pipe_head + w->pipe_count++) % WINDOW_PIPELINE] = *ev;
		return;
	}
	slot = w->pipe_head;
	window_process(w, &w->pipeline[slot]);
	w->pipeline[slot] = *ev;
	w->pipe_head = (slot + 1) % WINDOW_PIPELINE;
}

void window_sink_flush(struct window_sink *w)
{
	while (w->pipe_count > 0) {
		window_process(w, &w->pipeline[w->pipe_head]);
		w->pipe_head = (w->pipe_head + 1) % WINDOW_PIPELINE;
		w->pipe_count--;
	}
}

static bool window_failed(void *ctx)
{
	struct window_sink *w = ctx;

	return w->error || (w->next->failed && w->next->failed(w->next->ctx));
}

static bool window_done(void *ctx)
{
	struct window_sink *w = ctx;

	if (w->done)
		w->facts->stopped = true;
	return w->done;
}

void window_sink_bind(struct window_sink *w, struct event_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->emit = window_emit;
	sink->failed = window_failed;
	sink->done = window_done;
	sink->ctx = w;
	sink->seq_limit = w->next->seq_limit;
}
