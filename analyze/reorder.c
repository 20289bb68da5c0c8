/*
 * analyze/reorder.c - the reorder buffer that merges thread streams into
 * sequence order (see reorder.h).
 *
 * Owns the heap array and nothing else.  Must never allocate per event: the
 * common case (an event that is already the expected one while the heap is
 * empty) bypasses the heap entirely, and the heap array only grows.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "analyze/reorder.h"

/* Heap key: a TIME stamp at seq S sorts right after event S. */
static inline uint64_t event_key(const struct alloc_event *ev)
{
	return (ev->seq << 1) | (ev->type == ALLOC_EV_TIME);
}

void reorder_init(struct reorder *r, uint64_t first_seq, reorder_emit_fn emit, void *ctx)
{
	r->heap = NULL;
	r->count = 0;
	r->capacity = 0;
	r->max_window = REORDER_DEFAULT_WINDOW;
	r->expected = first_seq;
	r->gaps = 0;
	r->missing_seqs = 0;
	r->late_events = 0;
	r->max_count = 0;
	r->emit = emit;
	r->ctx = ctx;
}

void reorder_set_first_seq(struct reorder *r, uint64_t first_seq)
{
	r->expected = first_seq;
}

void reorder_free(struct reorder *r)
{
	free(r->heap);
	r->heap = NULL;
	r->count = 0;
	r->capacity = 0;
}

static void heap_sift_up(struct alloc_event *h, size_t i)
{
	struct alloc_event ev = h[i];
	uint64_t key = event_key(&ev);

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (event_key(&h[parent]) <= key)
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = ev;
}

static void heap_sift_down(struct alloc_event *h, size_t n, size_t i)
{
	struct alloc_event ev = h[i];
	uint64_t key = event_key(&ev);

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= n)
			break;
		if (child + 1 < n && event_key(&h[child + 1]) < event_key(&h[child]))
			child++;
		if (event_key(&h[child]) >= key)
			break;
		h[i] = h[child];
		i = child;
	}
	h[i] = ev;
}

static void heap_pop(struct reorder *r, struct alloc_event *out)
{
	*out = r->heap[0];
	r->count--;
	if (r->count > 0) {
		r->heap[0] = r->heap[r->count];
		heap_sift_down(r->heap, r->count, 0);
	}
}

/* Emits one event, advancing expected for a real (non-TIME) event. */
static void emit_event(struct reorder *r, const struct alloc_event *ev)
{
	if (ev->type != ALLOC_EV_TIME) {
		if (ev->seq == r->expected)
			r->expected++;
		else if (ev->seq < r->expected)
			r->late_events++;
	}
	r->emit(r->ctx, ev);
}

/* True when ev may be emitted now without waiting for a smaller seq. */
static inline bool event_ready(const struct reorder *r, const struct alloc_event *ev)
{
	if (ev->type == ALLOC_EV_TIME)
		return ev->seq < r->expected;
	return ev->seq <= r->expected;
}

static void drain_ready(struct reorder *r)
{
	struct alloc_event ev;

	while (r->count > 0 && event_ready(r, &r->heap[0])) {
		heap_pop(r, &ev);
		emit_event(r, &ev);
	}
}

/* Skips the gap in front of the heap's minimum (the missing numbers are gone
 * for good: the window is full or the input ended). */
static void skip_gap(struct reorder *r)
{
	const struct alloc_event *min = &r->heap[0];
	uint64_t target = min->seq + (min->type == ALLOC_EV_TIME);

	if (target > r->expected) {
		r->gaps++;
		r->missing_seqs += target - r->expected;
		r->expected = target;
	}
}

int reorder_push(struct reorder *r, const struct alloc_event *ev)
{
	if (r->count == 0 && event_ready(r, ev)) {
		emit_event(r, ev);
		return 0;
	}
	if (r->count == r->capacity) {
		size_t n = r->capacity ? r->capacity * 2 : 4096;
		struct alloc_event *h = realloc(r->heap, n * sizeof(*h));

		if (!h)
			return -ENOMEM;
		r->heap = h;
		r->capacity = n;
	}
	r->heap[r->count] = *ev;
	heap_sift_up(r->heap, r->count);
	r->count++;
	if (r->count > r->max_count)
		r->max_count = r->count;
	drain_ready(r);
	while (r->count > r->max_window) {
		skip_gap(r);
		drain_ready(r);
	}
	return 0;
}

void reorder_finish(struct reorder *r)
{
	drain_ready(r);
	while (r->count > 0) {
		skip_gap(r);
		drain_ready(r);
	}
}
