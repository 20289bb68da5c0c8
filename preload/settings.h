/*
 * preload/settings.h - reading the shim's configuration from the environment
 * that `mprof run` prepared (trace/session.h names the variables).
 */
#ifndef MPROF_PRELOAD_SETTINGS_H
#define MPROF_PRELOAD_SETTINGS_H

#include "preload/process.h"

/* Extra variable: pid of `mprof run`, inherited by every process it starts. */
#define PRELOAD_ENV_LAUNCHER_PID "MPROF_LAUNCHER_PID"

/*
 * Fills cfg from the environment.  Returns 1 when this process image is to
 * be recorded, 0 when the shim must stay inert (no MPROF_SESSION, AT_SECURE,
 * or MPROF_NO_CHILDREN=1 and this is not the root process).  Never
 * allocates.
 */
int preload_settings_read(struct preload_config *cfg);

#endif
