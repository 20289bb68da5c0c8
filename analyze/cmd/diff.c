/*
 * analyze/cmd/diff.c - `mprof-analyze diff A B`: loads both traces' profiles
 * (profile_load), matches their sites (diff/match.c), writes the comparison
 * (text, JSON, folded, flamegraph or html; diff/write_*.c) to stdout or
 * -o FILE, and evaluates the CI gate
 * (--fail-if, diff/gate.c).
 *
 * Owns both profiles and the match for the command's duration.  Must never
 * change a number of the report pipeline (it only subtracts) and never
 * exit: it returns the exit status to main: 0 (the traces may differ; no
 * --fail-if condition held), 1 a --fail-if condition held, 2 usage errors,
 * unreadable input, traces of different programs without --force, a
 * failed write, or a --fail-if condition undecided (on an upper bound) and
 * none held.
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/diff.h"
#include "analyze/cmd/options.h"
#include "analyze/cmd/trace_set.h"
#include "analyze/diff/diff.h"
#include "analyze/output/frames.h"
#include "analyze/output/output.h"
#include "analyze/util/error.h"

#define DIFF_DEFAULT_TOP 10

struct diff_options {
	struct analyze_options common;
	const char *path_a, *path_b;
	enum diff_match match;
	enum diff_field metric;
	struct diff_condition *conditions; /* owned */
	size_t condition_count;
};

static void diff_usage(FILE *out)
{
	fprintf(out, "usage: %s diff A B [-n N] [-f text|json|folded|flamegraph|html]\n",
		analyze_name());
	fputs("                  [--metric M] [-o FILE] [--match function|line]\n"
	      "                  [--fail-if EXPR]... [--force]\n"
	      "                  [--alloc-fn NAME]... [--keep-wrappers]\n"
	      "  compares trace B with trace A, allocation site by allocation site\n"
	      "  -n, --top N          sites shown per ranking in text output (default 10;\n"
	      "                       0: the totals only); other formats refuse it\n"
	      "  -f, --format FORMAT  text (default), json (every site that differs,\n"
	      "                       schema mprof-diff " OUTPUT_STRINGIFY(DIFF_JSON_SCHEMA_VERSION)
	      "), folded (stack, A's value, B's\n"
	      "                       value: a differential flamegraph's input), flamegraph\n"
	      "                       (a self-contained differential flame graph page: widths\n"
	      "                       from B, red grew, blue shrank) or html (one\n"
	      "                       self-contained page: totals, grown and shrunk sites,\n"
	      "                       the --fail-if verdict, the flame graph per metric)\n"
	      "      --metric M       what the text ranks, folded weighs by and the pages show\n"
	      "                       first (default peak; json refuses it): peak, leaked,\n"
	      "                       allocated, allocations, temporary, peak-blocks,\n"
	      "                       leaked-blocks\n"
	      "  -o, --output FILE    write to FILE instead of stdout\n"
	      "      --match HOW      function (default: same functions in modules of the same\n"
	      "                       file name) or line (also the same source file and line);\n"
	      "                       sites of one trace that then match are merged into one\n"
	      "                       row ('[merged: 2 sites of A, 2 of B, ...]'), and a frame\n"
	      "                       merged from several shows a line only when all are on\n"
	      "                       it, else '(FILE, lines differ)'\n"
	      "      --fail-if EXPR   exit 1 when EXPR holds (repeatable): FIELD>NUMBER or\n"
	      "                       FIELD<NUMBER (>=, <= too), FIELD a metric or rss (peak\n"
	      "                       RSS); a signed NUMBER is the change from A to B (+5%,\n"
	      "                       +10000, -1M), an unsigned one B's value (leaked>0);\n"
	      "                       K, M, G are 1024-based; site:FIELD... holds when any one\n"
	      "                       site's figure does; peak, peak-blocks and temporary\n"
	      "                       are refused where a trace is sampled (no estimate);\n"
	      "                       temporary of a trace recorded in part is an upper\n"
	      "                       bound, and a condition it cannot decide exits 2;\n"
	      "                       on sampled estimates the verdict is the estimate's,\n"
	      "                       and its line gives the change's 95% margin (+-N);\n"
	      "                       blanks may stand between the parts ('leaked > +1 K'),\n"
	      "                       not inside one; a bad EXPR exits 2\n"
	      "      --force          compare traces of different programs\n"
	      "      --alloc-fn NAME  treat function NAME as an allocator wrapper (repeatable;\n"
	      "                       NAME* matches a prefix)\n"
	      "      --keep-wrappers  keep the frames of the built-in allocator wrappers\n"
	      "  -h, --help           show this help\n"
	      "Exit status: 0 no --fail-if condition held (whether or not the traces\n"
	      "differ), 1 one held, 2 usage error, unreadable trace, traces of different\n"
	      "programs or none held and one undecided; run as mprof diff, 125 when the\n"
	      "analyzer cannot be started.\n"
	      "See mprof-diff(1).\n", out);
}

/* Parses options; returns -1 to go on, or an exit status. */
static int parse_options(int argc, char **argv, struct diff_options *o)
{
	int rc = analyze_options_parse(argc, argv, "diff", DIFF_DEFAULT_TOP, diff_usage, &o->common);
	const char *f = o->common.format;
	const struct diff_format *fmt;
	char err[256];

	if (rc >= 0)
		return rc;
	if (!(fmt = diff_format_find(f))) {
		analyze_error("diff: unknown format '%s' (%s)", f, diff_format_names);
		return 2;
	}
	if (o->common.metric && !fmt->takes_metric) {
		analyze_error("diff: --format %s takes no --metric (see '%s diff --help')", f,
			      analyze_command());
		return 2;
	}
	if (o->common.top_n_given && !fmt->takes_top) {
		analyze_error("diff: --format %s takes no -n (see '%s diff --help')", f,
			      analyze_command());
		return 2;
	}
	o->metric = DF_PEAK;
	if (o->common.metric) {
		int m = diff_field_parse(o->common.metric);

		if (m < 0 || m == DF_RSS) {
			analyze_error("diff: unknown metric '%s' (%s)", o->common.metric,
				      metric_names());
			return 2;
		}
		o->metric = (enum diff_field)m;
	}
	o->match = DIFF_MATCH_FUNCTION;
	if (o->common.match && strcmp(o->common.match, "line") == 0) {
		o->match = DIFF_MATCH_LINE;
	} else if (o->common.match && strcmp(o->common.match, "function") != 0) {
		analyze_error("diff: --match wants function or line, not '%s'", o->common.match);
		return 2;
	}
	o->conditions = calloc(o->common.fail_if_count + 1, sizeof(*o->conditions));
	if (!o->conditions) {
		analyze_error("out of memory");
		return 2;
	}
	for (size_t i = 0; i < o->common.fail_if_count; i++) {
		if (diff_condition_parse(&o->conditions[i], o->common.fail_if[i], err,
					 sizeof(err)) < 0) {
			analyze_error("diff: --fail-if %s", err);
			return 2;
		}
	}
	o->condition_count = o->common.fail_if_count;
	if (argc - optind != 2) {
		analyze_error("diff: %s (see '%s diff --help')",
			      argc - optind < 2 ? "wants two traces, A and B"
						: "too many arguments (two traces: A and B)",
			      analyze_command());
		return 2;
	}
	o->path_a = argv[optind];
	o->path_b = argv[optind + 1];
	return -1;
}

/* What qualifies the --metric of side ("A" or "B") p, for a format with no
 * room for it (output_metric_note). */
static void note_metric(const char *side, const struct profile *p, enum diff_field f)
{
	char note[256];

	if (f != DF_RSS && output_metric_note(note, sizeof(note), p, diff_field_metric[f]))
		analyze_error("note: %s (%s): %s", side, p->info.path, note);
}

/* The program's file name as its trace says it, or NULL. */
static const char *program_name(const struct profile *p)
{
	const char *exe = p->run.exe ? p->run.exe : p->info.exe;

	return exe ? output_base_name(exe) : NULL;
}

/* 0 when a and b are traces of one program (by executable file name) or
 * --force; else reports and returns 2. */
static int same_program(const struct diff_options *o, const struct profile *a,
			const struct profile *b)
{
	const char *na = program_name(a), *nb = program_name(b);

	if (o->common.force || !na || !nb || strcmp(na, nb) == 0)
		return 0;
	analyze_error("diff: A is a trace of %s and B of %s: sites match only in modules of one "
		      "file name (build both as one name, or --force to compare anyway)", na, nb);
	return 2;
}

/* Writes the comparison to out in o's format, and the gate's verdict to
 * stderr: after the output, or, for a format that shows it (the page),
 * evaluated first and written before it.  Returns the exit status: 1 when
 * a condition held, else 2 when one was undecided. */
static int diff_write(FILE *out, const struct diff_options *o, struct diff *d)
{
	const struct diff_format *fmt = diff_format_find(o->common.format);
	struct diff_print print = {o->path_a, o->path_b, o->common.top_n, o->metric,
				   NULL, 0, NULL, 0, 0};
	char *gate = NULL;
	size_t bytes = 0, held = 0, undecided = 0;
	int rc;

	if (fmt->shows_gate) {
		FILE *mem = open_memstream(&gate, &bytes);

		if (mem)
			held = diff_gate(mem, d, o->conditions, o->condition_count, &undecided);
		if (!mem || fclose(mem) != 0) {
			free(gate);
			analyze_error("out of memory writing the %s output", fmt->name);
			return 2;
		}
		fputs(gate, stderr);
		print.conditions = o->conditions;
		print.condition_count = o->condition_count;
		print.gate = gate;
		print.held = held;
		print.undecided = undecided;
	}
	rc = fmt->write(out, d, &print);
	free(gate);
	if (rc < 0) {
		analyze_error("out of memory writing the %s output", fmt->name);
		return 2;
	}
	fflush(out);
	if (!fmt->shows_gate)
		held = diff_gate(stderr, d, o->conditions, o->condition_count, &undecided);
	return held ? 1 : undecided ? 2 : 0;
}

static int diff_run(const struct diff_options *o, const struct profile *a,
		    const struct profile *b)
{
	FILE *out = stdout;
	struct diff d;
	char err[256];
	bool known_a, known_b;
	int status;

	if ((status = same_program(o, a, b)) != 0)
		return status;
	if (diff_build(&d, a, b, o->match) < 0) {
		analyze_error("out of memory matching allocation sites");
		return 2;
	}
	if (!diff_field_known(&d, o->metric, &known_a, &known_b)) {
		analyze_error("diff: --metric temporary: temporary allocations have no estimate in "
			      "a sampled trace");
		diff_free(&d);
		return 2;
	}
	if (diff_gate_check(&d, o->conditions, o->condition_count, err, sizeof(err)) < 0) {
		analyze_error("diff: --fail-if %s", err);
		diff_free(&d);
		return 2;
	}
	if (strcmp(o->common.format, "text") != 0) {
		trace_set_warn(&a->info);
		trace_set_warn(&b->info);
	}
	if (diff_format_find(o->common.format)->bare) {
		note_metric("A", a, o->metric);
		note_metric("B", b, o->metric);
	}
	if (o->common.output && !(out = fopen(o->common.output, "w"))) {
		analyze_error("diff: cannot write %s: %s", o->common.output, strerror(errno));
		diff_free(&d);
		return 2;
	}
	status = diff_write(out, o, &d);
	if (out != stdout) {
		/* a write that failed before (a full disk) left the stream's error
		 * flag set and its buffer empty: fclose alone succeeds then */
		bool failed = fflush(out) != 0 || ferror(out);
		int write_errno = errno;

		if ((fclose(out) != 0 || failed) && status != 2) {
			analyze_error("diff: cannot write %s: %s", o->common.output,
				      strerror(failed && write_errno ? write_errno : errno));
			status = 2;
		}
	}
	diff_free(&d);
	return status;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_options o;
	struct profile *a, *b;
	struct site_options sopt;
	static char outbuf[1 << 16];
	int status, rc;

	memset(&o, 0, sizeof(o));
	rc = parse_options(argc, argv, &o);
	if (rc >= 0) {
		free(o.conditions);
		analyze_options_free(&o.common);
		return rc;
	}
	sopt.alloc_fns = o.common.alloc_fns;
	sopt.alloc_fn_count = o.common.alloc_fn_count;
	sopt.keep_wrappers = o.common.keep_wrappers;
	a = malloc(sizeof(*a));
	b = malloc(sizeof(*b));
	if (!a || !b) {
		analyze_error("out of memory");
		free(a);
		free(b);
		free(o.conditions);
		analyze_options_free(&o.common);
		return 2;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	/* both are read, so that both are complained about when both are bad */
	status = profile_load(a, o.path_a, &sopt, NULL);
	status |= profile_load(b, o.path_b, &sopt, NULL);
	status = status ? 2 : diff_run(&o, a, b);
	profile_free(a);
	profile_free(b);
	free(a);
	free(b);
	free(o.conditions);
	analyze_options_free(&o.common);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		analyze_error("diff: cannot write standard output: %s", strerror(errno));
		return 2;
	}
	return status;
}
