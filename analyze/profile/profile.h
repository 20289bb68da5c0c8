/*
 * analyze/profile/profile.h - one trace read, aggregated and turned into
 * symbolized allocation sites: the read-only profile every writer
 * (output/) and `diff` print from.  profile_load runs the whole pipeline
 * (read/ -> aggregate/ -> symbolize/ -> sites), so that every command
 * aggregates a trace the same way.
 *
 * What a writer may read: info (the trace's facts), summary (the totals),
 * sites (symbolized, with DHAT-style statistics), maps (modules and their
 * build-ids), run (the run facts), timeline (heap and RSS over time) and
 * inherit_note.  The aggregation and the
 * symbolizer behind them are the pipeline's (struct profile_build), kept
 * alive because sites point into them.
 */
#ifndef MPROF_ANALYZE_PROFILE_H
#define MPROF_ANALYZE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analyze/aggregate/aggregate.h"
#include "analyze/aggregate/window.h"
#include "analyze/profile/inherit.h"
#include "analyze/profile/metric.h"
#include "analyze/profile/run_facts.h"
#include "analyze/profile/sites.h"
#include "analyze/profile/summary.h"
#include "analyze/read/event_stream.h"
#include "analyze/read/modules.h"

struct profile_build;

/* What the filters of profile/filter.h took out of a profile (the totals
 * in summary stay the whole program's, but for the leaks suppressed). */
struct profile_filtered {
	bool filtered;               /* --filter-function / --exclude-function given */
	size_t sites_before;         /* sites before filtering */
	uint64_t sites, allocations, allocated_bytes; /* sites left out, theirs */
	bool suppressions;           /* --suppressions given */
	const char *suppressions_path;
	uint64_t suppressed_sites, suppressed_bytes, suppressed_blocks; /* leaks */
};

struct profile {
	struct trace_info info;      /* the trace's facts (path, chunks, END, ...) */
	struct heap_summary summary;
	struct site_table sites;     /* sorted by allocated bytes */
	struct module_maps maps;     /* modules with their build-ids */
	struct run_facts run;
	const struct timeline *timeline; /* the heap and RSS over time (never NULL
	                             * after a successful load; aggregate/timeline.h) */
	char inherit_note[INHERIT_NOTE_BYTES]; /* fork child: why inherited blocks
	                             * are unknown, or "" */
	/* A time window (--from/--to, --at; window.h): what the statistics
	 * cover, and the window as the user gave it.  Neither range nor at:
	 * the whole trace. */
	struct window_facts window;
	struct window_spec window_spec;
	/* Sites left out or suppressed (--filter-function, --exclude-function,
	 * --suppressions; profile/filter.h); all zero without filters. */
	struct profile_filtered filtered;
	struct profile_build *build; /* owned: what sites point into */
};

/* Reading progress, told after each chunk (bytes read so far, file size),
 * then done once the reading is over; both optional. */
struct profile_progress {
	void (*show)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
	void (*done)(void *ctx);
	void *ctx;
};

/*
 * Reads the trace at path (seeding a fork child with its parent's live
 * blocks), aggregates it, builds its allocation sites with opt (NULL: no
 * extra allocator wrappers) and collects its run facts.  progress may be
 * NULL.  Prints what went wrong (and warnings about corrupt embedded
 * symbols) through analyze_error.  Returns 0, or 1 when the trace is
 * unreadable or memory ran out; p must be freed with profile_free either
 * way.
 */
int profile_load(struct profile *p, const char *path, const struct site_options *opt,
		 const struct profile_progress *progress);

/* As profile_load, restricted to the time window spec (NULL or none given:
 * the whole trace; window.h).  Returns as profile_load does, or 2 when the
 * window cannot be resolved for this trace (a percent without a run time,
 * a start not before the end once percents are known), reported. */
int profile_load_window(struct profile *p, const char *path, const struct site_options *opt,
			const struct window_spec *spec, const struct profile_progress *progress);

/* As profile_load_window, a fork child seeded from seed (inherit_each's)
 * instead of a read of its parent's trace of its own; seed NULL: as
 * profile_load_window. */
int profile_load_seeded(struct profile *p, const char *path, const struct site_options *opt,
			const struct window_spec *spec, const struct profile_progress *progress,
			const struct inherit_seed *seed);

/* Frees everything profile_load made (safe on a failed load). */
void profile_free(struct profile *p);

/* Whether the recording ended before the program's exit (run.ended_early
 * says why): blocks still live are then not known to be leaks. */
static inline bool profile_ended_early(const struct profile *p)
{
	return p->run.ended_early[0] != '\0';
}

/* How many of the blocks live at the end (summary.live_blocks) may have
 * been freed by a free the recorder could not record (a thread without a
 * slot, a signal handler that interrupted the recorder): at most the
 * unrecorded frees and at most those blocks, since such a block stays live
 * in the trace.  0: the leak and peak figures miss no free. */
static inline uint64_t profile_live_maybe_freed(const struct profile *p)
{
	uint64_t n = p->run.has_unrecorded ? p->run.unrecorded_frees : 0;

	return n < p->summary.live_blocks ? n : p->summary.live_blocks;
}

/* Whether the process image ended by executing another program: its
 * blocks still live are then live at exec (the new image starts afresh). */
static inline bool profile_executed(const struct profile *p)
{
	return p->run.process_state && strcmp(p->run.process_state, "exec") == 0;
}

/* Whether the process exited with a status its recorder's exit note does
 * not give (run_facts exit_unnoted): by an exit system call of the
 * program's own, or after an exec the recorder did not see, whose program
 * gave the status. */
static inline bool profile_exit_unnoted(const struct profile *p)
{
	return p->run.has_status && p->run.exit_unnoted;
}

/* Whether an exit with no exit note is a Go program's: its runtime exits
 * by an exit system call of its own, never through the C library. */
static inline bool profile_exit_by_go(const struct profile *p)
{
	return profile_exit_unnoted(p) && p->run.own_heap_runtime &&
	       strcmp(p->run.own_heap_runtime, "Go") == 0;
}

/* Whether the process ended in a way its trace cannot tell: not by exit()
 * (no exit note) and with no status seen, so by _exit() or a signal. */
static inline bool profile_end_unknown(const struct profile *p)
{
	return !p->run.has_status && !p->run.has_signal && p->run.process_state &&
	       strcmp(p->run.process_state, "ended") == 0;
}

/* Whether the report is of the heap at a moment (--at): blocks still
 * live are then live at that moment, not leaks. */
static inline bool profile_at(const struct profile *p)
{
	return p->window.at;
}

/* Whether the profile can give metric m: temporary allocations (an
 * allocation whose free is the thread's next allocator event) have no
 * estimate in a sampled trace, where the events between a sampled
 * allocation and its free were not recorded. */
static inline bool profile_has_metric(const struct profile *p, enum metric m)
{
	return !(m == METRIC_TEMPORARY && p->info.sampled);
}

/* Whether metric m of p is rough: the bytes and blocks live at the peak
 * (t-gmax) of a sampled trace have no unbiased estimate (the heap's peak is
 * a maximum over time, and the sampled blocks' maximum is not an estimate of
 * it), so they are shown marked and no CI gate may test them. */
static inline bool profile_metric_rough(const struct profile *p, enum metric m)
{
	return p->info.sampled && (m == METRIC_PEAK || m == METRIC_PEAK_BLOCKS);
}

/* Whether p's lifetimes are estimates (a sampled trace): then only the
 * average lifetime in ns has one, each sampled block counting as the
 * allocations it stands for (its weight), which makes it a ratio estimate
 * of the mean over the site's freed blocks, each block once whatever its
 * size (not biased toward big blocks, which are sampled more).  Lifetimes
 * in events count only the recorded events, and the minimum and maximum
 * are the sampled blocks' own: neither has an estimate. */
static inline bool profile_lifetimes_estimated(const struct profile *p)
{
	return p->info.sampled;
}

/* The resolution of p's exact-mode times in ns, or 0 when every time is
 * exact to the ns (a sampled trace times each sampled event afresh) or the
 * trace does not record it (before 2026-12-06).  An exact-mode event is
 * timed by its thread's last TIME record, renewed when the event clock
 * moved a grain (trace/event_clock.h): up to one grain late, so a lifetime
 * or time measured below the grain cannot be told from 0 and is shown as
 * "< grain" (output_fmt_time_ns). */
static inline uint64_t profile_time_resolution_ns(const struct profile *p)
{
	if (p->info.sampled && !p->run.partly_exact)
		return 0;
	return p->run.time_resolution_ns;
}

/* Whether p's temporary allocations are an upper bound and its lifetimes
 * in events lower bounds: an exact trace whose recording was paused part of
 * the run.  A thread's calls while recording was stopped, and in a run
 * started --paused the frees of blocks never recorded, leave no record and
 * take no sequence number, so the recorded event after an allocation need
 * not be its thread's next call: every temporary allocation among the
 * recorded ones is counted, and maybe others. */
static inline bool profile_temporary_at_most(const struct profile *p)
{
	return !p->info.sampled && p->run.recording_controlled;
}

/* What qualifies metric m of p, or NULL: "rough" (profile_metric_rough) or
 * "at most" (the temporary allocations of profile_temporary_at_most).  A
 * writer shows the word beside the metric's name, or, where its format has
 * no room for it, the command says it on stderr. */
static inline const char *profile_metric_qualifier(const struct profile *p, enum metric m)
{
	if (profile_metric_rough(p, m))
		return "rough";
	return m == METRIC_TEMPORARY && profile_temporary_at_most(p) ? "at most" : NULL;
}

/* The inherit note, or NULL when there is none. */
static inline const char *profile_inherit_note(const struct profile *p)
{
	return p->inherit_note[0] ? p->inherit_note : NULL;
}

#endif
