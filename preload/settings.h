/*
 * preload/settings.h - reading the shim's configuration from the environment
 * that `mprof run` prepared (trace/session.h names the variables).
 */
#ifndef MPROF_PRELOAD_SETTINGS_H
#define MPROF_PRELOAD_SETTINGS_H

#include <stdint.h>

#include "preload/process.h"

/* Extra variable: pid of `mprof run`, inherited by every process it starts. */
#define PRELOAD_ENV_LAUNCHER_PID "MPROF_LAUNCHER_PID"

/* Testing aid, never set by mprof: ms the recorder sleeps between creating
 * its process file and marking it running, as a recorder kept off the CPU
 * at that point would (tests/e2e/slow-start.sh); above the maximum: none. */
#define PRELOAD_ENV_TEST_START_DELAY "MPROF_TEST_START_DELAY_MS"
#define PRELOAD_TEST_START_DELAY_MAX_MS 60000u
/* The static copy of the initial environment (settings.c), bytes. */
#define SETTINGS_ENV_BYTES (128u << 10)

/* The fewest thread slots a process file gets under an RLIMIT_AS (the
 * meta stream's and 7 threads'). */
#define SETTINGS_SLOTS_MIN 8u

/* Under an RLIMIT_AS the rings of a process file take at most this
 * fraction of the limit (1/128: 6 MiB of 768 MiB, 64 MiB of 8 GiB): a
 * program that needs nearly all its limit (thread stacks, the C library's
 * 64 MiB arenas) must not find ours in its way. */
#define SETTINGS_RINGS_LIMIT_SHARE 128u

/*
 * Thread slots of the process file under an RLIMIT_AS of as_limit_bytes
 * (RLIM_INFINITY: none): SESSION_DEFAULT_SLOTS without a limit; under one,
 * as many as keep the rings (slots x ring_bytes, sparse but counted as
 * address space) within SETTINGS_RINGS_LIMIT_SHARE of the limit,
 * and at least SETTINGS_SLOTS_MIN, so the program's own mappings do not fail because
 * of ours.
 */
uint32_t preload_settings_slots(uint64_t as_limit_bytes, uint32_t ring_bytes);

/* The process file of an image whose allocations a Valgrind tool serves
 * (nothing of the program's can be recorded): SETTINGS_SLOTS_MIN slots of
 * the smallest ring, about 0.5 MiB instead of 3 GiB, as memcheck's leak
 * check reads every readable mapping of its program (a minute and 3 GiB
 * resident for the default file). */
void preload_settings_unrecordable(struct preload_config *cfg);

/*
 * Fills cfg from the environment.  Returns 1 when this process image may be
 * recorded, 0 when the shim must stay inert (no MPROF_SESSION, AT_SECURE).
 * Whether it is the root process, which alone records under
 * MPROF_NO_CHILDREN=1, takes its pid as the launcher sees it
 * (preload_settings_is_root).  Never allocates.
 */
int preload_settings_read(struct preload_config *cfg);

/* Whether the image with the pids view is the program mprof started
 * (MPROF_ROOT_PID; unset: taken as the root). */
int preload_settings_is_root(const struct preload_config *cfg, const struct pidns_view *view);

/*
 * getenv for the shim: before libc has set environ (functions of a
 * program's .preinit_array run first, and may allocate), the variable is
 * looked up in the process's initial environment instead, from
 * /proc/self/environ.  The result is owned by libc or by a static buffer;
 * NULL when unset.  Never allocates.
 */
const char *preload_getenv(const char *name);

#endif
