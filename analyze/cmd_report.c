/*
 * analyze/cmd_report.c - `mprof-analyze report`: reads each trace, builds
 * its statistics and sites, and writes the text or JSON report.
 *
 * Owns the per-trace state for the duration of one trace (reader results,
 * aggregation, symbolizer, sites) and frees it before the next.  The
 * pipeline from a trace file to its sites is trace_sites_load
 * (trace_sites.h), which `diff` uses too.  Must never
 * exit: it returns the exit status to main (0, 1 unreadable input, 2 usage).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/aggregate.h"
#include "analyze/commands.h"
#include "analyze/options.h"
#include "analyze/event_stream.h"
#include "analyze/modules.h"
#include "analyze/report.h"
#include "analyze/sites.h"
#include "analyze/stack_nodes.h"
#include "analyze/symbols.h"
#include "analyze/trace_set.h"
#include "analyze/trace_sites.h"

#define REPORT_DEFAULT_TOP 10


static void report_usage(FILE *out)
{
	fprintf(out, "usage: %s report TRACE... [--all] [-n N] [--format text|json] ",
		analyze_name());
	fputs("[--alloc-fn NAME]... [--keep-wrappers]\n"
	      "  TRACE                a trace file, or a quoted glob ('dir/trace*')\n"
	      "      --all            also the other traces of each TRACE's run\n"
	      "                       (TRACE.PID, TRACE.PID.N beside it)\n"
	      "  Several traces start with an overview (program, pid, status,\n"
	      "  allocations, peak, leaked, trace; most allocations first); in JSON\n"
	      "  they make one object of schema mprof-report-set 1.\n"
	      "  -n, --top N          sites shown per ranking in text output (default 10;\n"
	      "                       0: the summary only); in JSON, given: only the sites\n"
	      "                       among the top N of a ranking (at most 5 N)\n"
	      "  -f, --format FORMAT  text (default) or json (every site without -n, schema\n"
	      "                       mprof-report 1)\n"
	      "      --alloc-fn NAME  treat function NAME as an allocator wrapper (repeatable;\n"
	      "                       NAME* matches a prefix)\n"
	      "      --keep-wrappers  keep the frames of the built-in allocator wrappers\n"
	      "                       (g_malloc, xmalloc, operator new, Rust's RawVec, ...)\n"
	      "  -h, --help           show this help\n"
	      "Exit status: 0 success, 1 a trace cannot be read (the others are still\n"
	      "reported), 2 usage error; run as mprof report, 125 when the analyzer cannot\n"
	      "be started.  See mprof-report(1).\n", out);
}

/* Parses options; returns -1 to go on, or an exit status. */
static int parse_options(int argc, char **argv, struct analyze_options *o)
{
	int rc = analyze_options_parse(argc, argv, "report", REPORT_DEFAULT_TOP, report_usage, o);

	if (rc >= 0)
		return rc;
	if (optind >= argc) {
		analyze_error("report: no trace file given");
		report_usage(stderr);
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

static void progress_clear(struct progress *p)
{
	if (p->shown_percent >= 0)
		fputs("\r\033[K", stderr);
}

/* Warnings that a JSON reader would not see on a terminal. */
static void warn_stderr(const struct trace_info *info)
{
	if (info->truncated)
		analyze_error("warning: %s: trace truncated at offset %" PRIu64
			      ": the program was probably killed; events up to there are reported",
			      info->path, info->truncated_offset);
	if (info->chunks_lost)
		analyze_error("warning: %s: %" PRIu64 " chunks lost (corrupt or not mprof's)", info->path,
			      info->chunks_lost);
}

#define INHERIT_MAX_DEPTH 8 /* fork generations followed back */

/* A readable regular file: paths taken from a trace must not name a FIFO
 * or a device, whose open or reads could block forever. */
static bool regular_file_readable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* The parent trace named in a child's META: as written, else next to the
 * child (traces of one run share a directory).  NULL when not found, or
 * out of memory (then *oom is set). */
static char *parent_path_resolve(const char *child_path, const char *parent, bool *oom)
{
	const char *slash = strrchr(child_path, '/'), *base = strrchr(parent, '/');
	size_t dir_len = slash ? (size_t)(slash - child_path + 1) : 0;
	char *p;

	if (regular_file_readable(parent)) {
		p = strdup(parent);
		*oom = !p;
		return p;
	}
	base = base ? base + 1 : parent;
	p = malloc(dir_len + strlen(base) + 1);
	if (!p) {
		*oom = true;
		return NULL;
	}
	memcpy(p, child_path, dir_len);
	strcpy(p + dir_len, base);
	if (regular_file_readable(p))
		return p;
	free(p);
	return NULL;
}

/* Without parent_trace in META: the traces of one run are FILE (the first
 * process) and FILE.PID (the others), so a child FILE.PID's parent is
 * FILE.PPID or FILE itself when its META pid is PPID.  NULL when not found,
 * or out of memory (then *oom is set). */
static char *parent_path_guess(const char *child_path, const char *ppid, bool *oom)
{
	const char *dot = strrchr(child_path, '.'), *slash = strrchr(child_path, '/');
	size_t base_len;
	struct kv_list meta = {0};
	char *p;
	int rc;

	if (!ppid || !*ppid || !dot || (slash && dot < slash) || dot[1] < '0' || dot[1] > '9')
		return NULL;
	base_len = (size_t)(dot - child_path);
	p = malloc(base_len + strlen(ppid) + 2);
	if (!p) {
		*oom = true;
		return NULL;
	}
	memcpy(p, child_path, base_len);
	sprintf(p + base_len, ".%s", ppid);
	if (regular_file_readable(p))
		return p;
	p[base_len] = '\0';
	rc = regular_file_readable(p) ? event_stream_read_meta(p, &meta) : -ENOENT;
	if (rc == 0 && kv_list_get(&meta, "pid") && strcmp(kv_list_get(&meta, "pid"), ppid) == 0) {
		kv_list_free(&meta);
		return p;
	}
	*oom = rc == -ENOMEM;
	kv_list_free(&meta);
	free(p);
	return NULL;
}

/*
 * A fork child starts with its parent's live blocks: reads the parent's
 * trace up to the fork (and, recursively, its parent's) and seeds agg with
 * them, so that frees of inherited blocks match.  Returns 0 (also for a
 * trace that is no fork child), 1 with a message in note when the parent's
 * blocks cannot be known, or -ENOMEM.
 */
static int seed_inherited(const char *path, struct aggregate *agg, int depth, char *note,
			  size_t note_bytes)
{
	struct kv_list meta = {0};
	const char *parent, *fork_seq;
	char *ppath = NULL, *end, err[512];
	unsigned long long seq;
	struct trace_info pinfo;
	struct stack_nodes pnodes;
	struct module_maps pmaps;
	struct aggregate pagg;
	bool oom = false;
	int rc;

	rc = event_stream_read_meta(path, &meta);
	if (rc == -ENOMEM) {
		kv_list_free(&meta);
		return rc; /* not "no fork child": its leaks would be wrong */
	}
	if (rc < 0)
		goto none; /* reading the trace itself will say what is wrong */
	parent = kv_list_get(&meta, "parent_trace");
	fork_seq = kv_list_get(&meta, "fork_seq");
	if (!fork_seq)
		goto none;
	seq = strtoull(fork_seq, &end, 10);
	if (*end || end == fork_seq || seq == 0)
		goto none;
	if (parent && *parent) {
		ppath = parent_path_resolve(path, parent, &oom);
	} else {
		ppath = parent_path_guess(path, kv_list_get(&meta, "ppid"), &oom);
		parent = "of the parent process";
	}
	if (oom) {
		kv_list_free(&meta);
		return -ENOMEM;
	}
	if (!ppath || depth >= INHERIT_MAX_DEPTH) {
		snprintf(note, note_bytes, "parent trace %s %s: blocks inherited at fork are "
			 "unknown, and frees of them count as unmatched", parent,
			 ppath ? "is too many forks away" : "not found");
		free(ppath);
		kv_list_free(&meta);
		return 1;
	}
	kv_list_free(&meta);
	if (aggregate_init(&pagg) < 0) {
		free(ppath);
		return -ENOMEM;
	}
	pagg.seq_limit = (uint64_t)seq;
	rc = seed_inherited(ppath, &pagg, depth + 1, note, note_bytes);
	trace_info_init(&pinfo);
	stack_nodes_init(&pnodes);
	module_maps_init(&pmaps);
	if (rc >= 0)
		rc = event_stream_read(ppath, &pinfo, &pnodes, &pmaps, &pagg, err, sizeof(err));
	if (rc == -ENOMEM) {
		/* nothing */
	} else if (rc < 0) {
		snprintf(note, note_bytes, "parent trace unreadable (%s): blocks inherited at "
			 "fork are unknown, and frees of them count as unmatched", err);
		rc = 1;
	} else {
		rc = aggregate_seed_inherited(agg, &pagg);
	}
	trace_info_free(&pinfo);
	stack_nodes_free(&pnodes);
	module_maps_free(&pmaps);
	aggregate_free(&pagg);
	free(ppath);
	return rc;
none:
	kv_list_free(&meta);
	return 0;
}

int trace_sites_load(struct trace_sites *t, const char *path, const struct site_options *opt)
{
	struct progress progress = {path, -1};
	struct huge_spare spare;
	char err[512];
	int rc;

	memset(t, 0, sizeof(*t));
	trace_info_init(&t->info);
	stack_nodes_init(&t->nodes);
	module_maps_init(&t->maps);
	if (aggregate_init(&t->agg) < 0) {
		analyze_error("out of memory");
		return 1;
	}
	err[0] = '\0';
	if (seed_inherited(path, &t->agg, 0, t->inherit_note, sizeof(t->inherit_note)) ==
	    -ENOMEM) {
		analyze_error("%s: out of memory reading the parent's trace", path);
		return 1;
	}
	if (isatty(STDERR_FILENO)) {
		t->info.progress = progress_show;
		t->info.progress_ctx = &progress;
	}
	rc = event_stream_read(path, &t->info, &t->nodes, &t->maps, &t->agg, err, sizeof(err));
	progress_clear(&progress);
	t->info.progress = NULL;
	t->info.progress_ctx = NULL;
	if (rc < 0) {
		analyze_error("%s", err);
		return 1;
	}
	/* the block table's memory, faulted in, for the sites */
	aggregate_release_blocks(&t->agg, &spare);
	site_spare_fit(&spare, &t->agg, &t->nodes);
	t->sym = symbolizer_new(&t->maps);
	if (!t->sym) {
		huge_array_free(spare.p, spare.reserved);
		analyze_error("out of memory");
		return 1;
	}
	for (size_t i = 0; i < t->info.symbols_count; i++)
		if (symbolizer_load_embedded(t->sym, t->info.symbols[i],
					     t->info.symbols_bytes[i]) < 0)
			analyze_error("warning: %s: embedded symbols are corrupt; "
				      "symbolizing from the binaries instead", path);
	if (site_table_build(&t->sites, &t->agg, &t->nodes, t->sym, opt, &spare) < 0) {
		analyze_error("%s: out of memory building allocation sites", path);
		return 1;
	}
	return 0;
}

void trace_sites_free(struct trace_sites *t)
{
	site_table_free(&t->sites);
	if (t->sym)
		symbolizer_free(t->sym);
	t->sym = NULL;
	aggregate_free(&t->agg);
	module_maps_free(&t->maps);
	stack_nodes_free(&t->nodes);
	trace_info_free(&t->info);
}

/* Reports one trace to out (text, or one JSON object without a newline);
 * with row, also fills that line of the overview.  Returns 0 or 1
 * (unreadable, or out of memory). */
static int report_one(const char *path, const struct analyze_options *o, FILE *out,
		      struct report_overview_row *row)
{
	struct trace_sites *t = malloc(sizeof(*t));
	struct site_options sopt = {o->alloc_fns, o->alloc_fn_count, o->keep_wrappers};
	struct report r;
	int status;

	if (!t) {
		analyze_error("out of memory");
		return 1;
	}
	status = trace_sites_load(t, path, &sopt);
	if (status)
		goto out;
	memset(&r, 0, sizeof(r));
	r.info = &t->info;
	r.agg = &t->agg;
	r.sites = &t->sites;
	r.top_n = o->top_n;
	r.json_top_only = o->top_n_given;
	r.inherit_note = t->inherit_note[0] ? t->inherit_note : NULL;
	report_run_collect(&r);
	if (row && report_overview_row_fill(row, path, &r) < 0) {
		analyze_error("out of memory");
		status = 1;
		goto out;
	}
	if (o->format == ANALYZE_JSON) {
		warn_stderr(&t->info);
		report_json_write(out, &r);
	} else {
		report_text_write(out, &r);
	}
out:
	trace_sites_free(t);
	free(t);
	return status;
}

/* One trace's report held back until the overview is out. */
struct held_report {
	char *text;
	size_t bytes;
};

/*
 * Several traces: each report is made into memory, then the overview of
 * all of them (one line per trace read, most allocations first) is written,
 * then the reports in the order of the traces.  Returns 0 or 1 (a trace
 * could not be read: it is left out, the others are reported).
 */
static int report_set(const struct trace_set *set, const struct analyze_options *o)
{
	struct report_overview_row *rows = calloc(set->count, sizeof(*rows));
	struct held_report *held = calloc(set->count, sizeof(*held));
	size_t n = 0;
	int status = 0;

	if (!rows || !held) {
		analyze_error("out of memory");
		free(rows);
		free(held);
		return 1;
	}
	for (size_t i = 0; i < set->count; i++) {
		FILE *mem = open_memstream(&held[n].text, &held[n].bytes);

		if (!mem) {
			analyze_error("out of memory");
			status = 1;
			break;
		}
		if (report_one(set->paths[i], o, mem, &rows[n]) != 0) {
			status = 1;
			fclose(mem);
			free(held[n].text);
			held[n].text = NULL;
			continue;
		}
		if (fclose(mem) != 0) {
			analyze_error("out of memory");
			report_overview_row_free(&rows[n]);
			free(held[n].text);
			held[n].text = NULL;
			status = 1;
			continue;
		}
		n++;
	}
	{
		/* the overview is sorted; the reports keep the traces' order */
		struct report_overview_row *sorted = malloc((n ? n : 1) * sizeof(*sorted));

		if (sorted) {
			memcpy(sorted, rows, n * sizeof(*sorted));
			report_overview_sort(sorted, n);
		} else {
			analyze_error("out of memory");
			status = 1;
		}
		if (sorted && o->format == ANALYZE_JSON)
			report_json_set_head(stdout, sorted, n);
		else if (sorted)
			report_text_overview(stdout, sorted, n);
		free(sorted);
	}
	for (size_t i = 0; i < n; i++) {
		if (o->format == ANALYZE_JSON)
			fputs(i ? ",\n" : "", stdout);
		else
			fputs("\n\n", stdout);
		fwrite(held[i].text, 1, held[i].bytes, stdout);
		free(held[i].text);
		report_overview_row_free(&rows[i]);
	}
	if (o->format == ANALYZE_JSON)
		report_json_set_tail(stdout);
	free(rows);
	free(held);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct analyze_options o;
	struct trace_set set;
	static char outbuf[1 << 16];
	int status, rc;

	memset(&o, 0, sizeof(o));
	rc = parse_options(argc, argv, &o);
	if (rc >= 0) {
		analyze_options_free(&o);
		return rc;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	status = trace_set_expand(&set, argv + optind, (size_t)(argc - optind), o.all);
	if (status < 0) {
		analyze_error("out of memory");
		status = 1;
	} else if (set.count == 1) {
		/* a trace that cannot be read is reported on stderr */
		if (report_one(set.paths[0], &o, stdout, NULL) != 0)
			status = 1;
		else if (o.format == ANALYZE_JSON)
			fputc('\n', stdout);
	} else if (set.count > 1 && report_set(&set, &o) != 0) {
		status = 1;
	}
	trace_set_free(&set);
	analyze_options_free(&o);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		analyze_error("writing the report: %s", strerror(errno));
		return 1;
	}
	return status;
}
