/*
 * preload/exit_note.c - the exit note: how a recorded process image ended
 * through exit(), written into its process file for the launcher.
 *
 * The launcher is not the parent of the program's children, so it cannot
 * learn their exit status, and wait4 gives the program's peak RSS merged
 * with that of the children it waited for.  An on_exit handler, registered
 * by the library constructor (never from an allocator call: on_exit takes
 * the C library's exit-handler lock, which a program registering a handler
 * holds while it allocates), notes the status, the time and the image's
 * own peak RSS (VmHWM), and its command line and process name when the
 * program changed them (its workers' titles: the launcher's table and the
 * reports name a process by them).  Registered before the program's
 * handlers and before the loader's destructor pass, it runs after them.
 * Images that end by _exit, exec or a signal leave no note.  Must never
 * allocate.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "preload/exit_note.h"
#include "preload/init.h"
#include "preload/process.h"
#include "preload/procfile.h"
#include "preload/sys.h"

/* VmHWM of /proc/self/status in KiB: this image's own peak RSS (getrusage's
 * includes the images this process executed before it); 0 when unreadable. */
static uint64_t exit_note_hwm_kib(void)
{
	char buf[4096];
	const char *p;
	uint64_t kib = 0;
	ssize_t n = sys_read_file("/proc/self/status", buf, sizeof(buf) - 1);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nVmHWM:");
	if (!p)
		return 0;
	for (p += 7; *p == ' ' || *p == '\t'; p++)
		;
	for (; *p >= '0' && *p <= '9'; p++)
		kib = kib * 10 + (uint64_t)(*p - '0');
	return kib;
}

/* Copies text into field[size], cut to fit, NUL-terminated. */
static void exit_note_text(char *field, size_t size, const char *text)
{
	size_t n = strlen(text);

	if (n >= size)
		n = size - 1;
	memcpy(field, text, n);
	field[n] = '\0';
}

/* The command line and the process name now, each noted when it is not
 * the start's (forked workers retitle themselves after the fork). */
static void exit_note_names(struct session_proc_header *h)
{
	char command[sizeof(h->command)], comm[sizeof(h->comm)];

	procfile_command(command, sizeof(command));
	if (strcmp(command, h->command) == 0)
		command[0] = '\0';
	exit_note_text(h->exit_command, sizeof(h->exit_command), command);
	procfile_comm(comm, sizeof(comm));
	if (strcmp(comm, h->comm) == 0)
		comm[0] = '\0';
	exit_note_text(h->exit_comm, sizeof(h->exit_comm), comm);
}

static void exit_note_write(int status, void *arg)
{
	struct session_proc_header *h = preload_proc.hdr;
	struct rusage self;
	struct timespec ts;

	(void)arg;
	/* a vfork child calling exit() shares the parent's memory */
	if (!h || h->pid != (uint32_t)getpid())
		return;
	h->exit_status = status;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	h->exit_mono_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	h->exit_maxrss_kib = exit_note_hwm_kib();
	if (!h->exit_maxrss_kib && getrusage(RUSAGE_SELF, &self) == 0)
		h->exit_maxrss_kib = (uint64_t)self.ru_maxrss;
	exit_note_names(h);
	atomic_store_explicit(&h->exit_known, 1, memory_order_release);
}

void exit_note_register(void)
{
	static int registered;

	if (registered || atomic_load(&preload_phase) != PRELOAD_READY)
		return;
	registered = on_exit(exit_note_write, NULL) == 0;
}
