/*
 * cli/self_command.h - the word that runs this mprof again from the user's
 * shell, for the messages that tell them a command to paste ("view it
 * with: mprof report F", "see 'mprof run --help'").
 */
#ifndef MPROF_CLI_SELF_COMMAND_H
#define MPROF_CLI_SELF_COMMAND_H

/* Keeps argv0 (main's argv[0], which must outlive the process's use of
 * self_command) for self_command to look at. */
void self_command_init(const char *argv0);

/* The command as one shell word: "mprof" when the shell finds this very
 * file by that name on PATH; else argv0 when it runs this file (a path
 * such as ./cli/mprof, or another name on PATH); else the file's own path
 * (/proc/self/exe).  Worked out on the first call and kept. */
const char *self_command(void);

#endif
