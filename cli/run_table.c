/*
 * cli/run_table.c - the table of processes at the end of a run that made
 * several traces (`mprof run -- make -j2`, a wrapper script that starts the
 * real program): one line per trace, most allocations first (samples, in a
 * sampled run), and the trace at the top named, so the one to read is found without
 * knowing which process did the work.
 *
 * Uses only what the collector knew when it finalized each trace (its
 * allocation count, peak RSS, command line) and never reads a trace back:
 * the heap peak needs every event in order (a python3 run of 1.4 s with
 * 2.7 M allocations took 0.46 s more to report), so it is left to
 * `mprof report --all`.  Prints through mprof_note only.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/die.h"
#include "cli/run_table.h"
#include "trace/argv_quote.h"
#include "trace/plural.h"

#define WIDTH_DEFAULT 100   /* stderr not a terminal, no $COLUMNS */
#define PROGRAM_MIN_COLS 16
#define PROGRAM_MAX_COLS 60
/* "mprof: " + "  " + pid 7 + allocations 13 + peak RSS 11 + "  " */
#define FIXED_COLS (7 + 2 + 7 + 13 + 11 + 2)

/* Columns of stderr's terminal, else $COLUMNS, else WIDTH_DEFAULT. */
static size_t width_cols(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");

	if (isatty(STDERR_FILENO) && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col;
	if (env && atoi(env) > 0)
		return (size_t)atoi(env);
	return WIDTH_DEFAULT;
}

/* bytes as "123 KiB" style text, three significant figures. */
static void size_format(char *out, size_t size, long kib)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)kib;
	unsigned u = 0;

	if (kib <= 0) {
		snprintf(out, size, "-");
		return;
	}
	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(out, size, v < 10.0 && u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* Most allocation records (samples, in a sampled run) first, then most
 * allocations; the traces' own order (the program first) on a tie.  A
 * sample's weight is 1/p: one sample of a 2-byte block weighs about 262,000
 * at 512 KiB, so a helper process with one such sample can outweigh the
 * program in estimated counts, never in samples. */
static const struct collector_trace *sort_figures;

static int order_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct collector_trace *fx = &sort_figures[x], *fy = &sort_figures[y];

	if (fx->samples != fy->samples)
		return fx->samples > fy->samples ? -1 : 1;
	if (fx->allocations != fy->allocations)
		return fx->allocations > fy->allocations ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* One row: program (padded to program_cols), pid, allocations, peak RSS, trace. */
static void row_print(const struct collector_trace *f, const char *trace, size_t program_cols)
{
	char program[PROGRAM_MAX_COLS * 4 + 8], rss[32], pid[16] = "?";
	/* the message escapes the command: fit it as it will read */
	size_t used = argv_quote_fit(f->command, program_cols, program, sizeof(program));

	size_format(rss, sizeof(rss), f->peak_rss_kib);
	if (f->pid) /* 0: unknown (preload/pidns.h) */
		snprintf(pid, sizeof(pid), "%u", f->pid);
	mprof_note("  %s%*s %7s %12" PRIu64 " %10s  %s", program, (int)(program_cols - used), "",
		   pid, f->allocations, rss, trace);
}

/* Why no trace holds an allocation record: a run started paused that
 * recorded nothing while on, or a sampled one where none drew a sample (the
 * processes made allocations all the same), else none was made. */
static void none_recorded_print(uint64_t sample_rate_bytes, bool paused)
{
	if (paused)
		mprof_note("no allocation was recorded: the run started paused, and no process "
			   "made one while recording was on");
	else if (sample_rate_bytes)
		mprof_note("no allocation was recorded: none drew a sample (one per %" PRIu64
			   " B on average)", sample_rate_bytes);
	else
		mprof_note("no allocation was recorded");
}

long run_table_print(const struct collector_result *res, uint64_t sample_rate_bytes,
		     bool paused)
{
	bool sampled = sample_rate_bytes != 0;
	size_t n = res->ntraces, width = width_cols(), trace_cols = 0, program_cols, *order;
	uint64_t rest = 0;
	char program[PROGRAM_MAX_COLS * 4 + 8];
	long top;

	if (n < 2 || !res->figures || !(order = malloc(n * sizeof(*order))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		if (strlen(res->traces[i]) > trace_cols)
			trace_cols = strlen(res->traces[i]);
	}
	sort_figures = res->figures;
	qsort(order, n, sizeof(*order), order_cmp);
	program_cols = width > FIXED_COLS + trace_cols ? width - FIXED_COLS - trace_cols : 0;
	if (program_cols < PROGRAM_MIN_COLS)
		program_cols = PROGRAM_MIN_COLS;
	if (program_cols > PROGRAM_MAX_COLS)
		program_cols = PROGRAM_MAX_COLS;

	mprof_note("%zu processes recorded, %s:", n,
		   sampled ? "most samples first (sampled: the allocation counts are estimates)"
			   : "most allocations first");
	mprof_note("  %-*s %7s %12s %10s  %s", (int)program_cols, "program", "pid", "allocations",
		   "peak RSS", "trace");
	for (size_t k = 0; k < n; k++) {
		if (k < RUN_TABLE_MAX_ROWS)
			row_print(&res->figures[order[k]], res->traces[order[k]], program_cols);
		else
			rest += res->figures[order[k]].allocations;
	}
	if (n > RUN_TABLE_MAX_ROWS)
		mprof_note("  ... and %zu more (%" PRIu64 " %s)", n - RUN_TABLE_MAX_ROWS, rest,
			   plural(rest, "allocation", "allocations"));
	top = (long)order[0];
	free(order);
	if (res->figures[top].samples == 0) {
		none_recorded_print(sample_rate_bytes, paused);
		return top;
	}
	argv_quote_fit(res->figures[top].command, PROGRAM_MAX_COLS, program, sizeof(program));
	mprof_note("%s: %s (%s)", sampled ? "most samples" : "most allocations", res->traces[top],
		   program);
	return top;
}
