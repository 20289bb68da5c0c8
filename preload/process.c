/*
 * preload/process.c - the shim's process-wide state (see process.h): the
 * phase, the configuration and the process file, how recording is stopped
 * for good, and the counts of calls served without being recorded.
 *
 * Owns preload_proc and preload_phase.  Must never call malloc or print.
 */
#define _GNU_SOURCE
#include "preload/diag.h"
#include "preload/mem.h"
#include "preload/process.h"
#include "preload/thread.h"

struct preload_process preload_proc PRELOAD_LARGE_BSS;
_Atomic int preload_phase;

/* Unrecorded calls counted before the process file existed: before the
 * shim was ready, or in a forked child before its fork handler made the
 * child's own file (the program's child handlers registered before the
 * shim's run first). */
static _Atomic uint64_t process_early_allocs, process_early_frees;

void preload_process_disable(const char *reason_text)
{
	int phase = atomic_load(&preload_phase);
	uint32_t running = PROC_RUNNING;

	do {
		if (phase != PRELOAD_READY && phase != PRELOAD_INITIALIZING)
			return;
	} while (!atomic_compare_exchange_weak(&preload_phase, &phase, PRELOAD_DISABLED));
	if (!preload_proc.hdr)
		return;
	diag_note(TRACE_DIAG_DISABLED, reason_text);
	/* (a file the launcher gave up stays PROC_ABANDONED) */
	atomic_compare_exchange_strong_explicit(&preload_proc.hdr->state, &running, PROC_DISABLED,
						memory_order_release, memory_order_relaxed);
}

void preload_count_unrecorded(int is_free)
{
	int phase = atomic_load_explicit(&preload_phase, memory_order_acquire);

	if (preload_proc.forward_only)
		return; /* the note says none can be recorded */
	if (phase == PRELOAD_READY && preload_proc.hdr && *preload_fork_token) {
		atomic_fetch_add_explicit(is_free ? &preload_proc.hdr->unrecorded_frees
						  : &preload_proc.hdr->unrecorded_allocs,
					  1, memory_order_relaxed);
	} else if (phase == PRELOAD_INITIALIZING || phase == PRELOAD_UNSTARTED ||
		   (phase == PRELOAD_READY && !*preload_fork_token)) {
		/* a child without fork handlers goes inert and never flushes */
		atomic_fetch_add_explicit(is_free ? &process_early_frees : &process_early_allocs, 1,
					  memory_order_relaxed);
	}
}

void preload_flush_early_counts(void)
{
	uint64_t allocs = atomic_exchange(&process_early_allocs, 0);
	uint64_t frees = atomic_exchange(&process_early_frees, 0);

	if (!preload_proc.hdr)
		return;
	atomic_fetch_add_explicit(&preload_proc.hdr->unrecorded_allocs, allocs, memory_order_relaxed);
	atomic_fetch_add_explicit(&preload_proc.hdr->unrecorded_frees, frees, memory_order_relaxed);
}
