/*
 * cli/main.c - the mprof command: dispatches to a subcommand (run, report,
 * diff, help) and answers --help and --version.
 *
 * Owns only the dispatch.  Usage errors exit with status 2 through
 * mprof_die; help and version go to stdout because they were asked for.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/analyzer.h"
#include "cli/die.h"
#include "cli/help.h"
#include "cli/run.h"
#include "cli/self_command.h"

static int is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

static int help_main(int argc, char **argv)
{
	const char *command = argc > 1 ? argv[1] : NULL;

	if (!command)
		return help_print(stdout, NULL), 0;
	if ((strcmp(command, "report") == 0 || strcmp(command, "diff") == 0) &&
	    analyzer_available()) {
		char *args[] = { (char *)"--help", NULL };

		analyzer_exec(command, 1, args);
	}
	if (command && help_print(stdout, command) < 0)
		mprof_die(MPROF_EXIT_USAGE, "no help for '%s': it is not an mprof command", command);
	return 0;
}

static int report_main(int argc, char **argv)
{
	if (argc < 2)
		mprof_die(MPROF_EXIT_USAGE, "report: no TRACE given (see '%s report --help')",
			  self_command());
	if (argc == 2 && is_help(argv[1]) && !analyzer_available()) {
		help_print(stdout, "report");
		return 0;
	}
	analyzer_exec("report", argc - 1, argv + 1);
}

static int diff_main(int argc, char **argv)
{
	if (argc == 2 && is_help(argv[1]) && !analyzer_available()) {
		help_print(stdout, "diff");
		return 0;
	}
	if (argc < 2)
		mprof_die(MPROF_EXIT_USAGE, "diff: two traces needed (see '%s diff --help')",
			  self_command());
	analyzer_exec("diff", argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	const char *command;

	self_command_init(argv[0]);
	if (argc < 2) {
		help_print(stderr, NULL);
		return MPROF_EXIT_USAGE;
	}
	command = argv[1];
	if (is_help(command))
		return help_main(1, argv + 1);
	if (strcmp(command, "--version") == 0 || strcmp(command, "-V") == 0) {
		printf("mprof %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (strcmp(command, "help") == 0)
		return help_main(argc - 1, argv + 1);
	if (strcmp(command, "run") == 0)
		return run_main(argc - 1, argv + 1);
	if (strcmp(command, "report") == 0)
		return report_main(argc - 1, argv + 1);
	if (strcmp(command, "diff") == 0)
		return diff_main(argc - 1, argv + 1);
	mprof_die(MPROF_EXIT_USAGE, "'%s' is not an mprof command (see '%s --help')", command,
		  self_command());
}
