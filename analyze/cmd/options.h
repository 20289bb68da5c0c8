/*
 * analyze/cmd/options.h - the command-line options that `mprof-analyze report`
 * and `mprof-analyze diff` share: -n/--top, -f/--format, --metric,
 * -o/--output, --alloc-fn, --keep-wrappers, -h; and report's --all,
 * --html FILE (--format html -o FILE), --sort, its time window (--from,
 * --to, --at) and filters (--filter-function, --exclude-function,
 * --suppressions); diff's --fail-if, --match, --force.
 */
#ifndef MPROF_ANALYZE_OPTIONS_H
#define MPROF_ANALYZE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyze/aggregate/window.h"

struct analyze_options {
	size_t top_n;               /* sites per ranking in text output */
	bool top_n_given;           /* -n was given: JSON keeps only ranked sites */
	const char *format;         /* -f/--format NAME (argv's), "text" by default;
	                             * each command checks it */
	const char *metric;         /* --metric NAME (argv's), or NULL */
	const char *output;         /* -o/--output FILE (argv's), or NULL: stdout */
	const char **alloc_fns;     /* owned array; the strings are argv's */
	size_t alloc_fn_count;
	bool keep_wrappers;         /* --keep-wrappers */
	bool all;                   /* report --all: each trace's whole run */
	const char **fail_if;       /* diff --fail-if EXPR... (owned array; argv's strings) */
	size_t fail_if_count;
	const char *match;          /* diff --match function|line, or NULL */
	bool force;                 /* diff --force: compare traces of different programs */
	struct window_spec window;  /* report --from/--to/--at (parsed) */
	const char **filter_fns;    /* report --filter-function GLOB...: owned
	                             * array, argv's strings */
	size_t filter_fn_count;
	const char **exclude_fns;   /* report --exclude-function GLOB... */
	size_t exclude_fn_count;
	const char *suppressions;   /* report --suppressions FILE, or NULL */
	const char *sort;           /* report --sort KEY (argv's), or NULL */
};

/*
 * Parses the shared options of subcommand cmd ("report", "diff") from
 * argv[1..]; usage prints cmd's help.  Returns -1 to go on (optind is then
 * the index of the first operand), or an exit status: 0 after --help, 1 out
 * of memory, 2 a usage error (already reported).  Free with
 * analyze_options_free whatever it returns.
 */
int analyze_options_parse(int argc, char **argv, const char *cmd, size_t default_top_n,
			  void (*usage)(FILE *out), struct analyze_options *o);

void analyze_options_free(struct analyze_options *o);

#endif
