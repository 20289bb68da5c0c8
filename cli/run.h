/*
 * cli/run.h - `mprof run`.
 */
#ifndef MPROF_CLI_RUN_H
#define MPROF_CLI_RUN_H

/* Runs `mprof run` with argv[0] == "run"; returns the exit status. */
int run_main(int argc, char **argv);

#endif
