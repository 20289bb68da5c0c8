/*
 * analyze/cmd/options.c - parsing the options `report` and `diff` share (see
 * options.h).  Reports usage errors through analyze_error; never exits.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/error.h"
#include "analyze/cmd/options.h"

/* Appends s to the list v (count n); returns -1 to go on or 1 (out of
 * memory, reported). */
static int list_add(const char ***v, size_t *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv) {
		analyze_error("out of memory");
		return 1;
	}
	*v = nv;
	(*v)[(*n)++] = s;
	return -1;
}

/* Reports option as one cmd does not take; returns 2. */
static int unknown_option(const char *cmd, const char *option)
{
	analyze_error("%s: unknown option '%s' (see '%s %s --help')", cmd, option,
		      analyze_command(), cmd);
	return 2;
}

/* Refuses an option that only cmd_only takes; returns 2 (reported) or -1. */
static int only_for(const char *cmd, const char *cmd_only, const char *option)
{
	return strcmp(cmd, cmd_only) == 0 ? -1 : unknown_option(cmd, option);
}

static int option_alloc_fn(struct analyze_options *o, const char *name)
{
	const char **v = realloc(o->alloc_fns, (o->alloc_fn_count + 1) * sizeof(*v));

	if (!v) {
		analyze_error("out of memory");
		return 1;
	}
	o->alloc_fns = v;
	o->alloc_fns[o->alloc_fn_count++] = name;
	return -1;
}

/* report's long options of time and filters, numbered past any letter */
enum {
	OPT_FROM = 256, OPT_TO, OPT_AT, OPT_FILTER_FUNCTION, OPT_EXCLUDE_FUNCTION,
	OPT_SUPPRESSIONS,
};

/* report's --from, --to, --at: a time parsed into t; returns -1 to go on
 * or 2 (reported). */
static int option_time(const char *cmd, const char *opt, struct window_time *t)
{
	if (window_time_parse(optarg, t) < 0) {
		analyze_error("%s: %s wants a time from the start of the recording (2.5 or 2.5s, "
			      "300ms, 50%%) or a marker (marker:NAME, marker:NAME#2), not '%s'",
			      cmd, opt, optarg);
		return 2;
	}
	return -1;
}

/* The time options together: --at is a moment, --from/--to a range. */
static int options_window_check(const struct analyze_options *o, const char *cmd)
{
	const struct window_spec *w = &o->window;

	if (w->at.given && (w->from.given || w->to.given)) {
		analyze_error("%s: --at is a moment; it does not go with --from or --to", cmd);
		return 2;
	}
	/* mixed units are compared once the run time is known, markers once
	 * they come */
	if (w->to.given && !w->to.marker && !w->from.marker &&
	    (!w->from.given || w->from.percent == w->to.percent) &&
	    (w->to.percent ? w->from.share >= w->to.share : w->from.ns >= w->to.ns)) {
		if (w->from.given)
			analyze_error("%s: --from %s is not before --to %s", cmd, w->from.text,
				      w->to.text);
		else
			analyze_error("%s: --to %s is not after the recording's start: the window "
				      "is empty", cmd, w->to.text);
		return 2;
	}
	return -1;
}

/* report --html FILE is --format html -o FILE: with another -f or -o, one
 * of the two would be dropped unseen, so that is a usage error.  Returns -1
 * to go on, or 2. */
static int options_html_check(struct analyze_options *o, const char *html_file,
			      const char *format_arg)
{
	if (!html_file)
		return -1;
	if (format_arg && strcmp(format_arg, "html") != 0) {
		analyze_error("report: --html %s writes an HTML page; it does not go with "
			      "--format %s (see '%s report --help')", html_file, format_arg,
			      analyze_command());
		return 2;
	}
	if (o->output && strcmp(o->output, html_file) != 0) {
		analyze_error("report: --html %s names the output file; it does not go with "
			      "-o %s (see '%s report --help')", html_file, o->output,
			      analyze_command());
		return 2;
	}
	o->format = "html";
	o->output = html_file;
	return -1;
}

int analyze_options_parse(int argc, char **argv, const char *cmd, size_t default_top_n,
			  void (*usage)(FILE *out), struct analyze_options *o)
{
	static const struct option longopts[] = {
		{"top", required_argument, NULL, 'n'},
		{"format", required_argument, NULL, 'f'},
		{"metric", required_argument, NULL, 'M'},
		{"output", required_argument, NULL, 'o'},
		{"html", required_argument, NULL, 'H'},
		{"fail-if", required_argument, NULL, 'F'},
		{"match", required_argument, NULL, 'm'},
		{"force", no_argument, NULL, 'O'},
		{"alloc-fn", required_argument, NULL, 'A'},
		{"keep-wrappers", no_argument, NULL, 'K'},
		{"all", no_argument, NULL, 'a'},
		{"from", required_argument, NULL, OPT_FROM},
		{"to", required_argument, NULL, OPT_TO},
		{"at", required_argument, NULL, OPT_AT},
		{"filter-function", required_argument, NULL, OPT_FILTER_FUNCTION},
		{"exclude-function", required_argument, NULL, OPT_EXCLUDE_FUNCTION},
		{"suppressions", required_argument, NULL, OPT_SUPPRESSIONS},
		{"sort", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *format_arg = NULL, *html_file = NULL; /* o->format has a default */
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->top_n = default_top_n;
	o->format = "text";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:f:o:h", longopts, NULL)) != -1) {
		char *end;
		unsigned long long v;

		switch (c) {
		case 'n':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-') {
				analyze_error("%s: -n wants a number, not '%s'", cmd, optarg);
				return 2;
			}
			o->top_n = (size_t)v;
			o->top_n_given = true;
			break;
		case 'f':
			o->format = optarg;
			format_arg = optarg;
			break;
		case 'M':
			o->metric = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'H':
			if ((rc = only_for(cmd, "report", "--html")) >= 0)
				return rc;
			html_file = optarg;
			break;
		case 'A':
			if ((rc = option_alloc_fn(o, optarg)) >= 0)
				return rc;
			break;
		case 'K':
			o->keep_wrappers = true;
			break;
		case 'F':
			if ((rc = only_for(cmd, "diff", "--fail-if")) >= 0 ||
			    (rc = list_add(&o->fail_if, &o->fail_if_count, optarg)) >= 0)
				return rc;
			break;
		case 'm':
			if ((rc = only_for(cmd, "diff", "--match")) >= 0)
				return rc;
			o->match = optarg;
			break;
		case 'O':
			if ((rc = only_for(cmd, "diff", "--force")) >= 0)
				return rc;
			o->force = true;
			break;
		case 'a':
			if ((rc = only_for(cmd, "report", "--all")) >= 0)
				return rc;
			o->all = true;
			break;
		case OPT_FROM:
			if ((rc = only_for(cmd, "report", "--from")) >= 0 ||
			    (rc = option_time(cmd, "--from", &o->window.from)) >= 0)
				return rc;
			break;
		case OPT_TO:
			if ((rc = only_for(cmd, "report", "--to")) >= 0 ||
			    (rc = option_time(cmd, "--to", &o->window.to)) >= 0)
				return rc;
			break;
		case OPT_AT:
			if ((rc = only_for(cmd, "report", "--at")) >= 0 ||
			    (rc = option_time(cmd, "--at", &o->window.at)) >= 0)
				return rc;
			break;
		case OPT_FILTER_FUNCTION:
			if ((rc = only_for(cmd, "report", "--filter-function")) >= 0 ||
			    (rc = list_add(&o->filter_fns, &o->filter_fn_count, optarg)) >= 0)
				return rc;
			break;
		case OPT_EXCLUDE_FUNCTION:
			if ((rc = only_for(cmd, "report", "--exclude-function")) >= 0 ||
			    (rc = list_add(&o->exclude_fns, &o->exclude_fn_count, optarg)) >= 0)
				return rc;
			break;
		case OPT_SUPPRESSIONS:
			if ((rc = only_for(cmd, "report", "--suppressions")) >= 0)
				return rc;
			o->suppressions = optarg;
			break;
		case 'S':
			if ((rc = only_for(cmd, "report", "--sort")) >= 0)
				return rc;
			o->sort = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			analyze_error("%s: option '%s' wants a value (see '%s %s --help')", cmd,
				      argv[optind - 1], analyze_command(), cmd);
			return 2;
		default:
			return unknown_option(cmd, argv[optind - 1]);
		}
	}
	if ((rc = options_html_check(o, html_file, format_arg)) >= 0)
		return rc;
	return options_window_check(o, cmd);
}

void analyze_options_free(struct analyze_options *o)
{
	free(o->alloc_fns);
	o->alloc_fns = NULL;
	free(o->fail_if);
	o->fail_if = NULL;
	o->fail_if_count = 0;
	o->alloc_fn_count = 0;
	free(o->filter_fns);
	free(o->exclude_fns);
	o->filter_fns = o->exclude_fns = NULL;
	o->filter_fn_count = o->exclude_fn_count = 0;
}
