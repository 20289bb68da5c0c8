/*
 * preload/api.c - the definitions behind include/mprof.h: runtime start
 * and stop, markers and pool annotations, exported by the shim under the
 * mprof_api_ names the header's inline functions look up.
 *
 * Each call enters like an allocator entry point (NULL: the call comes
 * from inside the shim, or the shim does not record; nothing happens) and
 * writes only into the calling thread's ring.  Must never call malloc.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "preload/control.h"
#include "preload/event.h"
#include "preload/exported.h"
#include "preload/sample.h"
#include "preload/sample_set.h"
#include "preload/thread.h"


/* The rate of mprof_start meaning "every allocation" (mprof.h). */
#define API_RATE_EVERY UINT64_MAX

PRELOAD_API int mprof_api_start(uint64_t sample_rate_bytes);
PRELOAD_API int mprof_api_stop(void);
PRELOAD_API int mprof_api_is_running(void);
PRELOAD_API int mprof_api_marker(const char *name);
PRELOAD_API void mprof_api_pool_alloc(const void *p, size_t size_bytes);
PRELOAD_API void mprof_api_pool_free(const void *p);
PRELOAD_API void mprof_api_pool_realloc(const void *old_p, const void *new_p, size_t size_bytes);

/* Whether the shim records this process at all (not inert, disabled or
 * forwarding every call, process.h). */
static int api_records(void)
{
	return atomic_load_explicit(&preload_phase, memory_order_acquire) == PRELOAD_READY &&
	       !preload_proc.forward_only;
}

/* Why a call could not enter: the shim does not record this process
 * (-ENOSYS, as without mprof), or the call came from inside it (-EAGAIN). */
static int api_enter_error(void)
{
	return api_records() ? -EAGAIN : -ENOSYS;
}

/* Starts or stops; the common body of mprof_api_start and _stop. */
static int api_control(int running, uint64_t sample_rate_bytes)
{
	struct preload_thread *t = preload_thread_enter();
	int rc;

	if (!t)
		return api_enter_error();
	if (sample_rate_bytes == 0)
		sample_rate_bytes = control_start_rate();
	else if (sample_rate_bytes == API_RATE_EVERY)
		sample_rate_bytes = 0;
	rc = control_set(t, running, sample_rate_bytes);
	preload_thread_leave(t);
	return rc < 0 ? rc : 0;
}

int mprof_api_start(uint64_t sample_rate_bytes)
{
	return api_control(1, sample_rate_bytes);
}

int mprof_api_stop(void)
{
	return api_control(0, 0);
}

int mprof_api_is_running(void)
{
	return api_records() &&
	       (atomic_load_explicit(&control_word, memory_order_relaxed) & CONTROL_RUNNING);
}

/* How many of name's first len bytes to keep within max bytes, without
 * cutting a UTF-8 sequence in two. */
static size_t api_name_bytes(const char *name, size_t max)
{
	size_t len = strnlen(name, max + 1);

	if (len <= max)
		return len;
	len = max;
	while (len > 0 && ((unsigned char)name[len] & 0xc0) == 0x80)
		len--;
	return len;
}

int mprof_api_marker(const char *name)
{
	struct preload_thread *t;

	if (!name || !name[0])
		return -EINVAL; /* reports find a marker by its name */
	t = preload_thread_enter();
	if (!t)
		return api_enter_error();
	event_marker(t, name, api_name_bytes(name, EVENT_MARKER_NAME_MAX));
	preload_thread_leave(t);
	return 0;
}

/* A pool block's address in the trace. */
static inline const void *api_pool_addr(const void *p)
{
	return (const void *)((uintptr_t)p | (uintptr_t)TRACE_POOL_ADDR_BIT);
}

/* The weight the pool block of size_bytes is recorded with, 0: not
 * recorded (recording: control_recording's answer, asked before any seq
 * was taken); in set mode it enters the set. */
static uint64_t api_pool_weight(struct preload_thread *t, int recording, const void *addr,
				size_t size_bytes)
{
	uint64_t weight;

	if (!recording)
		return 0;
	weight = sample_weight(t, size_bytes);
	if (weight && control_uses_set && sample_set_insert(addr) < 0)
		return 0;
	return weight;
}

/* Whether the release of the pool block at addr is recorded: in set mode
 * when it was, in log mode always. */
static int api_pool_free_recorded(const void *addr)
{
	return !control_uses_set || sample_set_remove(addr);
}

void mprof_api_pool_alloc(const void *p, size_t size_bytes)
{
	struct preload_thread *t;
	const void *addr = api_pool_addr(p);
	uint64_t weight;

	if (!p || !(t = preload_thread_enter()))
		return;
	weight = api_pool_weight(t, control_recording(t), addr, size_bytes);
	if (weight)
		event_alloc(t, TRACE_FN_POOL, addr, size_bytes, weight, CALLER_IP, CALLER_CFA);
	preload_thread_leave(t);
}

void mprof_api_pool_free(const void *p)
{
	struct preload_thread *t;
	const void *addr = api_pool_addr(p);

	if (!p || !(t = preload_thread_enter()))
		return;
	if (api_pool_free_recorded(addr))
		event_free(t, TRACE_FREE_POOL, event_seq_next(t), addr, -1);
	preload_thread_leave(t);
}

void mprof_api_pool_realloc(const void *old_p, const void *new_p, size_t size_bytes)
{
	struct preload_thread *t;
	const void *old_addr = api_pool_addr(old_p), *new_addr = api_pool_addr(new_p);
	int old_recorded, recording;
	uint64_t seq_free = 0, weight = 0;

	if (!(t = preload_thread_enter()))
		return;
	recording = control_recording(t); /* may write a CONTROL record: before seq_free */
	old_recorded = old_p && api_pool_free_recorded(old_addr);
	if (old_recorded)
		seq_free = event_seq_next(t);
	if (new_p)
		weight = api_pool_weight(t, recording, new_addr, size_bytes);
	if (old_recorded && weight)
		event_realloc(t, TRACE_FN_POOL, seq_free, old_addr, -1, new_addr, size_bytes, weight,
			      CALLER_IP, CALLER_CFA);
	else if (old_recorded)
		event_free(t, TRACE_FREE_POOL, seq_free, old_addr, -1);
	else if (weight)
		event_alloc(t, TRACE_FN_POOL, new_addr, size_bytes, weight, CALLER_IP, CALLER_CFA);
	preload_thread_leave(t);
}
