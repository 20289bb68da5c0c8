/*
 * analyze/main.c - mprof-analyze, the analyzer binary that `mprof report`
 * and `mprof run` call: dispatches to the subcommands (report, diff,
 * symbolize).
 *
 * Owns the process exit status.  Exit statuses:
 * 0 success, 1 unreadable or corrupt input (or a failed write), 2 usage.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "analyze/cmd/diff.h"
#include "analyze/cmd/symbolize.h"
#include "analyze/cmd/report.h"
#include "analyze/util/error.h"
#include "analyze/util/hash_seed.h"

static void usage(FILE *out)
{
	fputs("usage: mprof-analyze report TRACE... [-f FORMAT] [OPTIONS]\n"
	      "       mprof-analyze diff A B [-f text|json|folded] [--fail-if EXPR]... [OPTIONS]\n"
	      "       mprof-analyze symbolize TRACE...\n"
	      "       mprof-analyze --help | --version\n"
	      "\n"
	      "  report     print a summary and the top allocation sites of each trace\n"
	      "  diff       compare trace B with trace A, allocation site by site\n"
	      "  symbolize  embed the symbols of each trace's modules in the trace\n"
	      "\n"
	      "'mprof-analyze report --help' and 'mprof-analyze diff --help' list the\n"
	      "options.  Usually run through `mprof report` and `mprof run`; see\n"
	      "mprof-report(1) and mprof-diff(1).\n",
	      out);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("mprof-analyze (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
		return 0;
	}
	analyze_command_init(argv[0]);
	hash_seed_init();
	/* Blocks of 1 MiB and more (the tables that grow with stacks and
	 * sites) are mappings of their own, given back when freed.  The C
	 * library's own threshold rises to 32 MiB once a mapping is freed, and
	 * the tables freed after that stayed resident in its heap: 17 MiB at
	 * the peak of the sites' build for 524,288 stacks. */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	/* Setting it fixes the trim threshold at 128 KiB: the heap given back
	 * and grown again with every trace of a set (a TLB flush and fresh
	 * zeroed pages each time) made `report --all` of 600 small traces 3
	 * times slower than with the C library's own rule, twice the mmap
	 * threshold. */
	mallopt(M_TRIM_THRESHOLD, 2 << 20);
	if (strcmp(argv[1], "report") == 0)
		return cmd_report(argc - 1, argv + 1);
	if (strcmp(argv[1], "diff") == 0)
		return cmd_diff(argc - 1, argv + 1);
	if (strcmp(argv[1], "symbolize") == 0) {
		if (argc < 3) {
			analyze_error("symbolize: no trace file given");
			usage(stderr);
			return 2;
		}
		if (strcmp(argv[2], "--request-fd") == 0) {
			char *end;
			long fd = argc == 4 ? strtol(argv[3], &end, 10) : -1;

			if (fd < 0 || fd > 1 << 20 || end == argv[3] || *end) {
				analyze_error("symbolize: --request-fd wants one descriptor number");
				return 2;
			}
			return cmd_symbolize_request((int)fd);
		}
		return cmd_symbolize(argc - 2, argv + 2);
	}
	analyze_error("unknown command '%s' (report, diff or symbolize)", argv[1]);
	usage(stderr);
	return 2;
}
