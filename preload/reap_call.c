/*
 * preload/reap_call.c - notes how the child of a system() or popen() call
 * ended, in the image's reap table (trace/session.h), for the launcher.
 *
 * The C library reaps these children itself, by its internal waitpid, which
 * the wait family's wrappers (preload/reap_note.c) do not see; a shell that
 * ends by _exit() (dash does) or a command it executes that is killed would
 * otherwise end "without exit()" in its report.  The status system() or
 * pclose() returns is the kernel's word for that child, but not its pid:
 * each call writes a call entry with the time the call began (for pclose,
 * the time its popen() began) and the status, and the launcher gives it to
 * the one child of this image started in between.  Wraps system, popen and
 * pclose: arguments, return values, errno and blocking are the C library's.
 * system(NULL) (is there a shell?) returns no status: the C library's runs
 * a shell with "exit 0", and a non-zero return says it exited with 0.  A
 * system() that could not start its shell returns an exit status 127 of no
 * child and is not noted (system_spawn_failed).
 *
 * Owns the table of popen() streams and their start times: a fixed array
 * claimed by compare-and-swap, so no allocation and no lock; a stream it had
 * no room for (more than POPEN_STARTS_MAX open at once) is not noted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "preload/exported.h"
#include "preload/mem.h"
#include "preload/next_sym.h"
#include "preload/reap_note.h"
#include "preload/timens.h"

enum { NEXT_SYSTEM, NEXT_POPEN, NEXT_PCLOSE, NEXT_COUNT };
static const char *const next_names[NEXT_COUNT] = { "system", "popen", "pclose" };
static void *volatile next_slots[NEXT_COUNT];

static void *next_fn(int which)
{
	return next_sym(next_slots, next_names, which);
}

void reap_call_resolve(void)
{
	next_sym_resolve(next_slots, next_names, NEXT_COUNT);
}

/* CLOCK_MONOTONIC now in the launcher's time namespace (timens.h), ns. */
static uint64_t reap_call_now_ns(void)
{
	return timens_mono_ns();
}

#define POPEN_STARTS_MAX 64

/* An open popen() stream and when its popen() began; file 0: free. */
struct popen_start {
	_Atomic uintptr_t file;
	_Atomic uint64_t start_ns;
};

static struct popen_start popen_starts[POPEN_STARTS_MAX] PRELOAD_LARGE_BSS;

/* Takes stream f's start out of the table: its start time, or 0 when it
 * is not there. */
static uint64_t popen_start_take(FILE *f)
{
	for (int i = 0; i < POPEN_STARTS_MAX; i++) {
		uintptr_t want = (uintptr_t)f;
		uint64_t start;

		if (atomic_load(&popen_starts[i].file) != want)
			continue;
		/* read while the slot is f's: once freed, a put may reuse it */
		start = atomic_load(&popen_starts[i].start_ns);
		if (atomic_compare_exchange_strong(&popen_starts[i].file, &want, 0))
			return start;
	}
	return 0;
}

/* Puts stream f, whose popen() began at start_ns, in the table (after
 * dropping an entry a stream at the same address left, closed otherwise
 * than by pclose). */
static void popen_start_put(FILE *f, uint64_t start_ns)
{
	popen_start_take(f);
	for (int i = 0; i < POPEN_STARTS_MAX; i++) {
		uintptr_t free_file = 0;

		/* f is not the program's yet: no pclose(f) reads the slot before
		 * its start is stored */
		if (atomic_compare_exchange_strong(&popen_starts[i].file, &free_file,
						   (uintptr_t)f)) {
			atomic_store(&popen_starts[i].start_ns, start_ns);
			return;
		}
	}
}

/*
 * Whether a system() call that returned rc, with errno err (0 before the
 * call), started no shell: the C library returns the status of an
 * _exit(127) then and sets errno to why (glibc: posix_spawn's error),
 * while a shell's own exit 127 leaves errno alone but for EINTR from the
 * wait for it.  Its status belongs to no child.
 */
static int system_spawn_failed(int rc, int err)
{
	return WIFEXITED(rc) && WEXITSTATUS(rc) == 127 && err != 0 && err != EINTR;
}

PRELOAD_API int system(const char *command)
{
	int (*fn)(const char *) = (int (*)(const char *))next_fn(NEXT_SYSTEM);
	struct reap_wait w;
	uint64_t start_ns;
	int rc, err, before = errno;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	reap_note_enter(&w);
	start_ns = reap_call_now_ns();
	errno = 0;
	rc = fn(command);
	err = errno;
	if (command && rc != -1 && !system_spawn_failed(rc, err))
		reap_note_call(w.table, start_ns, rc);
	if (!command && rc != 0)
		reap_note_call(w.table, start_ns, 0); /* its shell ran "exit 0" */
	if (!err)
		err = before; /* the call set none: the caller's stays */
	reap_note_leave(&w);
	errno = err;
	return rc;
}

PRELOAD_API FILE *popen(const char *command, const char *type)
{
	FILE *(*fn)(const char *, const char *) =
		(FILE * (*)(const char *, const char *)) next_fn(NEXT_POPEN);
	uint64_t start_ns;
	FILE *f;
	int err;

	if (!fn) {
		errno = ENOSYS;
		return NULL;
	}
	start_ns = reap_call_now_ns();
	f = fn(command, type);
	err = errno;
	if (f && start_ns)
		popen_start_put(f, start_ns);
	errno = err;
	return f;
}

PRELOAD_API int pclose(FILE *f)
{
	int (*fn)(FILE *) = (int (*)(FILE *))next_fn(NEXT_PCLOSE);
	uint64_t start_ns = popen_start_take(f);
	struct reap_wait w;
	int rc, err;

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	reap_note_enter(&w);
	rc = fn(f);
	err = errno;
	if (rc != -1)
		reap_note_call(w.table, start_ns, rc);
	reap_note_leave(&w);
	errno = err;
	return rc;
}
