/*
 * analyze/read/index_plan.c - planning a read from a time with the chunk
 * index (index_plan.h).  Walks the chunk headers of the trace once (24
 * bytes each, payloads unread but for META and INDEX), decodes and checks
 * the index, and groups its entries by lap.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/read/event_stream.h"
#include "analyze/read/index_plan.h"
#include "trace/chunk.h"
#include "trace/chunk_index.h"

/* What the header walk found. */
struct walk {
	uint64_t *offsets;      /* EVENTS chunks, file order; owned */
	uint32_t *streams;
	size_t count, cap;
	uint8_t *index;         /* the INDEX payload, owned */
	size_t index_bytes;
	unsigned index_chunks;
	unsigned stack_stream;  /* META's stack_stream, 0: none */
};

static int walk_wants(unsigned type, unsigned stream, void *arg)
{
	(void)stream;
	(void)arg;
	return type == TRACE_CHUNK_META || type == TRACE_CHUNK_INDEX;
}

static int walk_add(struct walk *w, uint64_t offset, unsigned stream)
{
	if (w->count == w->cap) {
		size_t n = w->cap ? w->cap * 2 : 256;
		uint64_t *o = realloc(w->offsets, n * sizeof(*o));
		uint32_t *s;

		if (!o)
			return -ENOMEM;
		w->offsets = o;
		s = realloc(w->streams, n * sizeof(*s));
		if (!s)
			return -ENOMEM;
		w->streams = s;
		w->cap = n;
	}
	w->offsets[w->count] = offset;
	w->streams[w->count] = stream;
	w->count++;
	return 0;
}

/* META's stack_stream (event_stream.h), read as the events are. */
static unsigned walk_stack_stream(const uint8_t *data, size_t bytes)
{
	struct kv_list meta = { 0 };
	unsigned n = kv_list_parse(&meta, data, bytes) == 0 ? meta_stack_stream(&meta) : 0;

	kv_list_free(&meta);
	return n;
}

/* Returns 0, -ENOMEM, or 1 when the walk met damage (note set). */
static int walk_trace(const char *path, struct walk *w, char *note, size_t note_bytes)
{
	struct trace_reader r;
	struct trace_chunk c;
	int rc = trace_reader_open(&r, path), n;

	if (rc < 0) {
		trace_reader_close(&r);
		return rc == -ENOMEM ? rc : 1; /* the read itself will say what */
	}
	while ((n = trace_reader_next_filtered(&r, &c, walk_wants, NULL)) > 0) {
		if (c.type == TRACE_CHUNK_EVENTS) {
			if (walk_add(w, c.offset_bytes, c.stream) < 0) {
				n = -ENOMEM;
				break;
			}
		} else if (c.type == TRACE_CHUNK_META && c.data && !w->stack_stream) {
			w->stack_stream = walk_stack_stream(c.data, c.bytes);
		} else if (c.type == TRACE_CHUNK_INDEX && c.data) {
			w->index_chunks++;
			free(w->index);
			w->index = malloc(c.bytes ? c.bytes : 1);
			if (!w->index) {
				n = -ENOMEM;
				break;
			}
			memcpy(w->index, c.data, c.bytes);
			w->index_bytes = c.bytes;
		}
	}
	/* a trace cut off after its index reads as well; damage before it
	 * (a bad header or checksum) leaves the chunks unknown */
	if (n < 0 && n != -EIO && n != -ENOMEM)
		snprintf(note, note_bytes, "the trace is damaged (%s)", r.error);
	trace_reader_close(&r);
	if (n == -ENOMEM)
		return n;
	return n < 0 && n != -EIO ? 1 : 0;
}

static void walk_free(struct walk *w)
{
	free(w->offsets);
	free(w->streams);
	free(w->index);
}

/* Orders entry numbers by stream, lap and lap offset. */
static const struct chunk_index_entry *sort_entries;

static int lap_order(const void *a, const void *b)
{
	const struct chunk_index_entry *x = &sort_entries[*(const size_t *)a];
	const struct chunk_index_entry *y = &sort_entries[*(const size_t *)b];

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->lap != y->lap)
		return x->lap < y->lap ? -1 : 1;
	if (x->lap_offset != y->lap_offset)
		return x->lap_offset < y->lap_offset ? -1 : 1;
	return 0;
}

static int offset_order(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One lap of a slot, from its entries. */
struct lap {
	size_t first, end;      /* its entries in the sorted order */
	bool early;             /* may be left out: all of it before T */
	bool has_seq;
	uint64_t seq_first, seq_last;
};

/* Checks the entries against the walk; a reason, or NULL when they fit. */
static const char *entries_check(const struct walk *w, const struct chunk_index_entry *e,
				 size_t n)
{
	if (w->index_chunks > 1)
		return "more than one index chunk";
	if (n != w->count)
		return "its entries do not match the events chunks";
	for (size_t i = 0; i < n; i++) {
		if (e[i].stream != w->streams[i])
			return "its entries do not match the events chunks";
		if (e[i].flags & CHUNK_INDEX_UNKNOWN)
			return NULL; /* checked per lap: it is read */
		if ((e[i].flags & CHUNK_INDEX_HAS_TIME) && e[i].time_last < e[i].time_first)
			return "an entry's times are out of order";
	}
	return NULL;
}

/*
 * Groups the sorted entries into laps and marks those before from_abs (in
 * the clock's ns).  A chunk is before it when the newest TIME stamp of its
 * lap up to its end is (every event in it is then before it by its
 * thread's clock); *cut becomes the smallest first sequence number of the
 * chunks that are not (UINT64_MAX: none).
 */
static size_t laps_make(const struct chunk_index_entry *e, const size_t *order, size_t n,
			unsigned stack_stream, uint64_t from_abs, struct lap *laps, uint64_t *cut,
			const char **why)
{
	size_t count = 0;

	*why = NULL;
	*cut = UINT64_MAX;
	for (size_t k = 0; k < n;) {
		const struct chunk_index_entry *f = &e[order[k]];
		struct lap *l = &laps[count++];
		bool whole = f->lap_offset == 0, timed = false, early = true;
		bool readable = whole && f->stream != stack_stream;
		uint64_t time_last = 0;

		memset(l, 0, sizeof(*l));
		l->first = k;
		for (; k < n && e[order[k]].stream == f->stream && e[order[k]].lap == f->lap; k++) {
			const struct chunk_index_entry *x = &e[order[k]];

			if (k > l->first && x->lap_offset == e[order[k - 1]].lap_offset) {
				*why = "two entries for one place of a lap";
				return 0;
			}
			if (x->flags & CHUNK_INDEX_UNKNOWN) {
				/* its sequence numbers are unknown: nothing of
				 * the trace can be left out safely */
				*why = "an entry the launcher could not follow";
				return 0;
			}
			if (x->flags & CHUNK_INDEX_OTHER)
				readable = false;
			if (x->flags & CHUNK_INDEX_HAS_TIME) {
				timed = true;
				if (x->time_last > time_last)
					time_last = x->time_last;
			}
			/* the lap's clock so far; from here on it is not before */
			if (!whole || !timed || time_last >= from_abs)
				early = false;
			if (x->flags & CHUNK_INDEX_HAS_SEQ) {
				if (!l->has_seq || x->seq_first < l->seq_first)
					l->seq_first = x->seq_first;
				if (!l->has_seq || x->seq_last > l->seq_last)
					l->seq_last = x->seq_last;
				l->has_seq = true;
				if (!early && x->seq_first < *cut)
					*cut = x->seq_first;
			}
		}
		l->end = k;
		l->early = readable && early;
	}
	return count;
}

/* The earliest first TIME stamp of the entries e[0..n): the start of the
 * recording, which a whole read's clock starts from too (a late thread's
 * chunk may come first in the file with a later stamp, or an early one
 * after it); false when no entry has a time. */
static bool entries_start(const struct chunk_index_entry *e, size_t n, uint64_t *t0_ns)
{
	bool found = false;

	for (size_t i = 0; i < n; i++)
		if ((e[i].flags & CHUNK_INDEX_HAS_TIME) && (!found || e[i].time_first < *t0_ns)) {
			*t0_ns = e[i].time_first;
			found = true;
		}
	return found;
}

int index_start_ns(const char *path, uint64_t *t0_ns)
{
	struct walk w = {0};
	struct chunk_index_entry *e = NULL;
	size_t n = 0;
	char note[160];
	int rc = walk_trace(path, &w, note, sizeof(note)), found = 0;

	if (rc == 0 && w.index) {
		rc = chunk_index_decode(w.index, w.index_bytes, w.count + 1, &e, &n);
		if (rc == 0 && !entries_check(&w, e, n))
			found = entries_start(e, n, t0_ns);
	}
	free(e);
	walk_free(&w);
	return rc == -ENOMEM ? rc : found;
}

int index_plan_make(const char *path, uint64_t from_ns, struct index_plan *plan, char *note,
		    size_t note_bytes)
{
	struct walk w = {0};
	struct chunk_index_entry *e = NULL;
	size_t n = 0, *order = NULL, lap_count;
	struct lap *laps = NULL;
	const char *why = NULL;
	uint64_t cut = UINT64_MAX, from_abs, max_seq = 0;
	int rc;

	memset(plan, 0, sizeof(*plan));
	note[0] = '\0';
	rc = walk_trace(path, &w, note, note_bytes);
	plan->events_chunks = w.count;
	if (rc != 0 || !w.index)
		goto out;
	rc = chunk_index_decode(w.index, w.index_bytes, w.count + 1, &e, &n);
	if (rc == -EPROTO) {
		why = "it does not decode";
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	why = entries_check(&w, e, n);
	if (why || n == 0)
		goto out;
	if (!(e[0].flags & CHUNK_INDEX_HAS_TIME) || !entries_start(e, n, &plan->t0_ns)) {
		why = "its first entry has no time";
		goto out;
	}
	plan->t0_known = true;
	from_abs = plan->t0_ns + from_ns < plan->t0_ns ? UINT64_MAX : plan->t0_ns + from_ns;
	order = malloc(n * sizeof(*order));
	laps = malloc(n * sizeof(*laps));
	plan->skip_offsets = malloc(n * sizeof(*plan->skip_offsets));
	if (!order || !laps || !plan->skip_offsets) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sort_entries = e;
	qsort(order, n, sizeof(*order), lap_order);
	lap_count = laps_make(e, order, n, w.stack_stream, from_abs, laps, &cut, &why);
	if (why)
		goto out;
	for (size_t i = 0; i < lap_count; i++)
		if (laps[i].has_seq && laps[i].seq_last > max_seq)
			max_seq = laps[i].seq_last;
	if (cut == UINT64_MAX)
		cut = max_seq + 1; /* every lap is before T */
	for (size_t i = 0; i < lap_count; i++) {
		if (!laps[i].early || (laps[i].has_seq && laps[i].seq_last >= cut))
			continue;
		for (size_t k = laps[i].first; k < laps[i].end; k++)
			plan->skip_offsets[plan->skip_count++] = w.offsets[order[k]];
	}
	if (plan->skip_count) {
		/* file order, for the reader's single pass */
		qsort(plan->skip_offsets, plan->skip_count, sizeof(*plan->skip_offsets),
		      offset_order);
		plan->used = true;
		plan->cut_seq = cut;
	}
out:
	if (why && note[0] == '\0')
		snprintf(note, note_bytes, "%s", why);
	free(order);
	free(laps);
	free(e);
	walk_free(&w);
	if (!plan->used) {
		free(plan->skip_offsets);
		plan->skip_offsets = NULL;
		plan->skip_count = 0;
	}
	return rc < 0 ? rc : 0;
}

void index_plan_free(struct index_plan *plan)
{
	free(plan->skip_offsets);
	memset(plan, 0, sizeof(*plan));
}
