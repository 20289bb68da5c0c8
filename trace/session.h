/*
 * trace/session.h - the shared-memory layout between the preload shim and
 * the `mprof run` launcher (the collector).
 *
 * `mprof run` makes a session directory (on /dev/shm when it can) and passes
 * its absolute path to the target in MPROF_SESSION.  Every process image the
 * shim starts in (the first program, each fork child, each exec'd program)
 * creates one process file there, named "p.PID.SERIAL" (PID: the header's
 * pid, as the launcher sees it; SERIAL: a random 64-bit hex number), sized
 * with ftruncate, mapped MAP_SHARED and its descriptor closed at once: the
 * shim holds no descriptor of the target's afterwards, and whatever it
 * stored in the mapping survives _exit, abort, exec and SIGKILL because the
 * launcher reads the same file.
 *
 * Process file layout (all offsets in bytes, little-endian host order):
 *   0                          struct session_proc_header (one page)
 *   SESSION_REAPS_OFFSET       struct session_reaps (one page)
 *   SESSION_SLOTS_OFFSET       nslots x struct session_slot (128 bytes each)
 *   ring_offset                nslots rings of ring_bytes each
 *
 * One slot is one thread's ring of EVENTS records (trace/record.h).  The
 * owner thread is its only writer; it publishes records with a release store
 * of write_pos (bytes ever written).  The collector copies [read_pos,
 * write_pos) and publishes how far it read with a release store of read_pos.
 * A record never straddles the ring's end: the writer fills the tail with PAD
 * bytes (0x00) and goes on at the start of the next lap.  A ring that is
 * full blocks its writer until the collector reads (nothing is dropped).
 * When the owner thread exits it stores SLOT_RETIRED; the collector drains
 * the ring, punches its pages out of the file and stores SLOT_FREE; any
 * thread may then claim the slot with a compare-and-swap FREE -> OWNED.
 */
#ifndef MPROF_TRACE_SESSION_H
#define MPROF_TRACE_SESSION_H

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define SESSION_ENV "MPROF_SESSION"       /* session directory, absolute */
#define SESSION_ENV_MAX_FRAMES "MPROF_MAX_FRAMES"
#define SESSION_ENV_NO_CHILDREN "MPROF_NO_CHILDREN" /* "1": only the first process */
#define SESSION_ENV_RING_KIB "MPROF_RING_KIB"
#define SESSION_ENV_ROOT_PID "MPROF_ROOT_PID" /* pid of the first program */
/* The launcher's PID namespace, "NS_DEV:NS_INO:PROC_DEV": st_dev and st_ino
 * of its /proc/self/ns/pid, and st_dev of its /proc when that shows its own
 * namespace (else 0).  A recorder in another namespace learns from it where
 * to read the pid the launcher knows it by (preload/pidns.c). */
#define SESSION_ENV_LAUNCHER_PIDNS "MPROF_LAUNCHER_PIDNS"
#define SESSION_ENV_SAMPLE_RATE "MPROF_SAMPLE_RATE" /* sampling interval, bytes; unset: exact */
#define SESSION_ENV_SAMPLE_SEED "MPROF_SAMPLE_SEED" /* seed of the samplers' generators */
#define SESSION_ENV_PAUSED "MPROF_PAUSED" /* "1": recording starts stopped */
#define SESSION_ENV_TOGGLE_SIGNAL "MPROF_TOGGLE_SIGNAL" /* signal number that toggles recording */

/* Whether signal sig may toggle recording: SIGUSR1, SIGUSR2, or a real-time
 * signal SIGRTMIN..SIGRTMAX as the C library sees them at run time.  Only
 * these have no meaning until a program gives them one: a fault's signal
 * caught returns to the faulting instruction, and the kernel, a terminal or
 * the C library send the others for reasons of their own. */
static inline bool session_toggle_signal_ok(int sig)
{
	return sig == SIGUSR1 || sig == SIGUSR2 || (sig >= SIGRTMIN && sig <= SIGRTMAX);
}

/* Whether err, from a path walk to the session directory, says that the
 * process no longer sees it: it changed its root directory or mounted over
 * the directory's parent (ENOENT, ENOTDIR), or its root is a /proc
 * directory of a process that has ended (ESRCH: Chromium's sandbox roots
 * itself in /proc/self/fdinfo of a child that then exits). */
static inline bool session_dir_gone_errno(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ESRCH;
}

#define SESSION_PROC_MAGIC 0x4d48535f464f5250ull /* "PROF_SHM" */
#define SESSION_VERSION 20 /* changes with the layout and with the trace
                            * format major of the records the rings hold;
                            * 3: the shim writes every block reference
                            * explicitly, the launcher re-encodes them;
                            * 4: the exit note (exit_*); 6: fork children
                            * left unrecorded (children_unrecorded*) and
                            * each image's sample_seed, sample_rate, paused;
                            * 7: execs_unrecorded, comm, exit_command
                            * and exit_comm; 8: pid and ppid are the
                            * launcher's view, ns_pid the image's own;
                            * the launcher file; 9: children_sandboxed;
                            * 10: the reap table; 11: exec_self_euid;
                            * 12: children_raw; 13: the reap table's
                            * call entries (call_start_ns); 14:
                            * children_own_stack; 15: the reap table's
                            * waiter entries; 16: its taken count;
                            * 17: the launcher's long idle waits
                            * (SESSION_TIME_TICK_ASLEEP, the launcher
                            * file's wake); 18: execs_unreachable,
                            * exit_command 664 bytes (768); 19:
                            * execs_unseen, exec_self_unseen,
                            * exit_command 552 bytes; 20:
                            * exec_unreachable_mixed_ids */
/* The largest sampling interval, bytes (--sample-rate, mprof_start): a
 * sample's weight 1/p is at most the interval plus one half, so every
 * weight stays below the sampler's cap of 2^32 - 1 (preload/sample.c). */
#define SESSION_SAMPLE_RATE_MAX_BYTES (UINT64_C(1) << 30)
#define SESSION_PAGE_BYTES 4096u
#define SESSION_REAPS_OFFSET SESSION_PAGE_BYTES
#define SESSION_SLOTS_OFFSET (2 * SESSION_PAGE_BYTES)
#define SESSION_DEFAULT_SLOTS 4096u
/* The shim's explicit records are about a third longer than the compact
 * ones the launcher makes of them: 768 KiB hold about what 512 KiB held
 * before, and python3's trace is as small as then (1.23 MB; with 512 KiB
 * the launcher drained and compressed in smaller pieces: 1.31 MB). */
#define SESSION_DEFAULT_RING_BYTES (768u << 10)
#define SESSION_DEFAULT_MAX_FRAMES 64u
/* The largest ring a thread gets (MPROF_RING_KIB is clamped to it): the
 * launcher takes a ring's content as one chunk, and readers refuse chunks
 * over 64 MiB (TRACE_CHUNK_MAX_RAW_BYTES, trace/format.h). */
#define SESSION_RING_MAX_BYTES ((64u << 20) - SESSION_PAGE_BYTES)

/* session_proc_header.exit_names_how */
#define SESSION_EXIT_NAMES_READ 0u    /* read at exit */
#define SESSION_EXIT_NAMES_FILTER 1u  /* under a seccomp filter: exit_comm the filter's */
#define SESSION_EXIT_NAMES_UNREAD 2u  /* not read: exit_command, exit_comm empty */

/* Slot 0 holds the process's metadata stream (STACK, MODULES, PROCESS and
 * DIAG records, written by any thread under the shim's lock) when the
 * header's flags say SESSION_FLAG_META_SLOT; threads then claim slots from 1. */
#define SESSION_META_SLOT 0u
#define SESSION_FLAG_META_SLOT 1u

enum session_proc_state {
	PROC_STARTING = 0,  /* header being filled in */
	PROC_RUNNING = 1,
	PROC_DISABLED = 2,  /* the shim stopped recording; see DIAG records */
	/* Stored by the launcher when it found the file's rings inconsistent
	 * (the program wrote over them) and stopped reading them: a recorder
	 * thread waiting for room stops recording instead (preload/ring.c). */
	PROC_ABANDONED = 3,
};

enum session_slot_state {
	SLOT_FREE = 0,
	SLOT_OWNED = 1,
	SLOT_RETIRED = 2,
};

struct session_proc_header {
	uint64_t magic;              /* SESSION_PROC_MAGIC */
	uint32_t version;            /* SESSION_VERSION */
	_Atomic uint32_t state;      /* enum session_proc_state, release-stored */
	/* The image's pid and its parent's in the launcher's PID namespace
	 * (preload/pidns.h), which the file name carries too; 0: unknown (an
	 * image in a namespace of its own whose /proc is not the launcher's:
	 * the launcher looks for it by ns_pid and pidns_*).  ns_pid: its
	 * getpid(), in its own namespace. */
	uint32_t pid, ppid;
	uint32_t ns_pid;
	uint32_t nslots;             /* number of slots */
	uint32_t ring_bytes;         /* bytes per ring, a multiple of the page size */
	uint64_t ring_offset;        /* file offset of ring 0 */
	uint64_t file_bytes;         /* total size of the process file */
	uint32_t launcher_pid;       /* writers stop waiting if it is gone */
	uint32_t is_fork_child;      /* 1: made by fork() in a recorded process */
	uint64_t fork_seq;           /* fork child: parent's seq at the fork */
	char parent_file[64];        /* fork child: parent's process file name */
	char exe[1024];              /* /proc/self/exe at start, NUL-terminated */
	char command[1024];          /* the image's own command line, quoted
	                              * (trace/argv_quote.h), cut to fit, NUL-
	                              * terminated: /proc/PID/cmdline may already
	                              * be a later image's when the launcher looks */
	uint8_t pad1[64];
	_Atomic uint64_t seq;        /* last sequence number handed out; own cache line */
	uint8_t pad2[56];
	_Atomic uint64_t waits;      /* times a writer found its ring full */
	_Atomic uint64_t unrecorded_allocs; /* the program's, served but not
	                                     * recorded (before init finished,
	                                     * from a signal handler that
	                                     * interrupted the recorder) */
	_Atomic uint64_t unrecorded_frees;
	_Atomic uint32_t diag_flags; /* 1 << enum trace_diag_code, for the launcher */
	char diag_text[512];         /* last diagnostic, NUL-terminated */
	uint64_t sample_rate;        /* the image's sampling interval at its start,
	                              * bytes (0: exact), as its environment says */
	uint32_t paused;             /* 1: it started with recording stopped */
	/* 1 while the launcher passes a toggle signal on to the image: stored
	 * before it reads TRACE_DIAG_TOGGLE_TAKEN in diag_flags, cleared after
	 * its kill(); a recorder that sets that flag waits for 0 before the
	 * program's disposition takes effect (preload/toggle_signal.h).  In
	 * what was padding: the layout is unchanged. */
	_Atomic uint32_t toggle_passing;
	uint64_t sample_seed;        /* the image's sampler seed (preload/sample.h),
	                              * set before state leaves STARTING */
	uint32_t flags;              /* SESSION_FLAG_*, set before state leaves STARTING */
	/* The exit note, written by the shim's on_exit handler when the image
	 * ends through exit() (not _exit, exec or a signal): exit_known is
	 * release-stored last, to 1. */
	_Atomic uint32_t exit_known;
	int32_t exit_status;         /* the status given to exit() */
	/* How exit_command and exit_comm were read (SESSION_EXIT_NAMES_*):
	 * at exit; under a seccomp filter, so exit_comm is the name the image
	 * had when the filter came (no call may ask for it at exit); or not at
	 * all (an _exit on a small alternate signal stack: the launcher's look
	 * stands).  In what was padding: the layout is unchanged. */
	uint32_t exit_names_how;
	uint64_t exit_mono_ns;       /* CLOCK_MONOTONIC then */
	uint64_t exit_maxrss_kib;    /* the image's own peak RSS (VmHWM, or
	                              * getrusage's when that proves it), KiB;
	                              * 0: unknown.  Also written before an exec
	                              * of the image's own, before exec_self
	                              * (0 again if the exec fails) */
	/* The most the recorder's own mappings can have had resident
	 * (preload_mem_resident_bound), bytes, written with exit_maxrss_kib;
	 * 0: unknown (recorder_map_bytes then bounds them). */
	uint64_t exit_recorder_bytes;
	/* The image's PID namespace: st_dev and st_ino of its
	 * /proc/self/ns/pid (0, 0: unknown); set at the start. */
	uint64_t pidns_dev, pidns_ino;
	/* Only SESSION_TIME_TICK_ASLEEP counts: the launcher sets it before a
	 * long idle wait and clears it after; meanwhile a thread whose ring
	 * fills to a quarter wakes the launcher (struct session_launcher's
	 * wake).  The other bits once carried a 10 ms tick that timed events;
	 * threads now time them by their own event clock (preload/ring.h
	 * ring_time_fresh).  Own cache line: read by ring_wake_check. */
	_Alignas(64) _Atomic uint32_t time_tick;
	/* The recorder's own anonymous mappings, bytes (an upper bound of its
	 * memory besides the rings of this file). */
	_Alignas(64) _Atomic uint64_t recorder_map_bytes;
	/* One more than the highest slot index ever claimed, raised (release)
	 * by a claimer before it writes to the slot: the launcher's sweeps read
	 * no slot above it, so they never touch, and make the kernel allocate,
	 * the pages of a slot table a process uses little of. */
	_Atomic uint32_t slots_high;
	/* Fork children whose recorder could not create their own process
	 * file, so they run unrecorded (each adds 1 in its parent's header
	 * before it lets go of it), and the errno of the last one. */
	_Atomic uint32_t children_unrecorded;
	_Atomic int32_t children_unrecorded_errno;
	/* Programs this image spawned, or its vfork children executed, with an
	 * environment that drops the recorder (preload/exec_watch.c), so they
	 * run unrecorded, and the first one's path as the call named it, cut
	 * to fit. */
	_Atomic uint32_t execs_unrecorded;
	char exec_unrecorded_path[104];
	/* 1 while this image itself is inside an exec call (left 1 when the
	 * exec succeeded: the image was replaced), with the path as the call
	 * named it, cut to fit, and whether the environment passed on drops
	 * the recorder; release-stored last.  An image with exec_self 1 whose
	 * pid shows no later process file executed a program not recorded. */
	_Atomic uint32_t exec_self;
	uint32_t exec_self_dropped;
	char exec_self_path[128];
	/* The image's process name (/proc/self/comm: the kernel's, or what
	 * prctl(PR_SET_NAME) gave it; a fork child's is its parent's then)
	 * when the file was made, NUL-terminated. */
	char comm[16];
	/* Part of the exit note, written before exit_known: the command line
	 * and the process name at exit(), each left empty when it is the one
	 * of the start (command, comm) or cannot be read.  A program may
	 * rename itself after the start, as forked workers do (nginx,
	 * postgres: argv overwritten in place, or PR_SET_NAME).  The command
	 * line is quoted as command is, cut to fit. */
	char exit_command[552];
	char exit_comm[16];
	/* Fork children that run unrecorded because this image was under a
	 * seccomp filter, which may kill a process for opening a file, so
	 * their recorder did not try to create a process file (each adds 1
	 * here, as children_unrecorded). */
	_Atomic uint32_t children_sandboxed;
	/* The image's effective user ID when it noted exec_self (written
	 * before exec_self): a program executed after the image changed its
	 * user (su, a daemon dropping root) cannot write in the launcher's
	 * session directory, so its recorder never starts. */
	uint32_t exec_self_euid;
	/* Children this image made by a fork-like system call through
	 * syscall() (SYS_fork; SYS_clone, SYS_clone3 without CLONE_VM) while
	 * it had more than one thread, or when /proc could not tell: they run
	 * unrecorded (preload/raw_fork.c). */
	_Atomic uint32_t children_raw;
	/* Children this image made without CLONE_VM on a stack or TLS of
	 * their own (the C library's clone(); SYS_clone, SYS_clone3 with a
	 * stack or CLONE_SETTLS): they run unrecorded (preload/raw_fork.c). */
	_Atomic uint32_t children_own_stack;
	/* Programs this image spawned, or its vfork children executed, with
	 * the recorder in their environment, that the loader will not load it
	 * into: statically linked, set-user-ID, set-group-ID, with file
	 * capabilities, or started with mixed IDs; or that were started
	 * without it: 32-bit, or built with a sanitizer whose runtime must
	 * come first (preload/exec_reach.h); the first one's path as the call
	 * named it, cut to fit. */
	_Atomic uint32_t execs_unreachable;
	char exec_unreachable_path[104];
	/* Programs this image spawned, or its vfork children executed, with
	 * the recorder in their environment, while mprof's session directory
	 * was not to be seen (a chroot, a mount over its parent in a mount
	 * namespace of the image's own), so their recorder cannot create a
	 * process file; the first one's path as the call named it, cut to fit.
	 * exec_self_unseen: the same for the program of exec_self (written
	 * before exec_self). */
	_Atomic uint32_t execs_unseen;
	char exec_unseen_path[104];
	uint32_t exec_self_unseen;
	/* For the first of execs_unreachable (written before its path): 1 when
	 * the effective user or group ID of the process that made the call was
	 * not its real one, which puts every program it executes in
	 * secure-execution mode (a process of root's that called seteuid()). */
	uint32_t exec_unreachable_mixed_ids;
};

/* A bound of the event clock's grain (trace/event_clock.h: 2^22 ticks of a
 * counter of 1 GHz or more, or a scheduler tick at HZ 100), ns: the bound
 * tests allow an event's time. */
#define SESSION_TIME_TICK_NS 10000000ull
#define SESSION_TIME_TICK_ASLEEP 0x80000000u

/*
 * The reap table, the page after the header: the children this image
 * reaped through the C library's wait family (wait, waitpid, wait3, wait4,
 * waitid; preload/reap_note.c), each with the status the call returned, so
 * that the launcher knows how a child ended that left no exit note and was
 * never a zombie long enough to be read.  A call entry (call_start_ns not
 * 0) is a system() or pclose() call's, which reaps its child inside the C
 * library without telling its pid (preload/reap_call.c): it names no pid,
 * and is the child's of this image started (its recorder's start, the
 * process file's serial) at or after call_start_ns and before mono_ns,
 * when only one such child (one pid) exists.  Entries are numbered from 0;
 * entry k lives at entry[k % SESSION_REAP_ENTRIES].  A writer reserves k by
 * an atomic add to count, stores tag 0, the fields, then tag k + 1
 * (release); a reader takes entry k only when tag reads k + 1 before and
 * after it copies the fields, and stores in taken how many it has taken.
 * A writer whose entry would overwrite one not taken yet (more than
 * SESSION_REAP_ENTRIES reaps between two of the launcher's rounds) waits
 * for taken while the launcher lives, up to REAP_ROOM_WAIT_NS (the
 * recorder's); after a wait that long it no longer waits in this image,
 * and an entry overwritten is lost: that child's end is then as unknown as
 * without the table.
 */
#define SESSION_REAP_ENTRIES 100u

struct session_reap {
	_Atomic uint64_t tag;        /* k + 1 once entry k is written; 0 while written */
	uint32_t pid;                /* the child's pid in the launcher's PID
	                              * namespace; 0: unknown (this image runs
	                              * in another namespace, or a call entry) */
	uint32_t ns_pid;             /* its pid as the call returned it, in this
	                              * image's namespace (header pidns_*); 0 in
	                              * a call entry */
	int32_t status;              /* its wait status (exited or killed) */
	uint32_t pad;
	uint64_t mono_ns;            /* CLOCK_MONOTONIC when the call returned */
	uint64_t call_start_ns;      /* a call entry: CLOCK_MONOTONIC when the
	                              * call (system(); popen() for pclose())
	                              * began; 0: an entry of the wait family */
};

#define SESSION_REAP_WAITERS 12u

/*
 * A call of the wait family, system() or pclose() in progress is counted by
 * a waiter entry or, when all are taken, by the waiting count: either is
 * raised before the call and lowered after its entry is written, so a
 * launcher that finds a child gone, with the count at 0, no waiter entry
 * naming a thread that still exists and no reap entry, knows that no call
 * of this image is about to note it.  A waiter entry is taken by
 * compare-and-swap from 0 to the calling thread's id (gettid(), in the
 * image's PID namespace) and set back to 0 the same way; a thread that
 * ends inside the call (pthread_cancel) leaves its id there, and the
 * launcher, which sees that thread gone, sets it to 0.  The count has no
 * owner: a thread that ends inside a call it counted leaves it raised.
 */
struct session_reaps {
	_Atomic uint64_t count;      /* entries ever reserved */
	_Atomic uint32_t waiting;    /* calls in progress without a waiter entry */
	_Atomic uint32_t waiter[SESSION_REAP_WAITERS]; /* thread ids; 0: free */
	_Atomic uint32_t taken;      /* entries the launcher has taken (low 32
	                              * bits); it stores (release) */
	struct session_reap entry[SESSION_REAP_ENTRIES];
};

/*
 * The launcher file: SESSION_DIR/launcher, one page the launcher makes
 * before it starts the program, and each recorded image maps read-only.
 * It tells the recorders whether the launcher lives without its pid, which
 * a process in another PID namespace cannot see (kill(pid, 0) says ESRCH
 * there while the launcher runs).  owner_tid is a robust futex word
 * (set_robust_list(2)) of the launcher's main thread: its thread id while
 * the launcher collects; when that thread ends, however the launcher dies,
 * the kernel clears the id bits (FUTEX_TID_MASK) and sets FUTEX_OWNER_DIED;
 * the launcher clears it itself when it stops collecting.
 */
#define SESSION_LAUNCHER_FILE "launcher"
#define SESSION_LAUNCHER_MAGIC 0x4e55525f464f5250ull /* "PROF_RUN" */

struct session_launcher {
	uint64_t magic;              /* SESSION_LAUNCHER_MAGIC */
	uint32_t version;            /* SESSION_VERSION */
	_Atomic uint32_t owner_tid;  /* see above; 0: gone */
	/* A futex word the launcher's waker thread waits on while it is 0; a
	 * recorder wakes it (FUTEX_WAKE, which a read-only mapping allows)
	 * when its ring filled to a quarter while the launcher is in a long
	 * idle wait (time_tick's SESSION_TIME_TICK_ASLEEP).  1: the launcher
	 * is stopping. */
	_Alignas(64) _Atomic uint32_t wake;
};

struct session_slot {
	_Atomic uint32_t state;      /* enum session_slot_state */
	uint32_t tid;                /* owner's kernel thread id */
	_Atomic uint64_t write_pos;  /* bytes ever written; owner stores (release) */
	/* The owner's last two sequence numbers taken (each in the entry the
	 * one before last used; 0: none since it attached), stored right after
	 * taking each (relaxed): a
	 * number above the slot's last record was taken by a call the
	 * process's end cut short, which the launcher then writes as a
	 * SEQ_SKIP (cli/collector.c).  Two: a realloc holds two at once. */
	_Atomic uint64_t taken_seq[2];
	/* 1 + the number the owner took before the one it takes now (0: none
	 * taken), stored before the atomic add.  A process killed right after
	 * the add (the kill waits for that locked instruction, so it lands
	 * there often) leaves neither taken_seq at or past it: one number was
	 * taken, which one is unknown. */
	_Atomic uint64_t taking;
	uint8_t pad1[24];
	_Atomic uint64_t read_pos;   /* bytes the collector has taken; it stores */
	uint8_t pad2[56];
};

_Static_assert(sizeof(struct session_slot) == 128, "slot is two cache lines");
_Static_assert(sizeof(struct session_proc_header) <= SESSION_PAGE_BYTES, "header fits a page");
_Static_assert(sizeof(struct session_reaps) <= SESSION_PAGE_BYTES, "reap table fits a page");
_Static_assert(offsetof(struct session_reaps, entry) == 64, "reap entries start a cache line");

/* Raises h->slots_high to cover slot index idx (thread_slot_attach calls it
 * before its first write to the slot). */
static inline void session_slots_high_raise(struct session_proc_header *h, uint32_t idx)
{
	uint32_t high = atomic_load_explicit(&h->slots_high, memory_order_relaxed);

	while (high <= idx &&
	       !atomic_compare_exchange_weak_explicit(&h->slots_high, &high, idx + 1,
						      memory_order_release, memory_order_relaxed))
		;
}

static inline struct session_reaps *session_reaps_at(void *base)
{
	return (struct session_reaps *)((char *)base + SESSION_REAPS_OFFSET);
}

static inline struct session_slot *session_slot_at(void *base, uint32_t i)
{
	return (struct session_slot *)((char *)base + SESSION_SLOTS_OFFSET) + i;
}

static inline uint8_t *session_ring_at(void *base, uint32_t i)
{
	struct session_proc_header *h = (struct session_proc_header *)base;

	return (uint8_t *)base + h->ring_offset + (uint64_t)i * h->ring_bytes;
}

#endif
