/*
 * preload/sample.h - byte sampling (`mprof run --sample-rate BYTES`): which
 * allocations are recorded, and the weight each recorded one carries.
 *
 * Poisson sampling by bytes, as tcmalloc, jemalloc and Go do: every byte is
 * marked with probability 1/T (T = the sampling interval), and an allocation
 * of s bytes is recorded when one of its s + 1 bytes is marked, so with
 * probability p = 1 - exp(-(s + 1)/T) (the + 1 gives malloc(0) a chance).
 * Each thread keeps a countdown of bytes to its next mark, drawn from an
 * exponential distribution of mean T; the fast path is a subtract and a
 * branch, with no lock and no shared write.  A recorded allocation weighs
 * 1/p (Horvitz-Thompson), rounded up or down at random to an integer with
 * that mean, so counts and bytes summed over weights are unbiased.
 */
#ifndef MPROF_PRELOAD_SAMPLE_H
#define MPROF_PRELOAD_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "preload/thread.h"

/*
 * Sets this process image's seed, of which every thread's generator is
 * made (thread n of the image, counted from this call, draws from the seed
 * and n): seed when given is nonzero (`mprof run --sample-seed`, the same
 * in every image the run executes), else one drawn from the clock and the
 * process id, so that images draw independent samples.  Called at init,
 * in exact mode too (mprof_start may start sampling later).
 */
void sample_configure(int given, uint64_t seed);

/* This process image's seed (what sample_configure or, in a fork child,
 * sample_fork_child set): the process file's header reports it. */
uint64_t sample_seed_get(void);

/* Fork, in the parent, with the fork handlers' locks held: counts the
 * image's forks, which the child's seed is made of. */
void sample_fork_prepare(void);

/*
 * Sets t's sampling interval T in bytes (0: exact mode, every call
 * recorded) and, when t already draws, a fresh countdown from the new
 * interval (the exponential has no memory, so no sample is owed from the
 * old one).  Only touches t; preload/control.c calls it when the run's
 * interval changed.
 */
void sample_thread_rate(struct preload_thread *t, uint64_t interval_bytes);

/* Fork child: its threads draw from a seed of their own, the parent's
 * mixed with the number of this fork among the parent image's (so a run
 * with --sample-seed repeats), and a new countdown, so parent and child,
 * and the children of one thread, do not pick the same allocations; self
 * is the forking thread's state, or NULL. */
void sample_fork_child(struct preload_thread *self);

/* The slow path of sample_weight: the countdown ran out (or the thread has
 * not drawn one yet).  Returns the weight, or 0: not sampled. */
uint64_t sample_weight_slow(struct preload_thread *t, size_t size_bytes);

/*
 * Whether an allocation of size_bytes is recorded, and its weight: 1 for
 * every call in exact mode; in sampled mode 0 (not recorded) or the
 * sample's weight.  Only touches t.
 */
static inline uint64_t sample_weight(struct preload_thread *t, size_t size_bytes)
{
	uint64_t k = size_bytes + 1;

	if (__builtin_expect(t->sample_interval_bytes == 0, 1))
		return 1;
	if (__builtin_expect(k != 0 && k <= t->sample_countdown, 1)) {
		t->sample_countdown -= k;
		return 0;
	}
	return sample_weight_slow(t, size_bytes);
}

#endif
