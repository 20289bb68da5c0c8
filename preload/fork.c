/*
 * preload/fork.c - pthread_atfork handlers.
 *
 * Prepare (parent, before the copy): takes the shim's locks in a fixed
 * order and keeps threads out of the unwinder, so the child never inherits a
 * lock held by a thread that does not exist there.  Parent: releases them
 * and writes a FORK record with the child's pid.  Child: if children are not
 * recorded, or the process is under a seccomp filter (which may kill
 * the child for opening its file), the shim goes inert; otherwise it leaves
 * the parent's process file alone (unmaps it), creates its own
 * (is_fork_child, fork_seq, parent_file), empties the stack table, starts
 * the new file's meta stream in slot 0 before anything else is written
 * there, gives the calling thread a new slot and writes PROCESS and MODULES
 * records.  vfork and posix_spawn run no handlers and need none: their
 * children only exec.  A fork() made on an alternate signal stack with too
 * little left for the child's start (FORK_CHILD_STACK_BYTES) takes no lock
 * and makes an unrecorded child: the handlers then add a few words of
 * stack.  The same handlers run around a fork-like system call the program
 * makes through syscall() (preload/raw_fork.c).
 *
 * Owns the fork mailbox: a shared anonymous page in which a child stores
 * its pid, as the launcher sees it, for the parent (atfork handlers are not
 * told the pid).  It is mapped at a process's first fork, not at its start:
 * most recorded processes of a build (cc1, as, sed) never fork, and the
 * page cost each of them a shared mapping and its teardown.  Must never
 * call malloc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "preload/announce.h"
#include "preload/control.h"
#include "preload/exit_note.h"
#include "preload/fork.h"
#include "preload/init.h"
#include "preload/meta.h"
#include "preload/modules.h"
#include "preload/nested_heap.h"
#include "preload/pidns.h"
#include "preload/procfile.h"
#include "preload/rlimit.h"
#include "preload/seccomp_watch.h"
#include "preload/ring.h"
#include "preload/sample.h"
#include "preload/sample_set.h"
#include "preload/seq.h"
#include "preload/stack_room.h"
#include "preload/stack_table.h"
#include "preload/sys.h"
#include "preload/thread.h"
#include "preload/unwind.h"

#define FORK_MAILBOX_ENTRIES 1024u
/* The stack the child's start needs, with room to spare (creating its
 * process file and announcing it takes several KiB): a fork() from a
 * handler on an alternate signal stack with less left makes a child that
 * is not recorded, as the fork itself then fits where it fits without
 * mprof. */
#define FORK_CHILD_STACK_BYTES (16u << 10)

static _Atomic uint32_t *fork_mailbox;

enum fork_mode {
	FORK_IGNORED = 0, /* the shim was not recording */
	FORK_LOCKED = 1,  /* prepare holds the shim's locks */
	FORK_NESTED = 2,  /* fork() from a signal handler inside the shim */
	FORK_CRAMPED = 3, /* fork() on an alternate stack too small to record */
};

/* Set by prepare; forks are serialized by the shim's locks. */
static enum fork_mode fork_mode;
static uint32_t fork_entry;
static int fork_handlers_registered;

static uint32_t fork_token_static = 1;
uint32_t *preload_fork_token = &fork_token_static;

/* The token in a page of its own that children made without the fork
 * handlers get zeroed (MADV_WIPEONFORK, Linux 4.14); the static 1 when the
 * kernel refuses. */
static void fork_token_map(void)
{
	uint32_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	if (madvise(p, 4096, MADV_WIPEONFORK) != 0) {
		munmap(p, 4096);
		return;
	}
	*p = 1;
	preload_fork_token = p;
}

/* Maps the mailbox before the first fork that needs it; errno kept, as the
 * program's fork() would leave it.  Not under a seccomp filter, which may
 * kill mmap: the parent then does not learn the child's pid (0), whose own
 * file names its parent either way. */
static void fork_mailbox_map(void)
{
	int err = errno;
	void *p;

	if (fork_mailbox || seccomp_watch_filtered())
		return;
	p = mmap(NULL, FORK_MAILBOX_ENTRIES * sizeof(uint32_t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fork_mailbox = p == MAP_FAILED ? NULL : p;
	errno = err;
}

void fork_handler_prepare(void)
{
	if (atomic_load_explicit(&preload_phase, memory_order_acquire) != PRELOAD_READY)
		return;
	if (!*preload_fork_token) {
		/* a child the handlers did not see, forking before it recorded
		 * anything: it stops here, and its child with it */
		fork_unseen_child();
		return;
	}
	if (preload_thread_nested()) {
		/* This thread may hold a lock of ours: take none; the child,
		 * which could not record safely, goes inert. */
		fork_mode = FORK_NESTED;
		return;
	}
	if (stack_room_bytes() < FORK_CHILD_STACK_BYTES) {
		fork_mode = FORK_CRAMPED; /* likewise, for want of stack */
		return;
	}
	control_fork_prepare();
	unwind_fork_prepare();
	thread_fork_prepare();
	modules_fork_prepare();
	stack_table_fork_prepare();
	nested_heap_fork_prepare();
	sample_set_fork_prepare();
	sample_fork_prepare();
	fork_entry = (uint32_t)preload_tid() % FORK_MAILBOX_ENTRIES;
	fork_mailbox_map();
	if (fork_mailbox)
		atomic_store(&fork_mailbox[fork_entry], 0);
	fork_mode = FORK_LOCKED;
}

/* The pid the child posted in mailbox entry if it has already run its fork
 * handler, else 0.  The parent never waits for the child (yielding to it
 * held the parent's fork() while the child ran); the child's own file names
 * its parent either way. */
static uint32_t fork_child_pid(_Atomic uint32_t *mailbox, uint32_t entry)
{
	return mailbox ? atomic_load(&mailbox[entry]) : 0;
}

void fork_handler_parent(void)
{
	uint32_t entry = fork_entry, child_pid;

	if (fork_mode != FORK_LOCKED) {
		fork_mode = FORK_IGNORED;
		return;
	}
	fork_mode = FORK_IGNORED;
	sample_set_fork_release();
	nested_heap_fork_parent();
	stack_table_fork_parent();
	modules_fork_parent();
	unwind_fork_done();
	thread_fork_parent();
	control_fork_release();
	child_pid = fork_child_pid(fork_mailbox, entry);
	fork_note_child(child_pid);
}

void fork_note_child(uint32_t child_pid)
{
	struct preload_thread *t = preload_thread_enter();
	uint8_t *rec, *p;

	if (!t)
		return;
	rec = ring_reserve(t, RECORD_EXT_HEADER_BYTES + VARINT_MAX_BYTES);
	if (rec) {
		p = record_ext_begin(rec, TRACE_REC_EXT_FORK);
		p = varint_put_u64(p, child_pid);
		record_ext_end(rec, p);
		ring_commit(t, p);
	}
	preload_thread_leave(t);
}

/* Child: the shim stops here (children not recorded, or no new file). */
static void fork_child_go_inert(void)
{
	if (preload_proc.hdr)
		munmap(preload_proc.hdr, preload_proc.file_bytes);
	preload_proc.hdr = NULL;
	atomic_store(&preload_phase, PRELOAD_INERT);
}

void fork_unseen_child(void)
{
	if (fork_mode != FORK_IGNORED)
		return; /* inside fork(): the child handler comes */
	fork_child_go_inert();
}

/*
 * Child of a fork() made by a signal handler that interrupted the shim: the
 * interrupted call will resume and finish its record, so the parent's file
 * is replaced by private anonymous memory at the same address (the record
 * lands nowhere) instead of being unmapped under it.
 */
static void fork_child_go_inert_nested(void)
{
	if (preload_proc.hdr)
		mmap(preload_proc.hdr, preload_proc.file_bytes, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	atomic_store(&preload_phase, PRELOAD_INERT);
}

/* Child of a fork() made with too little stack to record it: the shim
 * stops (no lock was taken for it), the parent's file left mapped under a
 * seccomp filter, which may kill munmap, as fork_child_run does. */
static void fork_child_go_inert_cramped(void)
{
	if (seccomp_watch_filtered())
		preload_proc.hdr = NULL;
	fork_child_go_inert();
}

/*
 * Child: starts the meta stream of the new file, gives the calling thread
 * a slot and announces, with the start's diagnostics (the same image).
 * The thread is busy meanwhile, so an allocating signal handler cannot
 * re-enter a ring or the meta lock it holds.
 */
static void fork_child_start(struct preload_thread *self)
{
	struct preload_thread *t = self;

	if (meta_start() < 0)
		return;
	if (preload_proc.forward_only) {
		preload_announce_fork_child(); /* no thread records */
		return;
	}
	if (t) {
		t->tid = preload_tid();
		t->busy = 1;
		if (thread_slot_claim(t) < 0)
			return;
	} else {
		preload_tls = THREAD_SETTING_UP;
		t = thread_state_create();
		preload_tls = t;
		if (!t)
			return;
		t->busy = 1;
	}
	seq_own(t);
	preload_announce_fork_child();
	t->busy = 0;
}

/* Child of a fork the prepare handler locked for: its own process file
 * and recorder state.  Not inlined: a child of a fork made on a small
 * stack goes inert (fork_handler_child) without this frame. */
static __attribute__((noinline)) void fork_child_run(void)
{
	struct preload_thread *self = preload_tls;
	char parent_file[sizeof(preload_proc.file_name)];
	struct procfile_origin origin = { 1, 0, parent_file };
	struct session_proc_header *parent_hdr;
	uint64_t parent_bytes;
	int rc, sandboxed;

	fork_mode = FORK_IGNORED;
	/* under a filter the child maps and unmaps nothing: the filter may kill
	 * mmap, and the child records nothing anyway */
	sandboxed = seccomp_watch_filtered();
	/* the parent may have entered a new PID namespace for its children */
	pidns_view_read(&preload_proc.cfg.launcher_pidns, &preload_proc.view, sandboxed);
	if (fork_mailbox) {
		atomic_store(&fork_mailbox[fork_entry], preload_proc.view.pid);
		if (!sandboxed) { /* its own first fork maps its own */
			munmap((void *)fork_mailbox, FORK_MAILBOX_ENTRIES * sizeof(uint32_t));
			fork_mailbox = NULL;
		}
	}
	if ((uintptr_t)self <= (uintptr_t)THREAD_SETTING_UP)
		self = NULL;
	sample_set_fork_release();
	control_fork_release();
	nested_heap_fork_child();
	meta_fork_child();
	seq_fork_child();
	ring_fork_child();
	unwind_fork_done();
	modules_fork_child();
	origin.fork_seq = thread_fork_child(self);
	sample_fork_child(self);
	rlimit_fork_child();
	if (!preload_proc.cfg.record_children) {
		if (sandboxed)
			preload_proc.hdr = NULL; /* left mapped */
		fork_child_go_inert();
		return;
	}
	memcpy(parent_file, preload_proc.file_name, sizeof(parent_file));
	parent_hdr = preload_proc.hdr;
	parent_bytes = preload_proc.file_bytes;
	preload_proc.hdr = NULL;
	/* a sandbox that forbids opening files may kill the child for it; the
	 * parent's header tells the launcher of a child it cannot see, also one
	 * whose stack table could not be mapped (a filter refusing mmap with an
	 * error) */
	if (sandboxed)
		rc = -1;
	else if (stack_table_fork_child() < 0)
		rc = -ENOMEM;
	else
		rc = procfile_create(&preload_proc, &origin);
	if (sandboxed && parent_hdr) {
		atomic_fetch_add(&parent_hdr->children_sandboxed, 1);
	} else if (rc < 0 && parent_hdr) {
		atomic_store(&parent_hdr->children_unrecorded_errno, -rc);
		atomic_fetch_add(&parent_hdr->children_unrecorded, 1);
	}
	if (parent_hdr && !sandboxed)
		munmap(parent_hdr, parent_bytes);
	if (rc < 0) {
		fork_child_go_inert();
		return;
	}
	/* the calls of the program's child handlers that ran before this one
	 * (registered before the shim's) belong to this file */
	preload_flush_early_counts();
	exit_note_start();
	fork_child_start(self);
}

/* The child's errno is the parent's after fork() returns, as without the
 * recorder: a mapping refused by a seccomp filter must not show. */
void fork_handler_child(void)
{
	int err = errno;

	*preload_fork_token = 1; /* a child the handlers see */
	if (fork_mode == FORK_IGNORED)
		return;
	if (fork_mode == FORK_NESTED) {
		fork_mode = FORK_IGNORED;
		fork_child_go_inert_nested();
	} else if (fork_mode == FORK_CRAMPED) {
		fork_mode = FORK_IGNORED;
		fork_child_go_inert_cramped();
	} else {
		fork_child_run();
	}
	errno = err;
}

void preload_fork_init(void)
{
	if (preload_fork_token == &fork_token_static)
		fork_token_map();
	if (!fork_handlers_registered && pthread_atfork(fork_handler_prepare, fork_handler_parent, fork_handler_child) == 0)
		fork_handlers_registered = 1;
}
