/*
 * analyze/cmd/report.c - `mprof-analyze report`: loads each trace's profile
 * (profile_load, which `diff` uses too) and writes it in the format asked
 * for (output/output.h).
 *
 * Owns each trace's profile while it is written and frees it before the
 * next, and a report set's spool (a temporary file).  Must never
 * exit: it returns the exit status to main (0, 1 unreadable input, 2 usage).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/cmd/options.h"
#include "analyze/cmd/report.h"
#include "analyze/cmd/trace_set.h"
#include "analyze/output/output.h"
#include "analyze/profile/filter.h"
#include "analyze/profile/inherit.h"
#include "analyze/profile/metric.h"
#include "analyze/profile/profile.h"
#include "analyze/util/error.h"
#include "trace/format.h"

#define REPORT_DEFAULT_TOP 10


/* Writes text from column col (0-based; the cursor stands just before it),
 * its words wrapped to 80 columns with the next lines starting at col. */
static void help_wrap(FILE *out, int col, const char *text)
{
	int at = col - 1;

	while (*text) {
		size_t n = strcspn(text, " ");

		if (at >= col && at + 1 + (int)n > 80) {
			fprintf(out, "\n%*s", col - 1, "");
			at = col - 1;
		}
		fprintf(out, " %.*s", (int)n, text);
		at += 1 + (int)n;
		text += n;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

static void report_usage(FILE *out)
{
	fprintf(out, "usage: %s report TRACE... [--all] [-n N] [-f FORMAT] [--metric M]\n",
		analyze_name());
	fputs("                    [-o FILE | --html FILE] [--sort KEY] [--alloc-fn NAME]...\n"
	      "                    [--keep-wrappers] [--from T] [--to T] [--at T]\n"
	      "                    [--filter-function GLOB]...\n"
	      "                    [--exclude-function GLOB]... [--suppressions FILE]\n"
	      "  TRACE                a trace file, or a quoted glob ('dir/trace*')\n"
	      "      --all            also the other traces of each TRACE's run\n"
	      "                       (TRACE.PID, TRACE.PID.N beside it)\n"
	      "  Several traces start with an overview (program, pid, status,\n"
	      "  allocations, heap peak, leaked, trace; most allocations first, or most\n"
	      "  samples where sampled); in JSON they make one object of schema\n"
	      "  mprof-report-set " OUTPUT_STRINGIFY(OUTPUT_REPORT_SET_SCHEMA_VERSION) ".\n"
	      "  -n, --top N          sites shown per ranking in text output (default 10;\n"
	      "                       0: the summary only); in JSON, given: only the sites\n"
	      "                       among the top N of a ranking (at most 5 N); dhat: the\n"
	      "                       first N; other formats refuse it\n"
	      "  -f, --format FORMAT  one of:\n", out);
	for (size_t i = 0; output_formats[i]; i++) {
		fprintf(out, "                       %-10s", output_formats[i]->name);
		help_wrap(out, 34, output_formats[i]->summary);
	}
	fputs("      --metric M       what one-metric formats weigh stacks by (default\n"
	      "                       peak: live bytes at t-gmax); text: the summary and M's\n"
	      "                       ranking alone; json, html, massif, dhat, dhat-json\n"
	      "                       refuse it; one of:\n"
	      "                      ", out);
	help_wrap(out, 23, metric_names());
	fputs("  -o, --output FILE    write to FILE instead of standard output (never\n"
	      "                       over a trace)\n"
	      "      --html FILE      the same as --format html -o FILE (not with\n"
	      "                       another --format or -o)\n"
	      "      --sort KEY       dhat's order: total-bytes (default), total-blocks,\n"
	      "                       max-bytes, max-blocks, t-gmax-bytes, t-gmax-blocks,\n"
	      "                       t-end-bytes, t-end-blocks, avg-lifetime, max-lifetime,\n"
	      "                       short-lived (a sampled trace: avg-lifetime by the\n"
	      "                       estimate in ns; max-lifetime, short-lived refused)\n"
	      "      --alloc-fn NAME  treat function NAME as an allocator wrapper (repeatable;\n"
	      "                       NAME* matches a prefix)\n"
	      "      --keep-wrappers  keep the frames of the built-in allocator wrappers\n"
	      "                       (g_malloc, xmalloc, operator new, Rust's RawVec, ...)\n"
	      "      --from T, --to T only the allocations made from T / before T, and their\n"
	      "                       frees; T: seconds (2.5, 2.5s), 300ms, or 50% of the run,\n"
	      "                       from the start of the recording, or a marker the program\n"
	      "                       set (mprof.h): marker:NAME (the first), marker:NAME#2;\n"
	      "                       --from T skips what the trace's chunk index says is\n"
	      "                       before T\n"
	      "      --at T           the heap live at T, by site ('leaked' reads 'live at T')\n"
	      "      --filter-function GLOB   only the sites with a frame whose function\n"
	      "                       matches GLOB (repeatable; totals stay the program's)\n"
	      "      --exclude-function GLOB  leave out sites with such a frame (repeatable)\n"
	      "      --suppressions FILE      known leaks, LeakSanitizer's leak:PATTERN lines:\n"
	      "                       out of the leak ranking and total\n"
	      "  -h, --help           show this help\n"
	      "Exit status: 0 success, 1 a trace cannot be read (the others are still\n"
	      "reported) or the report cannot be written, 2 usage error; run as mprof\n"
	      "report, 125 when the analyzer cannot be started.  See mprof-report(1).\n", out);
}

/* Parses options; returns -1 to go on, or an exit status. */
static int parse_options(int argc, char **argv, struct analyze_options *o)
{
	int rc = analyze_options_parse(argc, argv, "report", REPORT_DEFAULT_TOP, report_usage, o);

	if (rc >= 0)
		return rc;
	if (optind >= argc) {
		analyze_error("report: no trace file given (see '%s report --help')",
			      analyze_command());
		return 2;
	}
	return -1;
}

#define PROGRESS_MIN_BYTES ((uint64_t)16 << 20) /* smaller traces read too fast to show */

struct progress {
	const char *path;
	int shown_percent;      /* -1: nothing shown yet */
};

/* A progress line on stderr while a large trace is read (terminal only). */
static void progress_show(void *ctx, uint64_t done_bytes, uint64_t total_bytes)
{
	struct progress *p = ctx;
	int percent;

	if (total_bytes < PROGRESS_MIN_BYTES)
		return;
	percent = (int)(done_bytes * 100 / total_bytes);
	if (percent == p->shown_percent)
		return;
	p->shown_percent = percent;
	fprintf(stderr, "\r%s: reading %s: %3d%%", analyze_name(), p->path, percent);
	fflush(stderr);
}

static void progress_clear(void *ctx)
{
	struct progress *p = ctx;

	if (p->shown_percent >= 0)
		fputs("\r\033[K", stderr);
}

/* What report_one needs besides the trace. */
struct report_job {
	const struct analyze_options *o;
	const struct output_format *format;
	struct output_options out;
	struct profile_filter filter;   /* --filter-function, ... */
	struct suppressions suppressions; /* owned: --suppressions FILE's */
};

/* Reports one trace to out (one format's output for it); with row, also
 * fills that line of the overview; a fork child from seed when not NULL
 * (inherit_each).  Returns 0, 1 (unreadable, or out of memory) or 2 (the
 * time window does not fit the trace). */
static int report_one(const char *path, const struct report_job *job, FILE *out,
		      struct report_overview_row *row, const struct inherit_seed *seed)
{
	const struct analyze_options *o = job->o;
	struct profile *p = malloc(sizeof(*p));
	struct site_options sopt = {o->alloc_fns, o->alloc_fn_count, o->keep_wrappers};
	struct progress progress = {path, -1};
	struct profile_progress pp = {progress_show, progress_clear, &progress};
	char note[256];
	int status;

	if (!p) {
		analyze_error("out of memory");
		return 1;
	}
	status = profile_load_seeded(p, path, &sopt, &o->window,
				     isatty(STDERR_FILENO) ? &pp : NULL, seed);
	if (status)
		goto out;
	if (profile_filter_given(&job->filter))
		profile_filter_apply(p, &job->filter);
	if (!profile_has_metric(p, METRIC_TEMPORARY) &&
	    ((job->out.metric_given && job->out.metric == METRIC_TEMPORARY) ||
	     (job->out.sort && strcmp(job->out.sort, "short-lived") == 0))) {
		analyze_error("report: %s: temporary allocations have no estimate in a sampled "
			      "trace (%s)", path, job->out.metric_given &&
			      job->out.metric == METRIC_TEMPORARY ? "--metric temporary"
								  : "--sort short-lived");
		status = 2;
		goto out;
	}
	if (profile_lifetimes_estimated(p) && job->out.sort &&
	    strcmp(job->out.sort, "max-lifetime") == 0) {
		analyze_error("report: %s: the longest lifetime has no estimate in a sampled trace "
			      "(--sort max-lifetime)", path);
		status = 2;
		goto out;
	}
	if (row && report_overview_row_fill(row, path, p) < 0) {
		analyze_error("out of memory");
		status = 1;
		goto out;
	}
	if (job->format != &output_text)
		trace_set_warn(&p->info);
	if (job->format->bare && output_metric_note(note, sizeof(note), p, job->out.metric))
		analyze_error("note: %s: %s", path, note);
	if (job->format->write(out, p, &job->out) < 0) {
		analyze_error("%s: out of memory writing the report", path);
		status = 1;
	}
out:
	profile_free(p);
	free(p);
	return status;
}

/* Heap kept from one trace of a set to the next (M_TRIM_THRESHOLD). */
#define REPORT_SET_TRIM_BYTES (64 << 20)

/* One trace's report held back until the overview is out: bytes of the
 * spool from offset. */
struct held_report {
	bool reported;       /* false: not reported (unreadable) */
	off_t offset;
	off_t bytes;
	struct report_overview_row row;
};

/* What report_set_one needs: the traces and where their reports go. */
struct report_set_ctx {
	const struct trace_set *set;
	const struct report_job *job;
	struct held_report *held;   /* by the traces' order */
	FILE *spool;                /* every report, one after another */
	int status;
};

/* inherit_each's callback: reports set->paths[i] to the end of the spool,
 * noting where in held[i].  Returns 0, or -ENOMEM when the spool cannot be
 * written any more. */
static int report_set_one(void *ctx, size_t i, const struct inherit_seed *seed)
{
	struct report_set_ctx *c = ctx;
	struct held_report *h = &c->held[i];
	off_t end;

	h->offset = ftello(c->spool);
	if (h->offset < 0)
		return -ENOMEM;
	if (report_one(c->set->paths[i], c->job, c->spool, &h->row, seed) != 0) {
		c->status = 1;
		report_overview_row_free(&h->row); /* filled before a failed write */
		return 0; /* what it wrote before failing is never copied */
	}
	end = ftello(c->spool);
	if (end < 0 || ferror(c->spool)) {
		report_overview_row_free(&h->row);
		return -ENOMEM;
	}
	h->bytes = end - h->offset;
	h->reported = true;
	return 0;
}

/* Copies bytes of spool from offset to out; mem is the spool's buffer when
 * it is in memory (flushed).  Returns 0 or -1 (the spool cannot be read
 * back). */
static int spool_copy(FILE *spool, const char *mem, off_t offset, off_t bytes, FILE *out)
{
	char buf[1 << 16];

	if (mem) {
		fwrite(mem + offset, 1, (size_t)bytes, out);
		return 0;
	}
	if (fseeko(spool, offset, SEEK_SET) != 0)
		return -1;
	while (bytes > 0) {
		size_t want = bytes < (off_t)sizeof(buf) ? (size_t)bytes : sizeof(buf);
		size_t got = fread(buf, 1, want, spool);

		if (got == 0)
			return -1;
		fwrite(buf, 1, got, out);
		bytes -= (off_t)got;
	}
	return 0;
}

/* The spool of a report set: an unlinked temporary file in $TMPDIR (else
 * /tmp), so that memory does not grow with the reports of thousands of
 * traces; in memory when no temporary file can be made (*mem then owns the
 * buffer).  NULL: out of memory. */
static FILE *spool_open(char **mem, size_t *mem_bytes)
{
	const char *dir = getenv("TMPDIR");
	char *path = NULL;
	FILE *f = NULL;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && asprintf(&path, "%s/mprof-report.XXXXXX", dir) >= 0) {
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
		free(path);
	}
	if (fd >= 0) {
		f = fdopen(fd, "w+");
		if (!f)
			close(fd);
	}
	*mem = NULL;
	return f ? f : open_memstream(mem, mem_bytes);
}

/*
 * Several traces: each report is made into the spool (the fork children
 * of one parent one after another, in fork order, their parent read once
 * for all: inherit_each), then the overview of all of them (one line per
 * trace read, most allocations first) is written, then the reports in the
 * order of the traces.  Returns 0 or 1 (a trace could not be read: it is
 * left out, the others are reported).
 */
static int report_set(const struct trace_set *set, const struct report_job *job, FILE *out)
{
	const struct output_format *f = job->format;
	struct held_report *held = calloc(set->count, sizeof(*held));
	struct report_overview_row *rows = calloc(set->count, sizeof(*rows));
	struct report_set_ctx c = {set, job, held, NULL, 0};
	char *spool_mem = NULL;
	size_t spool_mem_bytes = 0;
	size_t n = 0;
	int rc = 0;

	c.spool = rows && held ? spool_open(&spool_mem, &spool_mem_bytes) : NULL;
	if (!c.spool) {
		analyze_error("out of memory");
		free(rows);
		free(held);
		return 1;
	}
	/* the heap one trace freed serves the next: given back and faulted in
	 * again for every trace, it cost more than the reading */
	mallopt(M_TRIM_THRESHOLD, REPORT_SET_TRIM_BYTES);
	/* a range counts the frees of inherited blocks apart: no child is
	 * seeded, no parent read for one */
	if (window_spec_range(&job->o->window)) {
		for (size_t i = 0; i < set->count && rc == 0; i++)
			rc = report_set_one(&c, i, NULL);
	} else {
		rc = inherit_each(set->paths, set->count, report_set_one, &c);
	}
	if (rc < 0) {
		analyze_error("out of memory, or no room for the reports in a temporary file");
		c.status = 1;
	}
	for (size_t i = 0; i < set->count; i++)
		if (held[i].reported)
			rows[n++] = held[i].row;
	{
		/* the overview is sorted; the reports keep the traces' order */
		struct report_overview_row *sorted = malloc((n ? n : 1) * sizeof(*sorted));

		if (sorted) {
			memcpy(sorted, rows, n * sizeof(*sorted));
			report_overview_sort(sorted, n);
			f->set_begin(out, sorted, n);
		} else {
			analyze_error("out of memory");
			c.status = 1;
		}
		free(sorted);
	}
	n = 0;
	if (fflush(c.spool) != 0) {
		analyze_error("report: cannot write the reports to a temporary file: %s",
			      strerror(errno));
		c.status = 1;
	}
	for (size_t i = 0; i < set->count; i++) {
		if (!held[i].reported)
			continue;
		if (n++)
			f->set_between(out);
		if (spool_copy(c.spool, spool_mem, held[i].offset, held[i].bytes, out) < 0) {
			analyze_error("report: cannot read back the report of %s: %s", set->paths[i],
				      strerror(errno));
			c.status = 1;
		}
		report_overview_row_free(&held[i].row);
	}
	f->set_end(out);
	fclose(c.spool);
	free(spool_mem);
	free(rows);
	free(held);
	return c.status;
}

/* The filters of o in job (reading the suppressions file); prints what is
 * wrong and returns 2 (1 out of memory), or 0. */
static int report_filter_make(struct report_job *job, const struct analyze_options *o)
{
	char err[512];
	int rc;

	job->filter.functions = o->filter_fns;
	job->filter.function_count = o->filter_fn_count;
	job->filter.excluded = o->exclude_fns;
	job->filter.excluded_count = o->exclude_fn_count;
	if (!o->suppressions)
		return 0;
	rc = suppressions_load(&job->suppressions, o->suppressions, err, sizeof(err));
	if (rc < 0) {
		analyze_error("report: --suppressions: %s", err);
		return rc == -ENOMEM ? 1 : 2;
	}
	job->filter.suppressions = &job->suppressions;
	job->filter.suppressions_path = o->suppressions;
	return 0;
}

/* Checks --sort KEY against the format's sort keys; prints what is wrong
 * and returns 2, or 0. */
static int report_sort_check(const struct output_format *f, const char *key)
{
	char keys[512] = "";

	if (!f->sort_keys) {
		analyze_error("report: --format %s takes no --sort", f->name);
		return 2;
	}
	for (const char *const *k = f->sort_keys; *k; k++) {
		if (strcmp(*k, key) == 0)
			return 0;
		if (k != f->sort_keys)
			strncat(keys, ", ", sizeof(keys) - strlen(keys) - 1);
		strncat(keys, *k, sizeof(keys) - strlen(keys) - 1);
	}
	analyze_error("report: --format %s cannot sort by '%s' (%s)", f->name, key, keys);
	return 2;
}

/* The writer, its options and the filters from o; prints what is wrong
 * and returns 2 (1 out of memory), or 0. */
static int report_job_make(struct report_job *job, const struct analyze_options *o)
{
	memset(job, 0, sizeof(*job));
	job->o = o;
	job->format = output_find(o->format);
	if (!job->format) {
		analyze_error("report: unknown format '%s' (%s)", o->format, output_format_names());
		return 2;
	}
	job->out.top_n = o->top_n;
	job->out.top_n_given = o->top_n_given;
	job->out.metric = METRIC_PEAK;
	if (o->metric) {
		int m = metric_parse(o->metric);

		if (m < 0) {
			analyze_error("report: unknown metric '%s' (%s)", o->metric, metric_names());
			return 2;
		}
		job->out.metric = (enum metric)m;
		job->out.metric_given = true;
	}
	if (o->metric && !job->format->takes_metric) {
		analyze_error("report: --format %s takes no --metric (see '%s report --help')",
			      job->format->name, analyze_command());
		return 2;
	}
	if (o->top_n_given && !job->format->takes_top) {
		analyze_error("report: --format %s takes no -n (see '%s report --help')",
			      job->format->name, analyze_command());
		return 2;
	}
	if (o->sort && report_sort_check(job->format, o->sort))
		return 2;
	job->out.sort = o->sort;
	return report_filter_make(job, o);
}

/* Whether path names a regular file that starts as an mprof trace does, so
 * that -o never replaces a recording (`--html T T.html`, operands swapped,
 * or -o naming the trace being read, which the opening truncates first). */
static bool report_output_is_trace(const char *path)
{
	char magic[8];
	struct stat st;
	bool trace;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	trace = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
		memcmp(magic, TRACE_FILE_MAGIC, sizeof(magic)) == 0;
	close(fd);
	return trace;
}

int cmd_report(int argc, char **argv)
{
	struct analyze_options o;
	struct report_job job;
	struct trace_set set;
	static char outbuf[1 << 16];
	FILE *out = stdout;
	int status, rc;

	memset(&o, 0, sizeof(o));
	memset(&job, 0, sizeof(job));
	rc = parse_options(argc, argv, &o);
	if (rc < 0 && (status = report_job_make(&job, &o)) != 0)
		rc = status;
	if (rc >= 0) {
		suppressions_free(&job.suppressions);
		analyze_options_free(&o);
		return rc;
	}
	if (o.output && report_output_is_trace(o.output)) {
		analyze_error("report: %s is an mprof trace: not writing the report over it",
			      o.output);
		suppressions_free(&job.suppressions);
		analyze_options_free(&o);
		return 2;
	}
	if (o.output && !(out = fopen(o.output, "w"))) {
		analyze_error("report: cannot write %s: %s", o.output, strerror(errno));
		analyze_options_free(&o);
		return 1;
	}
	setvbuf(out, outbuf, _IOFBF, sizeof(outbuf));
	status = trace_set_expand(&set, argv + optind, (size_t)(argc - optind), o.all);
	if (status < 0) {
		analyze_error("out of memory");
		status = 1;
	} else if (set.count > 1 && !job.format->set_begin) {
		analyze_error("report: --format %s takes one trace, not %zu", job.format->name,
			      set.count);
		status = 2;
	} else if (set.count == 1) {
		/* a trace that cannot be read is reported on stderr */
		status = report_one(set.paths[0], &job, out, NULL, NULL);
		if (status == 0 && job.format->newline_after_one)
			fputc('\n', out);
	} else if (set.count > 1 && report_set(&set, &job, out) != 0) {
		status = 1;
	}
	trace_set_free(&set);
	suppressions_free(&job.suppressions);
	analyze_options_free(&o);
	if (fflush(out) != 0 || ferror(out) || (out != stdout && fclose(out) != 0)) {
		analyze_error("report: cannot write %s: %s", o.output ? o.output : "standard output",
			      strerror(errno));
		return 1;
	}
	return status;
}
