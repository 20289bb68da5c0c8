/*
 * cli/help.h - the help texts of mprof and its subcommands.
 */
#ifndef MPROF_CLI_HELP_H
#define MPROF_CLI_HELP_H

#include <stdio.h>

/* Prints the help of command ("run", "report", "diff"; NULL: mprof itself)
 * to out.  Returns 0, or -1 for an unknown command. */
int help_print(FILE *out, const char *command);

#endif
