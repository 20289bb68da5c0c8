/*
 * preload/sample.c - the sampler's slow path: drawing each thread's
 * countdown to its next sampled byte and the weight of a sample
 * (preload/sample.h has the math).
 *
 * Touches only the calling thread's state and the thread counter.  Must
 * never call malloc.
 */
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "preload/clock.h"
#include "preload/sample.h"
#include "preload/sample_math.h"

/* Countdowns are capped at this many intervals: the tail cut off has
 * probability e^-16, so the bias is below 1e-7. */
#define SAMPLE_COUNTDOWN_CAP 16.0

static uint64_t sample_seed;            /* this process image's */
static _Atomic uint64_t sample_threads; /* generators seeded so far */
static uint64_t sample_forks;           /* forks this image made */

/* splitmix64's finalizer: every bit of x moves about half of the result's. */
static uint64_t sample_mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void sample_configure(int given, uint64_t seed)
{
	if (!given) {
		struct timespec wall = { 0, 0 }, mono = { 0, 0 };

		preload_clock_gettime(CLOCK_REALTIME, &wall);
		preload_clock_gettime(CLOCK_MONOTONIC, &mono);
		seed = sample_mix((uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec) ^
		       sample_mix(((uint64_t)getpid() << 32) ^ (uint64_t)mono.tv_nsec);
	}
	sample_seed = seed;
	sample_forks = 0;
	atomic_store_explicit(&sample_threads, 0, memory_order_relaxed);
}

uint64_t sample_seed_get(void)
{
	return sample_seed;
}

void sample_fork_prepare(void)
{
	sample_forks++;
}

void sample_fork_child(struct preload_thread *self)
{
	sample_seed = sample_mix(sample_seed ^ sample_mix(sample_forks * 0x9e3779b97f4a7c15ull));
	sample_forks = 0;
	atomic_store_explicit(&sample_threads, 0, memory_order_relaxed);
	if (self) {
		/* the parent's countdown too: else every child forked between
		 * two of the thread's samples skips the same allocations */
		self->sample_rng = 0;
		self->sample_countdown = 0;
	}
}

/* splitmix64: the thread's generator (never 0 once seeded). */
static uint64_t sample_random(struct preload_thread *t)
{
	return sample_mix(t->sample_rng += 0x9e3779b97f4a7c15ull);
}

/* A uniform number in (0, 1], 53 bits. */
static double sample_uniform(struct preload_thread *t)
{
	return (double)((sample_random(t) >> 11) + 1) * 0x1p-53;
}

/* Bytes to the next marked byte: exponential, mean the interval. */
static uint64_t sample_countdown_draw(struct preload_thread *t)
{
	double T = (double)t->sample_interval_bytes;
	double x = -sample_math_log(sample_uniform(t)) * T;

	if (x > SAMPLE_COUNTDOWN_CAP * T)
		x = SAMPLE_COUNTDOWN_CAP * T;
	return (uint64_t)x;
}

/* The weight 1/p of a sample of k counted bytes, rounded to an integer
 * with mean 1/p. */
static uint64_t sample_weight_draw(struct preload_thread *t, uint64_t k)
{
	double w = -1.0 / sample_math_expm1(-(double)k / (double)t->sample_interval_bytes);
	uint64_t whole;

	if (!(w < 0x1p32))
		return UINT32_MAX;
	whole = (uint64_t)w;
	if (sample_uniform(t) <= w - (double)whole)
		whole++;
	return whole ? whole : 1;
}

void sample_thread_rate(struct preload_thread *t, uint64_t interval_bytes)
{
	t->sample_interval_bytes = interval_bytes;
	t->sample_countdown = 0;
	if (interval_bytes && t->sample_rng)
		t->sample_countdown = sample_countdown_draw(t);
}

uint64_t sample_weight_slow(struct preload_thread *t, size_t size_bytes)
{
	uint64_t k = size_bytes + 1;

	if (k == 0)
		k = UINT64_MAX;
	if (!t->sample_rng) {
		uint64_t n = atomic_fetch_add_explicit(&sample_threads, 1, memory_order_relaxed);

		t->sample_rng = sample_seed ^ (n * 0xd1b54a32d192ed03ull) ^ 0x5851f42d4c957f2dull;
		if (!t->sample_rng)
			t->sample_rng = 1;
		t->sample_countdown = sample_countdown_draw(t);
		if (k <= t->sample_countdown) {
			t->sample_countdown -= k;
			return 0;
		}
	}
	t->sample_countdown = sample_countdown_draw(t);
	return sample_weight_draw(t, k);
}
