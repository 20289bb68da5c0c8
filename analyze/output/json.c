/*
 * analyze/output/json.c - the machine-readable report of one trace
 * (`mprof report --format json`).
 *
 * Owns nothing; reads a struct report and prints one JSON object.  Strings
 * are escaped (quotes, backslashes, control characters; a byte that is not
 * valid UTF-8 becomes the text \xNN, as in terminal text), so any trace
 * content yields valid JSON and no two names read back the same.  Lists
 * every site, not only the top N.
 *
 * Schema "mprof-report", schema_version OUTPUT_REPORT_SCHEMA_VERSION
 * (output.h; all sizes in bytes, all times in ns, all counts weighted;
 * "null" marks a value the trace does not have):
 *
 *   {
 *     "schema": "mprof-report", "schema_version": OUTPUT_REPORT_SCHEMA_VERSION,
 *     "trace": {"path": str, "pid": int or null, "ppid": int or null,
 *               "exe": str or null, "sampled": bool,
 *               "first_seq": int (fork_seq + 1 for a fork child, else 1)},
 *     "summary": {
 *       "sampled": bool,            estimates (true) or exact counts
 *       "sample_rate_bytes": int or null, the mean sampling interval of a
 *                                   sampled trace (META sample_rate_bytes)
 *       "sample_seed": int or null, the process's sampler seed (META
 *                                   sample_seed, 0 to 2^64 - 1; null when
 *                                   not sampled);
 *                                   in a sampled trace "temporary", "peak",
 *                                   "max_live_*" and per-site peak have no
 *                                   unbiased estimate
 *       "program": {"exe", "cmdline": str or null (at the process's end
 *                   when the program changed it, else at its start),
 *                   "cmdline_at_start": str or null (only when it changed),
 *                   "comm": str or null (the process name the program gave
 *                   itself, prctl PR_SET_NAME, only when it changed),
 *                   "name_how": "exit", "filter", "seen" or null (with
 *                   either: read at exit(); the same, but the process name
 *                   is the one it had when it installed a seccomp filter;
 *                   or at mprof's last look while it ran),
 *                   "name": str or null (what the text report calls it:
 *                   cmdline, else exe, "[comm] " in front when cmdline
 *                   does not hold comm), "pid": int or null,
 *                   "ns_pid": int or null (its pid in its own PID
 *                   namespace, when that is not mprof's),
 *                   "exit_status": int or null, "exit_signal": int or null,
 *                   "exit_unnoted": bool (the exit status is the pid's,
 *                   with no exit note of the recorder's: an exit system
 *                   call of the program's own, or an exec mprof did not
 *                   see, whose program gave it),
 *                   "process_state": str or null (END: "ended", "exec",
 *                   "running"), "executed": str or null (the program this
 *                   image executed, not recorded), "executed_why": str or
 *                   null (why not)},
 *       "run_time_ns": int or null, END wall_ns, else first to last TIME
 *       "time_resolution_ns": int or null, the grain of the event clock that
 *                                   times exact-mode events (META
 *                                   time_resolution_ns): each event time is
 *                                   up to that late, so a lifetime or time
 *                                   ("peak.time_ns", a site's "lifetime_ns_*")
 *                                   below it was measured below the clock's
 *                                   resolution (the text report's "< 4 ms");
 *                                   null when every time is exact to the ns
 *                                   (a sampled trace) or the trace does not
 *                                   record it
 *       "recording": {              only when recording was stopped or
 *                                   started (mprof.h, --paused, the signal):
 *         "paused_at_start": bool, "recorded_ns", "paused_ns": int (of the
 *         run time: what was recorded, and the rest, when nothing was),
 *         "stops", "starts": int, "sample_rate_min_bytes",
 *         "sample_rate_max_bytes": int or null (the rates of the sampled
 *         stretches), "partly_exact": bool (some stretches exact, some
 *         sampled), "sample_rates": int (how many distinct rates the
 *         sampled stretches used), "changes": [{"time_ns": int (from the first TIME
 *         stamp), "seq": int, "state": "started" or "stopped",
 *         "sample_rate_bytes": int (0 exact) or null (stopped)}],
 *         "temporary_at_most": bool (true in an exact trace: "temporary"
 *         counts are upper bounds and "lifetime_events_*" lower bounds,
 *         since calls made while recording was stopped, and frees of blocks
 *         never recorded, left no record)},
 *       "pool": {                   only when pool annotations made blocks
 *                                   (mprof.h): their part of the figures,
 *                                   bytes inside malloc'd blocks that the
 *                                   figures count too
 *         "allocations", "allocated_bytes", "peak_bytes" (live at t-gmax),
 *         "leaked_bytes", "leaked_blocks": int},
 *       "events": int,              allocator events in merged order
 *       "allocations", "allocated_bytes": int,
 *       "allocated_samples": int,   only in a sampled trace: the samples
 *                                   these estimates rest on, and
 *       "allocations_ci95", "allocated_bytes_ci95": int or null, the
 *                                   half-widths of their 95% intervals
 *                                   (1.96 times the square root of an
 *                                   unbiased variance estimate, rounded
 *                                   up); with no sample, bytes: 3 x the
 *                                   sample rate (the truth is below it at
 *                                   95%), allocations: null (no bound)
 *       "frees": int,               free calls (incl. realloc(p, 0)); in a
 *                                   sampled trace the estimate of those
 *                                   that freed a block (weighted)
 *       "blocks_freed": int,        incl. the free part of realloc
 *       "reallocs", "failed_reallocs": int, reallocs of a block; in a
 *                                   sampled trace the estimate of all realloc
 *                                   calls, realloc(NULL, n) included (the
 *                                   trace cannot tell them apart), weighted
 *                                   by their new block; failed ones null
 *                                   there (no estimate)
 *       "frees_recorded", "reallocs_recorded", "failed_reallocs_recorded":
 *                                   int, the records of each: in a sampled
 *                                   trace the samples, not estimates (the
 *                                   same as the above in an exact one)
 *       "temporary": int or null,   null in a sampled trace (no estimate)
 *       "unmatched_frees": int,     frees of addresses that were not live
 *                                   while every allocation was recorded
 *       "frees_of_unrecorded_blocks": int,
 *                                   frees of addresses that were not live
 *                                   once recording had been stopped or
 *                                   sampled, or a thread without a slot
 *                                   allocated: of blocks allocated unrecorded
 *                                   (an exact run records every free), no
 *                                   anomaly
 *       "calls": {"malloc", "calloc", "realloc", "reallocarray",
 *                 "posix_memalign", "aligned_alloc", "memalign", "valloc",
 *                 "pvalloc": allocations made by each (realloc(NULL, n)
 *                 counts under realloc); "free", "free_sized",
 *                 "free_aligned_sized": calls; "realloc_to_zero":
 *                 realloc(p, 0) that freed; "pool", "pool_realloc",
 *                 "pool_free": pool annotations, and "realloc_release":
 *                 reallocs whose new block was not recorded (sampled or
 *                 stopped runs), only when not 0},
 *       "peak": {"bytes", "blocks", "seq": int, "time_ns": int or null},
 *                                   t-gmax; time_ns after the first TIME
 *       "max_live_blocks": int,
 *       "leaked_bytes", "leaked_blocks": int,       live at exit, or live
 *                                   when the recording ended if ended_early
 *       "leaked_samples", "leaked_blocks_ci95", "leaked_bytes_ci95": only
 *                                   in a sampled trace, as allocated_samples
 *                                   and its intervals are for allocations
 *       "ended_early": str or null, why the recording ended before the
 *                                   program's exit (killed, no END, ...)
 *       "data_lost": str or null,   what the recording lost (chunks,
 *                                   events, unrecorded allocations)
 *       "meta_lost": str or null,   call stacks or module maps the events
 *                                   name that the trace lacks (the counts
 *                                   are whole; those stacks are not)
 *       "own_heap_runtime": str or null, a runtime with a heap of its own
 *                                   (GC, pools): only its malloc blocks seen
 *       "foreign_malloc": bool,     the program's own malloc: not recorded
 *       "foreign_new": bool,        C++ operator new and delete another
 *                                   allocator's own: not all recorded (a
 *                                   library bound to them before mprof
 *                                   pointed it at its wrappers, or no
 *                                   wrapping possible)
 *       "rss_mostly_unseen": bool,  peak RSS over 4 times the heap peak and
 *                                   64 MiB above it: most memory not malloc's
 *                                   (false in a recording cut short by mprof)
 *       "peak_rss_kib": int or null, the process image's own peak RSS
 *       "peak_rss_sampled": bool,   read while it ran: at least that much
 *       "profiler": {"launcher_cpu_ns", "ring_waits": int or null,
 *                    "recorder_kib": int or null (the recorder's own memory
 *                    in the process, at most; part of peak_rss_kib, so
 *                    no bound when not below it)},
 *       "forks": int,              FORK records: children the process made
 *       "forks_unrecorded": int,   of them, those that ran unrecorded (END
 *                                   children_unrecorded; all of them with META
 *                                   no_children=1; 0 when unknown)
 *       "inherited": {"seeded": bool, "blocks", "bytes": int, "note": str or null},
 *                                   fork child: the parent's blocks live at the
 *                                   fork, seeded from the parent's trace (site
 *                                   with "inherited": true); note says why not
 *       "quality": {"chunks", "chunks_lost": int,
 *                   "lost_chunks": [{"offset": int, "reason": str}],
 *                   "truncated": bool, "truncated_offset": int or null,
 *                   "complete": bool (an END chunk was read),
 *                   "sequence_gaps", "missing_events", "late_events",
 *                   "repeated_events" (merged already: dropped),
 *                   "repeated_chunks" (EVENTS chunks read already: dropped),
 *                   "repeated_info_chunks" (META, END or SYMBOLS chunks
 *                   the same as the first of their kind: dropped),
 *                   "conflicting_chunks" (META, END or SYMBOLS chunks
 *                   unlike the first of their kind: ignored),
 *                   "unknown_chunks" (chunks of a type this mprof does
 *                   not know, a newer one's: skipped, nothing lost),
 *                   "trace_copies" (copies of the whole trace after the
 *                   first, the same bytes: skipped),
 *                   "second_trace_offset" (int or null: the file offset
 *                   of another trace's file header; it was not read),
 *                   "cut_copy_offset" (int or null: where a copy of the
 *                   trace cut short ends, the next copy's file header or
 *                   the file's end; a whole copy gave its chunks, nothing
 *                   lost),
 *                   "cut_calls" (calls their thread's or process's end cut short),
 *                   "merge_buffer_bytes_max" (event data that waited to merge),
 *                   "address_reused", "stacks",
 *                   "truncated_stacks" (cut at --max-frames, or to one
 *                   frame where an unwinder stopped),
 *                   "max_frames" (int or null: mprof run --max-frames, META
 *                   max_frames), "stacks_cut_at_max_frames" (of
 *                   "truncated_stacks", those that kept max_frames frames),
 *                   "unknown_stacks", "lost_stacks"
 *                   (of those, whose records are missing), "unmapped_stacks"
 *                   (whose module map is missing), "frames",
 *                   "frames_without_debug_info", "frames_without_symbols": int,
 *                   "unrecorded_allocations", "unrecorded_frees": int or null,
 *                   "leaked_blocks_maybe_freed": int (of "leaked_blocks",
 *                   how many may have been freed by frees the recorder
 *                   could not record: the smaller of "unrecorded_frees"
 *                   and "leaked_blocks"; "leaked_*" and "peak" are then
 *                   upper bounds, 0 when they are not),
 *                   "programs_started_unrecorded": int (executed or spawned
 *                   with an environment that dropped the recorder),
 *                   "bad_alloc_records": int (ALLOC and REALLOC records
 *                   refused: a size above PTRDIFF_MAX or a weight above
 *                   2^32-1; counted in no figure),
 *                   "saturated": bool (a figure stopped at 2^64-1, or a
 *                   live one at 0, instead of wrapping: a crafted or
 *                   corrupt trace; pprof's int64 values stop at 2^63-1)},
 *       "diagnostics": [{"code": int, "text": str, "count": int}],
 *       "meta": {key: str}, "end": {key: str}   the raw META / END pairs
 *     },
 *     "window": {                   only with --from/--to or --at:
 *       "from_ns", "to_ns": int or null, the range of allocation times kept
 *                                   (ns after the first TIME stamp; to_ns
 *                                   excluded, null: open), null with --at
 *       "at_ns": int or null,       --at: the moment; leaked_* (summary and
 *                                   sites) are then the blocks live at it
 *       "frees_outside": int,       frees, from the range's start, of blocks
 *                                   allocated outside it (not in frees, not
 *                                   unmatched)
 *       "index_skipped_chunks": int}, EVENTS chunks the chunk index let
 *                                   the reader leave unread (before the
 *                                   range; 0 with --at)
 *                                   Everything else (summary, sites) is then
 *                                   of the window's events only, but for the
 *                                   run facts (run time, peak RSS, profiler).
 *     "filter": {                   only with --filter-function,
 *                                   --exclude-function or --suppressions:
 *       "sites_before": int,        sites before filtering
 *       "sites_left_out", "allocations_left_out",
 *       "allocated_bytes_left_out": int, what the function filters dropped
 *                                   (the summary stays the whole program's)
 *       "suppressions": str or null, the --suppressions file
 *       "suppressed_sites", "suppressed_leaked_bytes",
 *       "suppressed_leaked_blocks": int}, known leaks taken out of the
 *                                   summary's and the sites' leaked_*
 *     "sites": [                    every site, by allocated bytes (desc);
 *                                   with -n N only those among the top N of
 *                                   one of the five rankings (5 N at most)
 *       {"id": int (rank, 1 = most bytes), "allocations", "allocated_bytes",
 *        "peak_bytes", "peak_blocks" (live at t-gmax),
 *        "leaked_bytes", "leaked_blocks" (live at exit), "temporary" (null
 *        in a sampled trace),
 *        in a sampled trace only: "allocated_samples", "allocations_ci95",
 *        "allocated_bytes_ci95", "leaked_samples", "leaked_blocks_ci95",
 *        "leaked_bytes_ci95" (as the summary's, for the site),
 *        "max_live_bytes", "max_live_blocks" (the site's own maxima; an upper
 *         bound when several stacks merged), "freed",
 *        "lifetime_events_min", "lifetime_events_avg", "lifetime_events_max",
 *        "lifetime_ns_min", "lifetime_ns_avg", "lifetime_ns_max"
 *         (over freed blocks; null when none was freed; in a sampled
 *         trace only "lifetime_ns_avg", an estimate of the mean over the
 *         freed blocks, each block once: the others are null),
 *        "stacks": int (call stacks merged), "truncated": bool,
 *        "unknown_stack": bool, "inherited": bool (blocks inherited at fork),
 *        "frames": [{"function": str or null, "file": str or null,
 *                    "line": int (0 unknown), "module": str (path),
 *                    "offset": int (ip - load bias), "inlined": bool}]
 *                   innermost first, allocator wrappers removed}
 *     ],
 *     "sites_total": int,          sites in the trace (with function
 *                                   filters: those kept)
 *     "sites_shown": int,          sites in "sites"
 *     "timeline": {                the heap over time (aggregate/timeline.h)
 *       "bucket_ns": int (the time buckets' width at the end),
 *       "points": [{"time_ns": int (from the first TIME stamp), "seq",
 *                   "heap_bytes", "heap_blocks": int, "rss_bytes": int or
 *                   null}]  per bucket its highest state, then the state at
 *                   the end; the first point of the highest heap is t-gmax,
 *       "rss": [{"time_ns": int (may be < 0), "rss_bytes": int}]  the
 *                   launcher's samples, "rss_merged": int (each sample is
 *                   the highest of that many),
 *       "markers": [{"name": str, "time_ns": int (from the first TIME
 *                   stamp), "seq": int (the sequence number it stands at:
 *                   events up to it came before it), "tid": int}]  only when
 *                   the program set markers (mprof.h), in sequence order}
 *   }
 *
 * A reader ignores members it does not know, so a member added leaves the
 * version as it is; the version changes when a member's meaning changes or
 * one goes.  Added within version 2 (absent from older version-2 reports):
 * quality's "repeated_info_chunks", "conflicting_chunks", "unknown_chunks",
 * "trace_copies", "second_trace_offset", "cut_copy_offset" and
 * "leaked_blocks_maybe_freed".  tests/e2e/help-docs.sh checks that every
 * summary and quality key is in this comment and in mprof-report(1).
 *
 * Version 2 changed what some members mean, so a reader of version 1 must
 * not take them as it did.  In a sampled trace "frees" and "reallocs" were
 * the records (counts of samples) and are now estimates, weighted as
 * "allocations" is, the records moving to "frees_recorded" and
 * "reallocs_recorded"; "failed_reallocs" was the records and is null (no
 * estimate); a site's "lifetime_events_*", "lifetime_ns_min" and
 * "lifetime_ns_max" were the sampled blocks' own and are null, only
 * "lifetime_ns_avg" being an estimate.  In a trace whose recording was
 * stopped or switched to sampling, "unmatched_frees" counted the frees of
 * blocks allocated meanwhile, which are now "frees_of_unrecorded_blocks";
 * in an exact one recorded in part "temporary" is marked an upper bound
 * ("recording.temporary_at_most").  New in version 2: "program"'s
 * "cmdline_at_start", "comm", "name_how" and "name" (a process that renamed
 * itself is named as at its end) and "quality.programs_started_unrecorded".
 *
 * Several traces (several operands, a glob, --all) give one object of
 * schema "mprof-report-set", schema_version OUTPUT_REPORT_SET_SCHEMA_VERSION
 * (output.h): the overview first, then the reports above in the order of
 * the traces (operands, each followed by its run's other traces with --all):
 *
 *   {
 *     "schema": "mprof-report-set",
 *     "schema_version": OUTPUT_REPORT_SET_SCHEMA_VERSION,
 *     "processes": [                one per trace read, most allocations first
 *                                   (most samples where sampled)
 *       {"trace": str (path as given), "program": str or null (the
 *        report's program.name), "pid": int or null,
 *        "exit_status": int or null, "exit_signal": int or null,
 *        "process_state": str or null (END: "ended", "exec", "running"),
 *        "allocations", "samples", "peak_bytes", "leaked_bytes": int (as
 *        in the report's summary; samples: allocation records),
 *        "ended_early": bool (leaked_bytes are then live when the
 *        recording ended), "executed": bool (live when the image executed
 *        another program)}
 *     ],
 *     "most_allocations": str or null, the trace of processes[0], null when
 *                                   no process allocated
 *     "reports": [ mprof-report objects ]
 *   }
 *
 * Version 2 is version 1 with reports of schema_version 2.
 */
#define _GNU_SOURCE /* putc_unlocked, fputs_unlocked, fwrite_unlocked */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/output.h"
#include "analyze/output/units.h"
#include "trace/argv_quote.h"

/* The report is written by one thread once aggregation has stopped, so the
 * writes skip the stream's lock (glibc's unlocked stdio): taking it for every
 * character and key was a fifth of a JSON report's time on python3's trace
 * (27 MB of JSON for 6743 sites). */
static inline void out_char(FILE *out, int c)
{
	putc_unlocked(c, out);
}

static inline void out_str(FILE *out, const char *s)
{
	fputs_unlocked(s, out);
}

static inline void out_bytes(FILE *out, const void *p, size_t n)
{
	fwrite_unlocked(p, 1, n, out);
}

/* Writes str as a JSON string: runs of bytes that need no escape (printable
 * ASCII but the quote and backslash, and well-formed UTF-8) go out in one
 * fwrite each (a call per character made JSON reports of many deep stacks
 * several times slower than the text report).  A byte that is not UTF-8
 * reads back as the four characters \xNN, and a backslash that would read
 * as the start of one as \x5c (argv_quote.h's convention, that of terminal
 * text and pprof): not as U+00NN, which the same name in valid UTF-8 is. */
static void json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n, run = 0;

	if (!str) {
		out_str(out, "null");
		return;
	}
	n = strlen(str);
	out_char(out, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		const char *esc = NULL;
		size_t len;

		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\':
			esc = argv_quote_backslash_ambiguous(s + i) ? "\\\\x5c" : "\\\\";
			break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		}
		len = esc || c < 0x20 || c == 0x7f ? 0 : argv_quote_utf8_len(s + i);
		if (len) {
			i += len;
			continue;
		}
		if (i > run)
			out_bytes(out, s + run, i - run);
		if (esc)
			out_str(out, esc);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fprintf(out, "\\\\x%02x", c); /* not UTF-8 */
		run = ++i;
	}
	if (n > run)
		out_bytes(out, s + run, n - run);
	out_char(out, '"');
}

static void json_key(FILE *out, const char *key)
{
	json_string(out, key);
	out_char(out, ':');
}

static void json_u64(FILE *out, const char *key, uint64_t v)
{
	json_key(out, key);
	fprintf(out, "%" PRIu64, v);
}

static void json_opt_u64(FILE *out, const char *key, bool has, uint64_t v)
{
	json_key(out, key);
	if (has)
		fprintf(out, "%" PRIu64, v);
	else
		out_str(out, "null");
}

static void json_opt_i64(FILE *out, const char *key, bool has, int64_t v)
{
	json_key(out, key);
	if (has)
		fprintf(out, "%" PRId64, v);
	else
		out_str(out, "null");
}

static void json_bool(FILE *out, const char *key, bool v)
{
	json_key(out, key);
	out_str(out, v ? "true" : "false");
}

static void json_kv_object(FILE *out, const char *key, const struct kv_list *l)
{
	json_key(out, key);
	out_char(out, '{');
	for (size_t i = 0; i < l->count; i++) {
		if (i)
			out_char(out, ',');
		json_key(out, l->pairs[i].key);
		json_string(out, l->pairs[i].value);
	}
	out_char(out, '}');
}

static void write_program(FILE *out, const struct profile *r)
{
	const struct run_facts *run = &r->run;
	char composed[4096];

	json_key(out, "program");
	out_char(out, '{');
	json_key(out, "exe");
	json_string(out, run->exe);
	out_char(out, ',');
	json_key(out, "cmdline");
	json_string(out, run->cmdline);
	out_char(out, ',');
	json_key(out, "cmdline_at_start");
	json_string(out, run->cmdline_start);
	out_char(out, ',');
	json_key(out, "comm");
	json_string(out, run->comm);
	out_char(out, ',');
	json_key(out, "name_how");
	json_string(out, run->name_how);
	out_char(out, ',');
	json_key(out, "name");
	json_string(out, run_facts_name(run, composed, sizeof(composed)));
	out_char(out, ',');
	json_opt_u64(out, "pid", run->has_pid, run->pid);
	out_char(out, ',');
	json_opt_u64(out, "ns_pid", run->has_ns_pid, run->ns_pid);
	out_char(out, ',');
	json_opt_i64(out, "exit_status", run->has_status, run->exit_status);
	out_char(out, ',');
	json_opt_i64(out, "exit_signal", run->has_signal, run->exit_signal);
	out_char(out, ',');
	json_bool(out, "exit_unnoted", profile_exit_unnoted(r));
	out_char(out, ',');
	json_key(out, "process_state");
	json_string(out, run->process_state);
	out_char(out, ',');
	json_key(out, "executed");
	json_string(out, run->exec_into);
	out_char(out, ',');
	json_key(out, "executed_why");
	json_string(out, run->exec_into ? run->exec_into_why : NULL);
	out_char(out, '}');
}

static void write_trace(FILE *out, const struct profile *r)
{
	const struct trace_info *info = &r->info;
	const struct run_facts *run = &r->run;

	json_key(out, "trace");
	out_char(out, '{');
	json_key(out, "path");
	json_string(out, info->path);
	out_char(out, ',');
	json_opt_u64(out, "pid", run->has_pid, run->pid);
	out_char(out, ',');
	json_opt_u64(out, "ppid", info->has_process && info->ppid, info->ppid);
	out_char(out, ',');
	json_key(out, "exe");
	json_string(out, run->exe);
	out_char(out, ',');
	json_bool(out, "sampled", info->sampled);
	out_char(out, ',');
	json_u64(out, "first_seq", info->first_seq);
	out_char(out, '}');
}

static void write_quality(FILE *out, const struct profile *r)
{
	const struct trace_info *info = &r->info;
	const struct heap_summary *a = &r->summary;
	const struct site_table *t = &r->sites;

	json_key(out, "quality");
	out_char(out, '{');
	json_u64(out, "chunks", info->chunks);
	out_char(out, ',');
	json_u64(out, "chunks_lost", info->chunks_lost);
	out_char(out, ',');
	json_key(out, "lost_chunks");
	out_char(out, '[');
	for (size_t i = 0; i < info->lost_offset_count; i++) {
		out_str(out, i ? ",{" : "{");
		json_u64(out, "offset", info->lost_offsets[i]);
		out_char(out, ',');
		json_key(out, "reason");
		json_string(out, info->lost_reasons[i]);
		out_char(out, '}');
	}
	out_str(out, "],");
	json_bool(out, "truncated", info->truncated);
	out_char(out, ',');
	json_opt_u64(out, "truncated_offset", info->truncated, info->truncated_offset);
	out_char(out, ',');
	json_bool(out, "complete", info->has_end);
	out_char(out, ',');
	json_u64(out, "sequence_gaps", info->seq_gaps);
	out_char(out, ',');
	json_u64(out, "missing_events", info->seq_missing);
	out_char(out, ',');
	json_u64(out, "late_events", info->late_events);
	out_char(out, ',');
	json_u64(out, "repeated_events", info->repeated_events);
	out_char(out, ',');
	json_u64(out, "repeated_chunks", info->repeated_chunks);
	out_char(out, ',');
	json_u64(out, "repeated_info_chunks", info->repeated_info_chunks);
	out_char(out, ',');
	json_u64(out, "conflicting_chunks", info->conflicting_chunks);
	out_char(out, ',');
	json_u64(out, "unknown_chunks", info->unknown_chunks);
	out_char(out, ',');
	json_u64(out, "trace_copies", info->trace_copies);
	out_char(out, ',');
	json_opt_u64(out, "second_trace_offset", info->other_trace_offset != 0,
		     info->other_trace_offset);
	out_char(out, ',');
	json_opt_u64(out, "cut_copy_offset", info->cut_copy_offset != 0, info->cut_copy_offset);
	out_char(out, ',');
	json_u64(out, "cut_calls", a->cut_calls);
	out_char(out, ',');
	json_u64(out, "merge_buffer_bytes_max", info->buffered_bytes_max);
	out_char(out, ',');
	json_u64(out, "address_reused", a->address_reused);
	out_char(out, ',');
	json_u64(out, "stacks", t->stacks);
	out_char(out, ',');
	json_u64(out, "truncated_stacks", t->truncated_stacks);
	out_char(out, ',');
	json_opt_u64(out, "max_frames", r->run.max_frames != 0, r->run.max_frames);
	out_char(out, ',');
	json_u64(out, "stacks_cut_at_max_frames", r->run.stacks_cut_at_max_frames);
	out_char(out, ',');
	json_u64(out, "unknown_stacks", t->unknown_stacks);
	out_char(out, ',');
	json_u64(out, "lost_stacks", t->lost_stacks);
	out_char(out, ',');
	json_u64(out, "unmapped_stacks", t->unmapped_stacks);
	out_char(out, ',');
	json_u64(out, "frames", t->frames_total);
	out_char(out, ',');
	json_u64(out, "frames_without_debug_info", t->frames_no_debug_info);
	out_char(out, ',');
	json_u64(out, "frames_without_symbols", t->frames_no_symbol);
	out_char(out, ',');
	json_opt_u64(out, "unrecorded_allocations", r->run.has_unrecorded,
		     r->run.unrecorded_allocs);
	out_char(out, ',');
	json_opt_u64(out, "unrecorded_frees", r->run.has_unrecorded, r->run.unrecorded_frees);
	out_char(out, ',');
	json_u64(out, "leaked_blocks_maybe_freed", profile_live_maybe_freed(r));
	out_char(out, ',');
	json_u64(out, "programs_started_unrecorded", r->run.execs_unrecorded);
	out_char(out, ',');
	json_u64(out, "bad_alloc_records", info->alloc_errors);
	out_char(out, ',');
	json_bool(out, "saturated", a->saturated);
	out_char(out, '}');
}

/* "recording": {...}, when recording was stopped or started. */
static void write_recording(FILE *out, const struct profile *r)
{
	const struct run_facts *run = &r->run;
	const struct trace_info *info = &r->info;
	uint64_t t0 = r->summary.time_known ? r->summary.first_time_ns : 0;

	if (!run->recording_controlled)
		return;
	json_key(out, "recording");
	out_char(out, '{');
	json_bool(out, "paused_at_start", run->paused_at_start);
	out_char(out, ',');
	json_u64(out, "recorded_ns", run->recorded_ns);
	out_char(out, ',');
	json_u64(out, "paused_ns", run->paused_ns);
	out_char(out, ',');
	json_u64(out, "stops", run->recording_stops);
	out_char(out, ',');
	json_u64(out, "starts", run->recording_starts);
	out_char(out, ',');
	json_opt_u64(out, "sample_rate_min_bytes", run->rate_min_bytes != 0, run->rate_min_bytes);
	out_char(out, ',');
	json_opt_u64(out, "sample_rate_max_bytes", run->rate_max_bytes != 0, run->rate_max_bytes);
	out_char(out, ',');
	json_bool(out, "partly_exact", run->partly_exact);
	out_char(out, ',');
	json_u64(out, "sample_rates", run->rate_count);
	out_char(out, ',');
	json_key(out, "changes");
	out_char(out, '[');
	for (size_t i = 0; i < info->control_count; i++) {
		const struct trace_control *c = &info->controls[i];

		out_str(out, i ? ",{" : "{");
		json_u64(out, "time_ns", c->time_ns > t0 ? c->time_ns - t0 : 0);
		out_char(out, ',');
		json_u64(out, "seq", c->seq);
		out_char(out, ',');
		json_key(out, "state");
		json_string(out, c->started ? "started" : "stopped");
		out_char(out, ',');
		json_opt_u64(out, "sample_rate_bytes", c->started, c->sample_rate_bytes);
		out_char(out, '}');
	}
	out_str(out, "],");
	json_bool(out, "temporary_at_most", profile_temporary_at_most(r));
	out_str(out, "},");
}

/* "pool": {...}, when pool annotations made blocks. */
static void write_pool(FILE *out, const struct profile *r)
{
	const struct heap_summary *a = &r->summary;

	if (!a->pool_allocations)
		return;
	json_key(out, "pool");
	out_char(out, '{');
	json_u64(out, "allocations", a->pool_allocations);
	out_char(out, ',');
	json_u64(out, "allocated_bytes", a->pool_allocated_bytes);
	out_char(out, ',');
	json_u64(out, "peak_bytes", a->pool_peak_bytes);
	out_char(out, ',');
	json_u64(out, "leaked_bytes", a->pool_live_bytes);
	out_char(out, ',');
	json_u64(out, "leaked_blocks", a->pool_live_blocks);
	out_str(out, "},");
}

/* What a sampled estimate rests on, each followed by a comma: its samples
 * and the half-widths of the 95% intervals of its count and its bytes
 * (output_ci95); with no sample, the bytes' is the zero-sample bound
 * (output_zero_sample_bound, null if the rate is unknown) and the count's
 * null (tiny blocks could be many). */
static void write_margins(FILE *out, const struct profile *r, const char *samples_key,
			  const char *count_key, const char *bytes_key, uint64_t samples,
			  double var_count, double var_bytes)
{
	uint64_t rate = r->run.sample_rate_bytes;

	json_u64(out, samples_key, samples);
	out_char(out, ',');
	json_opt_u64(out, count_key, samples != 0, output_ci95(var_count));
	out_char(out, ',');
	if (samples)
		json_u64(out, bytes_key, output_ci95(var_bytes));
	else
		json_opt_u64(out, bytes_key, rate != 0, output_zero_sample_bound(rate));
	out_char(out, ',');
}

static void write_summary(FILE *out, const struct profile *r)
{
	const struct trace_info *info = &r->info;
	const struct heap_summary *a = &r->summary;
	const struct run_facts *run = &r->run;
	bool first = true;

	json_key(out, "summary");
	out_char(out, '{');
	json_bool(out, "sampled", info->sampled);
	out_char(out, ',');
	json_opt_u64(out, "sample_rate_bytes", run->sample_rate_bytes != 0, run->sample_rate_bytes);
	out_char(out, ',');
	json_opt_u64(out, "sample_seed", run->has_sample_seed, run->sample_seed);
	out_char(out, ',');
	write_program(out, r);
	out_char(out, ',');
	json_opt_u64(out, "run_time_ns", run->has_run_time, run->run_time_ns);
	out_char(out, ',');
	json_opt_u64(out, "time_resolution_ns", profile_time_resolution_ns(r) != 0,
		     profile_time_resolution_ns(r));
	out_char(out, ',');
	write_recording(out, r);
	write_pool(out, r);
	json_u64(out, "events", a->events);
	out_char(out, ',');
	json_u64(out, "allocations", a->allocations);
	out_char(out, ',');
	json_u64(out, "allocated_bytes", a->allocated_bytes);
	out_char(out, ',');
	if (info->sampled)
		write_margins(out, r, "allocated_samples", "allocations_ci95",
			      "allocated_bytes_ci95", a->samples.allocs, a->samples.alloc_var_count,
			      a->samples.alloc_var_bytes);
	json_u64(out, "frees", info->sampled ? a->frees_weighted : a->frees);
	out_char(out, ',');
	json_u64(out, "blocks_freed", a->blocks_freed);
	out_char(out, ',');
	json_u64(out, "reallocs", info->sampled ? a->reallocs_weighted : a->reallocs);
	out_char(out, ',');
	json_opt_u64(out, "failed_reallocs", !info->sampled, a->failed_reallocs);
	out_char(out, ',');
	json_u64(out, "frees_recorded", a->frees);
	out_char(out, ',');
	json_u64(out, "reallocs_recorded", a->reallocs);
	out_char(out, ',');
	json_u64(out, "failed_reallocs_recorded", a->failed_reallocs);
	out_char(out, ',');
	json_opt_u64(out, "temporary", profile_has_metric(r, METRIC_TEMPORARY), a->temporary);
	out_char(out, ',');
	json_u64(out, "unmatched_frees", a->unmatched_frees);
	out_char(out, ',');
	json_u64(out, "frees_of_unrecorded_blocks", a->unrecorded_block_frees);
	out_char(out, ',');
	json_key(out, "calls");
	out_char(out, '{');
	for (unsigned c = 0; c < AGG_CALL_COUNT; c++) {
		if (c >= AGG_CALL_POOL && !a->calls[c])
			continue; /* pool calls only where pools were annotated */
		if (!first)
			out_char(out, ',');
		first = false;
		json_u64(out, agg_call_name(c), a->calls[c]);
	}
	out_str(out, "},");
	json_key(out, "peak");
	out_char(out, '{');
	json_u64(out, "bytes", a->peak_bytes);
	out_char(out, ',');
	json_u64(out, "blocks", a->peak_blocks);
	out_char(out, ',');
	json_u64(out, "seq", a->peak_seq);
	out_char(out, ',');
	json_opt_u64(out, "time_ns", a->peak_bytes && a->peak_time_known && a->time_known,
		     a->peak_time_ns - a->first_time_ns);
	out_str(out, "},");
	json_u64(out, "max_live_blocks", a->max_live_blocks);
	out_char(out, ',');
	json_u64(out, "leaked_bytes", a->live_bytes);
	out_char(out, ',');
	json_u64(out, "leaked_blocks", a->live_blocks);
	out_char(out, ',');
	if (info->sampled)
		write_margins(out, r, "leaked_samples", "leaked_blocks_ci95", "leaked_bytes_ci95",
			      a->samples.live, a->samples.live_var_count, a->samples.live_var_bytes);
	json_key(out, "ended_early");
	json_string(out, profile_ended_early(r) ? run->ended_early : NULL);
	out_char(out, ',');
	json_key(out, "data_lost");
	json_string(out, run->data_lost[0] ? run->data_lost : NULL);
	out_char(out, ',');
	json_key(out, "meta_lost");
	json_string(out, run->meta_lost[0] ? run->meta_lost : NULL);
	out_char(out, ',');
	json_key(out, "own_heap_runtime");
	json_string(out, run->own_heap_runtime);
	out_char(out, ',');
	json_bool(out, "foreign_malloc", run->foreign_malloc);
	out_char(out, ',');
	json_bool(out, "foreign_new", run->foreign_new);
	out_char(out, ',');
	json_bool(out, "rss_mostly_unseen", run->rss_mostly_unseen);
	out_char(out, ',');
	json_opt_u64(out, "peak_rss_kib", run->has_peak_rss, run->peak_rss_kib);
	out_char(out, ',');
	json_bool(out, "peak_rss_sampled", run->has_peak_rss && run->peak_rss_sampled);
	out_char(out, ',');
	json_key(out, "profiler");
	out_char(out, '{');
	json_opt_u64(out, "launcher_cpu_ns", run->has_launcher_cpu, run->launcher_cpu_ns);
	out_char(out, ',');
	json_opt_u64(out, "ring_waits", run->has_ring_waits, run->ring_waits);
	out_char(out, ',');
	json_opt_u64(out, "recorder_kib", run->has_recorder, run->recorder_kib);
	out_str(out, "},");
	json_u64(out, "forks", info->forks);
	out_char(out, ',');
	json_u64(out, "forks_unrecorded", run->no_children ? info->forks : run->children_unrecorded);
	out_char(out, ',');
	json_key(out, "inherited");
	out_char(out, '{');
	json_bool(out, "seeded", a->inherited_seeded);
	out_char(out, ',');
	json_u64(out, "blocks", a->inherited_blocks);
	out_char(out, ',');
	json_u64(out, "bytes", a->inherited_bytes);
	out_char(out, ',');
	json_key(out, "note");
	json_string(out, profile_inherit_note(r));
	out_str(out, "},");
	write_quality(out, r);
	out_char(out, ',');
	json_key(out, "diagnostics");
	out_char(out, '[');
	for (size_t i = 0; i < info->diag_count; i++) {
		out_str(out, i ? ",{" : "{");
		json_u64(out, "code", info->diags[i].code);
		out_char(out, ',');
		json_key(out, "text");
		json_string(out, info->diags[i].text);
		out_char(out, ',');
		json_u64(out, "count", info->diags[i].count);
		out_char(out, '}');
	}
	out_str(out, "],");
	json_kv_object(out, "meta", &info->meta);
	out_char(out, ',');
	json_kv_object(out, "end", &info->end);
	out_char(out, '}');
}

/* The lifetimes' min, avg and max: null without a block freed; min and max
 * null also when only the average is an estimate (avg_only), all three
 * when none is (no_avg). */
static void json_lifetime(FILE *out, const char *min_key, const char *avg_key,
			  const char *max_key, uint64_t freed, uint64_t min, uint64_t sum,
			  uint64_t max, bool avg_only, bool no_avg)
{
	json_opt_u64(out, min_key, freed > 0 && !avg_only && !no_avg, min);
	out_char(out, ',');
	json_key(out, avg_key);
	if (freed && !no_avg)
		fprintf(out, "%.1f", (double)sum / (double)freed);
	else
		out_str(out, "null");
	out_char(out, ',');
	json_opt_u64(out, max_key, freed > 0 && !avg_only && !no_avg, max);
}

/* Frame f; merged: a frame that stands for several (output_json_frame_merged),
 * with "lines_differ" and "offset" null when offsets_differ. */
static void write_frame_as(FILE *out, const struct site_frame *f, bool merged, bool lines_differ,
			   bool offsets_differ)
{
	out_char(out, '{');
	json_key(out, "function");
	json_string(out, f->function);
	out_char(out, ',');
	json_key(out, "file");
	json_string(out, f->file);
	out_char(out, ',');
	json_u64(out, "line", f->line);
	out_char(out, ',');
	if (merged) {
		json_bool(out, "lines_differ", lines_differ);
		out_char(out, ',');
	}
	json_key(out, "module");
	json_string(out, f->module);
	out_char(out, ',');
	json_opt_u64(out, "offset", !offsets_differ, f->module_offset);
	out_char(out, ',');
	json_bool(out, "inlined", f->inlined);
	out_char(out, '}');
}

static void write_frame(FILE *out, const struct site_frame *f)
{
	write_frame_as(out, f, false, false, false);
}

static void write_site(FILE *out, const struct profile *r, const struct site *s)
{
	const struct site_table *t = &r->sites;
	struct alloc_stats stats;
	const struct alloc_stats *st = site_stats(s, &stats);
	uint32_t buf[SITES_MAX_FRAMES];
	const uint32_t *ids = site_frame_ids(t, s, buf);
	struct sample_figures f;

	site_samples(t, s, st, &f);
	out_char(out, '{');
	json_u64(out, "id", s->id);
	out_char(out, ',');
	json_u64(out, "allocations", st->allocations);
	out_char(out, ',');
	json_u64(out, "allocated_bytes", st->allocated_bytes);
	out_char(out, ',');
	if (r->info.sampled)
		write_margins(out, r, "allocated_samples", "allocations_ci95",
			      "allocated_bytes_ci95", f.allocs, f.alloc_var_count,
			      f.alloc_var_bytes);
	json_u64(out, "peak_bytes", st->peak_bytes);
	out_char(out, ',');
	json_u64(out, "peak_blocks", st->peak_blocks);
	out_char(out, ',');
	json_u64(out, "leaked_bytes", st->live_bytes);
	out_char(out, ',');
	json_u64(out, "leaked_blocks", st->live_blocks);
	out_char(out, ',');
	if (r->info.sampled)
		write_margins(out, r, "leaked_samples", "leaked_blocks_ci95", "leaked_bytes_ci95",
			      f.live, f.live_var_count, f.live_var_bytes);
	json_opt_u64(out, "temporary", profile_has_metric(r, METRIC_TEMPORARY), st->temporary);
	out_char(out, ',');
	json_u64(out, "max_live_bytes", st->max_live_bytes);
	out_char(out, ',');
	json_u64(out, "max_live_blocks", st->max_live_blocks);
	out_char(out, ',');
	json_u64(out, "freed", st->freed);
	out_char(out, ',');
	json_lifetime(out, "lifetime_events_min", "lifetime_events_avg", "lifetime_events_max",
		      st->freed, st->lifetime_events_min, st->lifetime_events_sum,
		      st->lifetime_events_max, false, profile_lifetimes_estimated(r));
	out_char(out, ',');
	json_lifetime(out, "lifetime_ns_min", "lifetime_ns_avg", "lifetime_ns_max", st->freed,
		      st->lifetime_ns_min, st->lifetime_ns_sum, st->lifetime_ns_max,
		      profile_lifetimes_estimated(r), false);
	out_char(out, ',');
	json_u64(out, "stacks", s->stack_count);
	out_char(out, ',');
	json_bool(out, "truncated", s->truncated);
	out_char(out, ',');
	json_bool(out, "unknown_stack", s->unknown_stack);
	out_char(out, ',');
	json_bool(out, "inherited", s->inherited);
	out_char(out, ',');
	json_key(out, "frames");
	out_char(out, '[');
	for (uint32_t i = 0; i < s->frame_count; i++) {
		if (i)
			out_char(out, ',');
		write_frame(out, &t->frames[ids[i]]);
	}
	out_str(out, "]}");
}

/* The time window and the filters, each only when given (so that a report
 * without them keeps its bytes). */
static void write_selection(FILE *out, const struct profile *r)
{
	const struct window_facts *w = &r->window;
	const struct profile_filtered *f = &r->filtered;

	if (w->range || w->at) {
		out_char(out, ',');
		json_key(out, "window");
		out_char(out, '{');
		json_opt_u64(out, "from_ns", w->range, w->from_ns);
		out_char(out, ',');
		json_opt_u64(out, "to_ns", w->range && w->to_ns != UINT64_MAX, w->to_ns);
		out_char(out, ',');
		json_opt_u64(out, "at_ns", w->at, w->at_ns);
		out_char(out, ',');
		json_u64(out, "frees_outside", w->frees_outside);
		out_char(out, ',');
		json_u64(out, "index_skipped_chunks", w->index_chunks_skipped);
		out_char(out, '}');
	}
	if (f->filtered || f->suppressions) {
		out_char(out, ',');
		json_key(out, "filter");
		out_char(out, '{');
		json_u64(out, "sites_before", f->filtered ? f->sites_before : r->sites.count);
		out_char(out, ',');
		json_u64(out, "sites_left_out", f->sites);
		out_char(out, ',');
		json_u64(out, "allocations_left_out", f->allocations);
		out_char(out, ',');
		json_u64(out, "allocated_bytes_left_out", f->allocated_bytes);
		out_char(out, ',');
		json_key(out, "suppressions");
		json_string(out, f->suppressions ? f->suppressions_path : NULL);
		out_char(out, ',');
		json_u64(out, "suppressed_sites", f->suppressed_sites);
		out_char(out, ',');
		json_u64(out, "suppressed_leaked_bytes", f->suppressed_bytes);
		out_char(out, ',');
		json_u64(out, "suppressed_leaked_blocks", f->suppressed_blocks);
		out_char(out, '}');
	}
}

/* Which sites a report bounded by -n keeps: those among the top_n of one
 * of the rankings (at most 5 * top_n).  NULL when out of memory: every site
 * is written then. */
static bool *json_sites_kept(const struct profile *r, size_t top_n)
{
	const struct site_table *t = &r->sites;
	bool *keep = calloc(t->count ? t->count : 1, sizeof(*keep));
	uint32_t *order = malloc((t->count ? t->count : 1) * sizeof(*order));

	if (!keep || !order) {
		free(keep);
		free(order);
		return NULL;
	}
	for (int k = 0; k < METRIC_RANKED; k++) {
		size_t n = metric_top_sites(t, (enum metric)k, order, top_n);

		for (size_t i = 0; i < n && i < top_n; i++)
			keep[order[i]] = true;
	}
	free(order);
	return keep;
}

/* ,"markers": [...] when the program set any; times from t0. */
static void write_markers(FILE *out, const struct profile *r, uint64_t t0)
{
	const struct trace_info *info = &r->info;

	if (!info->marker_count)
		return;
	out_char(out, ',');
	json_key(out, "markers");
	out_char(out, '[');
	for (size_t i = 0; i < info->marker_count; i++) {
		const struct trace_marker *m = &info->markers[i];

		out_str(out, i ? ",\n{" : "\n{");
		json_key(out, "name");
		json_string(out, m->name);
		out_char(out, ',');
		json_u64(out, "time_ns", m->time_ns > t0 ? m->time_ns - t0 : 0);
		out_char(out, ',');
		json_u64(out, "seq", m->seq);
		out_char(out, ',');
		json_u64(out, "tid", m->tid);
		out_char(out, '}');
	}
	out_char(out, ']');
}

/* The "timeline" object; times from the first TIME stamp. */
static void write_timeline(FILE *out, const struct profile *r)
{
	const struct timeline *tl = r->timeline;
	uint64_t t0 = r->summary.time_known ? r->summary.first_time_ns : 0;

	json_key(out, "timeline");
	out_char(out, '{');
	json_u64(out, "bucket_ns", tl->bucket_ns);
	out_char(out, ',');
	json_key(out, "points");
	out_char(out, '[');
	for (size_t i = 0; i < tl->count; i++) {
		const struct timeline_point *pt = &tl->points[i];

		out_str(out, i ? ",\n{" : "\n{");
		json_u64(out, "time_ns", pt->time_ns > t0 ? pt->time_ns - t0 : 0);
		out_char(out, ',');
		json_u64(out, "seq", pt->seq);
		out_char(out, ',');
		json_u64(out, "heap_bytes", pt->heap_bytes);
		out_char(out, ',');
		json_u64(out, "heap_blocks", pt->heap_blocks);
		out_char(out, ',');
		json_opt_u64(out, "rss_bytes", pt->rss_bytes != TIMELINE_RSS_UNKNOWN, pt->rss_bytes);
		out_char(out, '}');
	}
	out_str(out, "],");
	json_key(out, "rss");
	out_char(out, '[');
	for (size_t i = 0; tl->rss && i < tl->rss->count; i++) {
		const struct rss_sample *rs = &tl->rss->v[i];

		out_str(out, i ? ",\n{" : "\n{");
		json_opt_i64(out, "time_ns", true, (int64_t)(rs->time_ns - t0));
		out_char(out, ',');
		json_u64(out, "rss_bytes", rs->rss_bytes);
		out_char(out, '}');
	}
	out_str(out, "],");
	json_u64(out, "rss_merged", tl->rss && tl->rss->merged ? tl->rss->merged : 1);
	write_markers(out, r, t0);
	out_char(out, '}');
}

static int json_write(FILE *out, const struct profile *r, const struct output_options *o)
{
	bool *keep;
	size_t shown = 0;

	out_char(out, '{');
	json_key(out, "schema");
	json_string(out, "mprof-report");
	out_char(out, ',');
	json_u64(out, "schema_version", OUTPUT_REPORT_SCHEMA_VERSION);
	out_char(out, ',');
	write_trace(out, r);
	out_char(out, ',');
	write_summary(out, r);
	write_selection(out, r);
	out_str(out, ",\n");
	json_key(out, "sites");
	out_str(out, "[\n");
	keep = o->top_n_given ? json_sites_kept(r, o->top_n) : NULL;
	for (size_t i = 0; i < r->sites.count; i++) {
		if (keep && !keep[i])
			continue;
		if (shown++)
			out_str(out, ",\n");
		write_site(out, r, &r->sites.sites[i]);
	}
	out_str(out, "\n],");
	json_u64(out, "sites_total", r->sites.count);
	out_char(out, ',');
	json_u64(out, "sites_shown", shown);
	out_char(out, ',');
	write_timeline(out, r);
	out_char(out, '}');
	free(keep);
	return 0;
}

void output_json_string(FILE *out, const char *str)
{
	json_string(out, str);
}

void output_json_frame(FILE *out, const struct site_frame *f)
{
	write_frame(out, f);
}

void output_json_frame_merged(FILE *out, const struct site_frame *f, bool lines_differ,
			      bool offsets_differ)
{
	write_frame_as(out, f, true, lines_differ, offsets_differ);
}

void report_json_set_head(FILE *out, const struct report_overview_row *rows, size_t n)
{
	out_char(out, '{');
	json_key(out, "schema");
	json_string(out, "mprof-report-set");
	out_char(out, ',');
	json_u64(out, "schema_version", OUTPUT_REPORT_SET_SCHEMA_VERSION);
	out_char(out, ',');
	json_key(out, "processes");
	out_str(out, "[\n");
	for (size_t i = 0; i < n; i++) {
		const struct report_overview_row *row = &rows[i];

		if (i)
			out_str(out, ",\n");
		out_char(out, '{');
		json_key(out, "trace");
		json_string(out, row->trace);
		out_char(out, ',');
		json_key(out, "program");
		json_string(out, row->program);
		out_char(out, ',');
		json_opt_u64(out, "pid", row->has_pid, row->pid);
		out_char(out, ',');
		json_opt_i64(out, "exit_status", row->has_status, row->exit_status);
		out_char(out, ',');
		json_opt_i64(out, "exit_signal", row->has_signal, row->exit_signal);
		out_char(out, ',');
		json_key(out, "process_state");
		json_string(out, row->process_state);
		out_char(out, ',');
		json_u64(out, "allocations", row->allocations);
		out_char(out, ',');
		json_u64(out, "samples", row->samples);
		out_char(out, ',');
		json_u64(out, "peak_bytes", row->peak_bytes);
		out_char(out, ',');
		json_u64(out, "leaked_bytes", row->leaked_bytes);
		out_char(out, ',');
		json_bool(out, "ended_early", row->ended_early);
		out_char(out, ',');
		json_bool(out, "executed", row->executed);
		out_char(out, '}');
	}
	out_str(out, "\n],");
	json_key(out, "most_allocations");
	json_string(out, n && rows[0].samples ? rows[0].trace : NULL);
	out_char(out, ',');
	json_key(out, "reports");
	out_str(out, "[\n");
}

void report_json_set_tail(FILE *out)
{
	out_str(out, "\n]}\n");
}

static void json_set_between(FILE *out)
{
	out_str(out, ",\n");
}

const struct output_format output_json = {
	.name = "json",
	.summary = "every figure and every site (schema mprof-report "
		   OUTPUT_STRINGIFY(OUTPUT_REPORT_SCHEMA_VERSION) ")",
	.write = json_write,
	.takes_top = true,
	.set_begin = report_json_set_head,
	.set_between = json_set_between,
	.set_end = report_json_set_tail,
	.newline_after_one = true,
};
