/*
 * trace/proc_name.h - the name mprof gives a process in its tables and
 * reports, as ps(1) would show it: its command line (quoted,
 * trace/argv_quote.h), the one it had at its end when the program renamed
 * itself (a forked worker's title), with the process name that
 * prctl(PR_SET_NAME) gave it in front, in brackets as ps writes a process
 * name, when the command line does not already hold that name.  Shared by
 * the launcher's table of processes and the analyzer; header-only.
 */
#ifndef MPROF_TRACE_PROC_NAME_H
#define MPROF_TRACE_PROC_NAME_H

#include <stdio.h>
#include <string.h>

/*
 * Writes the name of a process whose command line is command (NULL or "":
 * unknown) and whose changed process name is comm (NULL or "": not changed)
 * into out (cap bytes, NUL-terminated, cut to fit): "command",
 * "[comm] command", or "[comm]".  Returns out.
 */
static inline const char *proc_name_compose(const char *command, const char *comm, char *out,
					    size_t cap)
{
	const char *cmd = command ? command : "";

	if (!comm || !comm[0] || strstr(cmd, comm))
		snprintf(out, cap, "%s", cmd);
	else
		snprintf(out, cap, "[%s]%s%s", comm, cmd[0] ? " " : "", cmd);
	return out;
}

#endif
