/*
 * mprof.h - control mprof from inside the program it records: start and
 * stop recording, mark moments of the run, and report the blocks of the
 * program's own allocators (pools, arenas).  See mprof(3).
 *
 * Header only: link nothing.  Each function looks up the definition that
 * the mprof preload library exports, through a weak reference the dynamic
 * loader resolves once at load time.  Without mprof the reference is null
 * and every function returns at once: -ENOSYS, 0, or nothing; the check is
 * one load of the reference and a branch.  (Some linkers resolve the weak
 * references of a position-dependent executable, gcc -no-pie, to null at
 * link time: link it with -Wl,-z,dynamic-undefined-weak.)
 *
 * The functions are thread-safe and may be called from any thread.  They
 * are not async-signal-safe: use `mprof run --toggle-signal` for that.
 */
#ifndef MPROF_H
#define MPROF_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mprof_start's rate: record every allocation (no sampling). */
#define MPROF_RATE_EVERY UINT64_MAX
/* mprof_start's rate: as `mprof run` was started (--sample-rate, or every
 * allocation). */
#define MPROF_RATE_RUN 0
/* mprof_start's largest sampling interval, 1 GiB (as --sample-rate's): a
 * sample's weight must fit the trace's 32 bits. */
#define MPROF_RATE_MAX (UINT64_C(1) << 30)

/* Definitions exported by the preload library; null without it. */
extern int mprof_api_start(uint64_t sample_rate_bytes) __attribute__((weak));
extern int mprof_api_stop(void) __attribute__((weak));
extern int mprof_api_is_running(void) __attribute__((weak));
extern int mprof_api_marker(const char *name) __attribute__((weak));
extern void mprof_api_pool_alloc(const void *p, size_t size_bytes) __attribute__((weak));
extern void mprof_api_pool_free(const void *p) __attribute__((weak));
extern void mprof_api_pool_realloc(const void *old_p, const void *new_p, size_t size_bytes)
	__attribute__((weak));

/*
 * Starts recording, or changes the sampling rate of a recording that runs:
 * sample_rate_bytes is the mean sampling interval in bytes
 * (`mprof run --sample-rate`), MPROF_RATE_RUN (0) for the run's own, or
 * MPROF_RATE_EVERY for every allocation.  Returns 0 (also when it already
 * ran so), -ENOSYS without mprof (or when mprof does not record this
 * process, e.g. a child under `mprof run --no-children`), -EAGAIN when
 * called from inside mprof (a signal handler that interrupted an
 * allocation), -EINVAL for a rate above MPROF_RATE_MAX (1 GiB) other than
 * MPROF_RATE_EVERY (nothing changes then).
 */
static inline int mprof_start(uint64_t sample_rate_bytes)
{
	return mprof_api_start ? mprof_api_start(sample_rate_bytes) : -ENOSYS;
}

/* Stops recording; blocks recorded before stay matched with their frees.
 * Returns 0, -ENOSYS or -EAGAIN (as mprof_start). */
static inline int mprof_stop(void)
{
	return mprof_api_stop ? mprof_api_stop() : -ENOSYS;
}

/* 1 while mprof records this process, 0 otherwise (also without mprof). */
static inline int mprof_is_running(void)
{
	return mprof_api_is_running ? mprof_api_is_running() : 0;
}

/*
 * Writes a marker named name (UTF-8; its first 255 bytes are kept) at this
 * moment, ordered among every thread's allocations; reports show it on the
 * timeline and take it as a --from/--to bound.  Recorded whether recording
 * runs or not.  Returns 0, -EINVAL for a null or empty name (no marker:
 * reports find markers by name), -ENOSYS or -EAGAIN.
 */
static inline int mprof_marker(const char *name)
{
	return mprof_api_marker ? mprof_api_marker(name) : -ENOSYS;
}

/*
 * Pool annotations, for blocks the program's own allocator hands out (as
 * Valgrind's VALGRIND_MALLOCLIKE_BLOCK): the block p of size_bytes was
 * allocated, freed, or moved from old_p to new_p and resized.  They are
 * recorded like malloc's blocks (call stack, sampling, start and stop) under
 * the allocator name "pool"; a pool block never matches a malloc'd block,
 * even at the same address.  Null pointers are ignored (realloc: a null
 * old_p is an allocation, a null new_p a free).
 */
static inline void mprof_pool_alloc(const void *p, size_t size_bytes)
{
	if (mprof_api_pool_alloc)
		mprof_api_pool_alloc(p, size_bytes);
}

static inline void mprof_pool_free(const void *p)
{
	if (mprof_api_pool_free)
		mprof_api_pool_free(p);
}

static inline void mprof_pool_realloc(const void *old_p, const void *new_p, size_t size_bytes)
{
	if (mprof_api_pool_realloc)
		mprof_api_pool_realloc(old_p, new_p, size_bytes);
}

#ifdef __cplusplus
}
#endif

#endif
