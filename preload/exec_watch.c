/*
 * preload/exec_watch.c - tells the launcher of the programs this process
 * starts that the recorder will not record, since no process file of
 * theirs ever appears: the program this image executes itself (noted
 * before every exec, taken back when the exec fails; the launcher names it
 * when no later process file of the pid appears: statically linked,
 * set-user-ID, an environment without the recorder), and those it spawns
 * or its vfork children execute with an environment that drops the
 * recorder (`env -i`, sudo, a program that builds its children's
 * environment itself), counted; those they start that the loader will
 * not load the recorder into (statically linked, set-user-ID: see
 * exec_reach.h), counted apart; and those started where mprof's session
 * directory cannot be seen (after a chroot, or a mount over its parent),
 * counted apart too.
 *
 * Wraps the exec family and posix_spawn/posix_spawnp: each looks at the
 * environment the new program gets (envp, or environ; the recorder is
 * dropped when LD_PRELOAD no longer names the shim or MPROF_SESSION no
 * longer names this run's session), notes it in the process header, then
 * calls the next definition with the same arguments.  The one exception
 * is a 32-bit program (or one for another machine), whose loader would
 * print an error of its own for the recorder's LD_PRELOAD entry, or one
 * built with a sanitizer whose runtime must come first (AddressSanitizer
 * ends the program otherwise), or one started where the recorder's file
 * cannot be found (a chroot without it), whose loader would print an error
 * too: it gets a copy of the environment without that entry, built on the
 * stack (a large one in memory mapped for the call), and is counted with
 * the unreachable ones (the last with those started where the session
 * directory cannot be seen, where it most likely went).  The list forms
 * (execl, execlp, execle) call the vector form of
 * the next definition with the arguments gathered on the stack, as the C
 * library does.  Nothing else changes:
 * errno and return values are the C library's.  What the wrappers look at
 * of the path, argv[0] and environment is copied first through
 * process_vm_readv (exec_seen_read, preload/exec_args.h): a call with an
 * address the kernel refuses, or whose memory another thread unmaps
 * meanwhile, is noted nothing and passed on as it is (it fails with
 * EFAULT, or runs, as without mprof).  From a signal handler on an
 * alternate signal stack with too little left for all this
 * (EXEC_WATCH_STACK_BYTES), a call is passed on as it is, noted nothing.
 * The C library's own internal calls (system, popen) are not seen; the
 * shell they start is recorded, and its exec calls are.  An execve or
 * execveat made through syscall() is noted as the wrappers note theirs
 * (exec_watch_raw_before, from preload/syscall_wrap.c); one made by a
 * system call instruction of the program's own is not seen.  Never calls
 * malloc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/mem.h"
#include "preload/exec_args.h"
#include "preload/exec_reach.h"
#include "preload/exit_note.h"
#include "preload/exported.h"
#include "preload/next_sym.h"
#include "preload/process.h"
#include "preload/seccomp_watch.h"
#include "preload/stack_room.h"
#include "preload/thread_pointer.h"
#include "preload/toggle_signal.h"
#include "trace/session.h"

extern char **environ;

/* The shim's file name, which LD_PRELOAD must still hold. */
#define EXEC_WATCH_SHIM EXEC_ARGS_SHIM

/* The next definitions, looked up at the recorder's start
 * (exec_watch_resolve): a first lookup inside a vfork child would run
 * dlsym, which may allocate, in memory its parent shares. */
enum { NEXT_EXECVE, NEXT_EXECVPE, NEXT_FEXECVE, NEXT_EXECVEAT, NEXT_SPAWN, NEXT_SPAWNP, NEXT_COUNT };
static const char *const next_names[NEXT_COUNT] = {
	"execve", "execvpe", "fexecve", "execveat", "posix_spawn", "posix_spawnp",
};
static void *volatile next_slots[NEXT_COUNT];

static void *next_fn(int which)
{
	return next_sym(next_slots, next_names, which);
}

/* Whether a program started with the environment env describes would run
 * the recorder in this run's session. */
static int env_keeps_recorder(const struct exec_args_env *env)
{
	return env->preload_at != SIZE_MAX && strstr(env->preload, EXEC_WATCH_SHIM) &&
	       env->session_same;
}

/* What exec_watch_note did, for exec_watch_undo. */
enum { NOTED_NOTHING, NOTED_CHILD, NOTED_UNREACHABLE, NOTED_UNSEEN, NOTED_SELF };

/* Whether mprof's session directory is gone from this process's view (it
 * changed its root directory, or mounted over the directory's parent in a
 * mount namespace of its own; session_dir_gone_errno): a program it starts
 * now cannot create its process file there.  One stat(2); keeps errno. */
static int session_unseen(void)
{
	struct stat st;
	int saved = errno, unseen;

	unseen = stat(preload_proc.cfg.session_dir, &st) != 0 && session_dir_gone_errno(errno);
	errno = saved;
	return unseen;
}

/* Copies path into field[size], cut to fit, NUL-terminated. */
static void path_put(char *field, size_t size, const char *path)
{
	size_t n = path ? strnlen(path, size - 1) : 0;

	memcpy(field, path ? path : "", n);
	field[n] = '\0';
}

/*
 * Notes a program about to be started with the environment env describes (path as the call names
 * it): an exec by this image itself (self: not a posix_spawn, and not
 * from a vfork child, whose pid is its own) is noted in exec_self whatever
 * its environment, for the launcher to name the image's successor if no
 * process file of it appears; another that drops the recorder is counted
 * in execs_unrecorded, one the recorder cannot start in (reach, from
 * exec_watch_reach, is not EXEC_REACH_YES) in execs_unreachable, and one
 * started where the session directory cannot be seen in execs_unseen.
 * Returns what it noted.
 */
static int exec_watch_note(const char *path, const struct exec_args_env *env, int self,
			   int reach)
{
	struct session_proc_header *h = preload_proc.hdr;

	if (!h)
		return NOTED_NOTHING;
	if (self && (uint32_t)getpid() == h->pid) {
		path_put(h->exec_self_path, sizeof(h->exec_self_path), path);
		h->exec_self_dropped = !env_keeps_recorder(env);
		h->exec_self_euid = (uint32_t)geteuid();
		/* the image's peak RSS, which the exec ends and no exit note
		 * gives: a short image that executes another at once has no
		 * reading of the launcher's (taken back if the exec fails) */
		h->exit_maxrss_kib = exit_note_peak_rss_kib();
		h->exit_recorder_bytes = preload_mem_resident_bound();
		h->exec_self_unseen = (uint32_t)session_unseen();
		/* sequentially consistent: the launcher passing a toggle on sees
		 * it, or toggle_signal_exec sees the launcher passing */
		atomic_store(&h->exec_self, 1);
		toggle_signal_exec();
		return NOTED_SELF;
	}
	if (!preload_proc.cfg.record_children)
		return NOTED_NOTHING;
	if (env_keeps_recorder(env)) {
		/* a program the recorder's file is absent for is counted
		 * where it went: past a chroot, most likely */
		if (reach != EXEC_REACH_YES && reach != EXEC_REACH_ABSENT) {
			if (atomic_fetch_add_explicit(&h->execs_unreachable, 1,
						      memory_order_relaxed) == 0) {
				h->exec_unreachable_mixed_ids = exec_reach_ids_mixed();
				path_put(h->exec_unreachable_path,
					 sizeof(h->exec_unreachable_path), path);
			}
			return NOTED_UNREACHABLE;
		}
		if (!session_unseen())
			return NOTED_NOTHING;
		if (atomic_fetch_add_explicit(&h->execs_unseen, 1, memory_order_relaxed) == 0)
			path_put(h->exec_unseen_path, sizeof(h->exec_unseen_path), path);
		return NOTED_UNSEEN;
	}
	if (atomic_fetch_add_explicit(&h->execs_unrecorded, 1, memory_order_relaxed) == 0)
		path_put(h->exec_unrecorded_path, sizeof(h->exec_unrecorded_path), path);
	return NOTED_CHILD;
}

/* Takes back what exec_watch_note noted for a call that failed. */
static void exec_watch_undo(int noted)
{
	struct session_proc_header *h = preload_proc.hdr;

	if (!h)
		return;
	if (noted == NOTED_SELF) {
		atomic_store_explicit(&h->exec_self, 0, memory_order_release);
		h->exit_maxrss_kib = 0;
		h->exit_recorder_bytes = 0;
	} else if (noted == NOTED_CHILD) {
		atomic_fetch_sub_explicit(&h->execs_unrecorded, 1, memory_order_relaxed);
	} else if (noted == NOTED_UNREACHABLE) {
		atomic_fetch_sub_explicit(&h->execs_unreachable, 1, memory_order_relaxed);
	} else if (noted == NOTED_UNSEEN) {
		atomic_fetch_sub_explicit(&h->execs_unseen, 1, memory_order_relaxed);
	}
}

/* fexecve's name for what it runs: its argv[0] (no path is given). */
static const char *first_arg(char *const *argv)
{
	return argv && argv[0] ? argv[0] : "(fexecve)";
}

/* The path buffer most calls need; a longer path gets one of PATH_MAX
 * (EXEC_SEEN_READ), only then: a thread's stack may be 16 KiB. */
#define EXEC_PATH_SHORT 256

/* What the wrappers read of an exec call's arguments: copies of its path
 * and of the environment entries they look at (exec_seen_read). */
struct exec_seen {
	const char *target; /* the path, or file, as the call names it */
	char target_short[EXEC_PATH_SHORT];
	struct exec_args_env env;
	struct exec_args_reader reader;
};

/*
 * Copies path into buf[size] and what the wrappers read of envp into seen
 * (preload/exec_args.h): 1; 2 when the path is size bytes or more and size
 * is less than PATH_MAX (read again into a larger buffer); or 0 when they
 * cannot be read (the call then fails with EFAULT, or for posix_spawnp's
 * path glibc's child dies in its search; or another thread unmapped them
 * meanwhile) or the path is PATH_MAX bytes or more (the call fails with
 * ENAMETOOLONG), and the wrapper notes nothing.  About 4 KiB of stack with
 * exec_args_read's; a usual call takes three process_vm_readv calls.
 * Under a seccomp filter, which may kill the process for a call it does
 * not expect, all is read directly, as before the copies.  Keeps errno;
 * never allocates.
 */
static int exec_seen_read(struct exec_seen *seen, char *buf, size_t size, const char *path,
			  char *const envp[])
{
	int saved = errno, rc;

	exec_args_reader_init(&seen->reader, seccomp_watch_filtered());
	seen->target = buf;
	rc = exec_args_read(&seen->reader, buf, size, path, &seen->env, envp,
			    preload_proc.cfg.session_dir);
	errno = saved;
	return rc == 0 ? 1 : rc == 1 && size < PATH_MAX ? 2 : 0;
}

/* Declares seen (struct exec_seen) and ok, exec_seen_read's answer for
 * path and envp: a path longer than EXEC_PATH_SHORT is read again into a
 * PATH_MAX buffer of the caller's frame. */
#define EXEC_SEEN_READ(seen, path, envp, ok)                                              \
	struct exec_seen seen;                                                           \
	int ok = exec_seen_read(&seen, seen.target_short, sizeof(seen.target_short), (path), \
				(envp));                                                 \
	char seen##_long[ok == 2 ? PATH_MAX : 1];                                        \
	if (ok == 2)                                                                     \
	ok = exec_seen_read(&seen, seen##_long, PATH_MAX, (path), (envp))

/* fexecve's name: a copy of argv[0] in name[size] (cut to fit) when argv
 * and argv[0] can be read, else first_arg(NULL) (the call fails with
 * EFAULT).  Keeps errno. */
static const char *exec_watch_argv0(char *const argv[], char *name, size_t size)
{
	struct exec_args_reader r;
	char *arg0 = NULL;
	int saved = errno, rc = -1;

	exec_args_reader_init(&r, seccomp_watch_filtered());
	if (argv && exec_args_slots(&r, &arg0, argv, 1) == 0 && arg0)
		rc = exec_args_str(&r, name, size, arg0);
	errno = saved;
	return rc >= 0 ? name : first_arg(NULL);
}

/* The size of a name exec_watch_argv0 copies: the process header's. */
#define EXEC_NAME_BYTES sizeof(((struct session_proc_header *)0)->exec_self_path)

int exec_watch_raw_before(const char *path, char *const argv[], char *const envp[])
{
	char name[EXEC_NAME_BYTES];
	const char *named;
	int saved = errno, noted;

	/* under a filter, a process_vm_readv call may kill the process */
	if (!thread_pointer_is_libc() || seccomp_watch_filtered())
		return NOTED_NOTHING;
	EXEC_SEEN_READ(seen, path, envp, ok);
	if (!ok)
		return NOTED_NOTHING; /* EFAULT */
	/* an execveat of a descriptor (AT_EMPTY_PATH) is named as fexecve's */
	named = seen.target[0] ? seen.target : exec_watch_argv0(argv, name, sizeof(name));
	noted = exec_watch_note(named, &seen.env, 1, EXEC_REACH_YES);
	errno = saved;
	return noted;
}

void exec_watch_raw_after(int noted)
{
	int saved = errno;

	exec_watch_undo(noted);
	errno = saved;
}


typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);

static int next_execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn fn = (execve_fn)next_fn(NEXT_EXECVE);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(path, argv, envp);
}

static int next_execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn fn = (execve_fn)next_fn(NEXT_EXECVPE);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(file, argv, envp);
}

/* The next word of an LD_PRELOAD value at *v, split at ':' and ' ' as the
 * loader splits it: returns its start, its length in *word (0: no word
 * left) and in *shim whether it names the recorder's library; *v moves past
 * it. */
static const char *env_preload_word(const char **v, size_t *word, int *shim)
{
	const char *w = *v + strspn(*v, ": ");

	*word = strcspn(w, ": ");
	*shim = *word && memmem(w, *word, EXEC_WATCH_SHIM, sizeof(EXEC_WATCH_SHIM) - 1);
	*v = w + *word;
	return w;
}

/*
 * Whether a recorder's entry of the LD_PRELOAD copy in env names a file
 * this process cannot find (it changed its root directory to one without
 * mprof's library, or a mount namespace hides it): the new program's loader
 * would not load it and would print an error of its own on the program's
 * stderr.  Entries without '/' (the loader searches them) and a cut copy
 * are not looked at.  One stat(2) per recorder entry, of a copy on the
 * stack; keeps errno; never allocates.
 */
static int env_recorder_absent(const struct exec_args_env *env)
{
	const char *v;
	int saved = errno, absent = 0;

	if (env->preload_at == SIZE_MAX || env->preload_cut)
		return 0;
	v = strchr(env->preload, '=');
	if (!v)
		return 0;
	for (v++; !absent;) {
		size_t word;
		int shim;
		const char *w = env_preload_word(&v, &word, &shim);

		if (!word)
			break;
		if (shim && memchr(w, '/', word)) {
			char path[word + 1];
			struct stat st;

			memcpy(path, w, word);
			path[word] = '\0';
			absent = stat(path, &st) != 0;
		}
	}
	errno = saved;
	return absent;
}

/* What exec_reach_unreachable says of path as an exec call names it
 * (looked up in $PATH when search is 1; -1: not a path to look at, as
 * fexecve's and execveat's are not: EXEC_REACH_YES), or EXEC_REACH_ABSENT
 * when the program would be reached but the recorder's file named in the
 * environment env describes cannot be found (env_recorder_absent). */
static int exec_watch_reach(const char *path, int search, const struct exec_args_env *env)
{
	int reach = search >= 0 && path ? exec_reach_unreachable(path, search) : EXEC_REACH_YES;

	if (reach == EXEC_REACH_YES && env_keeps_recorder(env) && env_recorder_absent(env))
		return EXEC_REACH_ABSENT;
	return reach;
}

/* The size of the text env_drop_recorder writes for env: its LD_PRELOAD
 * entry's, at least 1. */
static size_t env_drop_text_size(const struct exec_args_env *env)
{
	return env->preload_at != SIZE_MAX ? strlen(env->preload) + 1 : 1;
}

/*
 * envp with the shim's entries taken out of LD_PRELOAD, for a program
 * whose loader cannot load the recorder (a 32-bit one), which would
 * otherwise print an error of its own on the program's stderr: a copy of
 * envp's slots goes into out (seen->env.count + 1 of them), the new
 * LD_PRELOAD entry, from the copy of the last one (the one the loader
 * reads, and the only one that changes), into text (env_drop_text_size
 * bytes), the other entries joined by ':'; LD_PRELOAD is left out when
 * nothing else was in it, as in the environment mprof was started with,
 * or left empty when envp has an earlier one (which still names the
 * recorder, and the loader would then read).  Returns out, or envp when its slots
 * can no longer be read.  Never allocates: the caller's stack, or memory
 * mapped for the call, holds both (env_drop_room_plan).
 */
static char *const *env_drop_recorder(char *const envp[], struct exec_seen *seen, char **out,
				      char *text)
{
	static const char name[] = "LD_PRELOAD=";
	const size_t at = sizeof(name) - 1, count = seen->env.count;
	const char *v = seen->env.preload + at;
	size_t len = 0, drop = seen->env.preload_at;
	int saved = errno, rc = exec_args_slots(&seen->reader, out, envp, count);

	errno = saved;
	if (rc != 0)
		return envp;
	out[count] = NULL;
	if (drop == SIZE_MAX)
		return out;
	for (;;) {
		size_t word;
		int shim;
		const char *w = env_preload_word(&v, &word, &shim);

		if (!word)
			break;
		if (!shim) {
			if (len)
				text[at + len++] = ':';
			memcpy(text + at + len, w, word);
			len += word;
		}
	}
	if (len || seen->env.preload_entries > 1) {
		memcpy(text, name, at);
		text[at + len] = '\0';
		out[drop] = text;
	} else {
		memmove(&out[drop], &out[drop + 1], (count - drop) * sizeof(out[0]));
	}
	return out;
}

/* The most stack env_drop_recorder's copy takes (a thread's stack may be
 * 16 KiB): a larger one goes into memory mapped for the call, as a usual
 * environment's (some 50 entries) fits. */
#define ENV_DROP_STACK_BYTES 2048u
/* The most a copy on the stack takes where no memory is mapped for it (a
 * vfork child, whose mapping would stay in its parent once it executes;
 * a process under a seccomp filter, which may kill mmap); and the most a
 * mapped copy takes (the kernel refuses an environment far below it).
 * An environment past them is passed as it is, as is one whose LD_PRELOAD
 * entry was cut. */
#define ENV_DROP_MAX_BYTES (32u << 10)
#define ENV_DROP_MAP_MAX_BYTES (64u << 20)

/* Where the copy of the environment env_drop_recorder makes lives. */
struct env_drop_room {
	size_t bytes;   /* the copy's size; 0: no copy */
	int on_stack;   /* 1: in the caller's frame, else mapped */
	void *map;      /* the mapping, unmapped by env_drop_room_end */
};

/* Whether the calling image may map memory for a copy: not a vfork child
 * (its pid is not the image's) and not under a seccomp filter. */
static int env_drop_may_map(void)
{
	const struct session_proc_header *h = preload_proc.hdr;

	return h && (uint32_t)getpid() == h->pid && !seccomp_watch_filtered();
}

/* Plans the copy for a program reach says cannot load the recorder
 * (exec_reach_drops_recorder), env as exec_seen_read read it. */
static struct env_drop_room env_drop_room_plan(int reach, const struct exec_args_env *env)
{
	struct env_drop_room room = { 0, 0, NULL };
	size_t bytes = (env->count + 1) * sizeof(char *) + env_drop_text_size(env);

	if (!exec_reach_drops_recorder(reach) || env->preload_cut)
		return room;
	if (bytes <= ENV_DROP_STACK_BYTES) {
		room.on_stack = 1;
	} else if (env_drop_may_map()) {
		if (bytes > ENV_DROP_MAP_MAX_BYTES)
			return room;
	} else if (bytes <= ENV_DROP_MAX_BYTES) {
		room.on_stack = 1;
	} else {
		return room;
	}
	room.bytes = bytes;
	return room;
}

/* envp without the recorder (env_drop_recorder) in the room planned, the
 * caller's stack buffer when on_stack, or envp when there is none or the
 * mapping fails.  Keeps errno. */
static char *const *env_drop_room_fill(struct env_drop_room *room, char *stack_buf,
				       char *const envp[], struct exec_seen *seen)
{
	char *buf = stack_buf;
	int saved = errno;

	if (!room->bytes)
		return envp;
	if (!room->on_stack) {
		buf = mmap(NULL, room->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
		errno = saved;
		if (buf == MAP_FAILED)
			return envp;
		room->map = buf;
	}
	return env_drop_recorder(envp, seen, (char **)buf,
				 buf + (seen->env.count + 1) * sizeof(char *));
}

/* After a call that returned (an exec that failed, a spawn): unmaps the
 * copy's memory.  Keeps errno. */
static void env_drop_room_end(struct env_drop_room *room)
{
	int saved = errno;

	if (room->map)
		munmap(room->map, room->bytes);
	room->map = NULL;
	errno = saved;
}

/* Declares run_env_: envp, or envp without the recorder in LD_PRELOAD
 * (env_drop_recorder) when reach says so (exec_reach_drops_recorder: a
 * 32-bit or sanitizer-built program); seen is what exec_seen_read read of
 * envp; a small copy lives in the caller's frame, a large one in memory
 * mapped for the call (env_drop_room_plan), unmapped by
 * env_drop_room_end(&env_room_). */
#define EXEC_RUN_ENV(envp, reach, seen)                                                  \
	struct env_drop_room env_room_ = env_drop_room_plan((reach), &(seen)->env);      \
	char env_stack_[env_room_.on_stack ? env_room_.bytes : 1]                        \
		__attribute__((aligned(sizeof(char *))));                                 \
	char *const *run_env_ = env_drop_room_fill(&env_room_, env_stack_, (envp), (seen))

/* Runs call after noting path and envp (search as exec_watch_reach's),
 * with errno as the program left it (the steps before it, exec_reach's
 * getxattr and stat among them, change it, and an exec that succeeds
 * leaves it in a block a CLONE_VM parent shares); keeps call's errno.
 * call names the environment run_env_: envp, or envp without the recorder
 * for a program that cannot load it (EXEC_RUN_ENV).  Only runs it in a
 * child on a thread pointer of its own (preload/thread_pointer.h), which
 * has no errno of the recorder's. */
#define EXEC_WATCHED(path, envp, search, call)                                           \
	do {                                                                              \
		int noted_, rc_, errno_, reach_;                                          \
                                                                                          \
		if (!thread_pointer_is_libc()) {                                          \
			char *const *run_env_ = (envp);                                   \
			return (call);                                                    \
		}                                                                         \
		EXEC_SEEN_READ(seen_, (path), (envp), ok_);                               \
		if (!ok_) {                                                               \
			char *const *run_env_ = (envp);                                   \
			return (call);                                                    \
		}                                                                         \
		errno_ = errno;                                                           \
		reach_ = exec_watch_reach(seen_.target, (search),                         \
					  &seen_.env);                                    \
		EXEC_RUN_ENV(envp, reach_, &seen_);                                       \
		noted_ = exec_watch_note(seen_.target, &seen_.env, 1, reach_);            \
		errno = errno_;                                                           \
		rc_ = (call);                                                             \
		errno_ = errno;                                                           \
		env_drop_room_end(&env_room_);                                            \
		exec_watch_undo(noted_);                                                  \
		errno = errno_;                                                           \
		return rc_;                                                               \
	} while (0)

/* The stack a watched call needs, with room to spare (its copies of the
 * path and environment entries take some 4 KiB, the peak RSS reading
 * another 4): on an alternate signal stack with less left, the call is
 * passed on as it is, noted nothing, with a few words of stack more than
 * the C library's. */
#define EXEC_WATCH_STACK_BYTES (16u << 10)

/* Whether a call is passed on unwatched: on a thread pointer of the
 * program's own (asked first: nothing else may read it, as a stack
 * protector's canary would), or for want of stack. */
static int exec_watch_passed(void)
{
	return !thread_pointer_is_libc() || stack_room_bytes() < EXEC_WATCH_STACK_BYTES;
}

/* The watched calls: not inlined, so that a passed-on call's frame is a
 * few words. */
static __attribute__((noinline)) int exec_vector_watched(const char *path, char *const argv[],
							  char *const envp[], int search)
{
	if (search)
		EXEC_WATCHED(path, envp, 1, next_execvpe(path, argv, run_env_));
	EXEC_WATCHED(path, envp, 0, next_execve(path, argv, run_env_));
}

/* execve, or with search execvpe. */
static int exec_vector(const char *path, char *const argv[], char *const envp[], int search)
{
	if (exec_watch_passed())
		return search ? next_execvpe(path, argv, envp) : next_execve(path, argv, envp);
	return exec_vector_watched(path, argv, envp, search);
}

PRELOAD_API int execve(const char *path, char *const argv[], char *const envp[])
{
	return exec_vector(path, argv, envp, 0);
}

PRELOAD_API int execv(const char *path, char *const argv[])
{
	return exec_vector(path, argv, environ, 0);
}

PRELOAD_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return exec_vector(file, argv, envp, 1);
}

PRELOAD_API int execvp(const char *file, char *const argv[])
{
	return exec_vector(file, argv, environ, 1);
}

typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

static __attribute__((noinline)) int fexecve_watched(fexecve_fn fn, int fd, char *const argv[],
						     char *const envp[])
{
	char name_copy[EXEC_NAME_BYTES];
	const char *name = exec_watch_argv0(argv, name_copy, sizeof(name_copy));

	EXEC_WATCHED(name, envp, -1, fn(fd, argv, run_env_));
}

PRELOAD_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn fn = (fexecve_fn)next_fn(NEXT_FEXECVE);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (exec_watch_passed())
		return fn(fd, argv, envp);
	return fexecve_watched(fn, fd, argv, envp);
}

static __attribute__((noinline)) int execveat_watched(execveat_fn fn, int dirfd, const char *path,
						      char *const argv[], char *const envp[],
						      int flags)
{
	EXEC_WATCHED(path, envp, -1, fn(dirfd, path, argv, run_env_, flags));
}

PRELOAD_API int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			 int flags)
{
	execveat_fn fn = (execveat_fn)next_fn(NEXT_EXECVEAT);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (exec_watch_passed())
		return fn(dirfd, path, argv, envp, flags);
	return execveat_watched(fn, dirfd, path, argv, envp, flags);
}

/* The list forms: the arguments after arg0 up to the terminating null,
 * gathered into a stack array (the C library's execl does the same); more
 * than EXEC_LIST_MAX fail with E2BIG, which the kernel gives long before. */
#define EXEC_LIST_MAX 65536

/* The number of arguments before the null in ap (ap is used up). */
static size_t list_count(va_list ap)
{
	size_t n = 1;

	while (n <= EXEC_LIST_MAX && va_arg(ap, char *))
		n++;
	return n;
}

enum list_form { LIST_L, LIST_LP, LIST_LE };

/* execl, execlp and execle: the arguments after arg0 gathered into argv_
 * (and execle's envp after their null) in the exported function's own
 * frame, as the C library's execl does, so that a call passed on for want
 * of stack (exec_vector) needs little more of it than the C library's. */
#define LIST_EXEC(form, path, arg0)                                                     \
	do {                                                                              \
		va_list ap_;                                                              \
		size_t argc_;                                                             \
		char *const *envp_ = environ;                                             \
                                                                                          \
		va_start(ap_, arg0);                                                      \
		argc_ = list_count(ap_);                                                  \
		va_end(ap_);                                                              \
		if (argc_ > EXEC_LIST_MAX) {                                              \
			errno = E2BIG;                                                    \
			return -1;                                                        \
		}                                                                         \
		char *argv_[argc_ + 1];                                                   \
                                                                                          \
		va_start(ap_, arg0);                                                      \
		argv_[0] = (char *)(arg0);                                                \
		for (size_t i_ = 1; i_ <= argc_; i_++)                                    \
			argv_[i_] = va_arg(ap_, char *);                                  \
		if ((form) == LIST_LE)                                                    \
			envp_ = va_arg(ap_, char *const *);                               \
		va_end(ap_);                                                              \
		return exec_vector((path), argv_, envp_, (form) == LIST_LP);              \
	} while (0)

PRELOAD_API int execl(const char *path, const char *arg0, ...)
{
	LIST_EXEC(LIST_L, path, arg0);
}

PRELOAD_API int execlp(const char *file, const char *arg0, ...)
{
	LIST_EXEC(LIST_LP, file, arg0);
}

PRELOAD_API int execle(const char *path, const char *arg0, ...)
{
	LIST_EXEC(LIST_LE, path, arg0);
}

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

/* posix_spawn's success says the program started (glibc waits for its
 * exec), so a count stays only when the spawn succeeded.  errno is the C
 * library's: the steps before and after the call keep it. */
static int spawn_watched(int which, pid_t *pid,
			 const char *path, const posix_spawn_file_actions_t *actions,
			 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	spawn_fn fn = (spawn_fn)next_fn(which);
	int noted, rc, reach, saved;

	if (!fn)
		return ENOSYS;
	EXEC_SEEN_READ(seen, path, envp, ok);
	if (!ok)
		return fn(pid, path, actions, attr, argv, envp);
	saved = errno;
	reach = exec_watch_reach(seen.target, which == NEXT_SPAWNP, &seen.env);
	EXEC_RUN_ENV(envp, reach, &seen);
	noted = exec_watch_note(seen.target, &seen.env, 0, reach);
	errno = saved;
	rc = fn(pid, path, actions, attr, argv, run_env_);
	saved = errno;
	env_drop_room_end(&env_room_);
	if (rc != 0)
		exec_watch_undo(noted);
	errno = saved;
	return rc;
}

PRELOAD_API int posix_spawn(pid_t *pid, const char *path,
			    const posix_spawn_file_actions_t *actions,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_watched(NEXT_SPAWN, pid, path, actions, attr, argv, envp);
}

PRELOAD_API int posix_spawnp(pid_t *pid, const char *file,
			     const posix_spawn_file_actions_t *actions,
			     const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_watched(NEXT_SPAWNP, pid, file, actions, attr, argv, envp);
}

void exec_watch_resolve(void)
{
	next_sym_resolve(next_slots, next_names, NEXT_COUNT);
}
