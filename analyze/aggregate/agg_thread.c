/*
 * analyze/aggregate/agg_thread.c - the aggregation thread of agg_thread.h.
 *
 * Owns the thread and the ring, both made when the thread starts (at once,
 * or after the events agg_thread_start_after aggregates on the caller's
 * thread).  The caller's thread (the producer) writes
 * ring[tail % N] and publishes tail every AGG_THREAD_BATCH events; the
 * aggregation thread (the consumer) aggregates ring[head % N] up to tail
 * and publishes head.  A side that finds nothing to do sleeps on the
 * condition variable at once, after saying so in its *_sleeping flag; the
 * other side wakes it after publishing when it sees that flag (a producer
 * that found the ring full once half of it is free: one wake-up per 12,288
 * events instead of one per batch, which halved the context switches of a
 * report of a C++ program's trace).  No side
 * spins: on these 2-processor machines a report has three threads (with
 * chunk_prefetch's reader), and while another program or the host takes a
 * processor, a spinning thread takes its time from the thread it waits
 * for.  Measured, 7 interleaved runs on five workloads' traces: spinning
 * 2000 pauses with batches of 256 events made reports 2-3x slower than one
 * thread; 300 pauses with batches of 2048 made them 3-30% faster when the
 * machine was quiet, but slower than one thread with a busy loop on the
 * other processor (sqlite3: 0.14-0.22 s against 0.12-0.13); no spinning
 * with batches of 4096 is as fast when quiet (0.089 s against 0.121 for
 * one thread) and no slower than one thread when not (0.13 s).  Flag
 * and position are stored and loaded sequentially consistent on both sides
 * (a Dekker pair), and the sleeper checks again under the mutex, so no
 * wake-up is lost.
 */
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "analyze/aggregate/agg_thread.h"

_Static_assert((AGG_THREAD_BATCH & (AGG_THREAD_BATCH - 1)) == 0,
	       "batches are counted with a mask");
_Static_assert(AGG_THREAD_RING_EVENTS % AGG_THREAD_BATCH == 0,
	       "a batch never wraps around the ring's end");
_Static_assert(AGG_THREAD_BATCH < AGG_THREAD_RING_EVENTS, "a batch fits the ring");

struct agg_thread {
	struct aggregate *agg;
	pthread_t thread;
	bool threaded;
	uint64_t inline_left;            /* unthreaded: events aggregated here
	                                  * before the thread starts (0: never) */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool done;                       /* under lock: no more events */
	/* the producer's own line (a field the consumer polls, written with
	 * every event, made the report three times slower) */
	alignas(64) uint64_t next;       /* events written (>= tail) */
	uint32_t next_slot;              /* next % AGG_THREAD_RING_EVENTS */
	uint64_t head_seen;              /* the consumer's head, as last read */
	struct alloc_event *ring;        /* AGG_THREAD_RING_EVENTS, 64-byte aligned,
	                                  * made with the thread */
	/* what the producer publishes */
	alignas(64) _Atomic uint64_t tail;   /* events published */
	atomic_int producer_sleeping;
	_Atomic uint64_t room_head;          /* while it sleeps: the head it
	                                      * waits for (half the ring free) */
	/* what the consumer publishes */
	alignas(64) _Atomic uint64_t head;   /* events aggregated */
	atomic_int consumer_sleeping;
	atomic_bool failed;
};

static void wake_other(struct agg_thread *t, atomic_int *sleeping)
{
	if (!atomic_load(sleeping))
		return;
	pthread_mutex_lock(&t->lock);
	pthread_cond_broadcast(&t->wake);
	pthread_mutex_unlock(&t->lock);
}

static void *consume(void *arg)
{
	struct agg_thread *t = arg;
	uint64_t head = 0;

	for (;;) {
		uint64_t tail = atomic_load_explicit(&t->tail, memory_order_acquire);

		if (head == tail) {
			bool done;

			pthread_mutex_lock(&t->lock);
			atomic_store(&t->consumer_sleeping, 1);
			while (!t->done && atomic_load(&t->tail) == head)
				pthread_cond_wait(&t->wake, &t->lock);
			atomic_store(&t->consumer_sleeping, 0);
			done = t->done && atomic_load(&t->tail) == head;
			pthread_mutex_unlock(&t->lock);
			if (done)
				break;
			continue;
		}
		while (head != tail) {
			/* up to the ring's end or the next batch boundary */
			uint64_t i = head % AGG_THREAD_RING_EVENTS;
			uint64_t n = AGG_THREAD_BATCH - (head & (AGG_THREAD_BATCH - 1));

			if (n > tail - head)
				n = tail - head;
			if (n > AGG_THREAD_RING_EVENTS - i)
				n = AGG_THREAD_RING_EVENTS - i;
			aggregate_events(t->agg, &t->ring[i], (size_t)n);
			head += n;
			if ((head & (AGG_THREAD_BATCH - 1)) == 0) {
				atomic_store(&t->head, head);
				if (head >= atomic_load(&t->room_head))
					wake_other(t, &t->producer_sleeping);
			}
		}
		atomic_store(&t->head, head);
		wake_other(t, &t->producer_sleeping);
		if (t->agg->error)
			atomic_store(&t->failed, true);
	}
	return NULL;
}

/* Starts the thread and its ring; t stays unthreaded when either cannot
 * be made.  The ring's pages are touched first by the producer's first
 * lap, while the consumer works, not here before either starts (1 MB: 240
 * page faults, some 13 us each on these virtual machines). */
static void thread_start(struct agg_thread *t)
{
	t->ring = aligned_alloc(64, AGG_THREAD_RING_EVENTS * sizeof(*t->ring));
	if (!t->ring)
		return;
	t->threaded = pthread_create(&t->thread, NULL, consume, t) == 0;
	if (!t->threaded) {
		free(t->ring);
		t->ring = NULL;
	}
}

/* The handle, unthreaded; NULL on out of memory. */
static struct agg_thread *agg_thread_new(struct aggregate *agg)
{
	struct agg_thread *t = aligned_alloc(64, sizeof(*t));

	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->agg = agg;
	if (pthread_mutex_init(&t->lock, NULL) != 0) {
		free(t);
		return NULL;
	}
	if (pthread_cond_init(&t->wake, NULL) != 0) {
		pthread_mutex_destroy(&t->lock);
		free(t);
		return NULL;
	}
	return t;
}

struct agg_thread *agg_thread_start(struct aggregate *agg)
{
	struct agg_thread *t = agg_thread_new(agg);

	if (t)
		thread_start(t);
	return t;
}

struct agg_thread *agg_thread_start_after(struct aggregate *agg, uint64_t inline_events)
{
	struct agg_thread *t = agg_thread_new(agg);

	if (t)
		t->inline_left = inline_events;
	return t;
}

/* Writes ev into ring slot e.  On x86-64 with non-temporal stores, which
 * write the line without first fetching it: the consumer on the other
 * processor read that line a lap ago, and an ordinary store had to take it
 * back across.  How much that costs depends on where the host places the
 * two processors: in A/Bs of reports (15 interleaved rounds) with ordinary
 * stores, cc1's trace took 0.115 s at some times and 0.17 s at others,
 * against 0.115 s at all times with these; sqlite3 and python3 (whose
 * aggregation waits on its block table), within 6%.  publish()'s sfence
 * orders them before the tail. */
typedef long long __attribute__((may_alias)) ring_word;

static inline void ring_store(struct alloc_event *e, const struct alloc_event *ev)
{
#if defined(__x86_64__)
	/* word by word from ev (not through a copy on the stack: 10 fewer
	 * instructions an event) */
	ring_word *dst = (ring_word *)e;
	const ring_word *src = (const ring_word *)ev;

	_Static_assert(sizeof(*ev) == 5 * sizeof(ring_word), "an event is five words");
	__builtin_ia32_movnti64(&dst[0], src[0]);
	__builtin_ia32_movnti64(&dst[1], src[1]);
	__builtin_ia32_movnti64(&dst[2], src[2]);
	__builtin_ia32_movnti64(&dst[3], src[3]);
	__builtin_ia32_movnti64(&dst[4], src[4]);
#else
	*e = *ev;
#endif
}

/* ring_store of k events in a row (the ring has room for them before its
 * end): 16 bytes a store where the ring is 16-byte aligned (the ring is
 * 64-byte aligned, an event 40 bytes: every other one starts at 8 mod 16),
 * ~5 instructions an event fewer than five 8-byte stores. */
static inline void ring_store_run(struct alloc_event *e, const struct alloc_event *ev, size_t k)
{
#if defined(__x86_64__)
	ring_word *dst = (ring_word *)e;
	const ring_word *src = (const ring_word *)ev;
	size_t words = 5 * k, i = 0;

	if ((uintptr_t)dst & 15)
		__builtin_ia32_movnti64(&dst[i++], src[0]);
	/* four stores a step: the loop's count, test and branch once per 64
	 * bytes, not per 16 */
	for (; i + 8 <= words; i += 8) {
		_mm_stream_si128((__m128i *)&dst[i], _mm_loadu_si128((const __m128i *)&src[i]));
		_mm_stream_si128((__m128i *)&dst[i + 2],
				 _mm_loadu_si128((const __m128i *)&src[i + 2]));
		_mm_stream_si128((__m128i *)&dst[i + 4],
				 _mm_loadu_si128((const __m128i *)&src[i + 4]));
		_mm_stream_si128((__m128i *)&dst[i + 6],
				 _mm_loadu_si128((const __m128i *)&src[i + 6]));
	}
	for (; i + 2 <= words; i += 2)
		_mm_stream_si128((__m128i *)&dst[i], _mm_loadu_si128((const __m128i *)&src[i]));
	if (i < words)
		__builtin_ia32_movnti64(&dst[i], src[i]);
#else
	memcpy(e, ev, k * sizeof(*ev));
#endif
}

/* publish and wait_for_room stay out of line: inlined, they made every
 * agg_thread_emit save and restore six registers (17 of its 39
 * instructions per event). */
static __attribute__((noinline)) void publish(struct agg_thread *t)
{
#if defined(__x86_64__)
	__builtin_ia32_sfence(); /* the ring's non-temporal stores first */
#endif
	atomic_store(&t->tail, t->next);
	wake_other(t, &t->consumer_sleeping);
}

/* Waits until the ring has room for one more event: until half of it is
 * free, so that the consumer wakes the producer once per
 * AGG_THREAD_ROOM_WAKE events, not once per batch. */
static __attribute__((noinline)) void wait_for_room(struct agg_thread *t)
{
	uint64_t room_head = t->next - (AGG_THREAD_RING_EVENTS - AGG_THREAD_ROOM_WAKE);

	publish(t);
	pthread_mutex_lock(&t->lock);
	atomic_store(&t->room_head, room_head);
	atomic_store(&t->producer_sleeping, 1);
	while ((t->head_seen = atomic_load(&t->head)) < room_head)
		pthread_cond_wait(&t->wake, &t->lock);
	atomic_store(&t->producer_sleeping, 0);
	pthread_mutex_unlock(&t->lock);
}

void agg_thread_emit(void *ctx, const struct alloc_event *ev)
{
	struct agg_thread *t = ctx;

	if (!t->threaded) {
		aggregate_event(t->agg, ev);
		if (t->inline_left && --t->inline_left == 0)
			thread_start(t); /* the events so far are aggregated */
		return;
	}
	if (t->next - t->head_seen >= AGG_THREAD_RING_EVENTS) {
		t->head_seen = atomic_load_explicit(&t->head, memory_order_acquire);
		if (t->next - t->head_seen >= AGG_THREAD_RING_EVENTS)
			wait_for_room(t);
	}
	ring_store(&t->ring[t->next_slot], ev);
	t->next_slot = t->next_slot == AGG_THREAD_RING_EVENTS - 1 ? 0 : t->next_slot + 1;
	t->next++;
	if ((t->next & (AGG_THREAD_BATCH - 1)) == 0)
		publish(t);
}

void agg_thread_emit_run(void *ctx, const struct alloc_event *ev, size_t n)
{
	struct agg_thread *t = ctx;

	while (n > 0 && !t->threaded) {
		agg_thread_emit(t, ev++);
		n--;
	}
	while (n > 0) {
		/* up to the ring's end, the room the consumer left and the next
		 * batch's end, where it is published as agg_thread_emit does */
		uint64_t k = AGG_THREAD_BATCH - (t->next & (AGG_THREAD_BATCH - 1));

		if (t->next - t->head_seen >= AGG_THREAD_RING_EVENTS) {
			t->head_seen = atomic_load_explicit(&t->head, memory_order_acquire);
			if (t->next - t->head_seen >= AGG_THREAD_RING_EVENTS)
				wait_for_room(t);
		}
		if (k > n)
			k = n;
		if (k > AGG_THREAD_RING_EVENTS - (t->next - t->head_seen))
			k = AGG_THREAD_RING_EVENTS - (t->next - t->head_seen);
		if (k > AGG_THREAD_RING_EVENTS - t->next_slot)
			k = AGG_THREAD_RING_EVENTS - t->next_slot;
		ring_store_run(&t->ring[t->next_slot], ev, (size_t)k);
		t->next_slot = t->next_slot + k == AGG_THREAD_RING_EVENTS ? 0 : t->next_slot + (uint32_t)k;
		t->next += k;
		ev += k;
		n -= k;
		if ((t->next & (AGG_THREAD_BATCH - 1)) == 0)
			publish(t);
	}
}

bool agg_thread_failed(const struct agg_thread *t)
{
	if (!t->threaded)
		return t->agg->error != 0;
	return atomic_load_explicit(&t->failed, memory_order_relaxed);
}

void agg_thread_stop(struct agg_thread *t)
{
	if (!t)
		return;
	if (t->threaded) {
		publish(t);
		pthread_mutex_lock(&t->lock);
		t->done = true;
		pthread_cond_broadcast(&t->wake);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->thread, NULL);
	}
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t->ring);
	free(t);
}
