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
 * The program's own calls of _exit and _Exit (a forked child that must not
 * run its parent's exit handlers: redis's background save, Python's
 * os._exit) write the note too, then end as the C library's _exit does;
 * exit() reaches the kernel without them; so does an exit_group system
 * call made through syscall() (preload/syscall_wrap.c).  Images that end
 * by exec, a signal or an exit system call instruction of the program's
 * own (Go's runtime) leave no note (the exec hook notes the
 * peak RSS alone: exit_note_peak_rss_kib).  Must never allocate.
 *
 * A process under a seccomp filter (the program's sandbox, installed after
 * its setup; known without asking the kernel, preload/seccomp_watch.h) may
 * be killed for opening a file, so then nothing is opened:
 * the command line from the image's own argument memory (whose bounds are
 * read from /proc/self/stat only when a filter is known: at the start
 * under an inherited one, else just before the program installs one; an
 * image that never runs filtered reads its command line at the end); an
 * allow-list sandbox may kill for any other call as well (Firefox's refuses
 * mincore, msync and prctl), so whether that memory is mapped and the
 * process name are learnt with the bounds, and at exit (exit(), _exit) no
 * system call is made: the peak RSS (getrusage) is left to the launcher's
 * samples, the pid is the one kept, and _exit's stack room is judged from
 * the thread's own stack, not sigaltstack.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/exit_note.h"
#include "preload/namespaces.h"
#include "preload/new_bind.h"
#include "preload/exported.h"
#include "preload/init.h"
#include "preload/mem.h"
#include "preload/process.h"
#include "preload/procfile.h"
#include "preload/seccomp_watch.h"
#include "preload/stack_room.h"
#include "preload/thread_pointer.h"
#include "preload/sys.h"
#include "preload/timens.h"
#include "preload/thread.h"
#include "preload/toggle_signal.h"
#include "preload/unwind.h"
#include "trace/argv_quote.h"

#define EXIT_NOTE_PAGE_BYTES ((uintptr_t)4096)
/* The stack left on an alternate signal stack that the whole note needs,
 * with room to spare: gcc -fstack-usage puts its deepest chain (the names'
 * command line read) near 6 KiB.  With less, the status and time alone. */
#define EXIT_NOTE_FULL_STACK_BYTES (16u << 10)
/* The stack the status and time need (getpid and the vDSO's clock, some
 * hundred bytes): with less, no note at all, and _exit is the C library's
 * with no more stack than without mprof. */
#define EXIT_NOTE_STATUS_STACK_BYTES 1024u
#define EXIT_NOTE_COMMAND_RAW_BYTES 2048u /* as procfile_command reads */

/* getrusage's ru_maxrss when the image's file was made (KiB; UINT64_MAX:
 * unknown), and the bounds of its argument and environment strings
 * (fields 48-51 of /proc/self/stat; all 0: unknown), read once a filter is
 * known (exit_note_bounds_tried: 1 once read or tried). */
static uint64_t exit_note_start_maxrss_kib = UINT64_MAX;
static uintptr_t exit_note_arg_start, exit_note_arg_end, exit_note_env_start, exit_note_env_end;
static _Atomic int exit_note_bounds_tried;

/* Whether [exit_note_arg_start, exit_note_span_end()) was mapped when the
 * bounds were read, and the process name then ("" unknown): what the exit
 * note uses under a filter, which may refuse msync and prctl. */
static int exit_note_args_mapped;
static char exit_note_filter_comm[16 + 1];

/* Reads the argument and environment bounds from /proc/self/stat (the
 * fields after the parenthesised name, which may hold anything). */
static void exit_note_read_arg_bounds(void)
{
	char buf[2048];
	uintptr_t v[4] = { 0, 0, 0, 0 };
	ssize_t n = sys_read_file("/proc/self/stat", buf, sizeof(buf) - 1);
	const char *p;
	int field = 2;

	if (n <= 0)
		return;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return;
	for (p++; *p && field < 51;) {
		uintptr_t x = 0;

		while (*p == ' ')
			p++;
		field++;
		for (; *p >= '0' && *p <= '9'; p++)
			x = x * 10 + (uintptr_t)(*p - '0');
		while (*p && *p != ' ')
			p++;
		if (field >= 48)
			v[field - 48] = x;
	}
	if (field < 51)
		return;
	exit_note_arg_start = v[0];
	exit_note_arg_end = v[1];
	exit_note_env_start = v[2];
	exit_note_env_end = v[3];
}

/* The end of the argument memory the exit note may read: the argument
 * strings, and up to a page from their start when the environment strings
 * follow them (a title that overflows its area, exit_note_command_raw). */
static uintptr_t exit_note_span_end(void)
{
	uintptr_t start = exit_note_arg_start, end = exit_note_arg_end;
	uintptr_t env_end = exit_note_env_end, limit;

	if (exit_note_env_start != end || env_end < end)
		env_end = end;
	limit = env_end - start > EXIT_NOTE_PAGE_BYTES ? start + EXIT_NOTE_PAGE_BYTES : env_end;
	return limit > end ? limit : end;
}

void exit_note_keep_arg_bounds(void)
{
	uintptr_t start;

	if (atomic_exchange(&exit_note_bounds_tried, 1) != 0)
		return;
	exit_note_read_arg_bounds();
	start = exit_note_arg_start & ~(EXIT_NOTE_PAGE_BYTES - 1);
	exit_note_args_mapped = exit_note_arg_start && exit_note_arg_start < exit_note_arg_end &&
				sys_msync_check(start, exit_note_span_end() - start) == 0;
	if (!procfile_comm_own(exit_note_filter_comm, sizeof(exit_note_filter_comm)) &&
	    !seccomp_watch_filtered())
		procfile_comm(exit_note_filter_comm, sizeof(exit_note_filter_comm));
}

void exit_note_start(void)
{
	struct rusage self;

	exit_note_start_maxrss_kib = getrusage(RUSAGE_SELF, &self) == 0 && self.ru_maxrss > 0
					     ? (uint64_t)self.ru_maxrss
					     : UINT64_MAX;
	/* only a filtered end reads its command line from memory; an image
	 * that starts unfiltered reads the bounds when it installs one */
	if (seccomp_watch_filtered())
		exit_note_keep_arg_bounds();
}

/* VmHWM of /proc/self/status in KiB: this image's own peak RSS; 0 when
 * unreadable. */
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

/*
 * getrusage's ru_maxrss in KiB when it is this image's own peak RSS, else 0.
 * It is the highest of this image's peak and those of the images this
 * process executed before it, so it is the image's own only when it grew
 * since the image's start.  (Recent kernels count it from per-CPU batches
 * of pages: it may be below VmHWM by a few hundred KiB a CPU.)
 */
static uint64_t exit_note_rusage_kib(void)
{
	struct rusage self;

	if (getrusage(RUSAGE_SELF, &self) != 0 || self.ru_maxrss <= 0 ||
	    exit_note_start_maxrss_kib == UINT64_MAX ||
	    (uint64_t)self.ru_maxrss <= exit_note_start_maxrss_kib)
		return 0;
	return (uint64_t)self.ru_maxrss;
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

/* Whether every page of [lo, hi) is mapped: inside the argument memory
 * found mapped when its bounds were read (no system call: a filter may
 * refuse msync). */
static int exit_note_mapped(uintptr_t lo, uintptr_t hi)
{
	return hi > lo && exit_note_args_mapped && lo >= exit_note_arg_start &&
	       hi <= exit_note_span_end();
}

/*
 * The raw command line, read from the image's own memory as the kernel
 * reads /proc/self/cmdline (fs/proc/base.c, get_mm_cmdline): the argument
 * strings; or, when the program wrote over the last one's NUL
 * (setproctitle), from their start up to the first NUL, at most a page,
 * and into the environment strings only when they follow.  Returns the
 * bytes copied into raw (cap bytes), 0 when the bounds are unknown or not
 * mapped.
 */
static size_t exit_note_command_raw(char *raw, size_t cap)
{
	uintptr_t start = exit_note_arg_start, end = exit_note_arg_end;
	uintptr_t env_end = exit_note_env_end;
	size_t len;

	if (!start || start >= end || !exit_note_mapped(end - 1, end))
		return 0;
	if (exit_note_env_start != end || env_end < end)
		env_end = end;
	if (((const char *)end)[-1] == '\0') {
		len = end - start;
	} else {
		size_t limit = env_end - start, title;

		if (limit > EXIT_NOTE_PAGE_BYTES)
			limit = EXIT_NOTE_PAGE_BYTES;
		if (!exit_note_mapped(start, start + limit))
			return 0;
		title = strnlen((const char *)start, limit);
		len = title < limit ? title + 1 : limit; /* with its NUL */
	}
	if (len > cap)
		len = cap;
	if (!exit_note_mapped(start, start + len))
		return 0;
	memcpy(raw, (const char *)start, len);
	return len;
}

/* The command line now, quoted as procfile_command quotes it, without
 * opening a file. */
static void exit_note_command_own(char *out, size_t cap)
{
	char raw[EXIT_NOTE_COMMAND_RAW_BYTES];
	size_t n = exit_note_command_raw(raw, sizeof(raw));

	out[0] = '\0';
	if (n > 0)
		argv_quote_cmdline(out, cap, raw, n);
}

/* The command line and the process name now, each noted when it is not
 * the start's (forked workers retitle themselves after the fork); read
 * without opening a file when sandboxed, and the name also on the main
 * thread. */
static void exit_note_names(struct session_proc_header *h, int sandboxed)
{
	char command[sizeof(h->command)], comm[sizeof(h->comm)];

	if (sandboxed)
		exit_note_command_own(command, sizeof(command));
	else
		procfile_command(command, sizeof(command));
	if (strcmp(command, h->command) == 0)
		command[0] = '\0';
	exit_note_text(h->exit_command, sizeof(h->exit_command), command);
	/* on the main thread PR_GET_NAME gives what /proc/self/comm shows,
	 * without a file to open (a path walk in /proc at every process's end);
	 * under a filter, the name it had when the filter came */
	if (sandboxed)
		exit_note_text(comm, sizeof(comm), exit_note_filter_comm);
	else if (!procfile_comm_own(comm, sizeof(comm)))
		procfile_comm(comm, sizeof(comm));
	if (strcmp(comm, h->comm) == 0)
		comm[0] = '\0';
	exit_note_text(h->exit_comm, sizeof(h->exit_comm), comm);
	h->exit_names_how = sandboxed ? SESSION_EXIT_NAMES_FILTER : SESSION_EXIT_NAMES_READ;
}

uint64_t exit_note_peak_rss_kib(void)
{
	uint64_t kib;

	/* an allow-list filter may kill getrusage: the launcher's sampled
	 * figure stands in */
	if (seccomp_watch_filtered())
		return 0;
	kib = exit_note_hwm_kib();
	return kib ? kib : exit_note_rusage_kib();
}

/* This image's pid in its namespace; under a filter, which may kill getpid,
 * the one kept (a vfork child's exit() is then not told from its
 * parent's). */
static uint32_t exit_note_pid(void)
{
	if (seccomp_watch_filtered())
		return preload_proc.view.ns_pid;
	return (uint32_t)getpid();
}

/* The note: whole, or (full 0) the status and time alone, which take
 * little stack (the names and the peak RSS are then the launcher's).  Not
 * inlined: its callers' frames stay small. */
static __attribute__((noinline)) void exit_note_fill(int status, int full)
{
	struct session_proc_header *h = preload_proc.hdr;
	int sandboxed;

	/* a vfork child calling exit() shares the parent's memory */
	if (!h || h->ns_pid != exit_note_pid())
		return;
	h->exit_status = status;
	h->exit_mono_ns = timens_mono_ns();
	if (!full) {
		h->exit_names_how = SESSION_EXIT_NAMES_UNREAD;
		atomic_store_explicit(&h->exit_known, 1, memory_order_release);
		return;
	}
	toggle_signal_check();
	sandboxed = seccomp_watch_filtered();
	h->exit_maxrss_kib = exit_note_peak_rss_kib();
	h->exit_recorder_bytes = preload_mem_resident_bound();
	exit_note_names(h, sandboxed);
	if (!sandboxed) {
		namespaces_look();
		new_bind_redirect(); /* says whether a library's operator new went unseen */
	}
	atomic_store_explicit(&h->exit_known, 1, memory_order_release);
}

static void exit_note_write(int status, void *arg)
{
	(void)arg;
	exit_note_fill(status, 1);
}

/* The C library's _exit, looked up with the handler's registration (dlsym
 * may allocate: never in a vfork child's _exit); NULL before. */
static void (*volatile exit_note_next_exit)(int);

void exit_note_register(void)
{
	static int registered;

	if (registered || atomic_load(&preload_phase) != PRELOAD_READY)
		return;
	exit_note_next_exit = (void (*)(int))dlsym(RTLD_NEXT, "_exit");
	registered = on_exit(exit_note_write, NULL) == 0;
}

/* Under a filter, which may kill sigaltstack: whether the stack left below
 * the caller holds the whole note, 1 only on the thread's own stack with
 * the room (learnt without a system call on the main thread).  Not inlined:
 * exit_note_before_exit_call's frame stays small. */
static __attribute__((noinline)) int exit_note_filtered_roomy(void)
{
	struct preload_thread *t = preload_tls;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

	return (uintptr_t)t > (uintptr_t)THREAD_SETTING_UP && unwind_on_own_stack(t) &&
	       unwind_stack_room(t, sp, EXIT_NOTE_FULL_STACK_BYTES);
}

void exit_note_before_exit_call(int status)
{
	size_t room_bytes;

	if (!exit_note_next_exit || !thread_pointer_is_libc())
		return;
	if (seccomp_watch_filtered()) {
		exit_note_fill(status, exit_note_filtered_roomy());
		return;
	}
	room_bytes = stack_room_bytes();
	if (room_bytes >= EXIT_NOTE_STATUS_STACK_BYTES)
		exit_note_fill(status, room_bytes >= EXIT_NOTE_FULL_STACK_BYTES);
}

/* The note (exit_note_before_exit_call), then the end: the C library's
 * _exit, or its system call when that was not looked up.  Its own frame
 * is a few words: a handler on a nearly full alternate stack gets here. */
static inline __attribute__((always_inline, noreturn)) void exit_note_exit_now(int status)
{
	void (*next)(int) = exit_note_next_exit;

	if (next) {
		exit_note_before_exit_call(status);
		next(status);
	}
	for (;;)
		syscall(SYS_exit_group, status);
}

PRELOAD_API void _exit(int status)
{
	exit_note_exit_now(status);
}

PRELOAD_API void _Exit(int status)
{
	exit_note_exit_now(status);
}
