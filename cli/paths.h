/*
 * cli/paths.h - finding the other installed parts of mprof (the preload
 * library and the analyzer) relative to the running mprof binary.
 */
#ifndef MPROF_CLI_PATHS_H
#define MPROF_CLI_PATHS_H

/* Absolute path of libmprof_preload.so (MPROF_PRELOAD_LIB overrides), in
 * static storage.  The file may not exist: the caller checks. */
const char *mprof_path_preload(void);

/* Absolute path of mprof-analyze (MPROF_ANALYZE overrides), in static
 * storage.  The file may not exist: the caller checks. */
const char *mprof_path_analyzer(void);

#endif
