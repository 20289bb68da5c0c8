/*
 * preload/init.c - bringing the shim up in a process image: resolving the
 * real allocator, reading the settings, creating the process file and its
 * meta stream, mapping the launcher file, loading the unwinder, scanning the
 * modules and writing the first records.
 *
 * Owns the UNSTARTED -> INITIALIZING -> READY/INERT transition and the
 * library constructor.  While it runs, allocator calls are not recorded
 * (this thread's callees use the nested heap, with signals blocked: an own
 * call, preload/own_call.h; other threads the real allocator or, before it
 * is resolved, the bootstrap arena); nobody ever waits for it.  Registers no signal handler but the toggle signal's, when
 * asked (preload/toggle_signal.h), and starts no thread; the constructor
 * registers the exit note (exit_note.h), the one exit hook.
 * Must never call malloc itself.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "preload/announce.h"
#include "preload/bootstrap.h"
#include "preload/cancel_watch.h"
#include "preload/control.h"
#include "preload/deep_bind.h"
#include "preload/diag.h"
#include "preload/drop_watch.h"
#include "preload/exec_watch.h"
#include "preload/exit_note.h"
#include "preload/fork.h"
#include "preload/import_bind.h"
#include "preload/init.h"
#include "preload/launcher_alive.h"
#include "preload/mem.h"
#include "preload/meta.h"
#include "preload/mlock_watch.h"
#include "preload/modules.h"
#include "preload/namespaces.h"
#include "preload/new_bind.h"
#include "preload/own_call.h"
#include "preload/pidns.h"
#include "preload/procfile.h"
#include "preload/real.h"
#include "preload/raw_fork.h"
#include "preload/reap_note.h"
#include "preload/rlimit.h"
#include "preload/ring.h"
#include "preload/sample.h"
#include "preload/seccomp_watch.h"
#include "preload/signal_wrap.h"
#include "preload/seq.h"
#include "preload/settings.h"
#include "preload/stack_scrub.h"
#include "preload/stack_table.h"
#include "preload/text.h"
#include "preload/thread.h"
#include "preload/thread_id.h"
#include "preload/thread_pointer.h"
#include "preload/toggle_signal.h"
#include "preload/unwind.h"
#include "preload/timens.h"

#define INIT_FOREIGN_TEXT_BYTES 1400u

/* The note given when the foreign malloc is seen calling the shim's. */
static char init_forward_text[INIT_FOREIGN_TEXT_BYTES] PRELOAD_LARGE_BSS;

static void init_read_exe(void)
{
	ssize_t n = readlink("/proc/self/exe", preload_proc.exe, sizeof(preload_proc.exe) - 1);

	preload_proc.exe[n > 0 ? n : 0] = '\0';
}

/*
 * Checks that "malloc" resolves to the shim's own definition.  If the
 * program (or a library ahead of the C library) defines malloc, its calls
 * never reach the shim: writes a sentence saying so into text, the
 * diagnostic code to give it with into *code, and returns 1.  A module
 * that calls the C library's __libc_malloc is taken for a malloc written
 * over it, as debug and hook wrappers are, whose blocks the shim's
 * __libc_malloc records: a note (TRACE_DIAG_INFO), not a warning
 * (TRACE_DIAG_FOREIGN_MALLOC).  The foreign malloc is never called.
 */
static int init_find_foreign_malloc(char *text, size_t cap, unsigned *code)
{
	struct link_map *map = NULL;
	int in_program, over_libc;
	const char *where;

	if (!real_foreign_definition("malloc", &map))
		return 0;
	/* The program's own link map has an empty name (dladdr reports argv[0]). */
	in_program = !map->l_name || !map->l_name[0];
	where = in_program ? preload_proc.exe : map->l_name;
	over_libc = import_module_slots(map, "__libc_malloc") > 0;
	text[0] = '\0';
	if (in_program) {
		preload_text_append(text, cap, "the program defines its own malloc (in ");
		preload_text_append(text, cap, where);
		preload_text_append(text, cap, over_libc ? ") over the C library's __libc_malloc"
						  : "): its allocations cannot be recorded");
	} else {
		preload_text_append(text, cap, "malloc is defined by ");
		preload_text_append(text, cap, where);
		preload_text_append(text, cap, over_libc ? ", ahead of the C library, over its "
							   "__libc_malloc"
						  : ", ahead of the C library: the program's "
						    "allocations cannot be recorded");
	}
	*code = over_libc ? TRACE_DIAG_INFO : TRACE_DIAG_FOREIGN_MALLOC;
	if (over_libc)
		preload_text_append(text, cap, ": what that returns is recorded, blocks it "
					       "serves itself are not");
	init_forward_text[0] = '\0';
	preload_text_append(init_forward_text, sizeof(init_forward_text),
			    in_program ? "the program's own malloc (in " : "the malloc of ");
	preload_text_append(init_forward_text, sizeof(init_forward_text), where);
	preload_text_append(init_forward_text, sizeof(init_forward_text),
			    in_program ? ")" : ", ahead of the C library,");
	preload_text_append(init_forward_text, sizeof(init_forward_text),
			    " calls mprof's (the next malloc, found with dlsym(RTLD_NEXT)): what "
			    "it gets there is recorded after all, blocks it serves itself are "
			    "not");
	return 1;
}

/* The C++ allocation functions whose import by a module makes the program
 * a C++ allocator's user (new, new[], their nothrow and aligned forms). */
static const char *const init_new_names[] = {
	"_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
	"_ZnwmSt11align_val_t", "_ZnamSt11align_val_t",
};

/* Whether a module other than definer calls one of init_new_names defined
 * elsewhere (the program or a library of it allocates with operator new;
 * the C++ library's calls of its own do not count). */
static int init_new_imported(const struct link_map *definer)
{
	for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next) {
		if (m == definer)
			continue;
		for (size_t i = 0; i < sizeof(init_new_names) / sizeof(init_new_names[0]); i++)
			if (import_module_imports(m, init_new_names[i]) > 0)
				return 1;
	}
	return 0;
}

/*
 * Checks whether C++ operator new bypasses malloc: the module whose
 * operator new the program calls is the allocator behind the shim (a
 * preloaded or linked jemalloc, tcmalloc or mimalloc defines new and delete
 * too, and they reach its heap without calling malloc and free), and a
 * module of the program uses operator new.  Then returns that module, its
 * name in *name.  With a foreign malloc ahead of the shim (said already)
 * or the C++ library's own operator new (which calls malloc) returns NULL.
 */
static struct link_map *init_find_foreign_new(const char **name)
{
	struct link_map *new_map = NULL, *malloc_map = NULL;
	Dl_info found;

	if (__atomic_load_n(&real.foreign, __ATOMIC_ACQUIRE) || !real.malloc ||
	    !real_foreign_definition("_Znwm", &new_map) || !new_map ||
	    !dladdr1((void *)real.malloc, &found, (void **)&malloc_map, RTLD_DL_LINKMAP) ||
	    malloc_map != new_map || !init_new_imported(new_map))
		return NULL;
	*name = new_map->l_name && new_map->l_name[0] ? new_map->l_name : preload_proc.exe;
	return new_map;
}

/*
 * Points the program's operator new and delete calls at the shim's
 * wrappers of allocator's (preload/new_bind.h), and writes what was done
 * into text: a note when they are recorded (returns TRACE_DIAG_INFO), the
 * warning that they are not when the allocator's forms could not be
 * wrapped or a slot not rewritten (returns TRACE_DIAG_FOREIGN_NEW).
 */
static unsigned init_bind_foreign_new(struct link_map *allocator, const char *name, char *text,
				      size_t cap)
{
	int bound = new_bind_start(allocator);

	text[0] = '\0';
	preload_text_append(text, cap, "C++ operator new and delete are served by ");
	preload_text_append(text, cap, name);
	if (bound >= 0) {
		preload_text_append(text, cap, ", the malloc behind mprof's, which never calls "
					       "malloc and free for them: mprof records them "
					       "through its own wrappers of that allocator's (as "
					       "malloc, memalign and free)");
		return TRACE_DIAG_INFO;
	}
	preload_text_append(text, cap, ", the malloc behind mprof's, which never calls "
				       "malloc and free for them, and mprof could not send them "
				       "through its wrappers: the program's C++ allocations "
				       "(new, delete) are not recorded, its malloc calls are");
	return TRACE_DIAG_FOREIGN_NEW;
}

/*
 * Finds the Valgrind tool that replaces malloc, if one runs the program: its
 * preloaded library (vgpreload_TOOL-ARCH.so, all but vgpreload_core's)
 * has every "malloc", "free" ... of every module redirected to the tool's,
 * the shim's too, so the program's calls never reach the shim, though
 * "malloc" resolves to it.  Valgrind always preloads vgpreload_core-ARCH.so
 * too: without it a library that is only named vgpreload_... is the
 * program's own.  Returns the tool library's file name, or NULL.
 */
static const char *init_find_valgrind_tool(void)
{
	static const char prefix[] = "vgpreload_";
	const char *tool = NULL;
	int core = 0;

	for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next) {
		const char *base = m->l_name ? strrchr(m->l_name, '/') : NULL;

		base = base ? base + 1 : m->l_name;
		if (!base || strncmp(base, prefix, sizeof(prefix) - 1) != 0)
			continue;
		if (strncmp(base, "vgpreload_core-", 15) == 0)
			core = 1;
		else if (!tool)
			tool = base;
	}
	return core ? tool : NULL;
}

/* Writes the sentence saying that the Valgrind tool's library tool serves
 * the program's allocations into text. */
static void init_valgrind_text(char *text, size_t cap, const char *tool)
{
	text[0] = '\0';
	preload_text_append(text, cap, "the program runs under a Valgrind tool that replaces "
				       "malloc (");
	preload_text_append(text, cap, tool);
	preload_text_append(text, cap, "): its allocations cannot be recorded");
}

/* Prepares the recorder for an image whose allocations the Valgrind tool
 * serves, before it maps anything: whatever it maps and writes there, the
 * tool sees as the program's (memcheck's leak check read the 3 GiB process
 * file for a minute, its stack scrubs were 256 errors, its reservation a
 * warning).  The process file only carries the header, the meta stream and
 * the note, so it gets the smallest rings.  The calls the tool does not
 * redirect (reallocarray, free_sized, the __libc_ names, the pool API) are
 * not recorded either: the blocks they make are freed past the shim, and
 * were reported as leaks; they forward (process.h, forward_only). */
static void init_valgrind_quiet(void)
{
	preload_mem_forgo_reservation();
	preload_stack_scrub_blind();
	preload_settings_unrecordable(&preload_proc.cfg);
	preload_proc.forward_only = 1;
}

void preload_init_foreign_forwards(void)
{
	int expected = 1;

	if (atomic_load_explicit(&preload_phase, memory_order_acquire) != PRELOAD_READY ||
	    !__atomic_compare_exchange_n(&real.foreign_forward_unseen, &expected, 0, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	diag_report(TRACE_DIAG_FOREIGN_FORWARDS, init_forward_text);
}

/* Does the work of preload_init_ensure; returns the next phase and, when
 * recording, the calling thread's state in *out. */
static int init_run(struct preload_thread **out)
{
	static char foreign_text[INIT_FOREIGN_TEXT_BYTES] PRELOAD_LARGE_BSS;
	static char new_text[INIT_FOREIGN_TEXT_BYTES] PRELOAD_LARGE_BSS;
	const struct procfile_origin origin = { 0, 0, NULL };
	unsigned foreign_code = TRACE_DIAG_FOREIGN_MALLOC;
	const char *valgrind_tool = init_find_valgrind_tool();
	int foreign, have_unwinder, valgrind_note = 0;
	struct link_map *new_allocator = NULL;
	const char *new_allocator_name = NULL;
	struct preload_thread *t;

	thread_pointer_start();
	real_resolve();
	/* before the first slot rewrite: under a filter inherited from the
	 * parent, slots are not written through /proc/self/mem (import_bind.c) */
	seccomp_watch_start();
	thread_id_start();
	real_route_behind();
	exec_watch_resolve();
	reap_note_resolve();
	cancel_watch_resolve();
	reap_call_resolve();
	raw_fork_resolve();
	rlimit_resolve();
	drop_watch_resolve();
	mlock_watch_resolve();
	signal_wrap_resolve();
	if (!preload_settings_read(&preload_proc.cfg))
		return PRELOAD_INERT;
	if (valgrind_tool)
		init_valgrind_quiet();
	pidns_view_read(&preload_proc.cfg.launcher_pidns, &preload_proc.view, 0);
	namespaces_start();
	timens_start();
	if (!preload_proc.cfg.record_children &&
	    !preload_settings_is_root(&preload_proc.cfg, &preload_proc.view))
		return PRELOAD_INERT;
	sample_configure(preload_proc.cfg.have_sample_seed, preload_proc.cfg.sample_seed);
	control_configure(preload_proc.cfg.paused, preload_proc.cfg.sample_interval_bytes);
	init_read_exe();
	preload_mem_count_segment();
	foreign = init_find_foreign_malloc(foreign_text, sizeof(foreign_text), &foreign_code);
	if (foreign)
		real_use_foreign();
	if (foreign && foreign_code == TRACE_DIAG_FOREIGN_MALLOC)
		__atomic_store_n(&real.foreign_forward_unseen, 1, __ATOMIC_RELEASE);
	if (!foreign && !valgrind_tool)
		new_allocator = init_find_foreign_new(&new_allocator_name);
	if (!foreign && valgrind_tool) {
		init_valgrind_text(foreign_text, sizeof(foreign_text), valgrind_tool);
		foreign = 1; /* announced only: no definition of its to call */
		foreign_code = TRACE_DIAG_FOREIGN_MALLOC;
		valgrind_note = 1;
	}
	if (stack_table_init() < 0 || procfile_create(&preload_proc, &origin) < 0)
		return PRELOAD_INERT;
	exit_note_start();
	/* a filter inherited may kill the prctl that asks; a ban on the
	 * counter set before an execve holds after it (noted: the process
	 * file is there) */
	if (seccomp_watch_filtered())
		ring_clock_use_coarse(0);
	else if (!event_clock_tsc_allowed())
		ring_clock_use_coarse(1);
	launcher_alive_map(preload_proc.cfg.session_dir);
	if (meta_start() < 0) {
		preload_process_disable("the metadata slot of the process file was taken");
		return PRELOAD_DISABLED;
	}
	have_unwinder = unwind_init() == 0;
	if (seccomp_watch_filtered()) {
		unwind_keep_before_filter();
		thread_id_keep_before_filter();
	}
	if (valgrind_note)
		unwind_lib_forgo();
	if (modules_init() < 0) {
		preload_process_disable("out of memory while scanning the modules");
		return PRELOAD_DISABLED;
	}
	deep_bind_redirect();
	if (new_allocator) {
		unsigned code = init_bind_foreign_new(new_allocator, new_allocator_name, new_text,
						      sizeof(new_text));

		preload_announce_foreign_new(new_text, code);
	}
	thread_key_init();
	preload_fork_init();
	if (preload_proc.cfg.toggle_signal) {
		int rc = toggle_signal_install(preload_proc.cfg.toggle_signal);

		if (rc == TOGGLE_SIGNAL_TAKEN)
			diag_report(TRACE_DIAG_INFO, "the program already handles or ignores the "
						     "toggle signal: it does not toggle recording");
		else if (rc == TOGGLE_SIGNAL_REFUSED)
			diag_report(TRACE_DIAG_INFO, "the toggle signal is not USR1, USR2 or a "
						     "real-time signal: nothing toggles recording");
	}
	if (!preload_proc.forward_only) {
		t = thread_state_create();
		if (!t)
			return PRELOAD_DISABLED;
		seq_own(t);
	} else {
		t = NULL; /* no thread records */
	}
	preload_announce(foreign ? foreign_text : NULL, foreign_code, have_unwinder);
	*out = t;
	return PRELOAD_READY;
}

void preload_init_ensure(void)
{
	int expected = PRELOAD_UNSTARTED;
	struct preload_thread *t = NULL;
	struct own_call own;
	int next;

	if (!atomic_compare_exchange_strong(&preload_phase, &expected, PRELOAD_INITIALIZING))
		return;
	own_call_enter(&own);
	preload_tls = THREAD_SETTING_UP;
	next = init_run(&t);
	preload_tls = t;
	own_call_leave(&own);
	expected = PRELOAD_INITIALIZING;
	atomic_compare_exchange_strong(&preload_phase, &expected, next);
	preload_flush_early_counts();
}

/* Initialises at load time when no allocation came first, so a program
 * whose allocator is not ours is still noticed and reported. */
__attribute__((constructor)) static void init_constructor(void)
{
	preload_init_ensure();
	exit_note_register();
}
