/*
 * cli/collector.c - draining the shim's shared-memory rings into traces.
 *
 * Runs in the launcher while the program runs.  Owns the list of process
 * files seen in the session directory, one trace per process image, the read
 * position of every slot, and one copy buffer for a chunk.  Each round it
 * reaps the program if it ended (wait4, for peak RSS); rescans the directory
 * when inotify reports a new file (and every SCAN_INTERVAL_NS in case
 * inotify is not available); and takes the data of a slot when a quarter
 * ring is waiting, when data has waited SWEEP_INTERVAL_NS, when its thread
 * retired, or at the end.  An EVENTS chunk never spans two laps of a ring
 * and holds whole records (the shim pads a lap's tail).  Processes that end
 * while the program goes on are finalized at once, so the number of open
 * traces follows the number of live processes; once the program has ended,
 * those still running get a short wait to end by themselves
 * (procs_ending_settle).  Chunks stored while the
 * program keeps every processor busy are deflated by re-compression jobs
 * (cli/rezip.h) that each round starts and moves on, and that the end of
 * the run finishes.
 *
 * Must never keep per-event state (memory stays flat however long the run)
 * and must never block the program: a write error only stops that trace, the
 * rings keep being drained.  Never touches the program's descriptors.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/collector.h"
#include "cli/diag_digest.h"
#include "cli/die.h"
#include "cli/exec_target.h"
#include "cli/late_starters.h"
#include "cli/pid_find.h"
#include "cli/pid_guard.h"
#include "cli/pid_info.h"
#include "cli/proc_file.h"
#include "cli/rezip.h"
#include "cli/rss_sampler.h"
#include "cli/signals.h"
#include "cli/launcher_alive.h"
#include "cli/launcher_wake.h"
#include "trace/event_clock.h"
#include "trace/format.h"
#include "trace/proc_name.h"
#include "trace/recode.h"
#include "trace/split.h"
#include "trace/varint.h"

#define MS_NS UINT64_C(1000000)
#define SCAN_INTERVAL_NS (20 * MS_NS)     /* directory rescan without inotify */
#define SWEEP_INTERVAL_NS (100 * MS_NS)   /* longest wait of data in a ring */
#define RETIRE_INTERVAL_NS (100 * MS_NS)  /* look for processes that ended */
#define STARTING_LIMIT_NS (2000 * MS_NS)  /* a recorder slow to start: grace, wait */
#define REAP_AWAIT_LIMIT_NS (2000 * MS_NS) /* a parent slow to note a reap */
/* Looks at a live process's command line and process name (proc_names_look:
 * two small /proc reads, some 20 us): the first NAMES_LOOK_FIRST_NS after it
 * is taken in, then at gaps doubling up to NAMES_LOOK_MAX_NS, so that 1000
 * long-lived processes cost some 600 looks a second, not 10000. */
#define NAMES_LOOK_FIRST_NS (100 * MS_NS)
#define NAMES_LOOK_MAX_NS (1600 * MS_NS)
#define IDLE_SLEEP_NS 1000000L            /* after a round that found nothing, */
#define IDLE_SLEEP_MAX_NS 5000000L        /* doubling up to this while idle */
/* The launcher's helper starts this long after the root's recorder made
 * its file, not at once: its start would compete with the rest of the
 * program's set-up for the processors. */
#define HELPER_START_DELAY_NS (5 * MS_NS)
/* Then, while no ring fills fast, a long wait up to the next look for ended
 * processes: the recorders time their events themselves meanwhile and wake
 * the launcher when a ring holds a quarter (trace/session.h, time_tick). */
#define IDLE_SLEEP_LONG_NS ((long)RETIRE_INTERVAL_NS)
#define SLOT_MARGIN 16u                   /* unused slots looked at each round */
#define CHUNK_HEAD_BYTES (3 * VARINT_MAX_BYTES)
#define NAME_BYTES 64
/* A trace's stored chunks are deflated (cli/rezip.h) once they are at
 * least REZIP_START_BYTES and half the bytes of the rest: each job copies
 * the whole trace, so a trace that grows stored chunk by chunk is copied
 * some three times its size in all, not once per chunk. */
#define REZIP_START_BYTES (UINT64_C(1) << 20)

enum proc_phase {
	PROC_PENDING,  /* file seen, header not ready */
	PROC_ACTIVE,   /* mapped, being drained */
	PROC_DONE,     /* finalized or ignored; only the names are kept */
};

/* Most distinct diagnostics of a process the launcher keeps to print (its
 * trace keeps them all). */
#define PROC_DIAG_TEXTS_MAX 8

/* One process file, i.e. one process image of the run. */
struct proc {
	char name[NAME_BYTES];         /* "p.PID.SERIAL" in the session dir */
	enum proc_phase phase;
	struct proc_file pf;
	struct timespec ctime;         /* orders files found in one scan */
	uint64_t seen_ns;              /* when first seen (monotonic) */
	uint64_t seen_unix_ns;
	unsigned pid;                  /* in mprof's PID namespace; 0: unknown */
	struct pid_find_key ns_key;    /* its pid in its own namespace, and that
	                                * namespace (from the header) */
	bool pid_gone;                 /* pid unknown, and no live process is
	                                * the one of ns_key (pid_find.h) */
	bool is_root;
	bool superseded;               /* a later image of the same pid exists */
	bool successor_pending;        /* a later image of its pid started though
	                                * it noted no exec: it is taken as
	                                * superseded when it is finished unless
	                                * it wrote on (proc_successor_note) */
	uint64_t successor_ns;         /* that image's start, 0: unknown */
	uint64_t successor_wpos;       /* its slots' write positions summed then */
	bool exec_left;                /* it executed a program that is not recorded
					* (exec_unrecorded_warn names it) */
	bool zombie_seen;              /* found ended but not yet waited for: */
	int zombie_status;             /* its wait status then (pid_info.h) */
	bool reap_seen;                /* a recorded image reaped it (reap table): */
	bool reap_by_call;             /* by a call entry (system(), pclose()) */
	int reap_status;               /* the wait status its call returned, */
	uint64_t reap_ns;              /* when (CLOCK_MONOTONIC) */
	unsigned ppid;                 /* its header's parent pid; 0: unknown */
	uint64_t reap_await_ns;        /* when its finishing was first put off
	                                * for its parent's call in progress */
	uint64_t reaps_taken;          /* entries of its own reap table read */
	uint64_t reaps_ready;          /* entries written before the last scan
	                                * for process files began: the ones
	                                * that may be taken after it */
	bool fork_child;               /* its header says made by fork() */
	bool open_deferred;            /* its file could not be opened for want
	                                * of descriptors: tried at each scan */
	/* The parts of its process file the program wrote over, found by the
	 * launcher's checks (1 << enum proc_damage).  broken: its rings are no
	 * longer read (DAMAGE_RINGS). */
	unsigned damage;
	bool broken;
	bool has_trace;
	char *exe;                     /* the header's executable, once mapped; owned */
	bool exe_kept;                 /* kept_images_look has looked at it */
	struct trace_file tf;
	char *trace_path;              /* absolute, kept after the trace is closed */
	char *display_path;            /* as created (relative to mprof's cwd) */
	uint64_t last_sweep_ns;
	uint32_t slots_used;           /* 1 + highest slot seen in use */
	uint64_t waits_seen;           /* the header's ring-wait count last round */
	unsigned effort_step;          /* index into effort_levels */
	uint64_t effort_relax_ns;      /* when to try one step more effort again */
	uint64_t *punched_pos;         /* per slot: its write position when its
	                                * ring was last punched (slot_release);
	                                * NULL until needed; owned */
	uint64_t rings_high_bytes;     /* proc_rings_written's most, before punches */
	bool rings_high_off;           /* more slots than RINGS_HIGH_SLOTS_MAX:
	                                * not kept (proc_rings_touched) */
	uint64_t *drained_ns;          /* per slot: when it was last drained (0:
	                                * never); NULL until needed; owned */
	uint64_t *write_pos_seen;      /* per slot: its write position the
	                                * round before (slot_wrote); NULL until
	                                * needed; owned */
	unsigned stored_laps_recoded;  /* laps re-encoded though they started
	                                * while chunks were stored (slot_lap_pass) */
	struct record_recoder **recoders; /* per slot, made at its first drain
	                                * (trace/recode.h); NULL until needed;
	                                * owned */
	uint32_t recoders_high;        /* 1 + the highest slot with one */
	dev_t file_dev;                /* its process file, which its recorder */
	ino_t file_ino;                /* maps while the image runs */
	struct pid_guard guard;        /* its pid, held once its identity was
	                                * checked: figures read from /proc are
	                                * kept only while it holds (proc_guard_take) */
	bool guard_tried;
	clockid_t cpu_clock;           /* the process's CPU-time clock */
	bool has_cpu_clock;
	uint64_t cpu_seen_ns;          /* its CPU time at cpu_wall_ns */
	uint64_t cpu_wall_ns;          /* when it was read (monotonic), 0: never */
	uint64_t cpu_milli;            /* processors it kept busy over its last
	                                * window, in thousandths (0: unknown) */
	uint64_t peak_rss_sampled_kib; /* highest VmHWM read while it ran, 0: none */
	struct rss_sampler rss;        /* RSS samples not yet in the trace */
	uint64_t superseded_ns;        /* the next image's start (its exec), 0: unknown */
	struct record_counts counts;   /* of the records drained (recode.h) */
	char *command;                 /* as written in META, or NULL, and once
	                                * finalized the name of proc_name.h;
	                                * owned */
	/* the distinct texts of the DIAG records drained (each owned), in
	 * order; past PROC_DIAG_TEXTS_MAX only counted */
	char *diag_texts[PROC_DIAG_TEXTS_MAX];
	unsigned diag_text_count, diag_texts_more;
	uint32_t diag_codes;           /* 1 << the code of each DIAG record drained */
	char *seen_command;            /* its command line at the last look
	                                * (proc_names_look) or in its exit note,
	                                * when not its header's; else NULL; owned */
	char seen_comm[16];            /* the same of its process name, or "" */
	char *exec_unseen_exe;         /* the program a look found its pid running
	                                * (/proc/PID/exe) in place of p's, when p's
	                                * recorder noted no exec: one made by a
	                                * system call of the program's own; or
	                                * NULL; owned */
	uint64_t names_look_ns;        /* when to look at them next (monotonic) */
	uint64_t names_gap_ns;         /* the gap after that look */
	struct trace_end end;          /* the END chunk's figures (pointers to
	                                * static text only) */
};

/* A growable array of process pointers. */
struct proc_list {
	struct proc **v;
	size_t n, cap;
};

/*
 * MPROF_TEST_STORE, a testing aid (mprof-run(1)): "1" stores every EVENTS
 * chunk while the program runs, as when it keeps every processor busy;
 * "end" also leaves their re-compression to the end of the run (to measure
 * it); "stall" too, and there it stops half way through the first trace and
 * waits to be killed.
 */
enum test_store {
	TEST_STORE_OFF,
	TEST_STORE_ON,
	TEST_STORE_END,
	TEST_STORE_STALL,
};

struct collector {
	const struct collector_config *cfg;
	DIR *dir;
	int inotify_fd;                /* IN_CREATE on the session dir, or -1 */
	int program_fd;                /* pidfd of the program: readable when it
	                                * has ended, or -1 (kernel before 5.3) */
	int inotify_wd;                /* its watch, or -1 once removed */
	bool dir_changed;              /* a file was made since the last full
	                                * scan began (its event read), or not
	                                * known: scan */
	size_t files_deferred;         /* files waiting for a descriptor */
	struct proc_list all;          /* every process file seen, in order; owned */
	struct proc_list live;         /* those pending or active */
	struct proc **index;           /* open-addressing hash of all, by name */
	size_t index_cap;              /* a power of two, or 0 */
	bool root_assigned;
	uint64_t root_active_ns;       /* when the root's file became active */
	bool clock_tsc;                /* the recorders time events by the
	                                * counter (trace/event_clock.h) */
	uint64_t clock_start_ticks;    /* event_clock_tsc() and now_ns() at */
	uint64_t clock_start_ns;       /* the start, to time the counter */
	uint64_t clock_resolution_ns;  /* event_clock_resolution_ns's, once known */
	bool helper_tried;             /* cfg->helper_start has been called */
	pid_t helper_pid;              /* what it returned: never one of the run's */
	bool ended;                    /* the program has been reaped */
	unsigned toggle_waiting;       /* toggle signals that came, not passed on */
	unsigned toggles_withheld;     /* toggle signals kept from a program that
	                                * took the signal (TRACE_DIAG_TOGGLE_TAKEN) */
	int reserve_fd;                /* /dev/null, held so that a process file
	                                * can be opened when descriptors run
	                                * out (fd_reserve_*); -1 while given up */
	unsigned create_failures;      /* traces that could not be created */
	int create_errno;              /* the first failure's errno */
	int wait_status;
	struct rusage rusage;          /* the program's, from wait4 */
	size_t write_errors;           /* traces whose writing failed */
	uint8_t *copy;                 /* the one chunk buffer */
	size_t copy_bytes;
	uint64_t ps_per_byte[5];       /* compression cost of each effort step,
	                                * picoseconds per byte, learnt (EWMA) */
	size_t page_bytes;
	char hostname[256];
	unsigned cpus;                 /* online processors */
	unsigned busy_slots;           /* slots written to and holding unread
	                                * data last round (slot_drain) */
	unsigned busy_slots_now;       /* the same, counted in this round */
	unsigned filling_slots_now;    /* slots written fast (slot_fills_fast) */
	bool cpu_busy;                 /* the run's processes used all processors
	                                * but 3/4 of one lately (procs_cpu_watch) */
	long idle_sleep_ns;            /* the next idle wait (IDLE_SLEEP_NS..MAX) */
	int wake_fd;                   /* readable when a recorder woke the
	                                * launcher (cli/launcher_wake.h); -1: none */
	bool asleep_marked;            /* live images' ticks carry the asleep flag */
	unsigned long long start_ticks; /* when the launcher started (clock ticks
	                                 * since boot, as /proc/PID/stat has it) */
	struct pid_window pids;        /* IDs of processes created since then */
	bool pidns_known;              /* the launcher's PID namespace, which its
	                                * /proc shows (pid_info_own_pidns) */
	uint64_t pidns_dev, pidns_ino;
	struct kept_images kept;       /* handed over in the result */
	size_t kept_max;               /* programs kept open at most: an eighth of
	                                * the descriptor limit, so that a low one
	                                * (ulimit -n) is left to the traces */
	enum test_store test_store;    /* MPROF_TEST_STORE, a testing aid */
	uint64_t reap_await_limit_ns;  /* REAP_AWAIT_LIMIT_NS, or the testing
	                                * aid MPROF_TEST_REAP_AWAIT_MS */
};

/* The time of clock id in ns; 0 when it cannot be read (the CPU-time
 * clock of a process that ended). */
static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Copies a NUL-terminated field of shared memory the program may scribble on. */
static void field_copy(char *out, size_t size, const char *field, size_t field_bytes)
{
	size_t n = strnlen(field, field_bytes);

	if (n >= size)
		n = size - 1;
	memcpy(out, field, n);
	out[n] = '\0';
}

/* Names p in a message: "process PID", or "process ? (N in its PID
 * namespace)" when mprof does not know its pid (proc_pid_find). */
static const char *proc_label(const struct proc *p, char *buf, size_t size)
{
	if (p->pid)
		snprintf(buf, size, "process %u", p->pid);
	else
		snprintf(buf, size, "process ? (%u in its PID namespace)", p->ns_key.ns_pid);
	return buf;
}

/* Which part of a process file the program wrote over (proc_damaged). */
enum proc_damage {
	DAMAGE_RINGS,   /* positions: no longer read; recording stops */
	DAMAGE_RECORDS, /* passed on as they are, for readers to drop */
	DAMAGE_REAPS,   /* the reap table is no longer read */
	DAMAGE_HEADER,  /* its counts and texts are not used */
	DAMAGE_PARTS
};

/* What each part is, and what its damage costs the recording. */
static const char *const damage_part[DAMAGE_PARTS] = {
	[DAMAGE_RINGS] = "ring positions",
	[DAMAGE_RECORDS] = "records in its rings",
	[DAMAGE_REAPS] = "its table of reaped children",
	[DAMAGE_HEADER] = "the header of its process file",
};
static const char *const damage_cost[DAMAGE_PARTS] = {
	[DAMAGE_RINGS] = "its trace keeps the events read before, and recording it stopped",
	[DAMAGE_RECORDS] = "readers count the damaged records as lost",
	[DAMAGE_REAPS] = "how its children ended may be unknown",
	[DAMAGE_HEADER] = "the counts and notes of its header are left out",
};

/*
 * Notes that p's program wrote over part of its recorder's memory in its
 * own address space (proc_damage_warn says so once, at its end).  Damaged
 * ring positions stop the launcher reading p's rings, and it stores
 * PROC_ABANDONED in the header, which makes the recorder's threads stop
 * recording rather than wait for room for ever.
 */
static void proc_damaged(struct proc *p, enum proc_damage part)
{
	p->damage |= 1u << part;
	if (part == DAMAGE_RINGS && !p->broken) {
		p->broken = true;
		proc_file_abandon(&p->pf);
	}
}

/* The parts of p's file found damaged, "A, B" (empty: none). */
static void proc_damage_parts(const struct proc *p, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < DAMAGE_PARTS && n < size; k++)
		if (p->damage & (1u << k))
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
					      damage_part[k]);
}

/* One warning for a process whose program wrote over its recorder's
 * memory: which parts, and what its recording lost by it. */
static void proc_damage_warn(const struct proc *p)
{
	char who[64], parts[256], cost[512];
	size_t n = 0;

	if (!p->damage)
		return;
	proc_damage_parts(p, parts, sizeof(parts));
	cost[0] = '\0';
	for (unsigned k = 0; k < DAMAGE_PARTS && n < sizeof(cost); k++)
		if (p->damage & (1u << k))
			n += (size_t)snprintf(cost + n, sizeof(cost) - n, "%s%s", n ? "; " : "",
					      damage_cost[k]);
	mprof_warn("%s wrote over its recorder's memory (%s); its recording is damaged: %s",
		   proc_label(p, who, sizeof(who)), parts, cost);
}

/* Whether p's header still holds what the recorder wrote before the
 * launcher mapped it (magic, version, geometry, which no one changes
 * after); if not, notes the damage. */
static bool proc_header_intact(struct proc *p)
{
	const struct session_proc_header *h = p->pf.h;

	if (p->damage & (1u << DAMAGE_HEADER))
		return false;
	if (h->magic == SESSION_PROC_MAGIC && h->version == SESSION_VERSION &&
	    h->nslots == p->pf.nslots && h->ring_bytes == p->pf.ring_bytes &&
	    h->ring_offset == p->pf.ring_offset)
		return true;
	proc_damaged(p, DAMAGE_HEADER);
	return false;
}

/* The children a process's header counts as not recorded, of every kind
 * (no recorder, sandboxed, raw clones, on a stack of their own). */
static uint64_t proc_header_children_unrecorded(const struct session_proc_header *h)
{
	return (uint64_t)atomic_load(&h->children_unrecorded) + atomic_load(&h->children_sandboxed) +
	       atomic_load(&h->children_raw) + atomic_load(&h->children_own_stack);
}

/*
 * Whether the counts of processes in p's header (children not recorded,
 * programs started unrecorded) can be true: none passes the tasks the
 * machine created since the launcher started.  A header written over
 * (4294967295 "processes forked ... not recorded") is noted damaged, and
 * its counts are left out.
 */
static bool proc_header_counts_possible(const struct collector *c, struct proc *p)
{
	const struct session_proc_header *h = p->pf.h;
	unsigned long long sum = proc_header_children_unrecorded(h) +
				 atomic_load(&h->execs_unrecorded);

	/* most processes have none: /proc/stat is read only for the others */
	if (sum == 0 || sum <= pid_window_tasks_since(&c->pids))
		return true;
	proc_damaged(p, DAMAGE_HEADER);
	return false;
}

/* ---------- the process lists ---------- */

static size_t name_hash(const char *name)
{
	size_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

static struct proc *proc_find(const struct collector *c, const char *name)
{
	if (!c->index_cap)
		return NULL;
	for (size_t i = name_hash(name) & (c->index_cap - 1);; i = (i + 1) & (c->index_cap - 1)) {
		struct proc *p = c->index[i];

		if (!p || strcmp(p->name, name) == 0)
			return p;
	}
}

static void index_put(struct proc **index, size_t cap, struct proc *p)
{
	size_t i = name_hash(p->name) & (cap - 1);

	while (index[i])
		i = (i + 1) & (cap - 1);
	index[i] = p;
}

/* Adds p to the name index, kept at most half full. */
static int index_add(struct collector *c, struct proc *p)
{
	if (2 * (c->all.n + 1) > c->index_cap) {
		size_t cap = c->index_cap ? 2 * c->index_cap : 64;
		struct proc **v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < c->index_cap; k++)
			if (c->index[k])
				index_put(v, cap, c->index[k]);
		free(c->index);
		c->index = v;
		c->index_cap = cap;
	}
	index_put(c->index, c->index_cap, p);
	return 0;
}

static int list_push(struct proc_list *l, struct proc *p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct proc **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = p;
	return 0;
}

/* Drops finished processes from the live list (they stay in all). */
static void live_compact(struct collector *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->live.n; i++)
		if (c->live.v[i]->phase != PROC_DONE)
			c->live.v[k++] = c->live.v[i];
	c->live.n = k;
}

/* ---------- draining ---------- */

static int copy_reserve(struct collector *c, size_t bytes)
{
	uint8_t *nb;

	if (c->copy_bytes >= bytes)
		return 0;
	nb = realloc(c->copy, bytes);
	if (!nb)
		return -ENOMEM;
	c->copy = nb;
	c->copy_bytes = bytes;
	return 0;
}

/* Past this many slots used, ring_span_punching keeps no high-water mark. */
#define RINGS_HIGH_SLOTS_MAX 512

/* The ring bytes of slot i that the writes from position from to
 * position to can have made resident: whole pages, at most the ring; none
 * when nothing was written (the page holding from went with the punch). */
static uint64_t ring_span_bytes(const struct collector *c, const struct proc *p, uint64_t from,
				uint64_t to)
{
	uint64_t page = c->page_bytes, first = from / page * page;
	uint64_t bytes = to > from ? (to + page - 1) / page * page - first : 0;

	return bytes < p->pf.ring_bytes ? bytes : p->pf.ring_bytes;
}

/* The ring memory p's threads' writes reached, per slot used, since
 * from[slot] (its last punch: what can be resident now), or since the
 * slot's start when from is NULL (every page ever written). */
static uint64_t proc_rings_written(const struct collector *c, const struct proc *p,
				   const uint64_t *from)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < p->slots_used && i < p->pf.nslots; i++) {
		uint64_t w = atomic_load_explicit(&proc_file_slot(&p->pf, i)->write_pos,
						  memory_order_acquire);

		sum += ring_span_bytes(c, p, from ? from[i] : 0, w);
	}
	return sum;
}

/* Before slot i's ring is punched: keeps the most ring memory the process
 * can have had resident (it only grows between punches, so its most is
 * reached before one, or at the end), and notes where the slot's next run
 * of writes starts.  Without memory for that the slot counts from its
 * start: more, never less. */
static void ring_span_punching(const struct collector *c, struct proc *p, uint32_t i)
{
	uint64_t now;

	/* a scan of every slot at every punch: quadratic in the threads alive
	 * at once; past this many, the figure is each slot's writes summed */
	if (p->slots_used > RINGS_HIGH_SLOTS_MAX)
		p->rings_high_off = true;
	if (p->rings_high_off)
		return;
	now = proc_rings_written(c, p, p->punched_pos);

	if (now > p->rings_high_bytes)
		p->rings_high_bytes = now;
	if (!p->punched_pos)
		p->punched_pos = calloc(p->pf.nslots, sizeof(*p->punched_pos));
	if (p->punched_pos)
		p->punched_pos[i] = atomic_load_explicit(&proc_file_slot(&p->pf, i)->write_pos,
							 memory_order_acquire);
}

/* Punches a drained, retired slot's ring out of memory and frees the slot
 * for the next thread (positions stay: the next owner continues there).
 * Not once the image is ending (the program reaped, or its exit noted): no
 * thread will take the slot, the file goes as a whole, and each punch costs
 * a TLB flush on every processor (a program of 1000 threads that ended
 * waited 0.8 s for 1000 punches). */
static void slot_release(struct collector *c, struct proc *p, uint32_t i)
{
	uint8_t *ring = proc_file_ring(&p->pf, i);
	bool ending = (p->pid == (unsigned)c->cfg->root_pid && c->ended) ||
		      atomic_load_explicit(&p->pf.h->exit_known, memory_order_acquire) == 1;

	if (!ending && (uintptr_t)ring % c->page_bytes == 0 &&
	    p->pf.ring_bytes % c->page_bytes == 0) {
		ring_span_punching(c, p, i);
		madvise(ring, p->pf.ring_bytes, MADV_REMOVE);
	}
	atomic_store_explicit(&proc_file_slot(&p->pf, i)->state, SLOT_FREE, memory_order_release);
}

/* What a process keeps per slot while it is drained (its re-encoding
 * states, ~9 KB a slot used, and drain times): given back when it is
 * finalized, as a run may start thousands of processes (3000 forks held
 * 242 MB in the launcher before).  Only the slots that had a state are
 * looked at: a free() of each of the file's 4096 was ~15 us a process. */
static void proc_free_slot_state(struct proc *p)
{
	for (uint32_t k = 0; p->recoders && k < p->recoders_high; k++)
		free(p->recoders[k]);
	free(p->recoders);
	p->recoders = NULL;
	p->recoders_high = 0;
	free(p->drained_ns);
	p->drained_ns = NULL;
	free(p->write_pos_seen);
	p->write_pos_seen = NULL;
	free(p->punched_pos);
	p->punched_pos = NULL;
}

static void proc_ext_take(void *arg, unsigned kind, const uint8_t *body, size_t len);

/* Slot i's re-encoding state, made on first use; NULL when out of memory. */
static struct record_recoder *proc_recoder(struct proc *p, uint32_t i)
{
	if (!p->recoders)
		p->recoders = calloc(p->pf.nslots, sizeof(*p->recoders));
	if (!p->recoders)
		return NULL;
	if (!p->recoders[i]) {
		p->recoders[i] = calloc(1, sizeof(*p->recoders[i]));
		if (p->recoders[i] && i >= p->recoders_high)
			p->recoders_high = i + 1;
		/* the stream that holds the DIAG and PROCESS records */
		if (p->recoders[i] && (!(p->pf.id.flags & SESSION_FLAG_META_SLOT) ||
				       i == SESSION_META_SLOT)) {
			p->recoders[i]->ext_fn = proc_ext_take;
			p->recoders[i]->ext_arg = p;
		}
	}
	return p->recoders[i];
}

/* A process that ended before the launcher read its /proc cmdline (META
 * then has none) still gets its command line for the table of processes,
 * from the PROCESS record the shim wrote (in the meta stream when there is
 * one). */
static void proc_command_find(struct proc *p, uint32_t i, const uint8_t *src, size_t n)
{
	const char *cmd;
	size_t len;

	if ((p->command && p->command[0]) ||
	    ((p->pf.id.flags & SESSION_FLAG_META_SLOT) && i != SESSION_META_SLOT) ||
	    record_process_command(src, n, &cmd, &len) < 0 || !len)
		return;
	free(p->command);
	p->command = strndup(cmd, len);
}

/* Keeps the text of a DIAG record of process arg for diag_print, once. */
static void proc_diag_keep(void *arg, uint64_t code, const char *text, size_t len)
{
	struct proc *p = arg;

	if (code < 32)
		p->diag_codes |= 1u << code;
	for (unsigned k = 0; k < p->diag_text_count; k++)
		if (strlen(p->diag_texts[k]) == len && memcmp(p->diag_texts[k], text, len) == 0)
			return;
	if (p->diag_text_count == PROC_DIAG_TEXTS_MAX) {
		p->diag_texts_more++;
		return;
	}
	p->diag_texts[p->diag_text_count] = strndup(text, len);
	if (p->diag_texts[p->diag_text_count])
		p->diag_text_count++;
}

/* Every diagnostic of a process reaches stderr, not only the one text its
 * header keeps: the DIAG records of its meta stream (a walk over the
 * drained bytes, which are mostly STACK records, for a range that was not
 * re-encoded: the re-encoding gives them to proc_ext_take). */
static void proc_diags_find(struct proc *p, uint32_t i, const uint8_t *src, size_t n)
{
	if ((p->pf.id.flags & SESSION_FLAG_META_SLOT) && i != SESSION_META_SLOT)
		return;
	record_diag_each(src, n, proc_diag_keep, p);
}

/* The extended records of p's meta stream as they are re-encoded
 * (record_recoder.ext_fn): its DIAG texts and its first PROCESS record's
 * command line, as proc_diags_find and proc_command_find take them. */
static void proc_ext_take(void *arg, unsigned kind, const uint8_t *body, size_t len)
{
	struct proc *p = arg;
	const char *text;
	size_t text_len;
	uint64_t code;

	if (kind == TRACE_REC_EXT_DIAG &&
	    record_diag_decode(body, len, &code, &text, &text_len) == 0)
		proc_diag_keep(p, code, text, text_len);
	else if (kind == TRACE_REC_EXT_PROCESS && !(p->command && p->command[0]) &&
		 record_process_decode(body, len, &text, &text_len) == 0 && text_len) {
		free(p->command);
		p->command = strndup(text, text_len);
	}
}

/* Frees the texts proc_diags_find kept. */
static void proc_diags_free(struct proc *p)
{
	for (unsigned k = 0; k < p->diag_text_count; k++)
		free(p->diag_texts[k]);
	p->diag_text_count = 0;
}

/* The index entry's flags and spans from what a range's records hold. */
static void chunk_index_entry_of_span(struct chunk_index_entry *e, const struct record_span *sp)
{
	e->flags = 0;
	if (sp->unknown) {
		e->flags = CHUNK_INDEX_UNKNOWN;
		return;
	}
	if (sp->other)
		e->flags |= CHUNK_INDEX_OTHER;
	if (sp->has_seq) {
		e->flags |= CHUNK_INDEX_HAS_SEQ;
		e->seq_first = sp->seq_first;
		e->seq_last = sp->seq_last;
	}
	if (sp->has_time) {
		e->flags |= CHUNK_INDEX_HAS_TIME;
		e->time_first = sp->time_first;
		e->time_last = sp->time_last;
	}
}

/*
 * Laps of a process re-encoded though they start while chunks are stored:
 * its first one, up to a ring of records (768 KiB by default, some 130,000
 * events and a millisecond of the launcher's time), so that a short
 * process's trace does not grow with what runs beside it (the demo's was
 * 31 KB instead of 3.6 beside another writer); not when its thread is about
 * to wait for its ring, as re-encoding holds the ring's bytes (slot_lap_pass).
 */
#define STORED_LAPS_RECODED_MAX 1u

/* Whether the lap of slot i whose bytes from ring offset on are copied
 * passes through as the recorder wrote it (record_recode's pass_lap).  The
 * meta stream's laps (call stacks, module maps) take none of the budget,
 * nor a lap whose thread is about to wait for its ring (writer_waits: more
 * than half of it unread), which would wait for the re-encoding too. */
static bool slot_lap_pass(struct proc *p, uint32_t i, bool stored, bool writer_waits,
			  uint64_t offset)
{
	if (!stored || offset != 0 || i == SESSION_META_SLOT || writer_waits)
		return stored;
	if (p->stored_laps_recoded >= STORED_LAPS_RECODED_MAX)
		return true;
	p->stored_laps_recoded++;
	return false;
}

/*
 * Copies ring bytes [r, end) of slot i (one lap at most) into c->copy as the
 * payload of an EVENTS chunk: varint slot, varint lap, varint offset, then
 * the records re-encoded into the compact form (trace/recode.h), the offset
 * being the compact stream's.  A lap that starts while chunks are stored
 * (stored: the program keeps every processor busy) is copied as it is, as
 * re-encoding would take the program's time (the two-thread
 * microbenchmark ran x2.47 re-encoding every lap, against x2.00 before),
 * but for a process's first such lap (slot_lap_pass); the shim's records
 * are valid as they are.  Without memory for the
 * re-encoding, the bytes verbatim at their ring offset (a reader then drops
 * the rest of that lap, as a discontinuity).  Returns the payload's length
 * in bytes, or 0 when out of memory even for that.
 */
static size_t slot_chunk_copy(struct collector *c, struct proc *p, uint32_t i, uint64_t r,
			      uint64_t end, bool stored, bool writer_waits, uint64_t *used,
			      struct chunk_index_entry *e)
{
	uint64_t ring_bytes = p->pf.ring_bytes, offset = r % ring_bytes;
	const uint8_t *src = proc_file_ring(&p->pf, i) + offset;
	size_t n = (size_t)(end - r), m, used_bytes = n;
	struct record_recoder *rc = proc_recoder(p, i);
	uint8_t head[CHUNK_HEAD_BYTES], *q = head;

	*used = n;
	memset(e, 0, sizeof(*e));
	e->flags = CHUNK_INDEX_UNKNOWN;
	if (rc && copy_reserve(c, CHUNK_HEAD_BYTES + record_recode_bound(n) +
				      TRACE_SPLIT_EXTRA_BYTES) == 0) {
		bool pass_lap = slot_lap_pass(p, i, stored, writer_waits, offset);

		m = record_recode(rc, r / ring_bytes, offset, pass_lap, src, n,
				  c->copy + CHUNK_HEAD_BYTES, &offset, &used_bytes);
		if (!rc->recoded) { /* passed through: not seen by proc_ext_take */
			proc_command_find(p, i, src, n);
			proc_diags_find(p, i, src, n);
		}
		*used = used_bytes;
		if (rc->damaged)
			proc_damaged(p, DAMAGE_RECORDS);
		rc->damaged = false;
		p->counts.allocations += rc->counts.allocations;
		p->counts.records += rc->counts.records;
		rc->counts = (struct record_counts){0};
		if (m == 0)
			return 0;
		chunk_index_entry_of_span(e, &rc->span);
	} else {
		if (rc)
			rc->valid = false;
		proc_command_find(p, i, src, n);
		proc_diags_find(p, i, src, n);
		if (copy_reserve(c, CHUNK_HEAD_BYTES + n + TRACE_SPLIT_EXTRA_BYTES) < 0)
			return 0;
		record_count_allocations(src, n, &p->counts);
		memcpy(c->copy + CHUNK_HEAD_BYTES, src, n);
		m = n;
	}
	q = varint_put_u64(q, i);
	q = varint_put_u64(q, r / ring_bytes);
	q = varint_put_u64(q, offset);
	e->lap = r / ring_bytes;
	e->lap_offset = offset;
	memmove(c->copy + (q - head), c->copy + CHUNK_HEAD_BYTES, m);
	memcpy(c->copy, head, (size_t)(q - head));
	return (size_t)(q - head) + m;
}

/*
 * The compression level of each effort step, most effort first (see
 * TRACE_LEVEL_* for what each costs).  Ring waits step down to the fastest
 * compression at most; the last step, storing, is for when the program's
 * threads fill every processor (slot_drain), where it keeps up at any
 * rate: with it for ring waits too, a C++ container benchmark with 4 waits
 * wrote 10-20 MB instead of 8-12 MB.  (With zlib the fastest step was
 * Huffman-only coding, a third larger than level 1: on random sizes and
 * addresses, bench/churn_n.c, zlib's level 1 fell behind a single thread;
 * libdeflate's level 1 is twice as fast as zlib's and faster than that.)
 */
static const int effort_levels[] = {
	TRACE_LEVEL_SMALL, TRACE_LEVEL_MEDIUM, TRACE_LEVEL_QUICK, TRACE_LEVEL_FAST,
	TRACE_LEVEL_STORED,
};
#define EFFORT_STEPS (sizeof(effort_levels) / sizeof(effort_levels[0]))
#define EFFORT_STEP_STORED (EFFORT_STEPS - 1)
#define EFFORT_STEP_FAST 2u /* level 2: at least this when a ring is half full */

_Static_assert(EFFORT_STEPS == sizeof(((struct collector *)0)->ps_per_byte) / sizeof(uint64_t),
	       "a learnt cost per effort step");

static void proc_effort_apply(struct proc *p, unsigned step)
{
	p->tf.w.level = effort_levels[step];
}

/* Starting costs, picoseconds per byte, measured on a C++ container
 * benchmark's records here (TRACE_LEVEL_*); stored is a copy and a CRC,
 * ~2 GB/s. */
static const uint64_t effort_ps_per_byte_start[EFFORT_STEPS] = { 9600, 6200, 4900, 3600, 500 };

/*
 * The most effort for taken bytes of slot i that the program can afford:
 * while they are compressed the slot's thread goes on writing at the rate
 * it wrote them (since the slot was last drained), and it must not fill its
 * whole ring before the collector is back, or it waits (ring waits stall
 * the program for a whole chunk's compression: a C++ container benchmark
 * had 3-5 per run, each up to ~15 ms at level 6).  With a margin of 2.
 * Never past the fastest compression (storing is for busy processors).
 */
static unsigned effort_for_rate(const struct collector *c, const struct proc *p, uint32_t i,
				unsigned step, uint64_t taken, uint64_t now)
{
	uint64_t since;

	if (!p->drained_ns || !p->drained_ns[i] || now <= p->drained_ns[i] || !taken)
		return step;
	since = now - p->drained_ns[i];
	/* stall when 2 * taken * cost / since * taken > ring, i.e. the bytes
	 * written during the compression exceed the ring */
	while (step < EFFORT_STEP_STORED - 1) {
		long double written = 2.0L * (long double)taken * (long double)c->ps_per_byte[step] /
				      1000.0L / (long double)since * (long double)taken;

		if (written < (long double)p->pf.ring_bytes)
			break;
		step++;
	}
	return step;
}

/* Unread bytes that make a slot count as a thread writing events: an
 * image's few hundred bytes left behind (a shell waiting for the program
 * it started) are not one (a review helper's `sh -c 'sqlite3 ...'` had
 * every chunk of sqlite3 stored while the shell's slot held its leftovers;
 * a thread writing events leaves tens of KB per round). */
#define BUSY_PENDING_BYTES 4096u

/* Whether slot i's thread wrote since the round before (w: its write
 * position now); notes w for the next round.  Out of memory: true. */
static bool slot_wrote(struct proc *p, uint32_t i, uint64_t w)
{
	bool wrote;

	if (!p->write_pos_seen)
		p->write_pos_seen = calloc(p->pf.nslots, sizeof(*p->write_pos_seen));
	if (!p->write_pos_seen)
		return true;
	wrote = w != p->write_pos_seen[i];
	p->write_pos_seen[i] = w;
	return wrote;
}

/* When slot i was last drained, or else when its process was first seen
 * (monotonic ns): the start of what it holds unread. */
static uint64_t slot_unread_since(const struct proc *p, uint32_t i)
{
	return p->drained_ns && p->drained_ns[i] ? p->drained_ns[i] : p->seen_ns;
}

/* Whether slot i, holding pending unread bytes, is written fast enough to
 * need the 1 ms rounds: at its rate since it was last drained, the longest
 * idle wait would let it write an eighth of its ring (a drain starts at a
 * quarter, the thread waits at a full ring: a margin of 6). */
static bool slot_fills_fast(const struct proc *p, uint32_t i, uint64_t pending,
			    uint64_t ring_bytes)
{
	uint64_t now = now_ns(), since = slot_unread_since(p, i);

	if (pending < BUSY_PENDING_BYTES)
		return false;
	if (now <= since)
		return true;
	return (long double)pending * IDLE_SLEEP_MAX_NS >=
	       (long double)(ring_bytes / 8) * (long double)(now - since);
}

/* Whether deflating taken bytes of slot i at the fastest level costs less
 * than a hundredth of a processor over the time the slot took to write
 * them (since its last drain). */
static bool slot_cheap_to_compress(const struct collector *c, const struct proc *p, uint32_t i,
				   uint64_t taken, uint64_t now)
{
	uint64_t since = slot_unread_since(p, i);

	if (now <= since)
		return false;
	return (long double)taken * (long double)c->ps_per_byte[EFFORT_STEP_STORED - 1] / 1000.0L *
		       100.0L <
	       (long double)(now - since);
}

/* Takes what slot i holds when it is worth a chunk (always with force).
 * Returns the bytes taken. */
static uint64_t slot_drain(struct collector *c, struct proc *p, uint32_t i, bool force)
{
	struct session_slot *s = proc_file_slot(&p->pf, i);
	uint64_t ring_bytes = p->pf.ring_bytes;
	/* The state first: a RETIRED owner stored its last write_pos before. */
	uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
	uint64_t w = atomic_load_explicit(&s->write_pos, memory_order_acquire);
	uint64_t r = atomic_load_explicit(&s->read_pos, memory_order_relaxed);
	uint64_t taken;
	unsigned used_step;
	bool wrote = slot_wrote(p, i, w);

	if ((state != SLOT_FREE || w != 0) && i >= p->slots_used)
		p->slots_used = i + 1;
	if (w == r) {
		if (state == SLOT_RETIRED)
			slot_release(c, p, i);
		return 0;
	}
	if (w < r || w - r > ring_bytes) {
		proc_damaged(p, DAMAGE_RINGS);
		return 0;
	}
	/* A writing thread; not the meta stream, and not a slot of an image
	 * that executed another program: its threads write in the new image's
	 * slots now, and what it left below a quarter of a ring waits for
	 * proc_finish, which for the program itself comes only at the end.
	 * (Counted, the two slots sh left behind after `sh -c 'exec python3
	 * ...'` had every chunk of python3 stored: 8.8 MB against 1.2 MB.)
	 * Nor one whose thread stopped writing: the last bytes of a process
	 * that ended or of a thread that waits (each demo run by `sh -c 'for
	 * ...'` after the first counted the one before as a second writer, had
	 * its lap stored and not re-encoded, and wrote 31 KB instead of 3.8). */
	if (i != SESSION_META_SLOT && !p->superseded && w - r >= BUSY_PENDING_BYTES && wrote)
		c->busy_slots_now++;
	if (i != SESSION_META_SLOT && !p->superseded && slot_fills_fast(p, i, w - r, ring_bytes))
		c->filling_slots_now++;
	if (!force && state != SLOT_RETIRED && w - r < ring_bytes / 4)
		return 0;
	taken = w - r;
	/* Compress only when a processor is to spare: with as many threads
	 * writing as there are processors, every cycle of the launcher's is
	 * taken from the program (two-thread microbenchmark on 2 CPUs: zlib was
	 * 47% of all CPU time at level 6; storing the records as they are there
	 * ran in 0.60-0.66 s against 0.78-0.90 s with Huffman-only level 1, for
	 * a trace 27% larger).  A slot written slowly (a sampled run) is
	 * compressed even then, at the fastest level: it costs the program
	 * next to nothing now, where storing it left the whole trace to
	 * compress after the program's end, in the run's time.  When a ring
	 * is more than half full its thread is about to wait: level 2 at
	 * least. */
	{
		uint64_t now = now_ns();
		unsigned step = p->effort_step;

		if (c->test_store)
			step = EFFORT_STEP_STORED;
		else if (c->busy_slots >= c->cpus || c->cpu_busy)
			step = slot_cheap_to_compress(c, p, i, taken, now) ? EFFORT_STEP_STORED - 1
									   : EFFORT_STEP_STORED;
		else if (taken > ring_bytes / 2 && step < EFFORT_STEP_FAST)
			step = EFFORT_STEP_FAST;
		step = effort_for_rate(c, p, i, step, taken, now);
		proc_effort_apply(p, step);
		if (!p->drained_ns)
			p->drained_ns = calloc(p->pf.nslots, sizeof(*p->drained_ns));
		if (p->drained_ns)
			p->drained_ns[i] = now;
		used_step = step;
	}
	/* The ring's bytes are handed back as soon as they are copied, before
	 * they are compressed: a thread whose ring filled up during a chunk's
	 * compression used to wait for all of it (a C++ container benchmark
	 * waited 12-17 times per run with zlib level 6 on a lap of 512 KiB). */
	while (r < w) {
		uint64_t lap_end = (r / ring_bytes + 1) * ring_bytes;
		uint64_t end = w < lap_end ? w : lap_end, ring_taken;
		uint64_t t0 = now_ns(), spent;
		struct chunk_index_entry entry;
		size_t bytes = slot_chunk_copy(c, p, i, r, end, used_step == EFFORT_STEP_STORED,
					       taken > ring_bytes / 2, &ring_taken, &entry);

		/* (less than end - r only where re-encoding stopped at damage:
		 * the next pass writes the rest apart; never nothing) */
		if (!ring_taken) {
			proc_damaged(p, DAMAGE_RINGS);
			break;
		}
		r += ring_taken;
		atomic_store_explicit(&s->read_pos, r, memory_order_release);
		if (p->has_trace && bytes) {
			trace_file_events_chunk_indexed(&p->tf, i + 1, c->copy, bytes,
							c->copy_bytes, &entry);
			spent = now_ns() - t0;
			/* the step's cost per ring byte (re-encoding included),
			 * learnt from chunks worth timing */
			if (ring_taken >= 16384)
				c->ps_per_byte[used_step] = (3 * c->ps_per_byte[used_step] +
							     spent * 1000 / ring_taken) / 4;
		}
	}
	if (state == SLOT_RETIRED)
		slot_release(c, p, i);
	return taken;
}

/*
 * Whether the run keeps the processors busy: its processes together used
 * more than cpus - 3/4 processors of CPU time, each over its last window of
 * CPU_WATCH_NS or more (its threads' together, from its CPU-time clock).
 * Then chunks are stored, not compressed, as when as many of its threads
 * write as there are processors (slot_drain): a thread that computes
 * without allocating takes a processor too, and does not show in the rings.
 * (The two-thread microbenchmark, whose threads also compute between their
 * allocations, had a quarter of its bytes compressed, mostly at the
 * highest effort, while both ran; with every chunk stored it ran x1.97
 * against x2.22, 11 interleaved rounds, and with this x2.09 against x2.28,
 * 7 rounds.)  The launcher's own compression takes processors from the
 * program, so with 3 or more processors a program can read below the
 * threshold while the launcher compresses (a review helper's reckoning).
 */
/* (Read from another process, the clock here moves in scheduler ticks, 4 ms:
 * over 5 ms windows one busy thread read as 1.6 processors every other time;
 * over 40 ms, one busy thread read 0.97-1.08 (python3, cxxchurn) and the
 * microbenchmark's two 1.85-1.98.) */
#define CPU_WATCH_NS (40 * MS_NS)

/* Updates p->cpu_milli when its window is over. */
static void proc_cpu_watch(struct proc *p)
{
	uint64_t cpu, wall;

	if (!p->has_cpu_clock)
		return;
	wall = now_ns(); /* next to the reading: a round's earlier work is not in it */
	if (p->cpu_wall_ns && wall - p->cpu_wall_ns < CPU_WATCH_NS)
		return;
	cpu = clock_ns(p->cpu_clock);
	if (!cpu) {
		p->has_cpu_clock = false; /* it ended */
		p->cpu_milli = 0;
		return;
	}
	if (p->cpu_wall_ns && cpu >= p->cpu_seen_ns && wall > p->cpu_wall_ns)
		p->cpu_milli = (cpu - p->cpu_seen_ns) * 1000 / (wall - p->cpu_wall_ns);
	else
		p->cpu_milli = 0; /* the first reading, or another process now */
	p->cpu_seen_ns = cpu;
	p->cpu_wall_ns = wall;
}

static void procs_cpu_watch(struct collector *c)
{
	uint64_t milli = 0;

	for (size_t i = 0; i < c->live.n; i++) {
		struct proc *p = c->live.v[i];

		/* (an image that executed another reads the same process's
		 * clock as the new one until it is finished: counted once) */
		if (p->phase == PROC_ACTIVE && !p->superseded) {
			proc_cpu_watch(p);
			milli += p->cpu_milli;
		}
	}
	c->cpu_busy = 4 * milli > (4 * (uint64_t)c->cpus - 3) * 1000;
}

/*
 * How hard this process's chunks are compressed: a thread that had to wait
 * for room in its ring since the last round means the collector did not keep
 * up, so compression takes one step less effort (effort_levels); after
 * EFFORT_RELAX_NS without waits it tries one step more.
 * (A C++ container benchmark writing 10 M events/s waited 29 times at level
 * 6 and ran x2.1 instead of x1.6.)
 */
#define EFFORT_RELAX_NS 1000000000ull

static void proc_effort_adjust(struct proc *p, uint64_t now)
{
	uint64_t waits = atomic_load_explicit(&p->pf.h->waits, memory_order_relaxed);

	if (waits != p->waits_seen) {
		p->waits_seen = waits;
		if (p->effort_step + 1 < EFFORT_STEP_STORED)
			p->effort_step++;
		p->effort_relax_ns = now + EFFORT_RELAX_NS;
	} else if (p->effort_step && now >= p->effort_relax_ns) {
		p->effort_step--;
		p->effort_relax_ns = now + EFFORT_RELAX_NS;
	}
}

/* How many slots from 0 up the process has ever claimed (the header's
 * slots_high, which the process can write: bounded by the file's slots). */
static uint32_t proc_slots_claimed(const struct proc *p)
{
	uint32_t high = atomic_load_explicit(&p->pf.h->slots_high, memory_order_acquire);

	return high < p->pf.nslots ? high : p->pf.nslots;
}

/*
 * One pass over the slots of an active process; returns the bytes taken.
 * Threads claim slots from the low end, so an ordinary round looks at the
 * slots used so far plus SLOT_MARGIN; a sweep (every SWEEP_INTERVAL_NS, and
 * at the end) looks at every slot ever claimed.
 */
static uint64_t proc_drain(struct collector *c, struct proc *p, bool force, uint64_t now)
{
	uint64_t taken = 0;
	uint32_t limit = proc_slots_claimed(p);

	if (p->broken)
		return 0;
	proc_effort_adjust(p, now);
	if (now > p->last_sweep_ns && now - p->last_sweep_ns >= SWEEP_INTERVAL_NS)
		force = true;
	if (force)
		p->last_sweep_ns = now;
	else if (p->slots_used + SLOT_MARGIN < limit)
		limit = p->slots_used + SLOT_MARGIN;
	for (uint32_t i = 0; i < limit && !p->broken; i++)
		taken += slot_drain(c, p, i, force);
	return taken;
}

static uint64_t procs_drain(struct collector *c, bool force)
{
	uint64_t now = now_ns(), taken = 0;

	c->busy_slots = c->busy_slots_now;
	c->busy_slots_now = 0;
	c->filling_slots_now = 0;
	procs_cpu_watch(c);
	for (size_t i = 0; i < c->live.n; i++)
		if (c->live.v[i]->phase == PROC_ACTIVE)
			taken += proc_drain(c, c->live.v[i], force, now);
	return taken;
}

/* ---------- finding and starting process files ---------- */

/* A process file other than p taken in with a trace for pid (in mprof's
 * namespace), or NULL. */
static const struct proc *proc_recorded_pid(const struct collector *c, const struct proc *p,
					    unsigned pid)
{
	for (size_t i = 0; pid && i < c->all.n; i++) {
		const struct proc *q = c->all.v[i];

		if (q != p && q->has_trace && q->pid == pid)
			return q;
	}
	return NULL;
}

/* Gives up on a process file: it is ignored and removed, and named through
 * the digest (the same reason in many processes: one line).  A file named
 * after a process recorded in another file (one the program made, or a
 * copy) does not make that process "not recorded". */
static void proc_ignore(struct collector *c, struct proc *p, const char *why)
{
	unsigned pid = proc_file_name_pid(p->name);
	const struct proc *recorded = proc_recorded_pid(c, p, pid);
	char program[LATE_PROGRAM_BYTES], who[32] = "process ?", file[NAME_BYTES + 32];

	if (pid) /* 0: unknown (preload/pidns.h) */
		snprintf(who, sizeof(who), "process %u", pid);
	if (recorded && recorded->exe && recorded->exe[0])
		snprintf(program, sizeof(program), "%s", recorded->exe);
	else
		pid_info_program(pid, program, sizeof(program));
	proc_file_abandon(&p->pf);
	proc_file_close(&p->pf);
	p->phase = PROC_DONE;
	unlinkat(dirfd(c->dir), p->name, 0);
	snprintf(file, sizeof(file), " (process file %s)", p->name);
	if (recorded)
		diag_digest_add_at(true, who, file, "a process file named after " DIAG_DIGEST_WHO
				   " (%s), which is recorded in another file, is ignored: %s", program,
				   why);
	else
		diag_digest_add_at(true, who, file, DIAG_DIGEST_WHO " (%s) is not recorded: %s",
				   program, why);
}

/* How many programs may be kept open under the descriptor limit. */
static size_t kept_images_max_for_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur / 8 >= KEPT_IMAGES_MAX)
		return KEPT_IMAGES_MAX;
	return (size_t)(rl.rlim_cur / 8);
}

/* Takes the reserve descriptor back once one is free again. */
static void fd_reserve_take(struct collector *c)
{
	if (c->reserve_fd < 0)
		c->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* Gives up the reserve descriptor, so that the next open gets its number;
 * false when it was given up already. */
static bool fd_reserve_release(struct collector *c)
{
	if (c->reserve_fd < 0)
		return false;
	close(c->reserve_fd);
	c->reserve_fd = -1;
	return true;
}

/* Whether the file st describes is one a live process was taken in from,
 * under another name: two readers of one ring would each take part of it,
 * and store read positions over each other's. */
static bool proc_file_known(const struct collector *c, const struct stat *st)
{
	for (size_t i = 0; i < c->live.n; i++) {
		const struct proc *q = c->live.v[i];

		if (q->phase != PROC_DONE && q->file_ino == st->st_ino && q->file_dev == st->st_dev)
			return true;
	}
	return false;
}

/*
 * Opens p's file and makes it pending.  A file that cannot be opened for
 * want of descriptors (the program's hard limit, ulimit -Hn, is the
 * launcher's too) is never dropped: its recorder would wait for room in its
 * ring for ever.  It gets the reserve descriptor, or else is tried again at
 * the next scan; the reserve is taken back before its trace is created
 * (proc_trace_open), so the files of later processes can be opened too.
 */
static void proc_take_in(struct collector *c, struct proc *p)
{
	struct stat st;
	int rc = proc_file_open(&p->pf, dirfd(c->dir), p->name);

	if ((rc == -EMFILE || rc == -ENFILE) && fd_reserve_release(c))
		rc = proc_file_open(&p->pf, dirfd(c->dir), p->name);
	if (p->open_deferred)
		c->files_deferred--;
	p->open_deferred = rc == -EMFILE || rc == -ENFILE;
	if (p->open_deferred)
		c->files_deferred++;
	/* Not openable (gone already, not ours), or another name of a file
	 * taken in (a link the program made): remembered, never looked at. */
	if (rc < 0 || fstat(p->pf.fd, &st) != 0 || proc_file_known(c, &st) ||
	    list_push(&c->live, p) < 0) {
		proc_file_close(&p->pf);
		return;
	}
	p->phase = PROC_PENDING;
	p->ctime = st.st_ctim;
	p->file_dev = st.st_dev;
	p->file_ino = st.st_ino;
	p->seen_ns = now_ns();
	p->seen_unix_ns = clock_ns(CLOCK_REALTIME);
}

static int proc_add(struct collector *c, const char *name)
{
	struct proc *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->pf.fd = -1;
	p->tf.fd = -1;
	p->guard = PID_GUARD_NONE;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->phase = PROC_DONE;
	if (list_push(&c->all, p) < 0) {
		free(p);
		return -ENOMEM;
	}
	if (index_add(c, p) < 0)
		return -ENOMEM;
	proc_take_in(c, p);
	return 0;
}

static uint64_t proc_start_ns(const struct proc *p);

/* Takes hold of p's pid (pid_guard.h) once it is known: the first time,
 * so that a pid reaped and given to another process before the launcher
 * saw it is never held.  Without the hold p's figures from /proc are
 * unknown. */
static void proc_guard_take(struct proc *p)
{
	if (!p->pid || p->guard_tried)
		return;
	p->guard_tried = true;
	/* its file's serial: it was alive then */
	pid_guard_take(&p->guard, p->pid, proc_start_ns(p), p->file_dev, p->file_ino);
}

/* p's pid while it is still p's process's (not reaped), else 0: for a
 * look at /proc/PID whose result is not checked after it (its cwd). */
static unsigned proc_pid_now(const struct proc *p)
{
	return pid_guard_current(&p->guard) ? p->pid : 0;
}

/* Notes p's peak RSS so far (VmHWM), while its image is the pid's: read
 * first, then kept only if /proc/PID/exe still names the image's program
 * (after an exec the pid's figure is the new image's: a fork child of rustc
 * that had just executed cc read 8 KiB) and the pid still p's process's
 * (a process that got it after p was reaped has figures of its own). */
static void proc_rss_watch(struct proc *p)
{
	char exe[sizeof(p->pf.h->exe)];
	unsigned long long kib;

	/* a look before the read too: an ended process costs no failed opens */
	if (p->phase != PROC_ACTIVE || p->superseded || !pid_guard_current(&p->guard))
		return;
	kib = pid_info_peak_rss_kib(p->pid);
	if (kib <= p->peak_rss_sampled_kib || !p->exe)
		return;
	if (pid_info_exe(p->pid, exe, sizeof(exe)) && strcmp(exe, p->exe) == 0 &&
	    pid_guard_current(&p->guard))
		p->peak_rss_sampled_kib = kib;
}

/*
 * Reads p's command line and process name from /proc and keeps them when
 * they are not those of its header, i.e. of its start: the program renamed
 * itself (a forked worker's title written over argv, or PR_SET_NAME).  The
 * exit note gives them at exit() or _exit(); these looks are for a process
 * killed, or still running at the end.  A look that finds other names is kept only if
 * /proc/PID/exe still names p's program after it (after an exec, /proc
 * shows the next image's names); one that reads nothing (a process that
 * ended: a zombie's command line reads empty), or made after p was reaped
 * (the names of the next process of its pid), keeps the last.
 */
/*
 * Notes that p's pid runs the program at exe in place of p's (names p
 * showed after it changed, proc_names_look) when p's recorder noted no
 * exec: the image was replaced by an exec system call it did not see (the
 * program's own instruction, as Go's runtime makes), so its status at the
 * end is the later program's and its blocks are live at exec, not leaks.
 * Only when the pid's maps, which the recorder's image keeps its process
 * file in, no longer show that file (an image started in another root or
 * mount namespace may name its program by another path), and not after
 * the pid was reaped and reused.
 */
static void proc_exec_unseen_look(struct proc *p, const char *exe)
{
	if (p->exec_unseen_exe || p->superseded ||
	    atomic_load_explicit(&p->pf.h->exec_self, memory_order_acquire) != 0 ||
	    !pid_guard_maps_other(p->pid, p->file_dev, p->file_ino) ||
	    !pid_guard_current(&p->guard))
		return;
	p->exec_unseen_exe = strdup(exe);
}

static void proc_names_look(struct proc *p)
{
	const struct session_proc_header *h = p->pf.h;
	char cmd[sizeof(h->command)], start[sizeof(h->command)], comm[sizeof(h->comm)];
	char start_comm[sizeof(h->comm)], exe[sizeof(h->exe)];
	bool cmd_changed, comm_changed;

	if (!pid_guard_current(&p->guard))
		return;
	pid_info_cmdline(p->pid, cmd, sizeof(cmd));
	if (!cmd[0])
		return;
	pid_info_comm(p->pid, comm, sizeof(comm));
	field_copy(start, sizeof(start), h->command, sizeof(h->command));
	field_copy(start_comm, sizeof(start_comm), h->comm, sizeof(h->comm));
	cmd_changed = strcmp(cmd, start) != 0;
	comm_changed = comm[0] && strcmp(comm, start_comm) != 0;
	if (cmd_changed || comm_changed) {
		if (!p->exe || !pid_info_exe(p->pid, exe, sizeof(exe)))
			return;
		if (strcmp(exe, p->exe) != 0) {
			proc_exec_unseen_look(p, exe);
			return;
		}
	}
	if (!pid_guard_current(&p->guard))
		return;
	free(p->seen_command);
	/* cut as the exit note's is */
	p->seen_command = cmd_changed ? strndup(cmd, sizeof(h->exit_command) - 1) : NULL;
	snprintf(p->seen_comm, sizeof(p->seen_comm), "%s", comm_changed ? comm : "");
}

/* Looks at p's names when it is time (NAMES_LOOK_FIRST_NS, _MAX_NS). */
static void proc_names_watch(struct proc *p, uint64_t now)
{
	if (p->phase != PROC_ACTIVE || p->superseded || !p->pid || now < p->names_look_ns)
		return;
	proc_names_look(p);
	p->names_gap_ns = p->names_gap_ns ? 2 * p->names_gap_ns : NAMES_LOOK_FIRST_NS;
	if (p->names_gap_ns > NAMES_LOOK_MAX_NS)
		p->names_gap_ns = NAMES_LOOK_MAX_NS;
	p->names_look_ns = now + p->names_gap_ns;
}

/* The serial of a process file name "p.PID.SERIAL": its creation time
 * (preload/procfile.c), 16 hex digits, so names compare as times. */
static const char *file_serial(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot && strlen(dot + 1) == 16 ? dot + 1 : NULL;
}

/* The image's start: CLOCK_MONOTONIC ns in its file name's serial, or 0. */
static uint64_t proc_start_ns(const struct proc *p)
{
	const char *serial = file_serial(p->name);

	return serial ? strtoull(serial, NULL, 16) : 0;
}

/* Oldest first: by the serial, else (files of other versions) by the
 * change time, which the file system keeps only to a few ms (an image and
 * the one it executed can share it). */
static int new_file_cmp(const void *a, const void *b)
{
	const struct proc *x = *(struct proc *const *)a, *y = *(struct proc *const *)b;
	const char *xs = file_serial(x->name), *ys = file_serial(y->name);

	if (xs && ys && strcmp(xs, ys) != 0)
		return strcmp(xs, ys) < 0 ? -1 : 1;
	if (x->ctime.tv_sec != y->ctime.tv_sec)
		return x->ctime.tv_sec < y->ctime.tv_sec ? -1 : 1;
	if (x->ctime.tv_nsec != y->ctime.tv_nsec)
		return x->ctime.tv_nsec < y->ctime.tv_nsec ? -1 : 1;
	return 0;
}

static bool dir_events_read(struct collector *c);

/* Whether a scan now would find nothing new: the directory is watched, no
 * file was made since the last full scan began (the watch's events are
 * read first: a file made before this call has its event queued), and no
 * file waits for a descriptor.  Most scans (2-3 a process: at its end, at
 * its reap, at each new file) found nothing; each read of the directory
 * cost the launcher ~10 us (bench/HISTORY.md session 61). */
static bool dir_unchanged(struct collector *c)
{
	dir_events_read(c);
	return c->inotify_fd >= 0 && c->inotify_wd >= 0 && !c->dir_changed &&
	       c->files_deferred == 0;
}

/* Adds the process files not seen before, oldest first. */
static void dir_scan(struct collector *c)
{
	size_t first_new = c->live.n;
	struct dirent *e;

	if (dir_unchanged(c))
		return;
	c->dir_changed = false; /* before the read: a file made during it
				 * leaves its event for the next scan */
	rewinddir(c->dir);
	while ((e = readdir(c->dir)) != NULL) {
		struct proc *p;

		if (strncmp(e->d_name, "p.", 2) != 0 || strlen(e->d_name) >= NAME_BYTES)
			continue;
		p = proc_find(c, e->d_name);
		if (!p)
			proc_add(c, e->d_name);
		else if (p->open_deferred)
			proc_take_in(c, p);
	}
	if (c->live.n - first_new > 1)
		qsort(c->live.v + first_new, c->live.n - first_new, sizeof(*c->live.v), new_file_cmp);
}

/* Absolute form of path (for parent_trace links between traces). */
static char *path_absolute(const char *path)
{
	char cwd[PATH_MAX], *out;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	out = malloc(strlen(cwd) + strlen(path) + 2);
	if (out)
		sprintf(out, "%s/%s", cwd, path);
	return out;
}

/*
 * The grain in ns of the clock by which the recorder times exact-mode
 * events (trace/event_clock.h): EVENT_CLOCK_TSC_TICKS_PER_TIME ticks of
 * the time-stamp counter at its rate against CLOCK_MONOTONIC from the
 * launcher's start to the first call (1 ms at least: spun for when the run
 * is younger), the same for every process of the run; or the coarse
 * clock's tick where the counter is not there or not allowed; 0 when
 * unknown.  (A program that forbids the counter later is timed by the
 * coarse clock from then on, which a note says.)
 */
static uint64_t event_clock_resolution_ns(struct collector *c)
{
	uint64_t ticks, ns;
	struct timespec res;

	if (!c->clock_tsc) {
		if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0)
			return 0;
		return (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
	}
	if (c->clock_resolution_ns)
		return c->clock_resolution_ns;
	do {
		ticks = event_clock_tsc() - c->clock_start_ticks;
		ns = now_ns() - c->clock_start_ns;
	} while (ns < 1000000);
	if (ticks == 0)
		return 0;
	c->clock_resolution_ns =
		(uint64_t)((double)EVENT_CLOCK_TSC_TICKS_PER_TIME * (double)ns / (double)ticks + 0.5);
	return c->clock_resolution_ns;
}

static void meta_write(struct collector *c, struct proc *p)
{
	const struct session_proc_header *h = p->pf.h;
	char exe[sizeof(h->exe)], parent_name[sizeof(h->parent_file)], cmd[4096];
	char comm[sizeof(h->comm)];
	struct trace_meta m = { 0 };
	struct proc *parent;

	field_copy(exe, sizeof(exe), h->exe, sizeof(h->exe));
	m.is_root = p->is_root;
	m.pid = p->pid;
	m.ppid = p->pf.id.ppid;
	m.ns_pid = p->pf.id.ns_pid != p->pid ? p->pf.id.ns_pid : 0;
	m.exe = exe;
	/* the image's own words; /proc may show a later image's */
	field_copy(cmd, sizeof(cmd), h->command, sizeof(h->command));
	if (p->is_root) {
		m.command = c->cfg->command;
		m.start_time_unix_ns = c->cfg->start_unix_ns;
	} else {
		if (!cmd[0])
			pid_info_cmdline(p->pid, cmd, sizeof(cmd));
		m.command = cmd;
		m.start_time_unix_ns = p->seen_unix_ns;
	}
	/* The table names every process by its image's own command line, as its
	 * report does (the PROCESS record's): a script started through its #!
	 * line is "/bin/sh ./s2.sh" there, not the launcher's "./s2.sh". */
	p->command = strdup(cmd[0] ? cmd : m.command);
	m.hostname = c->hostname;
	m.max_frames = c->cfg->max_frames;
	/* the image's own start, which a program may have set apart from the
	 * run's by changing the environment of what it executes */
	m.sample_rate_bytes = h->sample_rate;
	m.sample_seed = h->sample_seed;
	m.paused = h->paused != 0;
	m.no_children = c->cfg->no_children;
	m.ring_bytes = p->pf.ring_bytes;
	m.slots = p->pf.nslots;
	/* The shim's meta slot holds all STACK and MODULES records: the
	 * symbolizer then reads that stream alone (EVENTS stream = slot + 1). */
	if (p->pf.id.flags & SESSION_FLAG_META_SLOT)
		m.stack_stream = SESSION_META_SLOT + 1;
	m.time_resolution_ns = event_clock_resolution_ns(c);
	m.is_fork_child = p->pf.id.is_fork_child != 0;
	field_copy(comm, sizeof(comm), h->comm, sizeof(h->comm));
	m.comm = comm;
	if (m.is_fork_child) {
		field_copy(parent_name, sizeof(parent_name), h->parent_file, sizeof(h->parent_file));
		parent = parent_name[0] ? proc_find(c, parent_name) : NULL;
		m.parent_trace = parent ? parent->trace_path : NULL;
		m.fork_seq = p->pf.id.fork_seq;
	}
	trace_file_meta(&p->tf, &m);
}

/* Opens the trace of a newly mapped process.  On failure the process is
 * still drained (so it never blocks) but its data is not kept. */
static void proc_trace_open(struct collector *c, struct proc *p)
{
	char who[64];
	int rc = 0;

	if (p->is_root) {
		p->tf = *c->cfg->root_trace;
		memset(c->cfg->root_trace, 0, sizeof(*c->cfg->root_trace));
		c->cfg->root_trace->fd = -1;
	} else {
		fd_reserve_take(c); /* before the trace can take the number */
		rc = trace_file_create_for_pid(&p->tf, c->cfg->trace_base, p->pid);
	}
	/* the first failure is named; the others (a full disk fails every
	 * process after it) are counted once at the end */
	if (rc < 0) {
		if (c->create_failures++ == 0) {
			c->create_errno = -rc;
			mprof_warn("cannot create a trace beside %s for %s (%s): %s; it is not "
				   "recorded", c->cfg->trace_base, proc_label(p, who, sizeof(who)),
				   p->exe ? p->exe : "?", strerror(-rc));
		}
		p->tf.fd = -1;
		return;
	}
	p->has_trace = true;
	p->trace_path = path_absolute(p->tf.path);
	p->display_path = strdup(p->tf.path);
	meta_write(c, p);
}

/* The write positions of all of p's slots, summed: they only grow while
 * its threads write (slot_release keeps them). */
static uint64_t proc_write_pos_sum(const struct proc *p)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < p->pf.nslots; i++)
		sum += atomic_load_explicit(&proc_file_slot(&p->pf, i)->write_pos,
					    memory_order_acquire);
	return sum;
}

/* Notes that an image of q's pid started at start, after q.  One that
 * noted an exec ended there.  One that did not either executed by a raw
 * system call or still runs beside the new one, which is a second recorder
 * in the same process (a guest program under qemu-user, the recorder
 * loaded by dlmopen into a namespace of its own): it is settled when q is
 * finished (proc_successor_settle), by whether q wrote since. */
static void proc_successor_note(struct proc *q, uint64_t start)
{
	if (atomic_load_explicit(&q->pf.h->exec_self, memory_order_acquire) == 1) {
		q->superseded = true;
		q->superseded_ns = start;
		q->successor_pending = false;
	} else if (!q->successor_pending) {
		q->successor_pending = true;
		q->successor_ns = start;
		q->successor_wpos = proc_write_pos_sum(q);
	} else if (start && start < q->successor_ns) {
		q->successor_ns = start;
	}
}

/* When p is finished: a successor still pending is taken as its exec,
 * unless p wrote since it was noted or ended by exit(): an exec ends every
 * thread of the old image before the new one runs, so only a live image
 * writes on, and none that executed another calls exit(). */
static void proc_successor_settle(struct proc *p)
{
	if (!p->successor_pending || p->superseded)
		return;
	p->successor_pending = false;
	if (proc_write_pos_sum(p) != p->successor_wpos ||
	    atomic_load_explicit(&p->pf.h->exit_known, memory_order_acquire) == 1)
		return;
	p->superseded = true;
	p->superseded_ns = p->successor_ns;
}

/* A new image of a pid (exec) means every earlier image of it has ended,
 * or runs on beside it (proc_successor_note).  Files are taken in out of
 * order when one's header was ready later, so p may itself be the earlier
 * image of one taken in before it (perhaps finished already): such a file
 * was found after p's, so it stands after p in the list of all files. */
static void proc_mark_superseded(struct collector *c, struct proc *p)
{
	uint64_t start = proc_start_ns(p);

	if (!p->pid)
		return; /* unknown: no other image is known to be its */
	if (!p->fork_child) {
		for (size_t i = 0; i < c->live.n; i++) {
			struct proc *q = c->live.v[i];
			uint64_t q_start = proc_start_ns(q);

			/* a file without a serial is taken as older */
			if (q != p && q->phase == PROC_ACTIVE && q->pid == p->pid &&
			    !q->superseded && (q_start < start || !q_start || !start))
				proc_successor_note(q, start);
		}
	}
	for (size_t k = c->all.n; start && k-- > 0;) {
		const struct proc *q = c->all.v[k];
		uint64_t q_start = proc_start_ns(q);

		if (q == p)
			break;
		if (q->pid == p->pid && !q->fork_child && q_start > start &&
		    (!p->superseded || q_start < p->superseded_ns))
			proc_successor_note(p, q_start);
	}
}

/*
 * Finds the pid of an image whose recorder could not learn it (header pid
 * 0: a namespace whose /proc is its own) by its pid in its namespace
 * (pid_find.h): among the run's images of the same process (an exec keeps
 * the pid), then among its parent's children, then among the processes
 * created since mprof started.  Sets p->pid_gone when no live process is it.
 */
static void proc_pid_find(struct collector *c, struct proc *p)
{
	const struct pid_find_key *key = &p->ns_key;
	char parent_name[sizeof(p->pf.h->parent_file)];
	const struct proc *parent;
	unsigned pid = 0;

	if (p->pid || p->pid_gone || !key->ns_ino)
		return;
	for (size_t i = 0; i < c->all.n && !pid; i++) {
		const struct proc *q = c->all.v[i];

		if (q != p && q->pid && q->ns_key.ns_pid == key->ns_pid &&
		    q->ns_key.ns_dev == key->ns_dev && q->ns_key.ns_ino == key->ns_ino &&
		    pid_find_is(q->pid, key) == 1)
			pid = q->pid;
	}
	if (!pid && p->fork_child) {
		field_copy(parent_name, sizeof(parent_name), p->pf.h->parent_file,
			   sizeof(p->pf.h->parent_file));
		parent = parent_name[0] ? proc_find(c, parent_name) : NULL;
		if (parent && parent->pid)
			pid_find_child(parent->pid, key, &pid);
	}
	if (!pid) {
		pid_window_update(&c->pids);
		p->pid_gone = pid_find_scan(&c->pids, key, &pid) == PID_FIND_GONE;
	}
	p->pid = pid;
}

/* Whether p's process runs.  One whose pid is unknown is taken as running
 * unless no live process was found to be it (proc_pid_find); one reaped
 * (by a recorded image, or its pid no longer held) has ended, whatever now
 * has its pid. */
static bool proc_running(const struct proc *p)
{
	if (p->reap_seen)
		return false;
	if (!p->pid)
		return !p->pid_gone;
	/* pid_guard_reaped, not pid_guard_current: a /proc read that fails
	 * for want of a descriptor (ulimit -n) must not end a running process */
	return pid_guard_running(&p->guard, p->pid, proc_start_ns(p));
}

/* Keeps p's program open for the symbolize step (kept_images.h), once. */
static void proc_image_keep(struct collector *c, struct proc *p)
{
	if (p->exe_kept || !p->exe || !p->exe[0] || !pid_guard_holds(&p->guard) || p->superseded ||
	    c->kept.n >= c->kept_max)
		return;
	kept_images_look(&c->kept, p->pid, p->exe);
	p->exe_kept = true;
}

/* Maps a pending process file once its header is ready, and opens its
 * trace; a header still starting leaves it pending (proc_pending_decide). */
static void proc_activate(struct collector *c, struct proc *p, uint64_t now)
{
	int rc = proc_file_map(&p->pf);

	if (rc == 0)
		return;
	if (rc < 0) {
		const char *why = strerror(-rc);

		if (rc == -EPROTO)
			why = "its header is not one this mprof understands";
		else if (rc == -EBADMSG)
			why = "its process file holds a header no recorder writes (the program "
			      "wrote over its recorder's memory before mprof read it, or made "
			      "the file)";
		proc_ignore(c, p, why);
		return;
	}
	if (copy_reserve(c, CHUNK_HEAD_BYTES + record_recode_bound(p->pf.ring_bytes) +
			      TRACE_SPLIT_EXTRA_BYTES) < 0) {
		proc_ignore(c, p, "out of memory");
		return;
	}
	p->pid = p->pf.id.pid;
	p->ns_key = (struct pid_find_key){ p->pf.id.ns_pid, p->pf.id.pidns_dev,
					   p->pf.id.pidns_ino };
	p->fork_child = p->pf.id.is_fork_child;
	p->ppid = p->pf.id.ppid;
	p->exe = malloc(sizeof(p->pf.h->exe));
	if (p->exe)
		field_copy(p->exe, sizeof(p->pf.h->exe), p->pf.h->exe, sizeof(p->pf.h->exe));
	p->phase = PROC_ACTIVE;
	proc_pid_find(c, p);
	proc_guard_take(p);
	proc_rss_watch(p); /* a first reading, for an image that ends within 0.1 s */
	/* (pid 0 would give the launcher's own clock) */
	p->has_cpu_clock = p->pid && clock_getcpuclockid((pid_t)p->pid, &p->cpu_clock) == 0;
	p->last_sweep_ns = now;
	p->names_look_ns = now + NAMES_LOOK_FIRST_NS;
	if (!c->root_assigned && p->pid == (unsigned)c->cfg->root_pid && !p->pf.id.is_fork_child) {
		p->is_root = true;
		c->root_assigned = true;
		c->root_active_ns = now;
	}
	proc_mark_superseded(c, p);
	proc_trace_open(c, p);
	proc_image_keep(c, p);
}

/*
 * Decides on a pending file: whether its process runs is read first, then
 * its header once more.  A process seen ended will never change its header,
 * so that look is its last word: a recorder that finished starting is read
 * (a child that started, made its allocations and ended between two looks
 * was dropped before), one still starting recorded nothing and is named.  A
 * running process stays pending, unless running_why is given (mprof stops
 * waiting): then it is named with that reason.
 */
static void proc_pending_decide(struct collector *c, struct proc *p, const char *running_why)
{
	unsigned pid = proc_file_name_pid(p->name);
	/* 0: unknown, taken as running; one that got the pid after p's process
	 * was reaped is not p's */
	bool running = !pid || pid_guard_pid_running(pid, proc_start_ns(p));

	proc_activate(c, p, now_ns());
	if (p->phase != PROC_PENDING || (running && !running_why))
		return;
	if (proc_file_withdrawn(&p->pf)) {
		/* its recorder gave up: the process that started it says so */
		proc_file_close(&p->pf);
		p->phase = PROC_DONE;
		return;
	}
	proc_ignore(c, p, running ? running_why : "it ended before its recorder finished starting");
}

static void procs_activate_pending(struct collector *c, uint64_t now)
{
	for (size_t i = 0; i < c->live.n; i++)
		if (c->live.v[i]->phase == PROC_PENDING)
			proc_activate(c, c->live.v[i], now);
}

static bool procs_any_pending(const struct collector *c)
{
	for (size_t i = 0; i < c->live.n; i++)
		if (c->live.v[i]->phase == PROC_PENDING)
			return true;
	return false;
}

/* ---------- the reap tables ---------- */

/* Whether q may be the child that reaper r's entry e names: by its pid in
 * mprof's namespace, or by its pid in r's namespace (header pidns_*). */
static bool reap_names(const struct proc *r, const struct session_reap *e, const struct proc *q)
{
	unsigned pid = q->pid ? q->pid : proc_file_name_pid(q->name);

	if (e->pid && pid == e->pid)
		return true;
	return e->ns_pid && q->ns_key.ns_ino && q->ns_key.ns_pid == e->ns_pid &&
	       q->ns_key.ns_ino == r->pf.id.pidns_ino && q->ns_key.ns_dev == r->pf.id.pidns_dev;
}

/* Marks q ended with entry e's status. */
static void reap_give(struct proc *q, const struct session_reap *e)
{
	q->reap_seen = true;
	q->reap_by_call = e->call_start_ns != 0;
	q->reap_status = e->status;
	q->reap_ns = e->mono_ns;
}

/*
 * Gives call entry e of r's table (system(), pclose(): no pid) to r's child
 * started within the call: the pid of the only images of the run whose
 * header names r as parent and whose recorder started between the call's
 * start and its return, and of its images not finalized the last one
 * started.  Nothing when two children (pids) started then, or r's pid is
 * unknown; an entry of the wait family that named the child stays.
 */
static void reap_call_apply(struct collector *c, const struct proc *r,
			    const struct session_reap *e)
{
	struct proc *best = NULL;
	uint64_t best_start = 0;
	unsigned child = 0;

	if (!r->pid)
		return;
	for (size_t i = 0; i < c->all.n; i++) {
		const struct proc *q = c->all.v[i];
		uint64_t start = proc_start_ns(q);

		if (q == r || q->ppid != r->pid || start < e->call_start_ns || start > e->mono_ns)
			continue;
		if (!q->pid || (child && q->pid != child))
			return; /* two children, or one of unknown pid */
		child = q->pid;
	}
	for (size_t i = 0; child && i < c->live.n; i++) {
		struct proc *q = c->live.v[i];
		uint64_t start = proc_start_ns(q);

		if (q->phase == PROC_DONE || q->pid != child || start > e->mono_ns)
			continue;
		if (!best || start >= best_start) {
			best = q;
			best_start = start;
		}
	}
	if (best && (!best->reap_seen || best->reap_by_call))
		reap_give(best, e);
}

/* Gives entry e of r's table to the image it names: of the run's images
 * not yet finalized with that pid, the last one started before the reap
 * (an exec keeps the pid; a pid reused later is another process). */
static void reap_apply(struct collector *c, const struct proc *r, const struct session_reap *e)
{
	struct proc *best = NULL;
	uint64_t best_start = 0;

	if (e->call_start_ns) {
		reap_call_apply(c, r, e);
		return;
	}
	for (size_t i = 0; i < c->live.n; i++) {
		struct proc *q = c->live.v[i];
		uint64_t start = proc_start_ns(q);

		if (q == r || q->phase == PROC_DONE || !reap_names(r, e, q))
			continue;
		if (start && e->mono_ns && start > e->mono_ns)
			continue;
		if (!best || start >= best_start) {
			best = q;
			best_start = start;
		}
	}
	if (best)
		reap_give(best, e);
}

/* The most reap entries reserved and not taken yet: a full table plus a
 * writer waiting for room in each of a process's threads (the kernel's
 * threads-max is at most 2^22). */
#define REAPS_AHEAD_MAX (SESSION_REAP_ENTRIES + (UINT64_C(1) << 22))

/* Reads entry k of table t into *out: true when it holds entry k whole;
 * *pending tells an entry not written yet from one written over. */
static bool reap_entry_read(const struct session_reaps *t, uint64_t k, struct session_reap *out,
			    bool *pending)
{
	const struct session_reap *e = &t->entry[k % SESSION_REAP_ENTRIES];
	uint64_t tag = atomic_load_explicit(&e->tag, memory_order_acquire);

	*pending = tag < k + 1;
	if (tag != k + 1)
		return false;
	out->pid = e->pid;
	out->ns_pid = e->ns_pid;
	out->status = e->status;
	out->mono_ns = e->mono_ns;
	out->call_start_ns = e->call_start_ns;
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&e->tag, memory_order_relaxed) == k + 1;
}

/* Takes the entries r's reap table gained before the last scan for process
 * files began (reaps_ready).  One still being written is looked at again
 * next time, while r runs. */
static void reaps_take(struct collector *c, struct proc *r)
{
	struct session_reaps *t;

	if (r->phase != PROC_ACTIVE || (r->damage & (1u << DAMAGE_REAPS)))
		return;
	t = (struct session_reaps *)proc_file_reaps(&r->pf);
	/* an entry written over reads neither whole nor pending and is passed
	 * (count may run more than a table ahead while writers wait for room) */
	for (; r->reaps_taken < r->reaps_ready; r->reaps_taken++) {
		struct session_reap e;
		bool pending;

		if (reap_entry_read(t, r->reaps_taken, &e, &pending))
			reap_apply(c, r, &e);
		else if (pending && proc_running(r))
			break;
	}
	/* a writer waits for this before it writes over an entry */
	atomic_store_explicit(&t->taken, (uint32_t)r->reaps_taken, memory_order_release);
}

/* Whether r's reap table has entries not taken yet; notes how many it has
 * now in reaps_ready, before the caller's scan. */
static bool proc_reaps_new(struct proc *r)
{
	uint64_t count;

	if (r->phase != PROC_ACTIVE || (r->damage & (1u << DAMAGE_REAPS)))
		return false;
	count = atomic_load_explicit(&proc_file_reaps(&r->pf)->count, memory_order_acquire);
	/* A count that went back, or ran further ahead of the entries taken
	 * than a full table and one waiting writer per thread can take it,
	 * was written over by the program: read on, the launcher passed
	 * entries for up to 2^64 rounds. */
	if (count < r->reaps_taken || count - r->reaps_taken > REAPS_AHEAD_MAX) {
		proc_damaged(r, DAMAGE_REAPS);
		return false;
	}
	r->reaps_ready = count;
	return r->reaps_ready != r->reaps_taken;
}

/* The directory scanned for new process files before entries are taken.
 * An entry is only taken once a scan that began after it was written is
 * done: the child it names made its file before it ended, so that scan
 * found it (one that began earlier may have read the directory past the
 * file's place before the file was made, and the entry would match
 * nothing: up to 40 ends in 300 were lost so at load 4).  And the image a
 * child last executed is the one that ended. */
static void reaps_scan(struct collector *c)
{
	dir_scan(c);
	procs_activate_pending(c, now_ns());
}

/* Takes the new entries of r's reap table. */
static void proc_reaps_take(struct collector *c, struct proc *r)
{
	if (!proc_reaps_new(r))
		return;
	reaps_scan(c);
	reaps_take(c, r);
}

/* Takes the new entries of every image's reap table, after one scan. */
static void procs_reaps_take(struct collector *c)
{
	bool any = false;
	size_t n = c->live.n;

	for (size_t i = 0; i < n; i++)
		any = proc_reaps_new(c->live.v[i]) || any;
	if (!any)
		return;
	reaps_scan(c);
	for (size_t i = 0; i < n; i++)
		reaps_take(c, c->live.v[i]);
}

/* ---------- re-compression ---------- */

static void rezip_failed_warn(const char *path, int err)
{
	mprof_warn("cannot deflate the stored chunks of trace %s: %s; it keeps them", path,
		   strerror(-err));
}

/* Whether p's trace has enough stored chunks for a re-compression job. */
static bool proc_rezip_due(const struct proc *p)
{
	const struct trace_file *tf = &p->tf;
	uint64_t rest = tf->w.offset_bytes - tf->stored_bytes;

	return p->phase == PROC_ACTIVE && p->has_trace && tf->fd >= 0 && !tf->rezip &&
	       !tf->rezip_failed && tf->stored_bytes >= REZIP_START_BYTES &&
	       2 * tf->stored_bytes >= rest;
}

static void rezip_start_or_warn(struct proc *p)
{
	int rc = rezip_start(&p->tf, p->trace_path);

	if (rc < 0) {
		p->tf.rezip_failed = true;
		rezip_failed_warn(p->trace_path, rc);
	}
}

/* The re-compression jobs' round: new jobs for traces whose stored chunks
 * are due, and the jobs' progress (cli/rezip.h).  Under
 * MPROF_TEST_STORE=end or stall nothing is re-compressed before the end. */
static void procs_rezip(struct collector *c)
{
	if (c->test_store == TEST_STORE_END || c->test_store == TEST_STORE_STALL)
		return;
	for (size_t i = 0; i < c->live.n; i++)
		if (proc_rezip_due(c->live.v[i]))
			rezip_start_or_warn(c->live.v[i]);
	rezip_poll(rezip_failed_warn);
}

/* ---------- finalizing ---------- */

static bool proc_is_program_pid(const struct collector *c, const struct proc *p)
{
	return p->pid == (unsigned)c->cfg->root_pid;
}

/* Whether p executed a program of which no process file appeared: its
 * recorder noted an exec (preload/exec_watch.c) that did not fail, or the
 * launcher found its pid running another program (proc_exec_unseen_look). */
static bool proc_exec_unrecorded(const struct proc *p)
{
	return !p->superseded &&
	       (atomic_load_explicit(&p->pf.h->exec_self, memory_order_acquire) == 1 ||
		p->exec_unseen_exe);
}

static const char *proc_state_name(const struct collector *c, const struct proc *p)
{
	if (p->superseded || proc_exec_unrecorded(p))
		return "exec";
	if (proc_is_program_pid(c, p) && c->ended)
		return "ended";
	return proc_running(p) ? "running" : "ended";
}

static uint64_t launcher_cpu_ns(void)
{
	struct rusage self;

	if (getrusage(RUSAGE_SELF, &self) != 0)
		return 0;
	return (uint64_t)(self.ru_utime.tv_sec + self.ru_stime.tv_sec) * UINT64_C(1000000000) +
	       (uint64_t)(self.ru_utime.tv_usec + self.ru_stime.tv_usec) * UINT64_C(1000);
}


/* The most ring memory p's threads can have made resident at once: the
 * most proc_rings_written was before a punch, or is now.  Counting whole rings
 * said "at most" the whole peak RSS of a program of 200 threads whose rings
 * were mostly never touched; counting each slot's writes since its start
 * said 24 MB for 2000 threads one after another (a peak RSS of 4 MB). */
static uint64_t proc_rings_touched(const struct collector *c, struct proc *p)
{
	uint64_t now;

	if (p->rings_high_off)
		return proc_rings_written(c, p, NULL); /* more than at once, never less */
	now = proc_rings_written(c, p, p->punched_pos);

	return now > p->rings_high_bytes ? now : p->rings_high_bytes;
}

/* The most memory p's recorder can have had resident besides its rings:
 * what its exit or exec note measured, else all it had mapped (which
 * counted a 48 KiB recorder stack per thread whole, of which a few pages
 * are touched: more than the whole peak RSS of a program of 300 threads). */
static uint64_t proc_recorder_own_bytes(const struct proc *p)
{
	const struct session_proc_header *h = p->pf.h;
	bool noted = atomic_load_explicit(&h->exit_known, memory_order_acquire) == 1 ||
		     atomic_load_explicit(&h->exec_self, memory_order_acquire) == 1;

	if (noted && h->exit_recorder_bytes)
		return h->exit_recorder_bytes;
	return atomic_load_explicit(&h->recorder_map_bytes, memory_order_relaxed);
}

/* The peak RSS in KiB that p's recorder read just before p executed
 * another program (preload/exec_watch.c), or 0: an image replaced at once
 * may end before the launcher's first reading. */
static uint64_t proc_exec_peak_rss_kib(const struct proc *p)
{
	if (atomic_load_explicit(&p->pf.h->exec_self, memory_order_acquire) != 1)
		return 0;
	return p->pf.h->exit_maxrss_kib;
}

/* Whether p's trace takes its exit note (end_figures): not from a header
 * found damaged (proc_exit_note_possible). */
static bool proc_exit_noted(const struct proc *p, const char *state)
{
	return !p->superseded && strcmp(state, "running") != 0 &&
	       !(p->damage & (1u << DAMAGE_HEADER)) &&
	       atomic_load_explicit(&p->pf.h->exit_known, memory_order_acquire) == 1;
}

/*
 * Whether p's exit note, if it has one, can be true: its time after the
 * image's start and not after now, its peak RSS within the machine's
 * memory and swap.  One written over by the program is noted damaged and
 * not taken (its status, time, peak RSS and names).  The status itself
 * has no bound: exit() takes any int, and the kernel keeps its low byte
 * (exit(-5) is status 251).
 */
static bool proc_exit_note_possible(struct proc *p)
{
	const struct session_proc_header *h = p->pf.h;
	struct sysinfo si;
	uint64_t most_kib = UINT64_MAX;

	if (atomic_load_explicit(&h->exit_known, memory_order_acquire) != 1)
		return true;
	if (sysinfo(&si) == 0)
		most_kib = ((uint64_t)si.totalram + si.totalswap) * si.mem_unit / 1024;
	if (h->exit_mono_ns > proc_start_ns(p) && h->exit_mono_ns <= now_ns() &&
	    h->exit_maxrss_kib <= most_kib)
		return true;
	proc_damaged(p, DAMAGE_HEADER);
	return false;
}

/* Reads the wait status of p's process while it is a zombie, the one
 * moment a process that is not the launcher's child shows it: a process
 * that ended by a signal or an exit system call the recorder did not see
 * leaves no exit note. */
static void proc_zombie_look(struct proc *p)
{
	if (!p->zombie_seen && !p->superseded && !p->is_root && pid_guard_holds(&p->guard))
		p->zombie_seen = pid_info_zombie_status(p->pid, &p->zombie_status) &&
				 pid_guard_current(&p->guard);
}

/*
 * How p ended, its peak RSS and run time, from the best source there is:
 * the program's wait4 status; else the status the call of a recorded
 * image that reaped it returned (the reap table: the kernel's word, which
 * an exit() that a later exit handler or a signal cut short does not
 * change) and when; else the shim's exit note (an image that called
 * exit() or _exit(): its status, its own peak RSS unless the note could not read it,
 * its exit time); for the peak RSS of an image that executed another,
 * the VmHWM its recorder read before the exec; else for the status the
 * zombie's, read before its parent waited for it; else the highest VmHWM
 * the launcher read while it ran ("sampled": a peak in its last 100 ms
 * may be missing) and the time
 * the launcher found it ended (or its reap).
 * wait4's peak RSS includes the children the program waited for, so it
 * is the program's own only when the run had no other process image.  A
 * trace that ends with the process running takes no exit note written
 * after its last drain (it would say the process exited, its last records
 * unread).
 */
static void end_figures(const struct collector *c, struct proc *p, const char *state,
			struct trace_end *e)
{
	const struct session_proc_header *h = p->pf.h;
	bool noted = proc_exit_noted(p, state);
	uint64_t start = proc_start_ns(p), end = now_ns();
	uint64_t exec_rss_kib = proc_exec_peak_rss_kib(p);

	/* an image that executed another did not exit: the status is the
	 * last image's */
	e->has_status = proc_is_program_pid(c, p) && c->ended && !p->superseded &&
			!proc_exec_unrecorded(p);
	e->wait_status = c->wait_status;
	if (!e->has_status && p->reap_seen && !p->superseded && !proc_exec_unrecorded(p) &&
	    strcmp(state, "ended") == 0) {
		e->has_status = true;
		e->wait_status = p->reap_status;
	}
	if (!e->has_status && noted) {
		e->has_status = true;
		e->wait_status = (h->exit_status & 0xff) << 8;
	}
	if (!e->has_status && !p->superseded && !p->is_root && strcmp(state, "ended") == 0) {
		proc_zombie_look(p);
		if (p->zombie_seen) {
			e->has_status = true;
			e->wait_status = p->zombie_status;
		}
	}
	/* a status of the pid's that no exit note of the image's gives */
	e->exit_unnoted = e->has_status && !noted && strcmp(state, "ended") == 0 &&
			  atomic_load_explicit(&h->exit_known, memory_order_acquire) != 1;
	if (p->superseded && p->superseded_ns > start && p->superseded_ns <= end)
		end = p->superseded_ns;
	if (noted && h->exit_mono_ns > start && h->exit_mono_ns <= end)
		end = h->exit_mono_ns;
	else if (p->reap_seen && !p->superseded && p->reap_ns > start && p->reap_ns <= end)
		end = p->reap_ns;
	if (noted && h->exit_maxrss_kib) {
		e->peak_rss_kib = (long)h->exit_maxrss_kib;
		e->peak_rss_how = "own";
	} else if (exec_rss_kib) {
		e->peak_rss_kib = (long)exec_rss_kib;
		e->peak_rss_how = "own";
	} else if (p->is_root && c->ended && c->all.n == 1) {
		e->peak_rss_kib = c->rusage.ru_maxrss;
		e->peak_rss_how = "own";
	} else if (p->peak_rss_sampled_kib) {
		e->peak_rss_kib = (long)p->peak_rss_sampled_kib;
		e->peak_rss_how = "sampled";
	}
	if (p->is_root)
		e->wall_ns = end - c->cfg->start_mono_ns;
	else if (start && start < end)
		e->wall_ns = end - start;
}

/*
 * The names p had at its end where the program changed them (END command,
 * comm, name_how): its exit note's ("filter" when its process name is the
 * one it had when it installed a seccomp filter); else a look now, at a process still
 * running; else the launcher's last look while it ran ("seen": a process
 * killed, or ended by _exit, up to NAMES_LOOK_MAX_NS earlier).  An image
 * that executed another keeps the names of its start: a look made after
 * the exec, before the next image's file was found, read that image's.
 * The table's name (p->command) follows them.
 */
static void end_names(struct proc *p, const char *state, struct trace_end *e)
{
	const struct session_proc_header *h = p->pf.h;
	char cmd[sizeof(h->exit_command)], name[4096];
	const char *how = "seen";

	if (p->superseded)
		return;
	if (proc_exit_noted(p, state) && h->exit_names_how != SESSION_EXIT_NAMES_UNREAD) {
		field_copy(cmd, sizeof(cmd), h->exit_command, sizeof(h->exit_command));
		free(p->seen_command);
		p->seen_command = cmd[0] ? strdup(cmd) : NULL;
		field_copy(p->seen_comm, sizeof(p->seen_comm), h->exit_comm, sizeof(h->exit_comm));
		how = h->exit_names_how == SESSION_EXIT_NAMES_FILTER ? "filter" : "exit";
	} else {
		proc_names_look(p);
	}
	if (!p->seen_command && !p->seen_comm[0])
		return;
	e->command = p->seen_command;
	e->comm = p->seen_comm[0] ? p->seen_comm : NULL;
	e->name_how = how;
	proc_name_compose(p->seen_command ? p->seen_command : p->command, e->comm, name,
			  sizeof(name));
	free(p->command);
	p->command = strdup(name);
}

/* Why the program of an exec the recorder did not see was not recorded. */
#define EXEC_UNSEEN_WHY                                                                  \
	"the image was replaced by an exec system call of the program's own, which "     \
	"mprof's recorder does not see (found by the launcher: the process ran this "   \
	"program), and the program started without the recorder"

static void end_write(struct collector *c, struct proc *p, const char *state)
{
	struct session_proc_header *h = p->pf.h;
	char diag[sizeof(h->diag_text)], damage[320];
	char exec_path[sizeof(h->exec_unrecorded_path)];
	char exec_into[sizeof(h->exec_self_path)], exec_why[256];
	struct trace_end e = { 0 };

	field_copy(diag, sizeof(diag), h->diag_text, sizeof(h->diag_text));
	field_copy(exec_path, sizeof(exec_path), h->exec_unrecorded_path,
		   sizeof(h->exec_unrecorded_path));
	/* a damaged header's counts are left out (proc_header_counts_possible) */
	if (!(p->damage & (1u << DAMAGE_HEADER))) {
		e.execs_unrecorded = atomic_load(&h->execs_unrecorded);
		e.exec_unrecorded_path = exec_path;
		e.children_unrecorded = proc_header_children_unrecorded(h);
	}
	if (proc_exec_unrecorded(p) &&
	    atomic_load_explicit(&h->exec_self, memory_order_acquire) != 1) {
		e.exec_into = p->exec_unseen_exe;
		e.exec_into_why = EXEC_UNSEEN_WHY;
	} else if (proc_exec_unrecorded(p)) {
		field_copy(exec_into, sizeof(exec_into), h->exec_self_path,
			   sizeof(h->exec_self_path));
		e.exec_into = exec_into;
		e.exec_into_why = exec_target_why(proc_pid_now(p), exec_into, h->exec_self_dropped != 0,
						  h->exec_self_unseen != 0, h->exec_self_euid,
						  exec_why, sizeof(exec_why));
	}
	end_figures(c, p, state, &e);
	e.recorder_kib = (proc_recorder_own_bytes(p) + proc_rings_touched(c, p)) / 1024;
	e.is_root = p->is_root;
	e.launcher_cpu_ns = launcher_cpu_ns();
	e.ring_waits = atomic_load(&h->waits);
	e.unrecorded_allocs = atomic_load(&h->unrecorded_allocs);
	e.unrecorded_frees = atomic_load(&h->unrecorded_frees);
	e.diag_flags = atomic_load(&h->diag_flags);
	e.diag_text = diag;
	e.process_state = state;
	/* only damage that ended the recording early is the collector's error
	 * (readers take one so); the other parts show in the warning alone */
	if (p->broken) {
		char parts[256];

		proc_damage_parts(p, parts, sizeof(parts));
		snprintf(damage, sizeof(damage), "the program wrote over its recorder's memory (%s)",
			 parts);
		e.collector_error = damage;
	}
	end_names(p, state, &e);
	trace_file_end(&p->tf, &e);
	p->end = e;
	p->end.diag_text = p->end.collector_error = NULL; /* on the stack */
	p->end.command = p->end.comm = NULL;
}

/* Names the fork children of p that run unrecorded because p was under a
 * seccomp filter (the header counts them). */
static void children_sandboxed_warn(const struct proc *p)
{
	uint32_t n = atomic_load(&p->pf.h->children_sandboxed);
	char who[64];

	if (!n)
		return;
	diag_digest_add_at(true, proc_label(p, who, sizeof(who)), "",
			   "%u process%s forked by " DIAG_DIGEST_WHO " (%s) %s not recorded: %s forked under a "
		   "seccomp filter (a sandbox), which may kill a process that opens a file, so "
		   "%s recorder did not try to create %s process file", n, n == 1 ? "" : "es",
		   p->exe ? p->exe : "?", n == 1 ? "is" : "are",
		   n == 1 ? "it was" : "they were", n == 1 ? "its" : "their",
		   n == 1 ? "its" : "their");
}

/* Names the children p made by a fork-like system call through syscall()
 * while it had several threads, which run unrecorded (the header counts
 * them; preload/raw_fork.c). */
static void children_raw_warn(const struct proc *p)
{
	uint32_t n = atomic_load(&p->pf.h->children_raw);
	char who[64];

	if (!n)
		return;
	diag_digest_add_at(true, proc_label(p, who, sizeof(who)), "",
			   "%u process%s made by " DIAG_DIGEST_WHO " (%s) with a raw clone system "
			   "call (syscall(SYS_fork), "
		   "SYS_clone or SYS_clone3, which run no fork handlers) %s not recorded: the "
		   "process had several threads then, and a child may inherit a lock another "
		   "thread held, which %s recorder would wait for", n, n == 1 ? "" : "es",
		   p->exe ? p->exe : "?", n == 1 ? "is" : "are",
		   n == 1 ? "its" : "their");
}

/* Names the children p made without fork() on a stack of their own
 * (clone()), which run unrecorded (the header counts them;
 * preload/raw_fork.c). */
static void children_own_stack_warn(const struct proc *p)
{
	uint32_t n = atomic_load(&p->pf.h->children_own_stack);
	char who[64];

	if (!n)
		return;
	diag_digest_add_at(true, proc_label(p, who, sizeof(who)), "",
			   "%u process%s made by " DIAG_DIGEST_WHO " (%s) with clone() (or a clone system call) on a "
		   "stack of %s own %s not recorded: no fork handler runs in %s, and the "
		   "recorder does not start on a stack whose size it cannot know",
		   n, n == 1 ? "" : "es", p->exe ? p->exe : "?",
		   n == 1 ? "its" : "their", n == 1 ? "is" : "are", n == 1 ? "it" : "them");
}

/* Names the fork children of p that run unrecorded because their recorder
 * could not create a process file (the header counts them). */
static void children_unrecorded_warn(const struct proc *p)
{
	const struct session_proc_header *h = p->pf.h;
	uint32_t n = atomic_load(&h->children_unrecorded);
	int err = atomic_load(&h->children_unrecorded_errno);
	const char *hint = "";
	char who[64];

	if (!n)
		return;
	if (err == EACCES || err == EPERM)
		hint = "; a process that changed its user, as a daemon dropping root does, "
		       "cannot write in mprof's session directory";
	else if (err == EFBIG)
		hint = "; the file size limit (ulimit -f) is below what a process file needs";
	else if (err == ENOMEM)
		hint = "; its recorder could not map memory there: an address space limit, "
		       "or a seccomp filter refusing mmap";
	else if (session_dir_gone_errno(err))
		hint = "; a process that changed its root directory (chroot) or mount namespace "
		       "no longer sees mprof's session directory";
	diag_digest_add_at(true, proc_label(p, who, sizeof(who)), "",
			   "%u process%s forked by " DIAG_DIGEST_WHO " (%s) %s not recorded: %s recorder could not "
		   "create %s process file (%s%s)", n, n == 1 ? "" : "es",
		   p->exe ? p->exe : "?", n == 1 ? "is" : "are",
		   n == 1 ? "its" : "their", n == 1 ? "its" : "their", strerror(err), hint);
}

/* Names the program p executed when no process file of it appeared. */
static void exec_unrecorded_warn(const struct proc *p)
{
	const struct session_proc_header *h = p->pf.h;
	char path[sizeof(h->exec_self_path)], why[256], who[sizeof(path) + 32];

	if (!proc_exec_unrecorded(p))
		return;
	snprintf(who, sizeof(who), "process %u (%s) ", p->pid, p->exe ? p->exe : "?");
	if (atomic_load_explicit(&h->exec_self, memory_order_acquire) != 1) {
		diag_digest_add(true, who, "executed %s, which is not recorded: %s",
				p->exec_unseen_exe, EXEC_UNSEEN_WHY);
		return;
	}
	field_copy(path, sizeof(path), h->exec_self_path, sizeof(h->exec_self_path));
	diag_digest_add(true, who, "executed %s, which is not recorded: %s", path,
			exec_target_why(proc_pid_now(p), path, h->exec_self_dropped != 0,
					h->exec_self_unseen != 0, h->exec_self_euid, why,
					sizeof(why)));
}

/* Names the programs p executed or spawned with an environment that drops
 * the recorder (the header counts them): no process file of theirs ever
 * appears, so nothing else would. */
static void execs_unrecorded_warn(const struct proc *p)
{
	const struct session_proc_header *h = p->pf.h;
	uint32_t n = atomic_load(&h->execs_unrecorded);
	char path[sizeof(h->exec_unrecorded_path)], more[32] = "", who[64];

	if (!n)
		return;
	field_copy(path, sizeof(path), h->exec_unrecorded_path, sizeof(h->exec_unrecorded_path));
	if (n > 1)
		snprintf(more, sizeof(more), " and %u more", n - 1);
	diag_digest_add_at(true, proc_label(p, who, sizeof(who)), "",
			   "%u program%s started by " DIAG_DIGEST_WHO " (%s) %s not recorded: %s environment "
		   "dropped mprof's LD_PRELOAD or MPROF_SESSION (as env -i, sudo and some "
		   "launchers do): %s%s", n, n == 1 ? "" : "s", p->exe ? p->exe : "?",
			   n == 1 ? "is" : "are", n == 1 ? "its" : "their", path,
		   more);
}

/* Names n programs p spawned, or its vfork children executed, that are
 * not recorded: path (the first one's, from a header field of size bytes)
 * and why; why NULL: the reason the file gives now (exec_target.h). */
static void execs_count_warn(const struct proc *p, uint32_t n, const char *field, size_t size,
			     const char *why)
{
	char path[128], more[32] = "", who[64], file_why[256];

	if (!n)
		return;
	field_copy(path, sizeof(path), field, size);
	if (n > 1)
		snprintf(more, sizeof(more), " (and %u more)", n - 1);
	if (!why)
		why = exec_target_why(proc_pid_now(p), path, false, false, 0, file_why,
				      sizeof(file_why));
	diag_digest_add_at(true, proc_label(p, who, sizeof(who)), "",
			   "%u program%s started by " DIAG_DIGEST_WHO " (%s) %s not recorded: %s%s; %s", n,
		   n == 1 ? "" : "s", p->exe ? p->exe : "?",
		   n == 1 ? "is" : "are", path, more, why);
}

/* Names the programs p spawned, or its vfork children executed, that the
 * loader would not load the recorder into (statically linked, set-user-ID,
 * file capabilities, started with mixed IDs),
 * and those started where mprof's session directory could not be seen,
 * whose recorder cannot create a process file: the header counts both, and
 * nothing else would name them. */
static void execs_unreachable_warn(const struct proc *p)
{
	const struct session_proc_header *h = p->pf.h;
	static const char mixed[] = "it was started by a process whose effective user or group "
				    "ID was not its real one (as after seteuid()): it runs in "
				    "secure-execution mode, in which the loader ignores LD_PRELOAD";

	execs_count_warn(p, atomic_load(&h->execs_unreachable), h->exec_unreachable_path,
			 sizeof(h->exec_unreachable_path),
			 h->exec_unreachable_mixed_ids ? mixed : NULL);
	execs_count_warn(p, atomic_load(&h->execs_unseen), h->exec_unseen_path,
			 sizeof(h->exec_unseen_path), EXEC_TARGET_UNSEEN_WHY);
}

/* Whether text is one of the DIAG records' texts p kept (which are cut
 * shorter than the header's). */
static bool proc_diag_kept(const struct proc *p, const char *text)
{
	for (unsigned k = 0; k < p->diag_text_count; k++)
		if (strncmp(text, p->diag_texts[k], strlen(p->diag_texts[k])) == 0)
			return true;
	return false;
}

/* The shim's diagnostics for a process as "mprof:" lines, through the
 * digest (a text several processes gave is printed once): the texts of its
 * DIAG records, then its header's last text when none of them is it (a
 * note never replaces a warning's there: preload/diag.c; some texts are
 * only there), or a phrase per flag when it left no text; ring waits with
 * their count.  Frees the texts kept. */
static void diag_print(struct proc *p)
{
	static const char *const flag_text[] = {
		[TRACE_DIAG_INFO] = "the recorder left a note in the trace",
		[TRACE_DIAG_FOREIGN_MALLOC] = "malloc is defined by the program or another "
					      "library: allocations may not be recorded",
		[TRACE_DIAG_NO_UNWINDER] = "libunwind is missing: call stacks have one frame",
		[TRACE_DIAG_RING_FULL_WAIT] = NULL,
		[TRACE_DIAG_DISABLED] = "recording stopped early",
		[TRACE_DIAG_TOGGLE_TAKEN] = "the program replaced mprof's handler of the "
					    "toggle signal with its own",
		[TRACE_DIAG_FOREIGN_FORWARDS] = "the program's own malloc calls mprof's: its "
						"blocks are recorded",
		[TRACE_DIAG_FOREIGN_NEW] = "C++ operator new and delete are another "
					   "allocator's: C++ allocations are not recorded",
	};
	const struct session_proc_header *h = p->pf.h;
	uint32_t flags = atomic_load(&h->diag_flags);
	uint64_t waits = atomic_load(&h->waits);
	char text[sizeof(h->diag_text)], who[80] = "", label[64];

	if (!proc_header_intact(p))
		return;
	if (!p->is_root)
		snprintf(who, sizeof(who), "%s: ", proc_label(p, label, sizeof(label)));
	children_sandboxed_warn(p);
	children_unrecorded_warn(p);
	children_raw_warn(p);
	children_own_stack_warn(p);
	execs_unrecorded_warn(p);
	execs_unreachable_warn(p);
	exec_unrecorded_warn(p);
	if (!flags)
		return;
	field_copy(text, sizeof(text), h->diag_text, sizeof(h->diag_text));
	for (unsigned k = 0; k < p->diag_text_count; k++)
		diag_digest_add(false, who, "%s", p->diag_texts[k]);
	if (p->diag_texts_more)
		diag_digest_add(false, who, "%u more diagnostics are in the trace",
				p->diag_texts_more);
	if (text[0]) {
		if (!proc_diag_kept(p, text))
			diag_digest_add(false, who, "%s", text);
	} else if (!p->diag_text_count) {
		for (unsigned b = 0; b < sizeof(flag_text) / sizeof(flag_text[0]); b++)
			if ((flags & (1u << b)) && flag_text[b])
				diag_digest_add(false, who, "%s", flag_text[b]);
	}
	/* unless a DIAG record of the ring-wait code said it (the recorder
	 * writes none today: its waits are only counted) */
	if ((flags & (1u << TRACE_DIAG_RING_FULL_WAIT)) && waits &&
	    !(p->diag_codes & (1u << TRACE_DIAG_RING_FULL_WAIT)))
		diag_digest_add(false, who, "the program waited %" PRIu64 " time%s for mprof to "
				"drain a full ring (nothing was dropped)", waits,
				waits == 1 ? "" : "s");
	proc_diags_free(p);
}

/* Whether p will record nothing more: its exit note is written (after its
 * last record), or it is not running. */
static bool proc_recording_ended(const struct proc *p)
{
	return atomic_load_explicit(&p->pf.h->exit_known, memory_order_acquire) == 1 ||
	       !proc_running(p);
}

/* The highest sequence number of the records in ring[0..n) of slot i's
 * last lap (0: none; decoding stops at the first record it cannot read). */
static uint64_t lap_last_seq(const uint8_t *ring, uint64_t n)
{
	const uint8_t *q = ring, *end = ring + n;
	struct record_state st;
	struct trace_event ev;
	uint64_t last = 0;

	record_state_reset(&st);
	while (record_decode(&q, end, &st, &ev) == RECORD_OK) {
		if (ev.seq > last)
			last = ev.seq;
		if (ev.seq2 > last)
			last = ev.seq2;
	}
	return last;
}

/*
 * For a process that has ended: the sequence numbers its threads took for
 * calls that the end cut short (exit_group or exec while they were in the
 * recorder, between taking a number and committing its record) are written
 * as SEQ_SKIP records into their slots (after a THREAD record, which resets
 * the delta state), so the trace has no gap for a call that never
 * completed.  A number is such when the slot published it as taken
 * (session.h taken_seq) and no record of the slot's last lap has it or a
 * higher one.  A slot whose owner was killed between taking a number and
 * publishing it (session.h taking) says so in the CUT_CALLS record: one
 * number of the trace's gaps is then a cut call too.  Returns the calls
 * written.
 */
static unsigned proc_close_cut_calls(struct proc *p)
{
	uint64_t ring_bytes = p->pf.ring_bytes;
	unsigned written = 0;

	for (uint32_t i = 1; i < proc_slots_claimed(p); i++) {
		struct session_slot *s = proc_file_slot(&p->pf, i);
		uint64_t w = atomic_load_explicit(&s->write_pos, memory_order_acquire);
		uint64_t t0 = atomic_load_explicit(&s->taken_seq[0], memory_order_relaxed);
		uint64_t t1 = atomic_load_explicit(&s->taken_seq[1], memory_order_relaxed);
		uint64_t taking = atomic_load_explicit(&s->taking, memory_order_relaxed);
		uint64_t cut[2], lap_start, last, off;
		uint8_t rec[2 + 3 * VARINT_MAX_BYTES + RECORD_EXT_HEADER_BYTES + 2 * VARINT_MAX_BYTES];
		uint8_t *q = rec, *ring;
		struct record_state st;
		unsigned ncut = 0, unknown;

		if (atomic_load_explicit(&s->state, memory_order_acquire) != SLOT_OWNED || w == 0)
			continue;
		/* taking: 1 + the number taken before the last one taken; that
		 * one is unpublished when neither taken_seq reaches taking */
		unknown = taking && (t0 > t1 ? t0 : t1) < taking;
		ring = proc_file_ring(&p->pf, i);
		lap_start = (w - 1) / ring_bytes * ring_bytes;
		last = lap_last_seq(ring, w - lap_start);
		if (t0 > t1) {
			uint64_t x = t0;
			t0 = t1;
			t1 = x;
		}
		if (t0 > last)
			cut[ncut++] = t0;
		if (t1 > last)
			cut[ncut++] = t1;
		if (!ncut && !unknown)
			continue;
		q = record_put_thread(q, &st, s->tid);
		{
			uint8_t *ext = q;

			q = record_ext_begin(q, TRACE_REC_EXT_CUT_CALLS);
			q = varint_put_u64(q, ncut);
			q = varint_put_u64(q, unknown);
			record_ext_end(ext, q);
		}
		for (unsigned k = 0; k < ncut; k++)
			q = record_put_seq_skip(q, &st, cut[k]);
		off = w % ring_bytes;
		if (off + (uint64_t)(q - rec) > ring_bytes) {
			/* the lap's rest is too short: pad it, write at the next */
			memset(ring + off, TRACE_REC_PAD, ring_bytes - off);
			w += ring_bytes - off;
			off = 0;
		}
		if (w + (uint64_t)(q - rec) -
			    atomic_load_explicit(&s->read_pos, memory_order_acquire) > ring_bytes)
			continue; /* not drained: no room (not after a drain) */
		memcpy(ring + off, rec, (size_t)(q - rec));
		atomic_store_explicit(&s->write_pos, w + (uint64_t)(q - rec), memory_order_release);
		written += ncut + unknown;
	}
	return written;
}

/* Last drain, END chunk, close; the process file is removed.  Returns true
 * when the trace says the process was still running. */
static bool proc_finish(struct collector *c, struct proc *p)
{
	const char *state;

	if (p->phase == PROC_PENDING)
		proc_pending_decide(c, p, "its recorder had not finished starting when mprof "
					  "stopped waiting");
	if (p->phase != PROC_ACTIVE)
		return false;
	proc_pid_find(c, p); /* one not found when it was taken in */
	proc_guard_take(p);
	proc_successor_settle(p);
	/* before the drain: a process that ends after it may have written
	 * events the drain did not see, and its trace must not say "ended"
	 * (a child that made its 50 allocations meanwhile had a trace with
	 * none, marked ended) */
	state = proc_state_name(c, p);
	proc_drain(c, p, true, now_ns());
	/* once drained, so every ring has room for the closing records */
	if (strcmp(state, "running") != 0 && proc_close_cut_calls(p))
		proc_drain(c, p, true, now_ns());
	/* one that ended during that drain is drained again, to its end, and
	 * is "ended" (before, such a child's trace could hold none of its 50
	 * allocations and say both "still running" and "exited") */
	if (strcmp(state, "running") == 0 && proc_recording_ended(p)) {
		proc_drain(c, p, true, now_ns());
		state = "ended";
	}
	/* the checks of its header and reap table before the one warning */
	if (proc_header_intact(p) && proc_header_counts_possible(c, p))
		proc_exit_note_possible(p);
	proc_reaps_new(p);
	proc_damage_warn(p);
	diag_print(p);
	if (p->has_trace) {
		rss_sampler_flush(&p->rss, &p->tf);
		trace_file_index(&p->tf);
		end_write(c, p, state);
		if (p->tf.error)
			mprof_warn("writing trace %s failed: %s; the trace ends early", p->tf.path,
				   strerror(-p->tf.error));
		/* its stored chunks are deflated after all, by a job of its own
		 * (cli/rezip.h) */
		if (p->tf.stored_bytes && !p->tf.rezip && !p->tf.rezip_failed)
			rezip_start_or_warn(p);
		rezip_detach(&p->tf);
		trace_file_close(&p->tf);
		if (p->tf.error)
			c->write_errors++;
	}
	proc_reaps_take(c, p); /* its table goes with its file */
	pid_guard_release(&p->guard);
	p->exec_left = proc_exec_unrecorded(p);
	proc_file_close(&p->pf);
	proc_free_slot_state(p);
	p->phase = PROC_DONE;
	unlinkat(dirfd(c->dir), p->name, 0);
	return strcmp(state, "running") == 0;
}

/* Whether a file of p's pid made after p's waits for its header: perhaps
 * the image p executed, decided (taken in or named) within STARTING_LIMIT_NS. */
static bool pid_next_image_pending(const struct collector *c, const struct proc *p)
{
	uint64_t start = proc_start_ns(p);

	if (!p->pid)
		return false;
	for (size_t i = 0; i < c->live.n; i++) {
		const struct proc *q = c->live.v[i];

		if (q->phase == PROC_PENDING && proc_file_name_pid(q->name) == p->pid &&
		    proc_start_ns(q) > start)
			return true;
	}
	return false;
}

/* The live image that p's header names as its parent (by pid, the last
 * image of it), or NULL. */
static struct proc *proc_parent(const struct collector *c, const struct proc *p)
{
	unsigned ppid = p->pf.id.ppid;

	for (size_t i = c->live.n; ppid && i-- > 0;) {
		struct proc *q = c->live.v[i];

		if (q != p && q->phase == PROC_ACTIVE && !q->superseded && q->pid == ppid)
			return q;
	}
	return NULL;
}

/*
 * Whether recorded image r has a call of the wait family in progress by its
 * waiter entries (trace/session.h): one names a thread that still exists.
 * An entry whose thread is gone (cancelled inside the call) is freed.  The
 * ids are r's own (gettid()): looked up in /proc only when r runs in the
 * launcher's PID namespace, which its /proc shows; otherwise, or when /proc
 * cannot tell, every entry taken counts as a call in progress.
 */
static bool reap_waiters_live(const struct collector *c, struct proc *r)
{
	struct session_reaps *t = (struct session_reaps *)proc_file_reaps(&r->pf);
	bool own_ns = c->pidns_known && r->pid && r->pf.id.pidns_ino == c->pidns_ino &&
		      r->pf.id.pidns_dev == c->pidns_dev;
	bool live = false;

	for (unsigned i = 0; i < SESSION_REAP_WAITERS; i++) {
		uint32_t tid = atomic_load_explicit(&t->waiter[i], memory_order_acquire);
		int alive;

		if (!tid)
			continue;
		alive = own_ns ? pid_info_thread_alive(r->pid, tid) : -1;
		if (alive == 0)
			atomic_compare_exchange_strong(&t->waiter[i], &tid, 0);
		else
			live = true;
	}
	return live;
}

/*
 * Whether finishing p, found ended with no status from any source, waits
 * for its parent: a recorded parent inside a call of the wait family may
 * have reaped it and not yet written its entry.  Its waiting count and
 * waiter entries are read, and the threads they name looked up, before its
 * table, which the writer counts the call in before the call and lowers
 * after the entry; a thread gone by then wrote whatever it was to write.
 * Put off each retire round while that call goes on, for
 * REAP_AWAIT_LIMIT_NS at most: a parent kept off the processor there under
 * load writes it late, and one blocked in a wait for another child never
 * does.
 */
static bool proc_reap_awaited(struct collector *c, struct proc *p, uint64_t now)
{
	struct proc *parent;
	bool waiting;

	if (p->reap_seen || p->zombie_seen || p->superseded ||
	    atomic_load_explicit(&p->pf.h->exit_known, memory_order_acquire) == 1)
		return false;
	if (p->reap_await_ns && now - p->reap_await_ns > c->reap_await_limit_ns)
		return false;
	parent = proc_parent(c, p);
	if (!parent)
		return false;
	waiting = atomic_load_explicit(&proc_file_reaps(&parent->pf)->waiting,
				       memory_order_acquire) != 0;
	waiting = reap_waiters_live(c, parent) || waiting;
	proc_reaps_take(c, parent);
	if (p->reap_seen || !waiting || !proc_running(parent))
		return false;
	if (!p->reap_await_ns)
		p->reap_await_ns = now;
	return true;
}

/* Notes the peak RSS of the live processes, samples their RSS into their
 * traces (every RETIRE_INTERVAL_NS, rss_sampler.h) and finalizes the other
 * processes that ended while the program goes on (a file still starting
 * after STARTING_LIMIT_NS: once its process has ended). */
static void procs_retire_ended(struct collector *c, uint64_t now)
{
	for (size_t i = 0; i < c->live.n; i++) {
		struct proc *p = c->live.v[i];

		if (p->phase == PROC_PENDING && now > p->seen_ns &&
		    now - p->seen_ns > STARTING_LIMIT_NS)
			proc_pending_decide(c, p, NULL);
		proc_rss_watch(p);
		proc_names_watch(p, now);
		if (p->phase == PROC_ACTIVE && !p->superseded && p->has_trace)
			rss_sampler_take(&p->rss, &p->guard, &p->tf);
		if (p->phase != PROC_ACTIVE || p->is_root)
			continue;
		if (p->superseded) {
			proc_finish(c, p);
		} else if (!proc_running(p)) {
			proc_zombie_look(p);
			if (proc_reap_awaited(c, p, now))
				continue;
			/* an image it executed may have started and ended since
			 * the last scan: its file, once taken in, makes p "exec" */
			dir_scan(c);
			procs_activate_pending(c, now);
			if (!p->superseded && pid_next_image_pending(c, p))
				continue;
			proc_finish(c, p);
		}
	}
}

/* ---------- the loop ---------- */

/* The program ended: new process files are found by directory scans from
 * now on (collect_finish).  Removing the watch now starts the kernel's
 * release of it, so that closing the instance later is quick. */
static void notify_stop(struct collector *c)
{
	if (c->inotify_fd >= 0 && c->inotify_wd >= 0)
		inotify_rm_watch(c->inotify_fd, c->inotify_wd);
	c->inotify_wd = -1;
}

/* Notes the program's end: the watch of the directory stops, signals are
 * no longer passed on, and the launcher lets go of the program's input and
 * output (cfg->program_ended). */
static void program_ended(struct collector *c, int wait_status)
{
	notify_stop(c);
	c->ended = true;
	c->wait_status = wait_status;
	signals_forward_stop();
	if (c->cfg->program_ended)
		c->cfg->program_ended();
}

static void program_reap_poll(struct collector *c)
{
	int status;
	pid_t r = wait4(c->cfg->root_pid, &status, WNOHANG, &c->rusage);

	if (r == c->cfg->root_pid)
		program_ended(c, status);
	else if (r < 0 && errno == ECHILD) /* another reaped it: status unknown */
		program_ended(c, MPROF_EXIT_FAILED << 8);
}

/* Reads every pending inotify event; true when a file was created (or
 * events were lost: IN_Q_OVERFLOW is an event too).  Marks the directory
 * changed for the next dir_scan. */
static bool dir_events_read(struct collector *c)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool created = false;

	if (c->inotify_fd < 0)
		return false;
	while (read(c->inotify_fd, buf, sizeof(buf)) > 0)
		created = true;
	if (created)
		c->dir_changed = true;
	return created;
}

/* Sleeps up to c->idle_sleep_ns, waking early when a process file appears,
 * the program ends (its pidfd; with the 1 ms sleep alone, the end of the
 * run waited half a millisecond on average before the last drain) or the
 * re-compression worker has a chunk ready.  The pidfd wakes once: it stays
 * readable after the end, and a program whose zombie a tracer holds cannot
 * be reaped yet (the wait would spin). */
static void idle_wait(struct collector *c, long sleep_ns)
{
	struct timespec idle = { sleep_ns / 1000000000L, sleep_ns % 1000000000L };
	struct pollfd pfd[4];
	nfds_t n = 0, program = 0, woken = 0;
	sigset_t old_mask, wait_mask, *mask = NULL;
	int sig = c->cfg->toggle_signal;

	/* A toggle signal caught after this round looked for one would wait
	 * for the end of a long wait: it is blocked but inside ppoll. */
	if (sleep_ns > IDLE_SLEEP_MAX_NS && sig > 0) {
		sigemptyset(&wait_mask);
		sigaddset(&wait_mask, sig);
		pthread_sigmask(SIG_BLOCK, &wait_mask, &old_mask);
		if (signals_toggle_pending()) {
			pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
			return;
		}
		wait_mask = old_mask;
		sigdelset(&wait_mask, sig);
		mask = &wait_mask;
	}

	if (c->inotify_fd >= 0)
		pfd[n++] = (struct pollfd){ .fd = c->inotify_fd, .events = POLLIN };
	if (rezip_wake_fd() >= 0)
		pfd[n++] = (struct pollfd){ .fd = rezip_wake_fd(), .events = POLLIN };
	if (c->wake_fd >= 0) {
		woken = n;
		pfd[n++] = (struct pollfd){ .fd = c->wake_fd, .events = POLLIN };
	}
	if (c->program_fd >= 0) {
		program = n;
		pfd[n++] = (struct pollfd){ .fd = c->program_fd, .events = POLLIN };
	}
	if (!n) {
		nanosleep(&idle, NULL);
	} else if (ppoll(pfd, n, &idle, mask) > 0) {
		if (c->program_fd >= 0 && pfd[program].revents) {
			close(c->program_fd);
			c->program_fd = -1;
		}
		if (c->wake_fd >= 0 && pfd[woken].revents)
			launcher_wake_drain();
	}
	if (mask)
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
}

/* Clears every live image's asleep flag (session.h time_tick) after a
 * long idle wait. */
static void procs_clear_asleep(struct collector *c)
{
	for (size_t i = 0; i < c->live.n; i++) {
		struct proc *p = c->live.v[i];

		if (p->phase == PROC_ACTIVE)
			atomic_fetch_and_explicit(&p->pf.h->time_tick, ~SESSION_TIME_TICK_ASLEEP,
						  memory_order_relaxed);
	}
	c->asleep_marked = false;
}

/* Sets every live image's asleep flag before a long idle wait; the caller
 * then looks at the rings a last time (a writer that filled a quarter
 * before it could see the flag did not wake the launcher). */
static void procs_mark_asleep(struct collector *c)
{
	for (size_t i = 0; i < c->live.n; i++) {
		struct proc *p = c->live.v[i];

		if (p->phase == PROC_ACTIVE)
			atomic_fetch_or(&p->pf.h->time_tick, SESSION_TIME_TICK_ASLEEP);
	}
	atomic_thread_fence(memory_order_seq_cst);
	c->asleep_marked = true;
}

/* Whether the next idle wait may be long: the recorders can wake the
 * launcher, new process files and the program's end wake it too (inotify,
 * the pidfd), the rounds found nothing worth taking for a while, no ring
 * fills fast, and nothing waits for the next round (an image to take in,
 * a toggle signal to pass on). */
static bool idle_long_ok(const struct collector *c)
{
	return c->wake_fd >= 0 && c->inotify_fd >= 0 && c->program_fd >= 0 &&
	       c->idle_sleep_ns >= IDLE_SLEEP_MAX_NS && !c->filling_slots_now &&
	       !c->toggle_waiting && !procs_any_pending(c);
}

/* The process header of the image the program's pid runs now, when the
 * launcher has it active; else NULL. */
static struct session_proc_header *toggle_root_header(const struct collector *c)
{
	for (size_t k = c->live.n; k-- > 0;) {
		const struct proc *p = c->live.v[k];

		if (p->phase == PROC_ACTIVE && !p->superseded &&
		    p->pid == (unsigned)c->cfg->root_pid)
			return p->pf.h;
	}
	return NULL;
}

/* Whether header h (may be NULL) says its program took the toggle signal
 * from the recorder's handler. */
static bool toggle_taken_in(struct session_proc_header *h)
{
	return h && (atomic_load(&h->diag_flags) & (1u << TRACE_DIAG_TOGGLE_TAKEN));
}

/* What toggle_pass did with a toggle. */
enum toggle_passed {
	TOGGLE_SENT,     /* sent to the program */
	TOGGLE_WITHHELD, /* the program took the signal: never sent */
	TOGGLE_HELD,     /* the image is executing another program, or has no
	                  * handler: kept for a later round */
};

/* Sends the toggle signal to the program when header h says it did not
 * take the signal and is not executing another program, and the image at
 * its pid catches (or ignores) the signal now.  toggle_passing is set
 * before the header is read and cleared after the kill: a recorder that
 * sets the flag or exec_self meanwhile waits for the kill before its
 * program's disposition takes effect or its exec starts, and takes the
 * signal as a toggle itself (preload/toggle_signal.h); so the image read
 * is the one the kill reaches. */
static enum toggle_passed toggle_pass(const struct collector *c, struct session_proc_header *h)
{
	enum toggle_passed done = TOGGLE_HELD;

	atomic_store(&h->toggle_passing, 1);
	if (toggle_taken_in(h))
		done = TOGGLE_WITHHELD;
	else if (!atomic_load(&h->exec_self) &&
		 pid_info_signal_handled((unsigned)c->cfg->root_pid, c->cfg->toggle_signal) &&
		 kill(c->cfg->root_pid, c->cfg->toggle_signal) == 0)
		done = TOGGLE_SENT;
	atomic_store(&h->toggle_passing, 0);
	return done;
}

/* Passes the toggle signals sent to mprof on to the program, one a round,
 * once the image its pid runs has a process file that is not inside an
 * exec and catches (or ignores) the signal: before its recorder installed
 * the handler, the signal's default action would end it, and an image
 * executing another program may be replaced by one without the handler at
 * any time (exec resets it).  Not to a program that replaced the
 * recorder's handler with its own: the signal would be a command of its
 * own there (HotSpot's JVM, whose thread-suspend signal is SIGUSR2, died
 * of it in SR_handler; nginx upgrades its binary on SIGUSR2).  Never to an
 * image without a process file (a static or set-user-ID program the
 * recorder does not start in): the toggle waits for one. */
static void toggle_forward(struct collector *c)
{
	struct session_proc_header *h;
	bool came;

	if (!c->cfg->toggle_signal)
		return;
	came = signals_toggle_take();
	if (came)
		c->toggle_waiting++;
	if (!c->toggle_waiting)
		return;
	h = toggle_root_header(c);
	/* the program's process file may be newer than the last scan (a
	 * launcher that had not run since the program started, or an image
	 * that executed another): its word is read before a signal is sent.
	 * Once a toggle: later rounds see new files through the loop's scans */
	if (came && (!h || atomic_load(&h->exec_self)) &&
	    pid_info_signal_handled((unsigned)c->cfg->root_pid, c->cfg->toggle_signal)) {
		dir_events_read(c);
		dir_scan(c);
		procs_activate_pending(c, now_ns());
		h = toggle_root_header(c);
	}
	if (!h)
		return;
	switch (toggle_pass(c, h)) {
	case TOGGLE_WITHHELD:
		c->toggles_withheld++;
		/* fall through */
	case TOGGLE_SENT:
		c->toggle_waiting--;
		break;
	case TOGGLE_HELD:
		break;
	}
}

static void collect_until_end(struct collector *c)
{
	uint64_t last_scan = 0, last_retire = 0, taken;

	while (!c->ended) {
		uint64_t now = now_ns();
		bool periodic = now - last_scan >= SCAN_INTERVAL_NS;

		if (c->asleep_marked)
			procs_clear_asleep(c);
		program_reap_poll(c);
		if (c->ended)
			break;
		toggle_forward(c);
		if (dir_events_read(c) || periodic) {
			last_scan = now;
			dir_scan(c);
		}
		if (procs_any_pending(c))
			procs_activate_pending(c, now);
		procs_reaps_take(c);
		if (now - last_retire >= RETIRE_INTERVAL_NS) {
			last_retire = now;
			procs_retire_ended(c, now);
		}
		live_compact(c);
		taken = procs_drain(c, false);
		procs_rezip(c);
		if (taken == 0 && !c->helper_tried && c->cfg->helper_start && c->root_assigned &&
		    now - c->root_active_ns >= HELPER_START_DELAY_NS) {
			c->helper_tried = true;
			c->helper_pid = c->cfg->helper_start();
		}
		if (taken == 0) {
			long sleep_ns = c->idle_sleep_ns;

			if (idle_long_ok(c)) {
				uint64_t retire_at = last_retire + RETIRE_INTERVAL_NS;

				procs_mark_asleep(c);
				taken = procs_drain(c, false);
				if (taken == 0 && retire_at > now + IDLE_SLEEP_MAX_NS)
					sleep_ns = retire_at - now < (uint64_t)IDLE_SLEEP_LONG_NS
							   ? (long)(retire_at - now)
							   : IDLE_SLEEP_LONG_NS;
			}
			if (taken == 0)
				idle_wait(c, sleep_ns);
		}
		if (taken == 0) {
			/* a program that writes little (nothing, or a sampled
			 * run's few records) costs the launcher 200 wake-ups a
			 * second, not 1000: each one takes a processor from a
			 * program that keeps them all busy.  One that writes
			 * fast keeps the 1 ms rounds (longer ones made its
			 * threads wait for room more often). */
			if (c->filling_slots_now)
				c->idle_sleep_ns = IDLE_SLEEP_NS;
			else if (c->idle_sleep_ns < IDLE_SLEEP_MAX_NS)
				c->idle_sleep_ns = c->idle_sleep_ns * 2 < IDLE_SLEEP_MAX_NS
							   ? c->idle_sleep_ns * 2 : IDLE_SLEEP_MAX_NS;
		} else {
			c->idle_sleep_ns = IDLE_SLEEP_NS;
		}
	}
	if (c->toggle_waiting)
		mprof_warn("the toggle signal sent to mprof was not passed on (%u time%s): %s ended "
			   "before an image of its own with mprof's handler of the signal ran (its "
			   "recorder had not started, or it was executing a program not recorded)",
			   c->toggle_waiting, c->toggle_waiting == 1 ? "" : "s", c->cfg->program);
	if (c->toggles_withheld)
		mprof_warn("the toggle signal sent to mprof was not passed on (%u time%s): %s "
			   "handles it itself, so it cannot toggle recording", c->toggles_withheld,
			   c->toggles_withheld == 1 ? "" : "s", c->cfg->program);
}

/* Whether the image pid runs now has a process file that was taken in (one
 * of pid whose executable is exe; "": any), or is a program such an image
 * executed that its recorder named as not recorded.  A fork child that
 * executed the same program again cannot be told from its new image. */
static bool image_known(unsigned pid, const char *exe, void *arg)
{
	const struct collector *c = arg;

	for (size_t i = 0; i < c->all.n; i++) {
		const struct proc *p = c->all.v[i];

		if (p->pid != pid)
			continue;
		if (!exe[0] || !p->exe || strcmp(p->exe, exe) == 0 || p->exec_left ||
		    (p->pf.h && proc_exec_unrecorded(p)))
			return true;
	}
	return false;
}

/* What late_starters_find looks for in c's run. */
static struct late_query late_query_of(struct collector *c)
{
	return (struct late_query){ c->cfg->session_dir, c->cfg->recorder_path, c->start_ticks,
				    &c->pids, image_known, c, (unsigned)c->helper_pid };
}

/* Whether a process file of pid is in the directory, its header not ready
 * yet (procs_pending_settle waits for those). */
static bool pid_pending(const struct collector *c, unsigned pid)
{
	for (size_t i = 0; i < c->live.n; i++)
		if (c->live.v[i]->phase == PROC_PENDING && proc_file_name_pid(c->live.v[i]->name) == pid)
			return true;
	return false;
}

/*
 * When the program ended, the run's processes that have no process file yet
 * (late_starters.h) are waited for until they create one, up to
 * LATE_START_LIMIT_NS (a child started just before the end may be slow to
 * load: heavy load, cold caches, big libraries); processes whose
 * environment cannot be read, perhaps not the run's, LATE_UNREADABLE_NS.
 * Those the recorder can never start in, or that are stopped, are not
 * waited for.  Each of the run's processes still without a file then gets
 * a warning naming it and the reason: none is left out without a word.
 */
#define LATE_START_LIMIT_NS STARTING_LIMIT_NS
#define LATE_UNREADABLE_NS (20 * MS_NS)
#define LATE_MAX 64

/* A late starter followed across the rounds of procs_late_settle. */
struct late_seen {
	struct late_starter s;
	bool ours;       /* its environment named the session at least once */
	bool present;    /* found in the last round */
};

/* What procs_late_settle found (static: some 35 KiB, see there), kept for
 * procs_ending_settle, which does not wait for these again. */
static struct late_seen late_seen_list[LATE_MAX];
static size_t late_seen_count;

/* Whether the settle still waits for it, waited_ns after it began. */
static bool late_waits_for(const struct late_seen *l, uint64_t waited_ns)
{
	if (!l->present)
		return false;
	switch (l->s.state) {
	case LATE_EXECUTING:
	case LATE_STARTING:
		return waited_ns < LATE_START_LIMIT_NS;
	case LATE_UNREADABLE:
		return waited_ns < LATE_UNREADABLE_NS;
	case LATE_STOPPED:
	case LATE_UNREACHABLE:
		break;
	}
	return false;
}

/* Whether its current image has been taken in (or is being). */
static bool late_settled(const struct collector *c, const struct late_seen *l)
{
	return image_known(l->s.pid, l->s.exe, (void *)c) || pid_pending(c, l->s.pid);
}

/* Whether a live image of the run has called exec (its header says so,
 * before the call) and the process still runs it: the scan of /proc saw the
 * old image, known, and the new one's recorder has yet to start (`sh -c
 * 'sleep 30 &'`: the shell ends while its child executes sleep).  The next
 * rounds see the new image as a late starter. */
static bool execs_in_flight(const struct collector *c)
{
	char exe[LATE_PROGRAM_BYTES];

	for (size_t i = 0; i < c->live.n; i++) {
		const struct proc *p = c->live.v[i];

		/* (a file given up is in the list until the next prune, unmapped) */
		if (p->phase != PROC_ACTIVE || !proc_exec_unrecorded(p) || !p->exe ||
		    !pid_info_running(p->pid))
			continue;
		if (pid_info_exe(p->pid, exe, sizeof(exe)) && strcmp(exe, p->exe) == 0)
			return true;
	}
	return false;
}

/* Merges this round's finds into seen[0..*nseen) (at most LATE_MAX kept). */
static void late_merge(struct late_seen *seen, size_t *nseen, const struct late_starter *late,
		       size_t n)
{
	for (size_t k = 0; k < *nseen; k++)
		seen[k].present = false;
	for (size_t i = 0; i < n && i < LATE_MAX; i++) {
		size_t k = 0;

		while (k < *nseen && seen[k].s.pid != late[i].pid)
			k++;
		if (k == *nseen) {
			if (*nseen == LATE_MAX)
				continue;
			seen[k] = (struct late_seen){ .ours = false };
			(*nseen)++;
		}
		seen[k].s = late[i];
		seen[k].present = true;
		if (late[i].state != LATE_EXECUTING && late[i].state != LATE_UNREADABLE)
			seen[k].ours = true;
	}
}

/* One warning per process of the run left without a process file, through
 * the digest (a build's processes that all give one text: one line). */
static void late_report(const struct collector *c, const struct late_seen *seen, size_t nseen,
			size_t more, uint64_t waited_ns)
{
	char who[32];

	for (size_t k = 0; k < nseen; k++) {
		const struct late_seen *l = &seen[k];
		bool timed_out = l->s.state == LATE_EXECUTING || l->s.state == LATE_STARTING;

		/* one that left its exec not naming the run is another job's */
		if (late_settled(c, l) || l->s.state == LATE_UNREADABLE ||
		    (!l->ours && l->s.state != LATE_EXECUTING) ||
		    (!l->ours && !l->s.descends && !l->present))
			continue;
		snprintf(who, sizeof(who), "process %u", l->s.pid);
		if (!l->present)
			diag_digest_add_at(true, who, "", DIAG_DIGEST_WHO " (%s) is not recorded: it "
					   "ended before its recorder started", l->s.program);
		else if (timed_out)
			diag_digest_add_at(true, who, "", DIAG_DIGEST_WHO " (%s)%s is not recorded: "
					   "%s %.1f s after %s ended", l->s.program,
					   l->ours ? "" : ", perhaps of this run,",
					   late_starter_reason(&l->s), (double)waited_ns / 1e9,
					   c->cfg->program);
		else
			diag_digest_add_at(true, who, "", DIAG_DIGEST_WHO " (%s) is not recorded: %s",
					   l->s.program, late_starter_reason(&l->s));
	}
	if (more)
		mprof_warn("%zu more processes started during the run were not looked at: some "
			   "may not be recorded", more);
}

static void procs_late_settle(struct collector *c)
{
	struct late_query q = late_query_of(c);
	/* static: some 70 KiB, more than a stack under `ulimit -s 100` holds
	 * (the launcher runs with the program's limit); called once a run */
	static struct late_starter late[LATE_MAX];
	struct late_seen *seen = late_seen_list;
	size_t nseen = 0, n;
	uint64_t start = now_ns(), waited;

	if (c->cfg->no_children)
		return;
	for (;;) {
		struct timespec pause = { 0, IDLE_SLEEP_NS };
		bool waiting = false;

		pid_window_update(&c->pids);
		n = late_starters_find(&q, late, LATE_MAX);
		late_merge(seen, &nseen, late, n);
		/* A process can create its file after the last directory scan
		 * and end before the look at /proc: scan again after it. */
		dir_scan(c);
		procs_activate_pending(c, now_ns());
		waited = now_ns() - start;
		for (size_t k = 0; k < nseen; k++)
			if (!late_settled(c, &seen[k]) && late_waits_for(&seen[k], waited))
				waiting = true;
		if ((n > LATE_MAX || execs_in_flight(c)) && waited < LATE_START_LIMIT_NS)
			waiting = true;
		if (!waiting)
			break;
		nanosleep(&pause, NULL);
	}
	late_seen_count = nseen;
	late_report(c, seen, nseen, n > LATE_MAX ? n - LATE_MAX : 0, waited);
}

/* Gives process files still starting in running descendants the same time,
 * so that a child forked just before the program ended is not lost;
 * proc_finish names those that never became ready. */
static void procs_pending_settle(struct collector *c)
{
	uint64_t deadline = now_ns() + LATE_START_LIMIT_NS;

	for (;;) {
		struct timespec pause = { 0, 5 * IDLE_SLEEP_NS };
		bool waiting = false;

		for (size_t i = 0; i < c->live.n; i++) {
			struct proc *p = c->live.v[i];
			unsigned pid = proc_file_name_pid(p->name);
			char state = pid_info_state(pid);

			if (p->phase == PROC_PENDING && pid_guard_pid_running(pid, proc_start_ns(p)) &&
			    state != 'T' &&
			    state != 't')
				waiting = true;
		}
		if (!waiting || now_ns() > deadline)
			return;
		nanosleep(&pause, NULL);
		procs_activate_pending(c, now_ns());
	}
}

/* Whether the wait for the run's ending processes, begun at start_ns,
 * waits for p: a process of the run other than the program that still
 * runs, has not written its exit note and is not stopped (a stopped one
 * does not end by itself).  A file still starting counts while its process
 * runs if it appeared during the wait (one that appeared before has had
 * procs_pending_settle's wait).  *state: p's process state when it is
 * waited for (pid_info_state; 0 when unknown). */
static bool proc_ending_awaited(const struct collector *c, const struct proc *p,
				uint64_t start_ns, char *state)
{
	unsigned pid = p->phase == PROC_PENDING ? proc_file_name_pid(p->name) : p->pid;

	if (p->is_root || p->phase == PROC_DONE || proc_is_program_pid(c, p))
		return false;
	if (p->phase == PROC_PENDING && p->seen_ns < start_ns)
		return false;
	/* (one that executed a program is waited for while it runs: the new
	 * image's recorder may be starting) */
	if (p->phase == PROC_ACTIVE && (p->superseded || proc_recording_ended(p)))
		return false;
	if (p->phase == PROC_PENDING && !pid_guard_pid_running(pid, proc_start_ns(p)))
		return false;
	*state = pid ? pid_info_state(pid) : 0;
	return *state != 'T' && *state != 't';
}

/* Whether the wait begun at start_ns waits for a process of the run; when
 * busy is given, also whether one it waits for is runnable or in a disk
 * wait (state R or D: busy, not a daemon asleep), into *busy. */
static bool procs_ending_awaited(const struct collector *c, uint64_t start_ns, bool *busy)
{
	bool awaited = false;
	char state;

	for (size_t i = 0; i < c->live.n; i++) {
		if (!proc_ending_awaited(c, c->live.v[i], start_ns, &state))
			continue;
		awaited = true;
		if (!busy || state == 'R' || state == 'D') {
			if (busy)
				*busy = true;
			return true;
		}
	}
	return awaited;
}

/* Whether procs_late_settle found pid (and gave it its wait). */
static bool late_seen_before(unsigned pid)
{
	for (size_t k = 0; k < late_seen_count; k++)
		if (late_seen_list[k].s.pid == pid)
			return true;
	return false;
}

/* Whether a process of the run started since the last look and has yet to
 * make its process file (late_starters.h): a daemon's second fork, made as
 * its first process ends, is found so before its file appears. */
static bool late_starters_coming(struct collector *c)
{
	struct late_query q = late_query_of(c);
	static struct late_starter late[8]; /* static: 4 KiB, off a small stack */
	size_t n;

	if (c->cfg->no_children)
		return false;
	pid_window_update(&c->pids);
	n = late_starters_find(&q, late, 8);
	for (size_t i = 0; i < n && i < 8; i++) {
		/* a file still starting, or a process procs_late_settle had
		 * its time for already, is not waited for again */
		if (pid_pending(c, late[i].pid) || late_seen_before(late[i].pid))
			continue;
		if (late[i].state == LATE_STARTING ||
		    (late[i].state == LATE_EXECUTING && late[i].descends))
			return true;
	}
	return n > 8;
}

/* A testing aid's value in ms (mprof-run(1)): the environment variable
 * name as a number 1 .. 60000, or 0 when it is unset or anything else. */
static unsigned test_ms_setting(const char *name)
{
	const char *s = getenv(name);
	char *end;
	unsigned long ms;

	if (!s || !*s)
		return 0;
	ms = strtoul(s, &end, 10);
	return *end || ms > 60000 ? 0 : (unsigned)ms;
}

unsigned collector_ending_wait_ms(void)
{
	unsigned ms = test_ms_setting("MPROF_TEST_ENDING_WAIT_MS");

	return ms ? ms : COLLECTOR_ENDING_WAIT_MS;
}

/*
 * Once the program has ended and the recorders that were starting have
 * been waited for, the run's processes that still run are given up to
 * collector_ending_wait_ms() to end by themselves, so that one that ends a moment
 * after the program (Python's resource tracker, which sees its pipe close;
 * a background job about to finish) has a trace that reaches its end.
 * Meanwhile the collection goes on as while the program ran: new files
 * are taken in (and a process of the run still without one is waited
 * for), rings drained (a writer blocked on a full ring would never end)
 * and ended processes finalized.  A daemon that lives on costs
 * the run that wait once; one that keeps the processor busy, up to
 * COLLECTOR_ENDING_BUSY_MS.  Returns the wait in ms: the bound that ended
 * it, or the time waited when a busy process was waited for past the first
 * bound and then fell asleep.
 */
static unsigned procs_ending_settle(struct collector *c)
{
	uint64_t start = now_ns(), last_retire = start, now = start;
	uint64_t limit_ns = (uint64_t)collector_ending_wait_ms() * MS_NS;
	uint64_t busy_ns = limit_ns > COLLECTOR_ENDING_BUSY_MS * MS_NS
				   ? limit_ns
				   : (uint64_t)COLLECTOR_ENDING_BUSY_MS * MS_NS;

	bool extended = false;

	for (;;) {
		struct timespec pause = { 0, 2 * IDLE_SLEEP_NS };
		bool past = now - start >= limit_ns, busy = false;

		/* past the first bound, only a busy process is waited for */
		if (!procs_ending_awaited(c, start, past ? &busy : NULL) && !late_starters_coming(c))
			break;
		if (past && !(busy && now - start < busy_ns))
			break;
		extended = past;
		nanosleep(&pause, NULL);
		now = now_ns();
		dir_scan(c);
		procs_activate_pending(c, now);
		procs_reaps_take(c);
		procs_drain(c, false);
		if (now - last_retire >= RETIRE_INTERVAL_NS) {
			last_retire = now;
			procs_retire_ended(c, now);
			live_compact(c);
		}
	}
	if (!extended)
		return (unsigned)(limit_ns / MS_NS);
	return (unsigned)((now - start < busy_ns ? now - start : busy_ns) / MS_NS);
}

/* The launcher's figures of p's trace (collector_trace). */
static void result_figures_set(struct collector_trace *f, struct proc *p)
{
	f->pid = p->pid;
	f->command = p->command;
	p->command = NULL;
	f->allocations = p->counts.allocations;
	f->samples = p->counts.records;
	f->peak_rss_kib = p->end.peak_rss_kib;
	f->peak_rss_sampled = p->end.peak_rss_how && strcmp(p->end.peak_rss_how, "sampled") == 0;
	f->has_status = p->end.has_status;
	f->wait_status = p->end.wait_status;
	f->process_state = p->end.process_state;
}

static int result_trace_add(struct collector_result *res, struct proc *p)
{
	char **v = realloc(res->traces, (res->ntraces + 1) * sizeof(*v));
	struct collector_trace *f;

	if (!v)
		return -ENOMEM;
	res->traces = v;
	v[res->ntraces] = strdup(p->display_path);
	if (!v[res->ntraces])
		return -ENOMEM;
	/* (figures stay NULL for good once out of memory: one per trace or none) */
	f = res->figures || !res->ntraces ? realloc(res->figures, (res->ntraces + 1) * sizeof(*f))
					  : NULL;
	if (f) {
		res->figures = f;
		memset(&f[res->ntraces], 0, sizeof(*f));
		result_figures_set(&f[res->ntraces], p);
	} else if (res->figures) {
		for (size_t i = 0; i < res->ntraces; i++)
			free(res->figures[i].command);
		free(res->figures);
		res->figures = NULL;
	}
	res->ntraces++;
	return 0;
}

/* Testing aid, never set by mprof: MPROF_TEST_FINISH_DELAY_MS (at most 60000)
 * makes the launcher sleep that long after its waits for late processes,
 * before it decides on the files still starting, as a launcher kept off the
 * CPU at that point would (tests/e2e/slow-start.sh). */
static void test_finish_delay(void)
{
	unsigned ms = test_ms_setting("MPROF_TEST_FINISH_DELAY_MS");
	struct timespec delay;

	if (!ms)
		return;
	delay.tv_sec = (time_t)(ms / 1000);
	delay.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&delay, &delay) < 0 && errno == EINTR)
		;
}

/* Counts p, just finished with its trace saying it runs, in res
 * (collector_result still_*), naming the first of its kind. */
static void result_running_add(const struct collector *c, struct collector_result *res,
			       const struct proc *p)
{
	char state = p->pid ? pid_info_state(p->pid) : 0;
	bool stopped = state == 'T' || state == 't';
	size_t *n = stopped ? &res->still_stopped : &res->still_running;

	if (proc_is_program_pid(c, p))
		return;
	if ((*n)++ == 0) {
		*(stopped ? &res->stopped_pid : &res->running_pid) = p->pid;
		*(stopped ? &res->stopped_name : &res->running_name) =
			p->command ? strdup(p->command) : NULL;
	}
}

/* Takes in and finishes the process files that waited for a descriptor
 * (proc_take_in) until the end: the traces finished before have given
 * theirs back.  Names those still without one.  Counts those still
 * running in res. */
static void procs_deferred_finish(struct collector *c, struct collector_result *res)
{
	unsigned left = 0;
	const char *first = NULL;

	for (size_t i = 0; i < c->all.n; i++) {
		struct proc *p = c->all.v[i];

		if (!p->open_deferred)
			continue;
		proc_take_in(c, p);
		if (p->open_deferred) {
			first = first ? first : p->name;
			left++;
			continue;
		}
		if (p->phase == PROC_PENDING)
			proc_activate(c, p, now_ns());
		if (proc_finish(c, p))
			result_running_add(c, res, p);
	}
	if (left)
		mprof_warn("%u process%s not recorded: mprof had no file descriptor left to "
			   "open %s process file (%s; ulimit -n is mprof's limit too)", left,
			   left == 1 ? " is" : "es are", left == 1 ? "its" : "their", first);
}

/* After the program ended: last scan, last drain, END chunks, results.  The
 * root trace is finalized last, after its descendants. */
static void collect_finish(struct collector *c, struct collector_result *res)
{
	struct proc *root = NULL;

	dir_scan(c);
	procs_activate_pending(c, now_ns());
	procs_late_settle(c);
	procs_pending_settle(c);
	res->ending_waited_ms = procs_ending_settle(c);
	test_finish_delay();
	procs_reaps_take(c);
	for (size_t i = 0; i < c->live.n; i++) {
		struct proc *p = c->live.v[i];

		if (p->is_root) {
			root = p;
			continue;
		}
		if (proc_finish(c, p))
			result_running_add(c, res, p);
	}
	procs_deferred_finish(c, res);
	if (root) {
		proc_finish(c, root);
		res->root_seen = true;
		if (root->display_path)
			result_trace_add(res, root);
	}
	for (size_t i = 0; i < c->all.n; i++)
		if (c->all.v[i] != root && c->all.v[i]->has_trace && c->all.v[i]->display_path)
			result_trace_add(res, c->all.v[i]);
	res->wait_status = c->wait_status;
	res->write_errors = c->write_errors;
	if (c->create_failures > 1)
		mprof_warn("%u more process images are not recorded: their traces could not be "
			   "created either (the first failed with: %s)", c->create_failures - 1,
			   strerror(c->create_errno));
}

/* Without a readable session directory there is nothing to collect. */
static void program_wait_only(struct collector *c)
{
	while (!c->ended) {
		struct timespec idle = { 0, 10 * IDLE_SLEEP_NS };

		program_reap_poll(c);
		if (!c->ended)
			nanosleep(&idle, NULL);
	}
}

static void collector_free(struct collector *c)
{
	for (size_t i = 0; i < c->all.n; i++) {
		struct proc *p = c->all.v[i];

		proc_file_close(&p->pf);
		trace_file_close(&p->tf);
		free(p->trace_path);
		free(p->display_path);
		free(p->command);
		free(p->seen_command);
		free(p->exec_unseen_exe);
		free(p->exe);
		pid_guard_release(&p->guard);
		proc_diags_free(p);
		proc_free_slot_state(p);
		free(p);
	}
	free(c->all.v);
	free(c->live.v);
	free(c->index);
	free(c->copy);
	if (c->dir)
		closedir(c->dir);
	if (c->reserve_fd >= 0)
		close(c->reserve_fd);
}

/* Testing aid, never set by mprof: MPROF_TEST_REAP_AWAIT_MS (1 .. 60000)
 * replaces REAP_AWAIT_LIMIT_NS, so that a test tells a wait for a reap note
 * that never comes from a launcher a loaded host ran late
 * (tests/e2e/reap-cancel.sh).  Returns the limit in ns. */
static uint64_t reap_await_limit_setting(void)
{
	unsigned ms = test_ms_setting("MPROF_TEST_REAP_AWAIT_MS");

	return ms ? (uint64_t)ms * MS_NS : REAP_AWAIT_LIMIT_NS;
}

static enum test_store test_store_setting(void)
{
	const char *v = getenv("MPROF_TEST_STORE");

	if (!v || !*v || strcmp(v, "0") == 0)
		return TEST_STORE_OFF;
	if (strcmp(v, "end") == 0)
		return TEST_STORE_END;
	return strcmp(v, "stall") == 0 ? TEST_STORE_STALL : TEST_STORE_ON;
}

int collector_run(const struct collector_config *cfg, struct collector_result *res)
{
	struct collector c = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	int rc = 0;

	memset(res, 0, sizeof(*res));
	res->notify_fd = -1;
	c.cfg = cfg;
	c.reserve_fd = -1;
	c.kept_max = kept_images_max_for_limit();
	c.idle_sleep_ns = IDLE_SLEEP_NS;
	/* the program inherits the launcher's permission to read it */
	c.clock_tsc = EVENT_CLOCK_IS_TSC && event_clock_tsc_allowed();
	c.clock_start_ticks = c.clock_tsc ? event_clock_tsc() : 0;
	c.clock_start_ns = now_ns();
	c.wake_fd = launcher_wake_start(launcher_alive_wake_word());
	c.start_ticks = pid_info_start_ticks((unsigned)getpid());
	pid_window_start(&c.pids);
	c.pidns_known = pid_info_own_pidns(&c.pidns_dev, &c.pidns_ino);
	c.test_store = test_store_setting();
	c.reap_await_limit_ns = reap_await_limit_setting();
	memcpy(c.ps_per_byte, effort_ps_per_byte_start, sizeof(c.ps_per_byte));
	c.page_bytes = page > 0 ? (size_t)page : SESSION_PAGE_BYTES;
	c.cpus = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (unsigned)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	if (gethostname(c.hostname, sizeof(c.hostname) - 1) != 0)
		c.hostname[0] = '\0';
	c.inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	c.inotify_wd = -1;
	c.dir_changed = true; /* files made before the watch: the first scan reads */
	if (c.inotify_fd >= 0) {
		c.inotify_wd = inotify_add_watch(c.inotify_fd, cfg->session_dir, IN_CREATE);
		if (c.inotify_wd < 0) {
			close(c.inotify_fd);
			c.inotify_fd = -1;
		}
	}
#ifdef SYS_pidfd_open
	c.program_fd = (int)syscall(SYS_pidfd_open, cfg->root_pid, 0);
#else
	c.program_fd = -1; /* headers before Linux 5.3 */
#endif
	c.dir = opendir(cfg->session_dir);
	fd_reserve_take(&c); /* after the directory, which needs one more */
	if (!c.dir) {
		rc = -errno;
		program_wait_only(&c);
		res->wait_status = c.wait_status;
	} else {
		collect_until_end(&c);
		collect_finish(&c, res);
		diag_digest_flush();
		/* the program has ended: what is left of the re-compression
		 * counts in the run's time, so at the fastest level */
		if (rezip_finish(TRACE_LEVEL_FAST, c.test_store == TEST_STORE_STALL,
				 rezip_failed_warn)) {
			mprof_note("testing: the re-compression stopped half way "
				   "(MPROF_TEST_STORE=stall); waiting to be killed");
			for (;;)
				pause();
		}
	}
	if (!res->root_seen && cfg->root_trace->path)
		trace_file_discard(cfg->root_trace);
	notify_stop(&c);
	launcher_wake_stop();
	if (c.program_fd >= 0)
		close(c.program_fd);
	res->notify_fd = c.inotify_fd;
	res->kept = c.kept;
	collector_free(&c);
	trace_files_release();
	return rc;
}

void collector_result_free(struct collector_result *res)
{
	for (size_t i = 0; i < res->ntraces; i++) {
		free(res->traces[i]);
		if (res->figures)
			free(res->figures[i].command);
	}
	free(res->traces);
	free(res->figures);
	free(res->running_name);
	free(res->stopped_name);
	res->running_name = NULL;
	res->stopped_name = NULL;
	res->traces = NULL;
	res->figures = NULL;
	res->ntraces = 0;
	if (res->notify_fd >= 0)
		close(res->notify_fd);
	res->notify_fd = -1;
	kept_images_close(&res->kept);
}
