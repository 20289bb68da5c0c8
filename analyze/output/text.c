/*
 * analyze/output/text.c - the human-readable report of one trace: a summary
 * block (what happened, the peak, leaks, and what the numbers rest on), then
 * the top-N allocation sites for each ranking.
 *
 * Owns nothing; reads a struct report and prints.  Every size is printed as
 * an exact byte count first ("7168 B (7.0 KiB)") so tests can grep exact
 * values.  Must never change a number: all arithmetic happened before.
 */
#define _GNU_SOURCE /* asprintf */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/frames.h"
#include "analyze/output/output.h"
#include "analyze/output/units.h"
#include "analyze/symbolize/symbol_shorten.h"
#include "analyze/util/error.h"
#include "trace/argv_quote.h"
#include "trace/plural.h"

/* "7168 B (7.0 KiB)" with exact, else "7.0 KiB"; below 1 KiB "512 B". */
static const char *fmt_bytes_in(char *buf, size_t n, uint64_t bytes, bool exact)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, n, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	if (exact)
		snprintf(buf, n, "%" PRIu64 " B (%.1f %s)", bytes, v, units[u]);
	else
		snprintf(buf, n, "%.1f %s", v, units[u]);
	return buf;
}

/* "7168 B (7.0 KiB)"; below 1 KiB just "512 B". */
static const char *fmt_bytes(char *buf, size_t n, uint64_t bytes)
{
	return fmt_bytes_in(buf, n, bytes, true);
}

/* bytes exactly and short: "64 KiB" when a whole number of KiB, MiB, ...,
 * else "5000 B" (a list of sampling rates). */
static const char *fmt_bytes_whole(char *buf, size_t n, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	int u = 0;

	while (bytes && bytes % 1024 == 0 && u < 6) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, n, "%" PRIu64 " %s", bytes, units[u]);
	return buf;
}

/*
 * Text from the trace (paths, command lines, symbol names, diagnostics) as
 * it may be shown on a terminal: control characters and bytes that are not
 * UTF-8 become \xNN (argv_quote_printable), so a program named with a
 * newline or a hostile trace cannot break the report's lines or send escape
 * sequences.  Returns s itself when it is printable ASCII without a
 * backslash, else one of a few rotating static buffers (long text is cut).
 */
static const char *safe(const char *s)
{
	static char bufs[8][1024];
	static unsigned next;
	char *out;

	if (!s)
		return s;
	if (argv_quote_is_plain_ascii(s))
		return s;
	out = bufs[next++ % 8];
	argv_quote_printable(s, out, sizeof(bufs[0]));
	return out;
}

/* Whether DIAG record text diag is the END chunk's diag_text end: the same
 * but for the newlines and carriage returns that END's key=value lines
 * hold as spaces (a module path with a newline gave two lines before). */
static bool diag_is_end_diag(const char *diag, const char *end)
{
	for (; *diag && *end; diag++, end++)
		if (*diag != *end && !(*end == ' ' && (*diag == '\n' || *diag == '\r')))
			return false;
	return *diag == *end;
}

static void fputs_safe(const char *s, FILE *out)
{
	fputs(safe(s), out);
}

void output_text_fputs_safe(FILE *out, const char *s)
{
	fputs_safe(s ? s : "(null)", out);
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : (path ? path : "?");
}

void output_text_frame(FILE *out, const struct site_frame *f)
{
	output_text_frame_merged(out, f, false, false);
}

void output_text_frame_merged(FILE *out, const struct site_frame *f, bool lines_differ,
			      bool offsets_differ)
{
	/* very long (C++, Rust) names shortened here only: JSON keeps them */
	char *shortened = symbol_shorten(f->function, SYMBOL_TEXT_MAX_CHARS);
	const char *mod = safe(base_name(f->module));
	const char *fn = safe(shortened ? shortened : f->function);
	char place_buf[1024];
	const char *place = output_frame_place(f, lines_differ, place_buf, sizeof(place_buf));

	if (!fn && offsets_differ)
		fprintf(out, "    at ?? (several addresses)");
	else if (!fn && strcmp(f->module, "?") == 0)
		fprintf(out, "    at ?? (0x%" PRIx64 ")", f->module_offset);
	else if (!fn)
		fprintf(out, "    at ?? (%s+0x%" PRIx64 ")", mod, f->module_offset);
	else if (place)
		fprintf(out, "    at %s (%s) [%s]", fn, safe(place), mod);
	else if (offsets_differ)
		fprintf(out, "    at %s [%s]", fn, mod);
	else
		fprintf(out, "    at %s [%s+0x%" PRIx64 "]", fn, mod, f->module_offset);
	fputs(f->inlined ? " (inlined)\n" : "\n", out);
	free(shortened);
}

void output_text_stack(FILE *out, const struct site_table *t, const struct site *s,
		       bool truncated)
{
	uint32_t buf[SITES_MAX_FRAMES];
	const uint32_t *ids = site_frame_ids(t, s, buf);

	output_text_stack_head(out, s);
	for (uint32_t i = 0; i < s->frame_count; i++)
		output_text_frame(out, &t->frames[ids[i]]);
	output_text_stack_tail(out, truncated);
}

void output_text_stack_head(FILE *out, const struct site *s)
{
	if (s->inherited)
		fputs("    (blocks inherited from the parent process at fork)\n", out);
	else if (s->unknown_stack)
		fputs("    (no call stack recorded)\n", out);
}

void output_text_stack_tail(FILE *out, bool truncated)
{
	if (truncated)
		fputs("    ... (truncated: at --max-frames, or before an unwinder could go on)\n", out);
}

void output_max_live_bound(FILE *out, const struct site *s)
{
	/* stacks that symbolize alike: their own maxima, summed, need not have
	 * been live at once (aggregate.c, max live) */
	if (s->stack_count > 1)
		fprintf(out, " (the sum of its %" PRIu32 " call stacks' own maxima, which need not "
			"have been live at once)", s->stack_count);
}

/* A sampled trace's site head: its estimates with their 95% margins and
 * the samples they rest on, then what it had live at the peak (rough) and
 * at the end. */
static void print_sampled_site_head(FILE *out, const struct profile *r, const struct site *s,
				    const struct alloc_stats *st, size_t rank)
{
	struct sample_figures f;
	char b1[64], b2[64], b3[64], m1[32], m2[32], m3[32], m4[32], n1[32], n2[32];

	site_samples(&r->sites, s, st, &f);
	fprintf(out, "#%zu  site %" PRIu32 ": %" PRIu64 "%s %s, %s%s allocated (%s)\n", rank,
		s->id, st->allocations, output_fmt_margin(m1, sizeof(m1), st->allocations,
							   f.alloc_var_count),
		plural(st->allocations, "allocation", "allocations"),
		fmt_bytes(b1, sizeof(b1), st->allocated_bytes),
		output_fmt_margin(m2, sizeof(m2), st->allocated_bytes, f.alloc_var_bytes),
		output_fmt_samples(n1, sizeof(n1), f.allocs));
	fprintf(out, "    live at heap peak (rough) %s in %" PRIu64 " %s; %s %s%s in %" PRIu64
		"%s %s (%s)\n",
		fmt_bytes(b2, sizeof(b2), st->peak_bytes), st->peak_blocks,
		plural(st->peak_blocks, "block", "blocks"),
		profile_at(r) ? "live at T" : profile_ended_early(r) ? "live at end" : "leaked",
		fmt_bytes(b3, sizeof(b3), st->live_bytes),
		output_fmt_margin(m3, sizeof(m3), st->live_bytes, f.live_var_bytes), st->live_blocks,
		output_fmt_margin(m4, sizeof(m4), st->live_blocks, f.live_var_count),
		plural(st->live_blocks, "block", "blocks"), output_fmt_samples(n2, sizeof(n2), f.live));
}

static void print_site(FILE *out, const struct profile *r, const struct site *s, size_t rank)
{
	struct alloc_stats stats;
	const struct alloc_stats *st = site_stats(s, &stats);
	char b1[64], b2[64], b3[64], b4[64], n1[32], n2[32], n3[32];
	uint64_t res_ns = profile_time_resolution_ns(r);

	if (r->info.sampled) {
		print_sampled_site_head(out, r, s, st, rank);
	} else {
		fprintf(out, "#%zu  site %" PRIu32 ": %" PRIu64 " %s, %s allocated\n", rank, s->id,
			st->allocations, plural(st->allocations, "allocation", "allocations"),
			fmt_bytes(b1, sizeof(b1), st->allocated_bytes));
		fprintf(out, "    live at heap peak %s in %" PRIu64 " %s; %s %s in %" PRIu64
			" %s; temporary %s%" PRIu64 "\n",
			fmt_bytes(b2, sizeof(b2), st->peak_bytes), st->peak_blocks,
			plural(st->peak_blocks, "block", "blocks"),
			profile_at(r) ? "live at T" : profile_ended_early(r) ? "live at end" : "leaked",
			fmt_bytes(b3, sizeof(b3), st->live_bytes), st->live_blocks,
			plural(st->live_blocks, "block", "blocks"),
			profile_temporary_at_most(r) ? "at most " : "", st->temporary);
	}
	fprintf(out, "    max live%s%s %s / %" PRIu64 " %s", r->info.sampled ? " (rough)" : "",
		s->stack_count > 1 ? " at most" : "",
		fmt_bytes(b4, sizeof(b4), st->max_live_bytes), st->max_live_blocks,
		plural(st->max_live_blocks, "block", "blocks"));
	output_max_live_bound(out, s);
	fprintf(out, "; freed %" PRIu64, st->freed);
	if (st->freed && profile_lifetimes_estimated(r))
		fprintf(out, " (estimate), average lifetime %s (estimated, per block)",
			output_fmt_time_ns(n2, sizeof(n2), st->lifetime_ns_sum / st->freed,
					   res_ns));
	else if (st->freed)
		fprintf(out, ", lifetime min/avg/max %" PRIu64 "/%.1f/%" PRIu64 " events%s, %s/%s/%s",
			st->lifetime_events_min, (double)st->lifetime_events_sum / (double)st->freed,
			st->lifetime_events_max, profile_temporary_at_most(r) ? " (at least)" : "",
			output_fmt_time_ns(n1, sizeof(n1), st->lifetime_ns_min, res_ns),
			output_fmt_time_ns(n2, sizeof(n2), st->lifetime_ns_sum / st->freed, res_ns),
			output_fmt_time_ns(n3, sizeof(n3), st->lifetime_ns_max, res_ns));
	fputc('\n', out);
	output_text_stack(out, &r->sites, s, s->truncated);
}

/* ---- rankings ---- */

static void print_ranking(FILE *out, const struct profile *r, size_t top_n, uint32_t *order,
			  enum metric k,
			  const char *title, const char *none)
{
	const struct site_table *t = &r->sites;
	size_t n, shown;

	n = metric_top_sites(t, k, order, top_n);
	shown = n < top_n ? n : top_n;
	fputc('\n', out);
	if (n == 0) {
		fprintf(out, "== %s: %s\n", title, none);
		return;
	}
	fprintf(out, "== %s: top %zu of %zu sites%s\n", title, shown, n,
		profile_metric_rough(r, k) ? " (sampled trace: rough, no unbiased estimate)" : "");
	for (size_t i = 0; i < shown; i++)
		print_site(out, r, &t->sites[order[i]], i + 1);
}

/* ---- summary ---- */

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* "started as:" when the program renamed itself after its start (a forked
 * worker's title): the command line it started with, and where the later
 * one on the line above comes from. */
static void print_started_as(FILE *out, const struct run_facts *run)
{
	const char *how = run->name_how;

	if (!run->cmdline_start && run->comm && how && strcmp(how, "filter") == 0) {
		fputs("renamed itself:   its process name in brackets is the one it had when it "
		      "installed a seccomp filter (none can be asked for at exit under one)\n", out);
		return;
	}
	if (!run->cmdline_start)
		return;
	fputs("started as:       ", out);
	fputs_safe(run->cmdline_start, out);
	if (how && strcmp(how, "exit") == 0)
		fputs(" (renamed itself: the name above is the one it had at exit)", out);
	else if (how && strcmp(how, "filter") == 0)
		fputs(" (renamed itself: the name above is the one it had at exit, but its process "
		      "name the one it had when it installed a seccomp filter)", out);
	else if (how && strcmp(how, "seen") == 0)
		fputs(" (renamed itself: the name above is the one mprof last saw while it ran)",
		      out);
	fputc('\n', out);
}

static void print_program(FILE *out, const struct profile *r)
{
	const struct run_facts *run = &r->run;
	char composed[4096];
	const char *name = run_facts_name(run, composed, sizeof(composed));

	fputs("program:          ", out);
	fputs_safe(name ? name : "(unknown)", out);
	if (run->has_pid && run->has_ns_pid)
		fprintf(out, " (pid %" PRIu64 ", %" PRIu64 " in its PID namespace)", run->pid,
			run->ns_pid);
	else if (run->has_pid)
		fprintf(out, " (pid %" PRIu64 ")", run->pid);
	else if (run->has_ns_pid)
		fprintf(out, " (pid %" PRIu64 " in its PID namespace)", run->ns_pid);
	if (run->has_signal) {
		const char *name = run_signal_name(run->exit_signal);

		fprintf(out, ", killed by signal %" PRId64 "%s%s%s", run->exit_signal,
			name ? " (" : "", name ? name : "", name ? ")" : "");
	} else if (run->has_status) {
		fprintf(out, ", exited with status %" PRId64, run->exit_status);
		if (profile_exit_unnoted(r))
			fprintf(out, " (%s)", profile_exit_by_go(r) ? OUTPUT_EXIT_UNNOTED_GO
								   : OUTPUT_EXIT_UNNOTED);
	} else if (profile_end_unknown(r)) {
		fputs(", ended without exit() (by _exit() or a signal: mprof could not see which)",
		      out);
	} else if (run->process_state) {
		fprintf(out, ", %s", safe(run->process_state));
	} else if (!r->info.has_end) {
		fputs(", end not recorded", out);
	}
	fputc('\n', out);
	print_started_as(out, run);
	if (run->parent_trace || run->has_fork_seq) {
		fputs("forked from:      ", out);
		fputs_safe(run->parent_trace ? run->parent_trace : "the parent", out);
		if (run->has_fork_seq)
			fprintf(out, " at its event %" PRIu64, run->fork_seq);
		fputc('\n', out);
	}
}

/* The modules most of whose frames in the sites lack debug info, most
 * frames first, when a quarter or more of the frames do: where the names
 * and lines would come from ("most of them in libsqlite3.so.0 and sqlite3:
 * install their debug info ..."). */
static void print_debug_info_hint(FILE *out, const struct site_table *t)
{
	enum { HINT_MODULES = 8, HINT_SHOWN = 3 };
	const char *name[HINT_MODULES];
	size_t count[HINT_MODULES], n = 0;

	if (t->frames_no_debug_info < 4 || t->frames_no_debug_info * 4 < t->frames_total)
		return;
	for (size_t i = 0; i < t->frame_count; i++) {
		const char *mod = t->frames[i].module ? base_name(t->frames[i].module) : NULL;
		size_t k = 0;

		if (t->frames[i].file || !mod || !mod[0])
			continue;
		while (k < n && strcmp(name[k], mod) != 0)
			k++;
		if (k == n) {
			if (n == HINT_MODULES)
				continue;
			name[n] = mod;
			count[n++] = 0;
		}
		count[k]++;
	}
	if (!n)
		return;
	fputs("                  (most of them in ", out);
	for (size_t shown = 0; shown < HINT_SHOWN && shown < n; shown++) {
		size_t best = shown;

		for (size_t k = shown + 1; k < n; k++)
			if (count[k] > count[best])
				best = k;
		if (best != shown) {
			const char *nm = name[best];
			size_t c = count[best];

			name[best] = name[shown];
			count[best] = count[shown];
			name[shown] = nm;
			count[shown] = c;
		}
		fputs(!shown ? "" : shown + 1 == n || shown + 1 == HINT_SHOWN ? " and " : ", ", out);
		fputs_safe(name[shown], out);
	}
	fputs(": their debug info gives files, lines and missing names: Debian's -dbgsym "
	      "packages install it under /usr/lib/debug, where mprof finds it; MPROF_DEBUGINFOD=1 "
	      "lets it download it)\n", out);
}

/* One figure per entry point, as the records count them: in a sampled
 * trace the calls recorded, not estimates of all calls. */
static void print_calls(FILE *out, const struct heap_summary *a, bool sampled)
{
	bool any = false;

	fputs("calls:            ", out);
	for (unsigned c = 0; c < AGG_CALL_COUNT; c++) {
		if (!a->calls[c])
			continue;
		fprintf(out, "%s%s %" PRIu64, any ? ", " : "", agg_call_name(c), a->calls[c]);
		any = true;
	}
	if (a->failed_reallocs)
		fprintf(out, "%sfailed realloc %" PRIu64, any ? ", " : "", a->failed_reallocs);
	if (!any && !a->failed_reallocs)
		fputs("none", out);
	if (sampled)
		fputs(" (calls recorded, not estimates)", out);
	fputc('\n', out);
}

static void print_quality(FILE *out, const struct profile *r)
{
	const struct trace_info *info = &r->info;
	const struct heap_summary *a = &r->summary;
	const struct site_table *t = &r->sites;

	fprintf(out, "data:             %" PRIu64 " %s in %" PRIu64 " %s; %" PRIu64
		" %s lost; %" PRIu64 " sequence %s (%" PRIu64 " %s missing)",
		a->events, plural(a->events, "event", "events"), info->chunks,
		plural(info->chunks, "chunk", "chunks"), info->chunks_lost,
		plural(info->chunks_lost, "chunk", "chunks"), info->seq_gaps,
		plural(info->seq_gaps, "gap", "gaps"), info->seq_missing,
		plural(info->seq_missing, "event", "events"));
	if (info->repeated_events)
		fprintf(out, "; %" PRIu64 " events repeated (dropped)", info->repeated_events);
	if (info->repeated_chunks)
		fprintf(out, "; %" PRIu64 " chunks repeated (dropped)", info->repeated_chunks);
	if (info->repeated_info_chunks)
		fprintf(out, "; %" PRIu64 " META, END or SYMBOLS chunks repeated (the same; dropped)",
			info->repeated_info_chunks);
	if (info->unknown_chunks)
		fprintf(out, "; %" PRIu64 " chunks of a type this mprof does not know (%u, the first; "
			"a newer mprof's?) skipped", info->unknown_chunks, info->unknown_chunk_type);
	if (info->trace_copies)
		fprintf(out, "; the whole trace repeated %" PRIu64 " more time%s in the file (the "
			"same bytes; skipped)", info->trace_copies, info->trace_copies == 1 ? "" : "s");
	if (info->cut_copy_offset)
		fprintf(out, "; a copy cut short, ending at offset %" PRIu64 " (its chunks read "
			"whole from another copy)", info->cut_copy_offset);
	if (a->cut_calls)
		fprintf(out, "; %" PRIu64 " calls cut short (their thread or process ended inside them)",
			a->cut_calls);
	fputc('\n', out);
	fprintf(out, "                  %" PRIu64 " unmatched frees; %" PRIu64 " of %" PRIu64
		" stacks truncated; %" PRIu64 " without a stack\n",
		a->unmatched_frees, t->truncated_stacks, t->stacks, t->unknown_stacks);
	if (t->lost_stacks || t->unmapped_stacks)
		fprintf(out, "                  %" PRIu64 " stacks whose records are missing, %"
			PRIu64 " whose module map is missing\n", t->lost_stacks, t->unmapped_stacks);
	if (a->unrecorded_block_frees)
		fprintf(out, "                  %" PRIu64 " frees of blocks allocated while "
			"recording was stopped or sampled or by a thread without a slot (expected: "
			"an exact run records every free; not unmatched)\n", a->unrecorded_block_frees);
	fprintf(out, "                  %" PRIu64 " of %" PRIu64 " frames without debug info, %"
		PRIu64 " without symbols\n",
		t->frames_no_debug_info, t->frames_total, t->frames_no_symbol);
	print_debug_info_hint(out, t);
	if (r->run.has_unrecorded)
		fprintf(out, "unrecorded:       %" PRIu64 " %s, %" PRIu64
			" %s made but not recorded\n",
			r->run.unrecorded_allocs,
			plural(r->run.unrecorded_allocs, "allocation", "allocations"),
			r->run.unrecorded_frees, plural(r->run.unrecorded_frees, "free", "frees"));
	if (r->run.exec_into) {
		fputs("executed:         ", out);
		fputs_safe(r->run.exec_into, out);
		fputs(", not recorded: ", out);
		fputs_safe(r->run.exec_into_why ? r->run.exec_into_why : "?", out);
		fputc('\n', out);
	}
	if (r->run.execs_unrecorded) {
		fprintf(out, "not recorded:     %" PRIu64 " program%s this process started with an "
			"environment that dropped mprof's LD_PRELOAD or MPROF_SESSION: %s",
			r->run.execs_unrecorded, r->run.execs_unrecorded == 1 ? "" : "s",
			r->run.exec_unrecorded_path ? r->run.exec_unrecorded_path : "?");
		if (r->run.execs_unrecorded > 1)
			fprintf(out, " and %" PRIu64 " more", r->run.execs_unrecorded - 1);
		fputc('\n', out);
	}
	if (a->address_reused || a->null_allocs || info->late_events || info->stack_errors ||
	    info->module_errors)
		fprintf(out, "anomalies:        %" PRIu64 " addresses reused while live, %" PRIu64
			" %s at address 0, %" PRIu64 " late events, %" PRIu64
			" bad stack records, %" PRIu64 " bad module records\n",
			a->address_reused, a->null_allocs,
			plural(a->null_allocs, "allocation", "allocations"), info->late_events, info->stack_errors,
			info->module_errors);
	if (info->alloc_errors)
		fprintf(out, "bad records:      %" PRIu64 " allocation records refused: a size above "
			"PTRDIFF_MAX or a weight above 2^32-1, which no call can have (not "
			"counted)\n", info->alloc_errors);
}

static void print_warnings(FILE *out, const struct profile *r)
{
	const struct trace_info *info = &r->info;

	for (size_t i = 0; i < info->lost_offset_count; i++)
		fprintf(out, "warning: chunk at offset %" PRIu64 " lost: %s\n",
			info->lost_offsets[i], info->lost_reasons[i]);
	if (info->chunks_lost > info->lost_offset_count)
		fprintf(out, "warning: %" PRIu64 " more %s lost\n",
			info->chunks_lost - info->lost_offset_count,
			plural(info->chunks_lost - info->lost_offset_count, "chunk", "chunks"));
	if (info->conflicting_chunks)
		fprintf(out, "warning: %" PRIu64 " META, END or SYMBOLS %s unlike the first of "
			"their kind ignored (the first: a second %s chunk at offset %" PRIu64 ")\n",
			info->conflicting_chunks, plural(info->conflicting_chunks, "chunk", "chunks"),
			info->conflicting_kind, info->conflicting_offset);
	if (info->other_trace_offset)
		fprintf(out, "warning: another trace's file header at offset %" PRIu64 ": the file "
			"holds a second trace, not read; this report is of the first\n",
			info->other_trace_offset);
	if (r->summary.saturated)
		fputs("warning: figures shown as 18446744073709551615 (16.0 EiB) reached the "
		      "largest a count holds and stopped there, and live figures that took "
		      "back more than they held stopped at 0: the trace is crafted or corrupt\n",
		      out);
	if (info->truncated)
		fprintf(out, "warning: trace truncated at offset %" PRIu64
			": the program was probably killed; events up to there are reported\n",
			info->truncated_offset);
	else if (!info->has_end)
		fputs("warning: the trace has no END chunk: the recording did not finish\n", out);
	if (profile_inherit_note(r))
		fprintf(out, "warning: %s\n", safe(profile_inherit_note(r)));
	if (r->run.collector_error)
		fprintf(out, "warning: the collector reported: %s\n", safe(r->run.collector_error));
	if (r->run.end_diag) {
		bool seen = false;

		for (size_t i = 0; i < info->diag_count; i++)
			seen |= diag_is_end_diag(info->diags[i].text, r->run.end_diag);
		if (!seen)
			fprintf(out, "diagnostic: %s\n", safe(r->run.end_diag));
	}
	for (size_t i = 0; i < info->diag_count; i++) {
		fprintf(out, "diagnostic: %s", safe(info->diags[i].text));
		if (info->diags[i].count > 1)
			fprintf(out, " (%" PRIu64 " times)", info->diags[i].count);
		fputc('\n', out);
	}
	if (info->diags_dropped)
		fprintf(out, "diagnostic: %" PRIu64 " more not shown\n", info->diags_dropped);
}

/* A note when --at T or --from T lies after the run's end (a time typed in
 * seconds that was meant in ms): the report would otherwise look like a
 * program that allocated nothing. */
static void print_window_past_end(FILE *out, const struct profile *r)
{
	const struct window_facts *w = &r->window;
	char n1[32];

	if (!r->run.has_run_time)
		return;
	output_fmt_ns(n1, sizeof(n1), r->run.run_time_ns);
	if (w->at && !w->at_marker && w->at_ns > r->run.run_time_ns)
		fprintf(out, "note:             --at %s is after the run's end (run time %s): the "
			"heap at T is the heap at the end\n", safe(r->window_spec.at.text), n1);
	if (w->range && !w->from_marker && w->from_ns > r->run.run_time_ns)
		fprintf(out, "note:             --from %s is after the run's end (run time %s): "
			"the window is empty\n", safe(r->window_spec.from.text), n1);
}

/* What a time window or a filter narrowed the report to (the window's
 * times, the sites and bytes left out, the leaks suppressed). */
static void print_selection(FILE *out, const struct profile *r)
{
	const struct window_facts *w = &r->window;
	const struct profile_filtered *f = &r->filtered;
	char b1[64], b2[64], n1[32], n2[32];

	if (w->at)
		fprintf(out, "window:           the heap at T = %s into the recording (--at %s): "
			"the events before T; blocks live at T are not leaks\n",
			output_fmt_ns(n1, sizeof(n1), w->at_ns), safe(r->window_spec.at.text));
	if (w->range) {
		fputs("window:           the allocations made ", out);
		if (w->to_ns == UINT64_MAX)
			fprintf(out, "from %s into the recording to its end",
				output_fmt_ns(n1, sizeof(n1), w->from_ns));
		else if (w->from_ns == 0)
			fprintf(out, "from the start to %s into the recording",
				output_fmt_ns(n2, sizeof(n2), w->to_ns));
		else
			fprintf(out, "from %s to %s into the recording",
				output_fmt_ns(n1, sizeof(n1), w->from_ns), output_fmt_ns(n2, sizeof(n2), w->to_ns));
		if (r->window_spec.from.given)
			fprintf(out, " (--from %s", safe(r->window_spec.from.text));
		if (r->window_spec.to.given)
			fprintf(out, "%s--to %s", r->window_spec.from.given ? " " : " (",
				safe(r->window_spec.to.text));
		fprintf(out, ") and their frees; %" PRIu64 " frees of blocks allocated outside it "
			"left out (not unmatched)\n", w->frees_outside);
	}
	print_window_past_end(out, r);
	if (f->filtered)
		fprintf(out, "filtered:         showing %zu of %zu sites, %s of %s allocated (left "
			"out: %" PRIu64 " %s, %" PRIu64 " %s); the totals are the whole "
			"program's\n", r->sites.count, f->sites_before,
			fmt_bytes(b1, sizeof(b1), r->summary.allocated_bytes - f->allocated_bytes),
			fmt_bytes(b2, sizeof(b2), r->summary.allocated_bytes), f->sites,
			plural(f->sites, "site", "sites"), f->allocations,
			plural(f->allocations, "allocation", "allocations"));
	if (f->suppressions)
		fprintf(out, "suppressed:       %s in %" PRIu64 " %s at %" PRIu64 " %s "
			"(--suppressions %s): known leaks, not in the leak total or ranking\n",
			fmt_bytes(b1, sizeof(b1), f->suppressed_bytes), f->suppressed_blocks,
			plural(f->suppressed_blocks, "block", "blocks"),
			f->suppressed_sites, plural(f->suppressed_sites, "site", "sites"),
			safe(f->suppressions_path));
}

int output_filter_note(char *buf, size_t size, const struct profile *p)
{
	const struct profile_filtered *f = &p->filtered;

	if (!f->filtered)
		return 0;
	snprintf(buf, size, "filtered (--filter-function, --exclude-function): %zu of %zu sites "
		 "kept; these sums leave out %" PRIu64 " %s with %" PRIu64 " %s",
		 p->sites.count, f->sites_before, f->sites, plural(f->sites, "site", "sites"),
		 f->allocations, plural(f->allocations, "allocation", "allocations"));
	return 1;
}

int output_qualifier_note(char *buf, size_t size, const struct profile *p)
{
	if (p->info.sampled)
		snprintf(buf, size, "peak and max live are rough: they have no unbiased estimate; "
			 "temporary allocations have none at all");
	else if (profile_temporary_at_most(p))
		snprintf(buf, size, "temporary (short-lived) counts are at most and lifetimes in "
			 "events at least: calls not recorded while paused may lie between an "
			 "allocation and its free");
	else
		return 0;
	return 1;
}

char *output_titled(const char *name, const struct profile *p)
{
	char filtered[256], qualifiers[256], *titled = NULL;
	bool has_filter = output_filter_note(filtered, sizeof(filtered), p);
	bool has_qualifiers = output_qualifier_note(qualifiers, sizeof(qualifiers), p);
	bool kind = output_export_qualified(p);

	if (asprintf(&titled, "%s%s%s%s%s%s%s%s%s%s", name, kind ? " [mprof: " : "",
		     kind ? output_export_kind(p) : "", kind ? "]" : "",
		     has_qualifiers ? " [mprof: " : "", has_qualifiers ? qualifiers : "",
		     has_qualifiers ? "]" : "", has_filter ? " [mprof: " : "",
		     has_filter ? filtered : "", has_filter ? "]" : "") < 0)
		return NULL;
	return titled;
}

int output_pool_note(char *buf, size_t size, const struct profile *p)
{
	if (!p->summary.pool_allocations)
		return 0;
	snprintf(buf, size, "pool blocks (mprof.h): %" PRIu64 " %s, %" PRIu64 " bytes, "
		 "lie inside malloc'd blocks that are counted too: these bytes are counted twice",
		 p->summary.pool_allocations,
		 plural(p->summary.pool_allocations, "allocation", "allocations"),
		 p->summary.pool_allocated_bytes);
	return 1;
}

int output_metric_note(char *buf, size_t size, const struct profile *p, enum metric m)
{
	const char *q = profile_metric_qualifier(p, m), *label = metric_info(m)->label;

	if (!q)
		return 0;
	if (strcmp(q, "rough") == 0)
		snprintf(buf, size, "%s of a sampled trace are rough: they have no unbiased "
			 "estimate", label);
	else
		snprintf(buf, size, "%s counts are upper bounds (at most): recording was paused "
			 "part of the run, and calls it did not record may lie between an "
			 "allocation and its free", label);
	return 1;
}

const char *output_report_kind(const struct profile *r)
{
	static _Thread_local char sampled[320];

	if (r->info.sampled) {
		char rate[140] = "unknown";
		const struct run_facts *run = &r->run;

		if (run->sample_rate_bytes)
			fmt_bytes(rate, sizeof(rate), run->sample_rate_bytes);
		if (run->rate_min_bytes && run->rate_max_bytes != run->rate_min_bytes) {
			char lo[64], hi[64];

			snprintf(rate, sizeof(rate), "%s to %s",
				 fmt_bytes(lo, sizeof(lo), run->rate_min_bytes),
				 fmt_bytes(hi, sizeof(hi), run->rate_max_bytes));
		}
		snprintf(sampled, sizeof(sampled), "estimated, sample rate %s%s: counts and bytes "
			 "are estimates%s", rate, run->partly_exact ? ", parts exact" : "",
			 profile_ended_early(r) ? "; the recording ended early" : "");
		return sampled;
	}
	if (r->run.foreign_malloc)
		return "incomplete: the program's own malloc was not recorded";
	if (r->run.foreign_new)
		return "incomplete: C++ operator new and delete calls served by another "
		       "allocator were not all recorded; see diagnostic";
	if (r->info.repeated_events || r->info.repeated_chunks)
		return "damaged: events appear twice in the trace (the repeats were dropped); "
		       "see data";
	if (r->info.other_trace_offset)
		return "damaged: the file holds a second trace after this one (not read); see "
		       "warnings";
	if (r->info.conflicting_chunks)
		return "damaged: a second META, END or SYMBOLS chunk unlike the first (ignored); "
		       "see warnings";
	if (r->info.alloc_errors || r->summary.saturated)
		return "damaged: records no program can write, or figures at their limit; see "
		       "bad records and warnings";
	if (r->run.data_lost[0] && r->run.meta_lost[0])
		return "incomplete: data and call stacks were lost; see data, stacks lost and "
		       "warnings";
	if (r->run.data_lost[0])
		return "incomplete: data was lost; see data and warnings";
	if (r->run.meta_lost[0])
		return "incomplete: call stacks were lost; see stacks lost";
	if (profile_live_maybe_freed(r)) {
		snprintf(sampled, sizeof(sampled), "incomplete: %" PRIu64 " %s not "
			 "recorded, so leak and peak figures may be high; see leaked and "
			 "unrecorded", r->run.unrecorded_frees,
			 plural(r->run.unrecorded_frees, "free was", "frees were"));
		return sampled;
	}
	if ((r->run.own_heap_runtime || r->run.rss_mostly_unseen) && r->run.recording_controlled)
		return profile_ended_early(r) ? "exact for malloc blocks while recording was on, "
					       "until the recording ended early; see the note "
					       "and recorded"
					     : "exact for malloc blocks while recording was on; see "
					       "the note and recorded";
	if (r->run.own_heap_runtime || r->run.rss_mostly_unseen)
		return profile_ended_early(r) ? "exact for malloc blocks until the recording "
					       "ended early; see the note"
					     : "exact for malloc blocks; see the note";
	if (r->run.recording_controlled)
		return profile_ended_early(r) ? "exact while recording was on, until the "
					       "recording ended early; see recorded"
					     : "exact while recording was on; see recorded";
	return profile_ended_early(r) ? "exact until the recording ended early"
				     : OUTPUT_KIND_EXACT;
}

const char *output_export_kind(const struct profile *p)
{
	static _Thread_local char kind[512];
	const struct run_facts *run = &p->run;
	const char *k = output_report_kind(p), *see = strstr(k, "; see ");
	int n = see ? (int)(see - k) : (int)strlen(k);
	char n1[32], n2[32];

	if (!run->recording_controlled) {
		snprintf(kind, sizeof(kind), "%.*s", n, k);
		return kind;
	}
	snprintf(kind, sizeof(kind), "%.*s; recording paused part of the run: recorded %s of %s",
		 n, k, output_fmt_ns(n1, sizeof(n1), run->recorded_ns),
		 output_fmt_ns(n2, sizeof(n2), run->recorded_ns + run->paused_ns));
	return kind;
}

bool output_export_qualified(const struct profile *p)
{
	return p->info.sampled || p->run.recording_controlled ||
	       strcmp(output_report_kind(p), OUTPUT_KIND_EXACT) != 0;
}

/* When the blocks still live at the end of r are leaks: "exit", ... */
static const char *leaked_when(const struct profile *r)
{
	return profile_executed(r)    ? "exec"
	       : profile_end_unknown(r) ? "its end: leaks unless it was killed"
	       : profile_exit_unnoted(r) && !profile_exit_by_go(r)
			? "its end: exit, or an exec mprof did not see"
			: "exit";
}

/* What a sampled figure of r rests on into buf: "4 samples, \u00b1 at 95%",
 * or with no sample the bytes it stands for at most at 95%
 * (output_zero_sample_bound), when the rate is known. */
static const char *sampled_basis(char *buf, size_t n, const struct profile *r, uint64_t samples)
{
	char b1[32], b2[64];
	uint64_t rate = r->run.sample_rate_bytes;

	output_fmt_samples(b1, sizeof(b1), samples);
	if (samples || !rate)
		snprintf(buf, n, "%s, \u00b1 at 95%%", b1);
	else
		snprintf(buf, n, "%s: under %s at 95%%", b1,
			 fmt_bytes(b2, sizeof(b2), output_zero_sample_bound(rate)));
	return buf;
}

/* The allocations line of a sampled trace: the estimates, their 95%
 * margins and the samples they rest on. */
static void print_sampled_allocations(FILE *out, const struct profile *r)
{
	const struct heap_summary *a = &r->summary;
	const struct sample_figures *f = &a->samples;
	char b1[64], m1[32], m2[32], basis[96];

	fprintf(out, "allocations:      %" PRIu64 "%s, %s%s requested (%s)\n", a->allocations,
		output_fmt_margin(m1, sizeof(m1), a->allocations, f->alloc_var_count),
		fmt_bytes(b1, sizeof(b1), a->allocated_bytes),
		output_fmt_margin(m2, sizeof(m2), a->allocated_bytes, f->alloc_var_bytes),
		sampled_basis(basis, sizeof(basis), r, f->allocs));
}

/* The live line of a sampled trace (leaked, live at T or live at end), as
 * print_sampled_allocations. */
static void print_sampled_live(FILE *out, const struct profile *r, uint64_t maybe_freed)
{
	const struct heap_summary *a = &r->summary;
	const struct sample_figures *f = &a->samples;
	char b1[64], m1[32], m2[32], n1[32], basis[96], when[96];
	const char *label = "leaked:           ";

	if (profile_at(r)) {
		label = "live at T:        ";
		snprintf(when, sizeof(when), "T = %s into the recording",
			 output_fmt_ns(n1, sizeof(n1), r->window.at_ns));
	} else if (profile_ended_early(r)) {
		label = "live at end:      ";
		snprintf(when, sizeof(when), "live when the recording ended");
	} else {
		snprintf(when, sizeof(when), "live at %s", leaked_when(r));
	}
	fprintf(out, "%s%s%s%s in %" PRIu64 "%s %s (%s; %s)\n", label,
		maybe_freed ? "at most " : "", fmt_bytes(b1, sizeof(b1), a->live_bytes),
		output_fmt_margin(m1, sizeof(m1), a->live_bytes, f->live_var_bytes), a->live_blocks,
		output_fmt_margin(m2, sizeof(m2), a->live_blocks, f->live_var_count),
		plural(a->live_blocks, "block", "blocks"), when,
		sampled_basis(basis, sizeof(basis), r, f->live));
}

/* What was not recorded: the stretches while recording was stopped. */
static void print_recording(FILE *out, const struct profile *r)
{
	const struct run_facts *run = &r->run;
	char n1[32], n2[32], n3[32];

	if (!run->recording_controlled)
		return;
	fprintf(out, "recorded:         %s of %s (paused %s: ",
		output_fmt_ns(n1, sizeof(n1), run->recorded_ns),
		output_fmt_ns(n2, sizeof(n2), run->recorded_ns + run->paused_ns),
		output_fmt_ns(n3, sizeof(n3), run->paused_ns));
	if (run->paused_at_start)
		fputs("started paused, ", out);
	fprintf(out, "%" PRIu64 " stop%s, %" PRIu64 " start%s); nothing is counted while "
		"paused\n", run->recording_stops, run->recording_stops == 1 ? "" : "s",
		run->recording_starts, run->recording_starts == 1 ? "" : "s");
}

#define TEXT_MARKERS_MAX 20 /* markers listed; JSON has them all */

/* The markers the program set, in order: name, time into the recording. */
static void print_markers(FILE *out, const struct profile *r)
{
	const struct trace_info *info = &r->info;
	const struct heap_summary *a = &r->summary;
	char n1[32];

	for (size_t i = 0; i < info->marker_count && i < TEXT_MARKERS_MAX; i++) {
		const struct trace_marker *m = &info->markers[i];
		uint64_t t = a->time_known && m->time_ns > a->first_time_ns
				     ? m->time_ns - a->first_time_ns : 0;

		fprintf(out, "%s%s at %s (event %" PRIu64 ")\n",
			i ? "                  " : "markers:          ", safe(m->name),
			output_fmt_ns(n1, sizeof(n1), t), m->seq);
	}
	if (info->marker_count > TEXT_MARKERS_MAX)
		fprintf(out, "                  and %zu more (--format json lists them all)\n",
			info->marker_count - TEXT_MARKERS_MAX);
	if (info->ext_errors)
		fprintf(out, "warning:          %" PRIu64 " markers or recording stops and starts "
			"did not decode (malformed): not shown, and not counted as stops, "
			"starts or markers of a --from/--to/--at marker:NAME#N\n", info->ext_errors);
}

/* The part of the totals that pool annotations made. */
static void print_pool(FILE *out, const struct profile *r)
{
	const struct heap_summary *a = &r->summary;
	char b1[64], b2[64], b3[64];

	if (!a->pool_allocations)
		return;
	fprintf(out, "pool blocks:      %" PRIu64 " %s, %s requested, %s at the peak, "
		"%s in %" PRIu64 " %s %s: blocks the program's own allocator announced "
		"(mprof.h), inside malloc'd blocks that the totals count too: these bytes are "
		"counted twice\n",
		a->pool_allocations, plural(a->pool_allocations, "allocation", "allocations"),
		fmt_bytes(b1, sizeof(b1), a->pool_allocated_bytes),
		fmt_bytes(b2, sizeof(b2), a->pool_peak_bytes),
		fmt_bytes(b3, sizeof(b3), a->pool_live_bytes), a->pool_live_blocks,
		plural(a->pool_live_blocks, "block", "blocks"),
		profile_at(r) ? "live at T" : profile_ended_early(r) ? "live at end" : "leaked");
}

/* The recorder's part of "profiler cost:".  Its figure counts pages given
 * back whole, and without an exit note every mapping whole, so it can
 * exceed the peak RSS; it then bounds nothing and says so, instead of
 * being clamped to the peak RSS (which said "at most all of it"). */
static void print_recorder_cost(FILE *out, const struct run_facts *run, bool after_other)
{
	char b[32], rss[32];

	fputs(after_other ? ", " : "", out);
	fmt_bytes(b, sizeof(b), 1024 * run->recorder_kib);
	if (run->has_peak_rss && run->recorder_kib >= run->peak_rss_kib)
		fprintf(out, "recorder memory unknown (its bound, %s, is not below the peak "
			"RSS, %s)", b,
			fmt_bytes(rss, sizeof(rss), 1024 * run->peak_rss_kib));
	else
		fprintf(out, "recorder memory at most %s of the peak RSS", b);
}

/* The realloc and reallocarray calls that made a block without releasing
 * one: realloc(NULL, n) in an exact run, and in one recorded in part also
 * reallocs of a block allocated while recording was stopped.  The calls
 * line counts them under realloc, the frees line not as reallocs. */
static uint64_t reallocs_as_malloc(const struct heap_summary *a)
{
	uint64_t made = a->calls[AGG_CALL_REALLOC] + a->calls[AGG_CALL_REALLOCARRAY] +
			a->calls[AGG_CALL_POOL_REALLOC];

	return made > a->reallocs ? made - a->reallocs : 0;
}

/* The "frees:" line of an exact trace: free calls (saying how many were
 * realloc(p, 0)), reallocs of a live block (saying how many realloc calls
 * acted as malloc instead), temporary allocations.  Each count names what
 * it counts, so that it cannot be read against the calls line's realloc. */
static void print_frees_exact(FILE *out, const struct profile *r)
{
	const struct heap_summary *a = &r->summary;
	bool in_part = profile_temporary_at_most(r);
	uint64_t to_zero = a->calls[AGG_CALL_REALLOC_TO_ZERO], as_malloc = reallocs_as_malloc(a);

	if (in_part)
		fprintf(out, "frees:            %" PRIu64 " recorded blocks freed (%" PRIu64 " free "
			"calls recorded; blocks allocated while paused are in no count)",
			a->blocks_freed, a->frees);
	else
		fprintf(out, "frees:            %" PRIu64, a->frees);
	if (to_zero)
		fprintf(out, " (%" PRIu64 " of them realloc(p, 0))", to_zero);
	fprintf(out, "; reallocs of a live block %" PRIu64, a->reallocs);
	if (as_malloc)
		fprintf(out, " (plus %" PRIu64 " realloc(NULL, n)%s: counted as allocations)",
			as_malloc, in_part ? " or reallocs of a block allocated while paused" : "");
	if (in_part)
		fprintf(out, "; temporary at most %" PRIu64 " (%.1f%% of allocations: recording was "
			"paused part of the run, and calls it did not record may lie between an "
			"allocation and its free)\n", a->temporary, pct(a->temporary, a->allocations));
	else
		fprintf(out, "; temporary %" PRIu64 " (%.1f%% of allocations)\n", a->temporary,
			pct(a->temporary, a->allocations));
}

/* How many call stacks --max-frames cut, and the limit that would keep
 * more: four times as many frames, up to the most mprof run takes. */
static void print_stacks_cut(FILE *out, const struct profile *r)
{
	const struct run_facts *run = &r->run;
	uint64_t more = run->max_frames * 4;

	if (more > RUN_FACTS_MAX_FRAMES)
		more = RUN_FACTS_MAX_FRAMES;
	fprintf(out, "cut stacks:       %" PRIu64 " of %" PRIu64 " call stacks were cut at %"
		PRIu64 " frames, their outer callers not recorded", run->stacks_cut_at_max_frames,
		r->sites.stacks, run->max_frames);
	if (more > run->max_frames)
		fprintf(out, "; run with --max-frames %" PRIu64 " to keep more\n", more);
	else
		fputs(" (--max-frames takes no more)\n", out);
}

static void print_summary(FILE *out, const struct profile *r)
{
	const struct trace_info *info = &r->info;
	const struct heap_summary *a = &r->summary;
	const struct run_facts *run = &r->run;
	uint64_t maybe_freed = profile_live_maybe_freed(r);
	char b1[64], b2[64], n1[32];

	fprintf(out, "mprof report: %s (%s)\n", safe(info->path), output_report_kind(r));
	print_selection(out, r);
	if (info->sampled) {
		if (run->rate_count > 1) {
			fprintf(out, "sampling:         Poisson by bytes at %" PRIu64 " rates: one "
				"sample per ", run->rate_count);
			for (uint64_t i = 0; i < run->rate_count && i < RUN_FACTS_RATES_LISTED; i++)
				fprintf(out, "%s%s", i ? ", " : "",
					fmt_bytes_whole(b1, sizeof(b1), run->rates_bytes[i]));
			if (run->rate_count > RUN_FACTS_RATES_LISTED)
				fprintf(out, " and %" PRIu64 " more up to %s",
					run->rate_count - RUN_FACTS_RATES_LISTED,
					fmt_bytes_whole(b1, sizeof(b1), run->rate_max_bytes));
			fprintf(out, " on average%s (recording says when)",
				run->partly_exact ? ", some stretches exact" : "");
		} else {
			fprintf(out, "sampling:         Poisson by bytes, one sample per %s on "
				"average%s",
				run->sample_rate_bytes ? fmt_bytes(b1, sizeof(b1), run->sample_rate_bytes)
						       : "(rate unknown)",
				run->partly_exact ? ", some stretches exact" : "");
		}
		if (run->has_sample_seed)
			fprintf(out, ", seed %" PRIu64, run->sample_seed);
		fputs("; allocations, bytes and leaks are unbiased estimates; temporary, "
		      "max live and peak have none (shown rough or not at all)\n", out);
	}
	print_program(out, r);
	if (profile_ended_early(r))
		fprintf(out, "ended early:      %s; blocks still live then are not known to "
			"be leaks\n", safe(run->ended_early));
	if (run->data_lost[0])
		fprintf(out, "data lost:        %s: the counts below are short of the "
			"program's\n", run->data_lost);
	if (run->meta_lost[0])
		fprintf(out, "stacks lost:      %s: their allocations are counted, shown "
			"without a call stack or without symbols\n", run->meta_lost);
	if (run->stacks_cut_notable)
		print_stacks_cut(out, r);
	if (run->own_heap_runtime)
		fprintf(out, "note:             %s manages a heap of its own%s%s%s; mprof sees only "
			"the blocks it takes from malloc, not its objects\n", run->own_heap_runtime,
			run->own_heap_unless ? " (unless " : "",
			run->own_heap_unless ? run->own_heap_unless : "",
			run->own_heap_unless ? ")" : "");
	if (run->rss_mostly_unseen)
		fprintf(out, "note:             peak RSS (%s) is over %u times the heap peak (%s): "
			"most of the memory is not malloc blocks (a bundled allocator, mmap, a "
			"runtime's heap), which mprof does not see\n",
			fmt_bytes(b1, sizeof(b1), run->peak_rss_kib * 1024), REPORT_RSS_UNSEEN_RATIO,
			fmt_bytes(b2, sizeof(b2), a->peak_bytes));
	if (run->has_run_time) {
		fprintf(out, "run time:         %s", output_fmt_ns(n1, sizeof(n1), run->run_time_ns));
		if (profile_time_resolution_ns(r))
			fprintf(out, " (times below are to the event clock's grain, %s)",
				output_fmt_grain_ns(b1, sizeof(b1), profile_time_resolution_ns(r)));
		fputc('\n', out);
	}
	print_recording(out, r);
	print_markers(out, r);
	if (info->sampled)
		print_sampled_allocations(out, r);
	else
		fprintf(out, "allocations:      %" PRIu64 ", %s requested\n", a->allocations,
			fmt_bytes(b1, sizeof(b1), a->allocated_bytes));
	if (info->sampled)
		fprintf(out, "frees:            %" PRIu64 " %s freed, %" PRIu64 " %s, %"
			PRIu64 " %s (estimates, realloc(NULL, n) included; %" PRIu64
			" %s and %" PRIu64 " %s of a recorded block recorded); "
			"temporary not estimated (sampled)\n",
			a->blocks_freed, plural(a->blocks_freed, "block", "blocks"),
			a->frees_weighted, plural(a->frees_weighted, "free call", "free calls"),
			a->reallocs_weighted, plural(a->reallocs_weighted, "realloc call", "realloc calls"),
			a->frees, plural(a->frees, "free call", "free calls"),
			a->reallocs, plural(a->reallocs, "realloc", "reallocs"));
	else
		print_frees_exact(out, r);
	print_calls(out, a, info->sampled);
	print_pool(out, r);
	fprintf(out, "heap peak:        %s%s in %" PRIu64 " %s",
		info->sampled ? "rough (sampled, no unbiased estimate): " : "",
		fmt_bytes(b1, sizeof(b1), a->peak_bytes), a->peak_blocks,
		plural(a->peak_blocks, "block", "blocks"));
	if (a->peak_bytes) {
		fprintf(out, ", at event %" PRIu64, a->peak_seq);
		if (a->peak_time_known && a->time_known)
			fprintf(out, ", %s into the recording",
				output_fmt_time_ns(n1, sizeof(n1), a->peak_time_ns - a->first_time_ns,
						   profile_time_resolution_ns(r)));
	}
	fputc('\n', out);
	if (run->has_peak_rss)
		fprintf(out, "peak RSS:         %s%s\n",
			fmt_bytes(b2, sizeof(b2), run->peak_rss_kib * 1024),
			run->peak_rss_sampled ? " (at least: sampled while it ran)" : "");
	if (info->sampled)
		print_sampled_live(out, r, maybe_freed);
	else if (profile_at(r))
		fprintf(out, "live at T:        %s in %" PRIu64 " %s (T = %s into the recording)\n",
			fmt_bytes(b1, sizeof(b1), a->live_bytes), a->live_blocks,
			plural(a->live_blocks, "block", "blocks"),
			output_fmt_ns(n1, sizeof(n1), r->window.at_ns));
	else if (profile_ended_early(r))
		fprintf(out, "live at end:      %s in %" PRIu64
			" %s (live when the recording ended)\n",
			fmt_bytes(b1, sizeof(b1), a->live_bytes), a->live_blocks,
			plural(a->live_blocks, "block", "blocks"));
	else
		fprintf(out, "leaked:           %s%s in %" PRIu64 " %s (live at %s)\n",
			maybe_freed ? "at most " : "",
			fmt_bytes(b1, sizeof(b1), a->live_bytes), a->live_blocks,
			plural(a->live_blocks, "block", "blocks"),
			leaked_when(r));
	if (maybe_freed)
		fprintf(out, "                  up to %" PRIu64 " of these blocks may have been "
			"freed: %" PRIu64 " %s not recorded (see unrecorded), and the heap "
			"peak may be high by them too\n", maybe_freed, run->unrecorded_frees,
			plural(run->unrecorded_frees, "free was", "frees were"));
	if (run->has_launcher_cpu || run->has_ring_waits || run->has_recorder) {
		fputs("profiler cost:    ", out);
		if (run->has_launcher_cpu)
			fprintf(out, "launcher CPU %s", output_fmt_ns(n1, sizeof(n1), run->launcher_cpu_ns));
		if (run->has_ring_waits)
			fprintf(out, "%sring waits %" PRIu64, run->has_launcher_cpu ? ", " : "",
				run->ring_waits);
		if (run->has_recorder)
			print_recorder_cost(out, run, run->has_launcher_cpu || run->has_ring_waits);
		fputc('\n', out);
	}
	if (info->forks && run->no_children)
		fprintf(out, "forks:            %" PRIu64 " (not recorded: %s run --no-children)\n",
			info->forks, analyze_launcher_command());
	else if (info->forks && run->children_unrecorded)
		fprintf(out, "forks:            %" PRIu64 " (%" PRIu64 " not recorded, named by mprof run; "
			"each child recorded has its own trace)\n", info->forks,
			run->children_unrecorded);
	else if (info->forks)
		fprintf(out, "forks:            %" PRIu64 " (each child recorded has its own trace)\n",
			info->forks);
	if (a->inherited_seeded)
		fprintf(out, "inherited:        %s in %" PRIu64
			" %s live in the parent at the fork\n",
			fmt_bytes(b1, sizeof(b1), a->inherited_bytes), a->inherited_blocks,
			plural(a->inherited_blocks, "block", "blocks"));
	print_quality(out, r);
	print_warnings(out, r);
}

/* The leak ranking's title: what "leaked" means in r (live at --at T, at
 * an early end, at exec or at exit), of bytes or of blocks. */
static void leaked_titles(const struct profile *r, bool blocks, const char **title,
			  const char **none)
{
	if (profile_at(r)) {
		*title = blocks ? "Blocks live at T" : "Live at T";
		*none = "no blocks live at T";
	} else if (profile_ended_early(r)) {
		*title = blocks ? "Blocks live when the recording ended"
				: "Live when the recording ended";
		*none = "no blocks live when the recording ended";
	} else if (profile_executed(r)) {
		*title = blocks ? "Leaked blocks (live at exec)" : "Leaked (live at exec)";
		*none = "no leaks";
	} else {
		*title = blocks ? "Leaked blocks (live at exit)" : "Leaked (live at exit)";
		*none = "no leaks";
	}
}

/* The ranking of sites by metric m. */
static void print_metric_ranking(FILE *out, const struct profile *r, size_t top_n,
				 uint32_t *order, enum metric m)
{
	const char *title = NULL, *none = NULL;

	switch (m) {
	case METRIC_PEAK:
		title = "Peak (live bytes at t-gmax)";
		none = "no live bytes at peak";
		break;
	case METRIC_PEAK_BLOCKS:
		title = "Peak blocks (live blocks at t-gmax)";
		none = "no live blocks at peak";
		break;
	case METRIC_LEAKED:
	case METRIC_LEAKED_BLOCKS:
		leaked_titles(r, m == METRIC_LEAKED_BLOCKS, &title, &none);
		break;
	case METRIC_ALLOCATED:
		title = "Allocated bytes";
		none = "no allocations";
		break;
	case METRIC_ALLOCATIONS:
		title = "Allocations";
		none = "no allocations";
		break;
	case METRIC_TEMPORARY:
		if (!profile_has_metric(r, m)) {
			fputs("\n== Temporary allocations: not estimated (sampled trace)\n", out);
			return;
		}
		title = profile_temporary_at_most(r)
				? "Temporary allocations (at most: recording was paused part of the run)"
				: "Temporary allocations";
		none = "no temporary allocations";
		break;
	default:
		return;
	}
	print_ranking(out, r, top_n, order, m, title, none);
}

/* The summary, then the top sites of --metric M alone, or without it of
 * each ranked metric (what heaptrack_print --print-leaks and memray's
 * --leaks do for one metric). */
static int text_write(FILE *out, const struct profile *r, const struct output_options *o)
{
	uint32_t *order = malloc((r->sites.count ? r->sites.count : 1) * sizeof(*order));

	print_summary(out, r);
	if (!order) {
		fputs("(out of memory: site rankings omitted)\n", out);
		return 0;
	}
	fprintf(out, "sites:            %zu\n", r->sites.count);
	if (o->top_n == 0) {
		free(order);
		return 0;
	}
	if (o->metric_given)
		print_metric_ranking(out, r, o->top_n, order, o->metric);
	else
		for (int m = 0; m < METRIC_RANKED; m++)
			print_metric_ranking(out, r, o->top_n, order, (enum metric)m);
	free(order);
	return 0;
}

/* ---------- the overview of several traces ---------- */

#define OVERVIEW_PROGRAM_MAX_COLS 40

/* Bytes for a table cell: "512 B", "56.6 KiB". */
static const char *fmt_bytes_short(char *buf, size_t n, uint64_t bytes)
{
	return fmt_bytes_in(buf, n, bytes, false);
}

/* How the process ended, for a table cell: "exit 0", "SIGKILL", "running". */
static const char *overview_status(char *buf, size_t n, const struct report_overview_row *row)
{
	const char *name;

	if (row->has_signal) {
		name = run_signal_name(row->exit_signal);
		if (name)
			return name;
		snprintf(buf, n, "signal %" PRId64, row->exit_signal);
	} else if (row->has_status) {
		snprintf(buf, n, "exit %" PRId64, row->exit_status);
	} else {
		snprintf(buf, n, "%s", row->process_state ? safe(row->process_state) : "?");
	}
	return buf;
}

void report_text_overview(FILE *out, const struct report_overview_row *rows, size_t n)
{
	char prog[4 * (OVERVIEW_PROGRAM_MAX_COLS + 20) + 8], st[32], peak[32], leaked[32];
	size_t cols = 7, used; /* "program" */
	bool sampled = false;

	for (size_t i = 0; i < n; i++) {
		sampled |= rows[i].sampled;
		used = rows[i].program && rows[i].program[0] ? argv_quote_cols(rows[i].program) : 1;
		if (used > cols)
			cols = used < OVERVIEW_PROGRAM_MAX_COLS ? used : OVERVIEW_PROGRAM_MAX_COLS;
	}
	fprintf(out, "mprof report: %zu trace%s, %s\n", n, n == 1 ? "" : "s",
		sampled ? "most samples first (sampled: the allocation counts are estimates)"
			: "most allocations first");
	fprintf(out, "%-*s %7s  %-10s %12s %11s %11s  %s\n", (int)cols, "program", "pid", "status",
		"allocations", "heap peak", "leaked", "trace");
	for (size_t i = 0; i < n; i++) {
		const struct report_overview_row *row = &rows[i];
		char pid[24] = "?";

		used = argv_quote_fit(row->program, cols, prog, sizeof(prog));
		if (row->has_pid)
			snprintf(pid, sizeof(pid), "%" PRIu64, row->pid);
		fprintf(out, "%s%*s %7s  %-10s %12" PRIu64 " %11s %11s%s %s\n", safe(prog),
			(int)(cols - used), "", pid, overview_status(st, sizeof(st), row),
			row->allocations, fmt_bytes_short(peak, sizeof(peak), row->peak_bytes),
			fmt_bytes_short(leaked, sizeof(leaked), row->leaked_bytes),
			row->ended_early ? "*" : row->executed ? "+" : " ", safe(row->trace));
	}
	for (size_t i = 0; i < n; i++)
		if (rows[i].ended_early) {
			fputs("(* live when the recording ended, not at exit)\n", out);
			break;
		}
	for (size_t i = 0; i < n; i++)
		if (!rows[i].ended_early && rows[i].executed) {
			fputs("(+ live when the process executed another program: that image's "
			      "blocks, not leaks)\n", out);
			break;
		}
	if (n && rows[0].samples) {
		argv_quote_fit(rows[0].program, OVERVIEW_PROGRAM_MAX_COLS + 20, prog, sizeof(prog));
		fprintf(out, "%s: %s (%s)\n", sampled ? "most samples" : "most allocations",
			safe(rows[0].trace), safe(prog));
	}
}

static void text_set_begin(FILE *out, const struct report_overview_row *rows, size_t n)
{
	report_text_overview(out, rows, n);
	fputs("\n\n", out);
}

static void text_set_between(FILE *out)
{
	fputs("\n\n", out);
}

static void text_set_end(FILE *out)
{
	(void)out;
}

const struct output_format output_text = {
	.name = "text",
	.summary = "a summary, then the top sites per metric (the default)",
	.write = text_write,
	.takes_metric = true,
	.takes_top = true,
	.set_begin = text_set_begin,
	.set_between = text_set_between,
	.set_end = text_set_end,
};
