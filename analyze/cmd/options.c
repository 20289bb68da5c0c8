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

/* Appends name to the list *v of *n names; returns -1, or 1 out of memory. */
static int option_list_add(const char ***v, size_t *n, const char *name)
{
	const char **w = realloc(*v, (*n + 1) * sizeof(*w));

	if (!w) {
		analyze_error("out of memory");
		return 1;
	}
	*v = w;
	w[(*n)++] = name;
	return -1;
}

static int option_alloc_fn(struct analyze_options *o, const char *name)
{
	return option_list_add(&o->alloc_fns, &o->alloc_fn_count, name);
}

/* report's options of time and filters (F, T, W, G, X, S: long options
 * only); returns -1 to go on or an exit status. */
static int option_report_only(struct analyze_options *o, const char *cmd, int c,
			      void (*usage)(FILE *out))
{
	struct window_time *t = c == 'F' ? &o->window.from : c == 'T' ? &o->window.to
			      : &o->window.at;
	const char *opt = c == 'F' ? "--from" : c == 'T' ? "--to" : c == 'W' ? "--at"
			: c == 'G' ? "--filter-function" : c == 'X' ? "--exclude-function"
			: "--suppressions";

	if (strcmp(cmd, "report") != 0) {
		analyze_error("%s: unknown option '%s'", cmd, opt);
		usage(stderr);
		return 2;
	}
	switch (c) {
	case 'G':
		return option_list_add(&o->filter_fns, &o->filter_fn_count, optarg);
	case 'X':
		return option_list_add(&o->exclude_fns, &o->exclude_fn_count, optarg);
	case 'S':
		o->suppressions = optarg;
		return -1;
	}
	if (window_time_parse(optarg, t) < 0) {
		analyze_error("%s: %s wants a time from the start of the recording (2.5 or 2.5s, "
			      "300ms, 50%%), not '%s'", cmd, opt, optarg);
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
	/* mixed units are compared once the run time is known */
	if (w->to.given && (!w->from.given || w->from.percent == w->to.percent) &&
	    (w->to.percent ? w->from.share >= w->to.share : w->from.ns >= w->to.ns)) {
		analyze_error("%s: --from %s is not before --to %s", cmd,
			      w->from.given ? w->from.text : "0", w->to.text);
		return 2;
	}
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
		{"alloc-fn", required_argument, NULL, 'A'},
		{"keep-wrappers", no_argument, NULL, 'K'},
		{"all", no_argument, NULL, 'a'},
		{"from", required_argument, NULL, 'F'},
		{"to", required_argument, NULL, 'T'},
		{"at", required_argument, NULL, 'W'},
		{"filter-function", required_argument, NULL, 'G'},
		{"exclude-function", required_argument, NULL, 'X'},
		{"suppressions", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
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
			break;
		case 'M':
			o->metric = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'A':
			if ((rc = option_alloc_fn(o, optarg)) >= 0)
				return rc;
			break;
		case 'K':
			o->keep_wrappers = true;
			break;
		case 'a':
			if (strcmp(cmd, "report") != 0) {
				analyze_error("%s: unknown option '--all'", cmd);
				usage(stderr);
				return 2;
			}
			o->all = true;
			break;
		case 'F':
		case 'T':
		case 'W':
		case 'G':
		case 'X':
		case 'S':
			if ((rc = option_report_only(o, cmd, c, usage)) >= 0)
				return rc;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			analyze_error("%s: option '%s' needs an argument", cmd, argv[optind - 1]);
			return 2;
		default:
			analyze_error("%s: unknown option '%s'", cmd, argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	return options_window_check(o, cmd);
}

void analyze_options_free(struct analyze_options *o)
{
	free(o->alloc_fns);
	free(o->filter_fns);
	free(o->exclude_fns);
	o->alloc_fns = NULL;
	o->alloc_fn_count = 0;
	o->filter_fns = o->exclude_fns = NULL;
	o->filter_fn_count = o->exclude_fn_count = 0;
}
