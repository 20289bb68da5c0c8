/*
 * analyze/read/reorder.c - the k-way merge of thread streams into sequence order
 * (see reorder.h): one head event per source, a min-heap of the sources.
 *
 * Owns the source array and the heap.  Must never allocate per event (the
 * arrays only grow with the number of sources) and never look inside events
 * beyond their sequence number and type.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/grow.h"
#include "analyze/read/reorder.h"

/* Order key: a stamp (TIME, MARKER, CONTROL, UNRECORDED) at seq S sorts
 * right after event S. */
static inline uint64_t event_key(const struct alloc_event *ev)
{
	return (ev->seq << 1) | (uint64_t)alloc_event_is_stamp(ev->type);
}

/* Whether a stamp of type stands at a sequence number its own SEQ_SKIP
 * took (MARKER, CONTROL, UNRECORDED), unlike TIME. */
static inline int reorder_own_seq_stamp(unsigned type)
{
	return type == ALLOC_EV_MARKER || type == ALLOC_EV_CONTROL || type == ALLOC_EV_UNRECORDED;
}

void reorder_init(struct reorder *r, uint64_t first_seq, reorder_pull_fn pull, void *pull_ctx,
		  reorder_emit_fn emit, void *emit_ctx)
{
	memset(r, 0, sizeof(*r));
	r->expected = first_seq;
	r->pull = pull;
	r->pull_ctx = pull_ctx;
	r->emit = emit;
	r->emit_ctx = emit_ctx;
}

void reorder_set_runs(struct reorder *r, reorder_peek_fn peek, reorder_take_fn take,
		      reorder_emit_run_fn emit_run)
{
	r->peek = peek;
	r->take = take;
	r->emit_run = emit_run;
}

void reorder_set_first_seq(struct reorder *r, uint64_t first_seq)
{
	r->expected = first_seq;
}

void reorder_free(struct reorder *r)
{
	free(r->sources);
	free(r->heap);
	free(r->gap_ranges);
	r->gap_ranges = NULL;
	r->gap_range_count = r->gap_range_cap = r->gap_ranges_filled = 0;
	r->sources = NULL;
	r->source_count = 0;
	r->heap = NULL;
	r->heap_count = r->heap_cap = 0;
}

/* ---- heap of sources by their head event ---- */

static inline uint64_t source_key(const struct reorder *r, uint32_t source)
{
	return event_key(r->sources[source].head);
}

static inline void heap_set(struct reorder *r, size_t i, uint32_t source)
{
	r->heap[i] = source;
	r->sources[source].heap_pos = i + 1;
}

static void heap_sift_up(struct reorder *r, size_t i)
{
	uint32_t src = r->heap[i];
	uint64_t key = source_key(r, src);

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (source_key(r, r->heap[parent]) <= key)
			break;
		heap_set(r, i, r->heap[parent]);
		i = parent;
	}
	heap_set(r, i, src);
}

static void heap_sift_down(struct reorder *r, size_t i)
{
	uint32_t src = r->heap[i];
	uint64_t key = source_key(r, src);
	size_t n = r->heap_count;

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= n)
			break;
		if (child + 1 < n && source_key(r, r->heap[child + 1]) < source_key(r, r->heap[child]))
			child++;
		if (source_key(r, r->heap[child]) >= key)
			break;
		heap_set(r, i, r->heap[child]);
		i = child;
	}
	heap_set(r, i, src);
}

static int heap_insert(struct reorder *r, uint32_t source)
{
	if (r->heap_count == r->heap_cap) {
		size_t n = r->heap_cap ? r->heap_cap * 2 : 64;
		uint32_t *v = realloc(r->heap, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->heap = v;
		r->heap_cap = n;
	}
	r->heap[r->heap_count] = source;
	r->heap_count++;
	heap_sift_up(r, r->heap_count - 1);
	return 0;
}

/* Removes the heap's minimum source. */
static void heap_remove_min(struct reorder *r)
{
	r->sources[r->heap[0]].heap_pos = 0;
	r->heap_count--;
	if (r->heap_count > 0) {
		heap_set(r, 0, r->heap[r->heap_count]);
		heap_sift_down(r, 0);
	}
}

/* ---- gaps: what a late event may fill ---- */

/* Drops the ranges that were filled (kept until now: taking each out at
 * once moved the whole table behind it). */
static void gap_compact(struct reorder *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->gap_range_count; i++)
		if (r->gap_ranges[i].lo != r->gap_ranges[i].hi)
			r->gap_ranges[k++] = r->gap_ranges[i];
	r->gap_range_count = k;
	r->gap_ranges_filled = 0;
}

/* Whether the table has room for one more range (compacted or grown if
 * need be); false once it is full (REORDER_GAP_RANGES_MAX, or no memory). */
static bool gap_room(struct reorder *r)
{
	if (r->gap_ranges_full)
		return false;
	if (r->gap_range_count == r->gap_range_cap && r->gap_ranges_filled > r->gap_range_count / 2)
		gap_compact(r);
	if (r->gap_range_count == r->gap_range_cap) {
		size_t n = r->gap_range_cap ? r->gap_range_cap * 2 : 16;
		struct reorder_gap *v = n <= REORDER_GAP_RANGES_MAX
						? realloc(r->gap_ranges, n * sizeof(*v)) : NULL;

		if (!v) {
			r->gap_ranges_full = true;
			return false;
		}
		r->gap_ranges = v;
		r->gap_range_cap = n;
	}
	return true;
}

/* Notes [lo, hi) as skipped (after every range kept so far). */
static void gap_note(struct reorder *r, uint64_t lo, uint64_t hi)
{
	if (gap_room(r))
		r->gap_ranges[r->gap_range_count++] = (struct reorder_gap){.lo = lo, .hi = hi};
}

/*
 * Takes seq out of the gap that holds it: 1 when one did, 0 when none does
 * (seq was merged already), -1 when that is not known: the table is full,
 * or the range would be split farther than REORDER_GAP_SPLIT_WINDOW ranges
 * from the newest (a split moves the ranges behind it); such a range stays
 * whole.  r->gaps counts the ranges left unfilled while the table keeps
 * them all.  A filled range stays in the table, empty (lo == hi), until a
 * compaction: a search never stops in it for a seq it could hold.
 */
static int gap_fill(struct reorder *r, uint64_t seq)
{
	size_t lo = 0, hi = r->gap_range_count;
	struct reorder_gap *g;

	while (lo < hi) { /* the first range whose hi is above seq */
		size_t mid = lo + (hi - lo) / 2;

		if (r->gap_ranges[mid].hi <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	g = lo < r->gap_range_count ? &r->gap_ranges[lo] : NULL;
	if (!g || seq < g->lo)
		return r->gap_ranges_full ? -1 : 0;
	if (seq == g->lo) {
		g->lo++;
	} else if (seq + 1 == g->hi) {
		g->hi--;
	} else { /* split in two */
		uint64_t end = g->hi;

		if (r->gap_range_count - lo - 1 > REORDER_GAP_SPLIT_WINDOW || !gap_room(r))
			return -1;
		g = &r->gap_ranges[lo];
		memmove(g + 2, g + 1, (r->gap_range_count - lo - 1) * sizeof(*g));
		r->gap_range_count++;
		g->hi = seq;
		g[1] = (struct reorder_gap){.lo = seq + 1, .hi = end};
		r->gaps++;
		return 1;
	}
	if (g->lo == g->hi) {
		r->gap_ranges_filled++;
		if (r->gaps)
			r->gaps--;
	}
	return 1;
}

/* ---- emitting ---- */

/* True when ev may be emitted now without waiting for a smaller seq. */
static inline bool event_ready(const struct reorder *r, const struct alloc_event *ev)
{
	if (alloc_event_is_stamp(ev->type))
		return ev->seq < r->expected;
	return ev->seq <= r->expected;
}

/* Emits one event of source s, advancing expected for a real event (not a
 * stamp); an event older than expected fills a gap (late) or is a repeat,
 * dropped with the stamps that follow it. */
static inline void emit_event(struct reorder *r, struct reorder_source *s,
			      const struct alloc_event *ev)
{
	if (!alloc_event_is_stamp(ev->type)) {
		s->dropping = false;
		if (ev->seq == r->expected) {
			r->expected++;
		} else if (ev->seq < r->expected) {
			int filled = gap_fill(r, ev->seq);

			if (filled == 0) {
				r->repeated_events++;
				s->dropping = true;
				return;
			}
			/* not known (a range not split): taken as a fill,
			 * as only a damaged trace repeats events */
			if (filled != 0 && r->missing_seqs)
				r->missing_seqs--;
			r->late_events++;
		}
	} else if (s->dropping) {
		return;
	}
	r->emit(r->emit_ctx, ev);
}

/* Whether emit_event would hand ev on with nothing to count, expected being
 * the next sequence number and dropping its source's state: the next event
 * in order, or a stamp after it that is not dropped. */
static inline bool plain_at(uint64_t expected, bool dropping, const struct alloc_event *ev)
{
	if (alloc_event_is_stamp(ev->type))
		return ev->seq < expected && !dropping;
	return ev->seq == expected;
}

/* plain_at with r's expected number and s's state. */
static inline bool event_plain(const struct reorder *r, const struct reorder_source *s,
			       const struct alloc_event *ev)
{
	return plain_at(r->expected, s->dropping, ev);
}

/* How many of the more events at ev are plain (plain_at) one after
 * another, expected then the sequence number the first real event must
 * have; the number after them goes to *expected_after.  In locals: stored
 * through r, expected might alias the events' fields and was reloaded for
 * each (5 of the run's ~12 instructions an event). */
static inline size_t run_plain(uint64_t expected, bool dropping, const struct alloc_event *ev,
			       size_t more, uint64_t *expected_after)
{
	size_t n = 0;

	/* plain_at, a real event's test first and expected's step in it */
	for (; n < more; n++) {
		if (!alloc_event_is_stamp(ev[n].type)) {
			if (ev[n].seq != expected)
				break;
			expected++;
		} else if (ev[n].seq >= expected || dropping) {
			break;
		}
	}
	*expected_after = expected;
	return n;
}

/* run_plain for reorder_wake, which drains the heap between two events of
 * the source: the run also ends where the heap's minimum event (min, NULL
 * when the heap is empty) is ready, but for a MARKER or CONTROL, which
 * reorder_wake emits before that drain.  The heap does not change during
 * the run: min's readiness is tested from locals, not reloaded through r
 * for each event (r->expected's stores might alias it). */
static inline size_t run_plain_before(uint64_t expected, bool dropping,
				      const struct alloc_event *ev, size_t more,
				      const struct alloc_event *min, uint64_t *expected_after)
{
	uint64_t ready_at; /* min is ready once expected reaches it */
	size_t n = 0;

	if (!min || (alloc_event_is_stamp(min->type) && min->seq == UINT64_MAX))
		return run_plain(expected, dropping, ev, more, expected_after); /* never ready */
	ready_at = min->seq + (alloc_event_is_stamp(min->type) ? 1 : 0);
	for (; n < more; n++) {
		unsigned type = ev[n].type;

		if (!alloc_event_is_stamp(type)) {
			/* plain, and min not ready at expected (= seq) */
			if (ev[n].seq != expected || expected >= ready_at)
				break;
			expected++;
		} else if (ev[n].seq >= expected || dropping ||
			   (expected >= ready_at && !reorder_own_seq_stamp(type))) {
			break;
		}
	}
	*expected_after = expected;
	return n;
}

/*
 * Emits s's head event (ready) and returns the source's next one (pulled).
 * With runs (reorder_set_runs) it also takes the events decoded right
 * behind the head that would be emitted next, one by one, anyway: each
 * plain (event_plain) and, when heap_between (reorder_wake, which drains
 * the heap between two events of its source), while the heap's minimum is
 * not ready, but for a MARKER or CONTROL, which reorder_wake emits before
 * that drain.  They go out in one emit_run.
 */
static inline const struct alloc_event *emit_pull(struct reorder *r, struct reorder_source *s,
						  uint32_t src, bool heap_between)
{
	const struct alloc_event *ev = s->head;
	size_t n = 1, more;

	if (!r->emit_run || !event_plain(r, s, ev)) {
		emit_event(r, s, ev);
		return r->pull(r->pull_ctx, src);
	}
	more = r->peek(r->pull_ctx, src);
	r->expected += !alloc_event_is_stamp(ev->type);
	if (heap_between)
		n += run_plain_before(r->expected, s->dropping, ev + 1, more,
				      r->heap_count ? r->sources[r->heap[0]].head : NULL,
				      &r->expected);
	else
		n += run_plain(r->expected, s->dropping, ev + 1, more, &r->expected);
	s->dropping = false; /* (a stamp is plain only when not dropped) */
	if (n == 1) {
		r->emit(r->emit_ctx, ev);
	} else {
		r->emit_run(r->emit_ctx, ev, n);
		r->take(r->pull_ctx, src, n - 1);
	}
	return r->pull(r->pull_ctx, src);
}

/*
 * Emits the heap's minimum source's events while they are ready, pulling
 * each next one; a source that runs dry leaves the heap.  Events of one
 * source that are ready follow each other without touching the heap.
 */
static void drain_ready(struct reorder *r)
{
	while (r->heap_count > 0) {
		uint32_t src = r->heap[0];
		struct reorder_source *s = &r->sources[src];

		if (!event_ready(r, s->head))
			return;
		do {
			s->head = emit_pull(r, s, src, false);
			if (!s->head) {
				heap_remove_min(r);
				goto next;
			}
		} while (event_ready(r, s->head));
		heap_sift_down(r, 0);
next:;
	}
}

int reorder_wake(struct reorder *r, uint32_t source)
{
	struct reorder_source *s;

	if (source >= REORDER_MAX_SOURCES)
		return -EINVAL;
	if (source >= r->source_count) {
		struct reorder_source *v = grow_zeroed(r->sources, &r->source_count, source,
						       sizeof(*v), 16);

		if (!v)
			return -ENOMEM;
		r->sources = v;
	}
	s = &r->sources[source];
	if (s->heap_pos)
		return 0; /* its head event already waits */
	s->head = r->pull(r->pull_ctx, source);
	for (;;) {
		if (!s->head)
			return 0;
		if (!event_ready(r, s->head))
			break;
		/* In order already (or late): nothing can precede it. */
		s->head = emit_pull(r, s, source, true);
		/* A marker or recording stop at the seq just emitted came from
		 * this source and goes before any other source's next event
		 * (a TIME stamp keeps its place after them: reports' times were
		 * measured so, and stay as they were). */
		while (s->head && reorder_own_seq_stamp(s->head->type) &&
		       event_ready(r, s->head)) {
			emit_event(r, s, s->head);
			s->head = r->pull(r->pull_ctx, source);
		}
		if (r->heap_count)
			drain_ready(r);
	}
	if (heap_insert(r, source) < 0)
		return -ENOMEM;
	drain_ready(r);
	return 0;
}

void reorder_skip_gap(struct reorder *r)
{
	const struct alloc_event *min;
	uint64_t target;

	if (r->heap_count == 0)
		return;
	min = r->sources[r->heap[0]].head;
	target = min->seq + (uint64_t)alloc_event_is_stamp(min->type);
	if (target > r->expected) {
		r->gaps++;
		r->missing_seqs += target - r->expected;
		gap_note(r, r->expected, target);
		r->expected = target;
	}
	drain_ready(r);
}

void reorder_finish(struct reorder *r)
{
	drain_ready(r);
	while (r->heap_count > 0)
		reorder_skip_gap(r);
}
