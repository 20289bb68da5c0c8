/*
 * cli/collector.c - draining the shim's shared-memory rings into traces.
 *
 * Runs in the launcher while the program runs.  Owns the session directory
 * scan, one mapping per process file (trace/session.h), one trace file per
 * process, the read position of every slot, and one copy buffer for a
 * chunk.  Each round it reaps the program if it ended (wait4, for peak RSS),
 * rescans the directory when inotify reports a new file (and every
 * SCAN_INTERVAL_NS in case inotify is not available), and takes the data of each
 * slot when a quarter ring is waiting, when data has waited SWEEP_INTERVAL_NS,
 * when the thread retired, or at the end.  An EVENTS chunk never spans two
 * laps of a ring, and holds whole records (the shim pads a lap's tail).
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/collector.h"
#include "cli/die.h"
#include "cli/signals.h"
#include "trace/format.h"
#include "trace/session.h"
#include "trace/varint.h"

#define SCAN_INTERVAL_NS (20 * UINT64_C(1000000))   /* directory rescan */
#define SWEEP_INTERVAL_NS (100 * UINT64_C(1000000)) /* longest wait of data in a ring */
#define STARTING_LIMIT_NS (2000 * UINT64_C(1000000)) /* a shim that never finished starting */
#define SETTLE_LIMIT_NS (300 * UINT64_C(1000000)) /* late starters at the end */
#define IDLE_SLEEP_NS 1000000L               /* a round that found nothing */
#define SLOT_LIMIT (1u << 20)
#define SLOT_MARGIN 16u                      /* unused slots checked each round */
#define CHUNK_HEAD_BYTES (3 * VARINT_MAX_BYTES)
#define NAME_BYTES 64

enum proc_phase {
	PROC_PENDING,  /* file seen, header not ready */
	PROC_ACTIVE,   /* mapped, being drained */
	PROC_DONE,     /* finalized (or ignored); only name and trace path kept */
};

/* One process file, i.e. one process image of the run. */
struct proc {
	char name[NAME_BYTES];         /* "p.PID.SERIAL" in the session dir */
	enum proc_phase phase;
	int fd;                        /* pending only */
	void *page;                    /* pending: the header page, read-only */
	struct timespec ctime;         /* creation order of process files */
	uint64_t seen_ns;              /* when first seen (monotonic) */
	uint64_t seen_unix_ns;
	uint8_t *base;                 /* active: the whole file, read/write */
	size_t map_bytes;
	struct session_proc_header *h;
	unsigned pid;
	bool is_root;
	bool superseded;               /* another image of the same pid started */
	bool broken;                   /* inconsistent positions: stopped reading */
	bool has_trace;
	struct trace_file tf;
	char *trace_path;              /* absolute, kept after the trace is closed */
	char *display_path;            /* as created (relative to mprof's cwd) */
	uint64_t last_sweep_ns;
	uint32_t slots_used;           /* 1 + highest slot seen in use */
};

struct collector {
	const struct collector_config *cfg;
	DIR *dir;
	int inotify_fd;                /* IN_CREATE on the session dir, or -1 */
	struct proc **all;             /* every process file seen, in order */
	size_t nall, cap_all;
	bool root_assigned;
	bool ended;                    /* the program has been reaped */
	size_t write_errors;           /* traces whose writing failed */
	int wait_status;
	struct rusage rusage;          /* the program's, from wait4 */
	uint8_t *copy;                 /* the one chunk buffer */
	size_t copy_bytes;
	size_t page_bytes;
	char hostname[256];
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
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

static struct proc *proc_find(struct collector *c, const char *name)
{
	for (size_t i = 0; i < c->nall; i++)
		if (strcmp(c->all[i]->name, name) == 0)
			return c->all[i];
	return NULL;
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

/* Punches a drained, retired slot's ring out of memory and frees the slot. */
static void slot_release(struct collector *c, struct proc *p, uint32_t i)
{
	uint8_t *ring = session_ring_at(p->base, i);

	if (((uintptr_t)ring % c->page_bytes) == 0 && p->h->ring_bytes % c->page_bytes == 0)
		madvise(ring, p->h->ring_bytes, MADV_REMOVE);
	atomic_store_explicit(&session_slot_at(p->base, i)->state, SLOT_FREE,
			      memory_order_release);
}

/* Writes ring bytes [r, end) of slot i (one lap at most) as an EVENTS chunk. */
static void slot_chunk_write(struct collector *c, struct proc *p, uint32_t i, uint64_t r,
			     uint64_t end)
{
	uint64_t ring_bytes = p->h->ring_bytes;
	uint8_t *q = c->copy;

	q = varint_put_u64(q, i);
	q = varint_put_u64(q, r / ring_bytes);
	q = varint_put_u64(q, r % ring_bytes);
	memcpy(q, session_ring_at(p->base, i) + r % ring_bytes, (size_t)(end - r));
	q += end - r;
	if (p->has_trace)
		trace_file_chunk(&p->tf, TRACE_CHUNK_EVENTS, c->copy, (size_t)(q - c->copy));
}

/*
 * Takes what slot i holds when it is worth a chunk (or always with force).
 * Returns the bytes taken.
 */
static uint64_t slot_drain(struct collector *c, struct proc *p, uint32_t i, bool force)
{
	struct session_slot *s = session_slot_at(p->base, i);
	uint64_t ring_bytes = p->h->ring_bytes;
	uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
	uint64_t w = atomic_load_explicit(&s->write_pos, memory_order_acquire);
	uint64_t r = atomic_load_explicit(&s->read_pos, memory_order_relaxed);
	uint64_t taken;

	if ((state != SLOT_FREE || w != 0) && i >= p->slots_used)
		p->slots_used = i + 1;
	if (w == r) {
		if (state == SLOT_RETIRED)
			slot_release(c, p, i);
		return 0;
	}
	if (w < r || w - r > ring_bytes) {
		p->broken = true;
		return 0;
	}
	if (!force && state != SLOT_RETIRED && w - r < ring_bytes / 4)
		return 0;
	taken = w - r;
	while (r < w) {
		uint64_t lap_end = (r / ring_bytes + 1) * ring_bytes;
		uint64_t end = w < lap_end ? w : lap_end;

		slot_chunk_write(c, p, i, r, end);
		r = end;
		atomic_store_explicit(&s->read_pos, r, memory_order_release);
	}
	if (state == SLOT_RETIRED)
		slot_release(c, p, i);
	return taken;
}

/*
 * One pass over the slots of an active process.  Returns the bytes taken.
 * Threads claim slots from the low end, so an ordinary round looks at the
 * slots used so far plus SLOT_MARGIN; a sweep (every SWEEP_INTERVAL_NS, and
 * at the end) looks at all of them.
 */
static uint64_t proc_drain(struct collector *c, struct proc *p, bool force, uint64_t now)
{
	uint64_t taken = 0;
	uint32_t limit;

	if (p->broken)
		return 0;
	if (!force && now > p->last_sweep_ns && now - p->last_sweep_ns >= SWEEP_INTERVAL_NS)
		force = true;
	if (force)
		p->last_sweep_ns = now;
	limit = p->h->nslots;
	if (!force && p->slots_used + SLOT_MARGIN < limit)
		limit = p->slots_used + SLOT_MARGIN;
	for (uint32_t i = 0; i < limit && !p->broken; i++)
		taken += slot_drain(c, p, i, force);
	if (p->broken)
		mprof_warn("process %u wrote inconsistent ring positions; its trace stops here",
			   p->pid);
	return taken;
}

/* ---------- process files: discovery and mapping ---------- */

/* Checks the geometry the shim wrote against the mapped size. */
static int header_check(const struct session_proc_header *h, size_t file_bytes)
{
	uint64_t slots_end, rings_end;

	if (h->magic != SESSION_PROC_MAGIC || h->version != SESSION_VERSION)
		return -EPROTO;
	if (h->nslots == 0 || h->nslots > SLOT_LIMIT)
		return -EPROTO;
	if (h->ring_bytes < SESSION_PAGE_BYTES || h->ring_bytes % SESSION_PAGE_BYTES != 0 ||
	    h->ring_bytes > TRACE_CHUNK_MAX_RAW_BYTES - CHUNK_HEAD_BYTES)
		return -EPROTO;
	slots_end = SESSION_SLOTS_OFFSET + (uint64_t)h->nslots * sizeof(struct session_slot);
	rings_end = h->ring_offset + (uint64_t)h->nslots * h->ring_bytes;
	if (h->ring_offset % SESSION_PAGE_BYTES != 0 || h->ring_offset < slots_end ||
	    rings_end > file_bytes)
		return -EPROTO;
	return 0;
}

static void proc_pending_release(struct proc *p)
{
	if (p->page)
		munmap(p->page, SESSION_PAGE_BYTES);
	p->page = NULL;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* Gives up on a process file: it is ignored and removed. */
static void proc_ignore(struct collector *c, struct proc *p, const char *why)
{
	proc_pending_release(p);
	p->phase = PROC_DONE;
	unlinkat(dirfd(c->dir), p->name, 0);
	mprof_warn("ignoring process file %s: %s", p->name, why);
}

static int proc_add(struct collector *c, const char *name, int fd, const struct stat *st)
{
	struct proc *p;

	if (c->nall == c->cap_all) {
		size_t cap = c->cap_all ? 2 * c->cap_all : 16;
		struct proc **v = realloc(c->all, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->all = v;
		c->cap_all = cap;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->phase = PROC_PENDING;
	p->fd = fd;
	p->ctime = st->st_ctim;
	p->seen_ns = now_ns();
	p->seen_unix_ns = clock_ns(CLOCK_REALTIME);
	c->all[c->nall++] = p;
	return 0;
}

static int new_file_cmp(const void *a, const void *b)
{
	const struct proc *x = *(struct proc *const *)a, *y = *(struct proc *const *)b;

	if (x->ctime.tv_sec != y->ctime.tv_sec)
		return x->ctime.tv_sec < y->ctime.tv_sec ? -1 : 1;
	if (x->ctime.tv_nsec != y->ctime.tv_nsec)
		return x->ctime.tv_nsec < y->ctime.tv_nsec ? -1 : 1;
	return 0;
}

/* Finds process files not seen before and adds them, oldest first. */
static void dir_scan(struct collector *c)
{
	struct dirent *e;
	size_t first_new = c->nall;

	rewinddir(c->dir);
	while ((e = readdir(c->dir)) != NULL) {
		struct stat st;
		int fd;

		if (strncmp(e->d_name, "p.", 2) != 0 || strlen(e->d_name) >= NAME_BYTES)
			continue;
		if (proc_find(c, e->d_name))
			continue;
		fd = openat(dirfd(c->dir), e->d_name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue; /* gone already, or not ours to read */
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || proc_add(c, e->d_name, fd, &st) < 0)
			close(fd);
	}
	if (c->nall - first_new > 1)
		qsort(c->all + first_new, c->nall - first_new, sizeof(*c->all), new_file_cmp);
}

/* "a b c" from /proc/PID/cmdline into out (empty when unreadable). */
static void cmdline_read(unsigned pid, char *out, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, out, size - 1);
	close(fd);
	if (n <= 0)
		return;
	while (n > 0 && out[n - 1] == '\0')
		n--;
	out[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		if (out[i] == '\0')
			out[i] = ' ';
}

static struct proc *proc_parent(struct collector *c, const struct proc *p)
{
	char parent[sizeof(p->h->parent_file)];

	field_copy(parent, sizeof(parent), p->h->parent_file, sizeof(p->h->parent_file));
	return parent[0] ? proc_find(c, parent) : NULL;
}

static void meta_write(struct collector *c, struct proc *p)
{
	const struct collector_config *cfg = c->cfg;
	struct session_proc_header *h = p->h;
	struct kv_text t = { 0 };
	char exe[sizeof(h->exe)], cmd[4096];

	field_copy(exe, sizeof(exe), h->exe, sizeof(h->exe));
	kv_text_add(&t, "mprof_version", "%s", PACKAGE_VERSION);
	kv_text_add(&t, "trace_role", "%s", p->is_root ? "root" : "child");
	kv_text_add(&t, "pid", "%u", h->pid);
	kv_text_add(&t, "ppid", "%u", h->ppid);
	kv_text_add(&t, "exe", "%s", exe);
	if (p->is_root) {
		kv_text_add(&t, "command", "%s", cfg->command);
		kv_text_add(&t, "start_time_unix_ns", "%" PRIu64, cfg->start_unix_ns);
	} else {
		cmdline_read(h->pid, cmd, sizeof(cmd));
		if (cmd[0])
			kv_text_add(&t, "command", "%s", cmd);
		kv_text_add(&t, "start_time_unix_ns", "%" PRIu64, p->seen_unix_ns);
	}
	kv_text_add(&t, "hostname", "%s", c->hostname);
	kv_text_add(&t, "mode", "exact");
	kv_text_add(&t, "max_frames", "%u", cfg->max_frames);
	kv_text_add(&t, "ring_bytes", "%u", h->ring_bytes);
	kv_text_add(&t, "slots", "%u", h->nslots);
	if (h->is_fork_child) {
		struct proc *parent = proc_parent(c, p);

		if (parent && parent->trace_path)
			kv_text_add(&t, "parent_trace", "%s", parent->trace_path);
		kv_text_add(&t, "fork_seq", "%" PRIu64, h->fork_seq);
	}
	kv_text_write(&t, &p->tf, TRACE_CHUNK_META);
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

/* Opens the trace of a newly mapped process; on failure the process is
 * still drained (so it never blocks) but nothing is kept. */
static void proc_trace_open(struct collector *c, struct proc *p)
{
	int rc;

	if (p->is_root) {
		p->tf = *c->cfg->root_trace;
		memset(c->cfg->root_trace, 0, sizeof(*c->cfg->root_trace));
		c->cfg->root_trace->fd = -1;
		rc = 0;
	} else {
		rc = trace_file_create_for_pid(&p->tf, c->cfg->trace_base, p->pid);
	}
	if (rc < 0) {
		mprof_warn("cannot create trace %s.%u: %s; process %u is not recorded",
			   c->cfg->trace_base, p->pid, strerror(-rc), p->pid);
		p->tf.fd = -1;
		return;
	}
	p->has_trace = true;
	p->trace_path = path_absolute(p->tf.path);
	p->display_path = strdup(p->tf.path);
	meta_write(c, p);
}

/* A new image of pid p->pid ends every earlier image of that pid. */
static void proc_mark_superseded(struct collector *c, const struct proc *p)
{
	if (p->h->is_fork_child)
		return;
	for (size_t i = 0; i < c->nall; i++) {
		struct proc *q = c->all[i];

		if (q != p && q->phase == PROC_ACTIVE && q->pid == p->pid)
			q->superseded = true;
	}
}

/* Maps a pending process file once its header is ready. */
static void proc_activate(struct collector *c, struct proc *p, uint64_t now)
{
	const struct session_proc_header *ph;
	struct stat st;
	void *base;
	int rc;

	if (!p->page) {
		if (fstat(p->fd, &st) == 0 && st.st_size >= (off_t)SESSION_PAGE_BYTES) {
			p->page = mmap(NULL, SESSION_PAGE_BYTES, PROT_READ, MAP_SHARED, p->fd, 0);
			if (p->page == MAP_FAILED)
				p->page = NULL;
		}
	}
	ph = p->page;
	if (!ph || atomic_load_explicit(&ph->state, memory_order_acquire) == PROC_STARTING) {
		if (now > p->seen_ns && now - p->seen_ns > STARTING_LIMIT_NS)
			proc_ignore(c, p, "its recorder did not finish starting within 2 s");
		return;
	}
	if (fstat(p->fd, &st) != 0) {
		proc_ignore(c, p, strerror(errno));
		return;
	}
	rc = header_check(ph, (size_t)st.st_size);
	if (rc < 0) {
		proc_ignore(c, p, "its header is not one this mprof understands");
		return;
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (base == MAP_FAILED) {
		proc_ignore(c, p, strerror(errno));
		return;
	}
	proc_pending_release(p);
	p->base = base;
	p->map_bytes = (size_t)st.st_size;
	p->h = base;
	if (header_check(p->h, p->map_bytes) < 0 ||
	    copy_reserve(c, CHUNK_HEAD_BYTES + p->h->ring_bytes) < 0) {
		munmap(base, p->map_bytes);
		p->base = NULL;
		p->h = NULL;
		p->phase = PROC_DONE;
		unlinkat(dirfd(c->dir), p->name, 0);
		mprof_warn("ignoring process file %s: inconsistent header or out of memory",
			   p->name);
		return;
	}
	p->pid = p->h->pid;
	p->phase = PROC_ACTIVE;
	p->last_sweep_ns = now;
	if (!c->root_assigned && p->pid == (unsigned)c->cfg->root_pid && !p->h->is_fork_child) {
		p->is_root = true;
		c->root_assigned = true;
	}
	proc_mark_superseded(c, p);
	proc_trace_open(c, p);
}

/* ---------- finalizing ---------- */

/* Whether pid is still a running (not zombie) process. */
static bool pid_running(unsigned pid)
{
	char path[64], buf[512], *rparen;
	ssize_t n;
	int fd;

	if (pid == 0 || pid > INT_MAX || (kill((pid_t)pid, 0) != 0 && errno != EPERM))
		return false;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	rparen = strrchr(buf, ')');
	return !(rparen && rparen[1] == ' ' && (rparen[2] == 'Z' || rparen[2] == 'X'));
}

static const char *proc_state_name(struct collector *c, const struct proc *p)
{
	if (p->superseded)
		return "exec";
	if (p->pid == (unsigned)c->cfg->root_pid && c->ended)
		return "ended";
	return pid_running(p->pid) ? "running" : "ended";
}

static void end_write(struct collector *c, struct proc *p, const char *state)
{
	struct session_proc_header *h = p->h;
	struct kv_text t = { 0 };
	char diag[sizeof(h->diag_text)];
	struct rusage self;

	if (p->pid == (unsigned)c->cfg->root_pid && c->ended) {
		if (WIFSIGNALED(c->wait_status))
			kv_text_add(&t, "signal", "%d", WTERMSIG(c->wait_status));
		else
			kv_text_add(&t, "exit_status", "%d", WEXITSTATUS(c->wait_status));
	}
	if (p->is_root) {
		kv_text_add(&t, "peak_rss_kib", "%ld", c->rusage.ru_maxrss);
		kv_text_add(&t, "wall_ns", "%" PRIu64, now_ns() - c->cfg->start_mono_ns);
		getrusage(RUSAGE_SELF, &self);
		kv_text_add(&t, "launcher_cpu_ns", "%" PRIu64,
			    (uint64_t)(self.ru_utime.tv_sec + self.ru_stime.tv_sec) * UINT64_C(1000000000) +
				    (uint64_t)(self.ru_utime.tv_usec + self.ru_stime.tv_usec) * UINT64_C(1000));
	}
	field_copy(diag, sizeof(diag), h->diag_text, sizeof(h->diag_text));
	kv_text_add(&t, "ring_waits", "%" PRIu64, atomic_load(&h->waits));
	kv_text_add(&t, "unrecorded_allocs", "%" PRIu64, atomic_load(&h->unrecorded_allocs));
	kv_text_add(&t, "unrecorded_frees", "%" PRIu64, atomic_load(&h->unrecorded_frees));
	kv_text_add(&t, "diag_flags", "%" PRIu32, atomic_load(&h->diag_flags));
	kv_text_add(&t, "diag_text", "%s", diag);
	kv_text_add(&t, "process_state", "%s", state);
	if (p->broken)
		kv_text_add(&t, "collector_error", "inconsistent ring positions");
	if (p->tf.error) {
		kv_text_add(&t, "trace_incomplete", "1");
		kv_text_add(&t, "write_error", "%s", strerror(-p->tf.error));
	}
	kv_text_write(&t, &p->tf, TRACE_CHUNK_END);
}

/* The shim's diagnostics for this process, as "mprof:" lines: its last
 * text, or a phrase per flag when it left none; ring waits with their count. */
static void diag_print(const struct proc *p)
{
	static const char *const flag_text[] = {
		[TRACE_DIAG_INFO] = "the recorder left a note in the trace",
		[TRACE_DIAG_FOREIGN_MALLOC] = "malloc is defined by the program or another "
					      "library: allocations may not be recorded",
		[TRACE_DIAG_NO_UNWINDER] = "libunwind is missing: call stacks have one frame",
		[TRACE_DIAG_RING_FULL_WAIT] = NULL,
		[TRACE_DIAG_DISABLED] = "recording stopped early",
	};
	uint32_t flags = atomic_load(&p->h->diag_flags);
	uint64_t waits = atomic_load(&p->h->waits);
	char text[sizeof(p->h->diag_text)], who[64] = "";

	if (!flags)
		return;
	if (!p->is_root)
		snprintf(who, sizeof(who), "process %u: ", p->pid);
	field_copy(text, sizeof(text), p->h->diag_text, sizeof(p->h->diag_text));
	if (text[0]) {
		mprof_note("%s%s", who, text);
	} else {
		for (unsigned b = 0; b < sizeof(flag_text) / sizeof(flag_text[0]); b++)
			if ((flags & (1u << b)) && flag_text[b])
				mprof_note("%s%s", who, flag_text[b]);
	}
	if ((flags & (1u << TRACE_DIAG_RING_FULL_WAIT)) && waits && !strstr(text, "ring"))
		mprof_note("%sthe program waited %" PRIu64 " time%s for mprof to drain a full "
			   "ring (nothing was dropped)", who, waits, waits == 1 ? "" : "s");
}

/* Final drain, END chunk, close; the process file is removed. */
static void proc_finish(struct collector *c, struct proc *p)
{
	const char *state;

	if (p->phase == PROC_PENDING) {
		proc_pending_release(p);
		p->phase = PROC_DONE;
		unlinkat(dirfd(c->dir), p->name, 0);
		return;
	}
	if (p->phase != PROC_ACTIVE)
		return;
	proc_drain(c, p, true, now_ns());
	state = proc_state_name(c, p);
	diag_print(p);
	if (p->has_trace) {
		end_write(c, p, state);
		if (p->tf.error)
			mprof_warn("writing trace %s failed: %s; the trace ends early", p->tf.path,
				   strerror(-p->tf.error));
		trace_file_close(&p->tf);
		if (p->tf.error)
			c->write_errors++;
	}
	munmap(p->base, p->map_bytes);
	p->base = NULL;
	p->h = NULL;
	p->phase = PROC_DONE;
	unlinkat(dirfd(c->dir), p->name, 0);
}

/* Finalizes processes that ended while the program goes on (keeps the
 * number of open traces small for programs that start many others). */
static void procs_retire_ended(struct collector *c)
{
	for (size_t i = 0; i < c->nall; i++) {
		struct proc *p = c->all[i];

		if (p->phase != PROC_ACTIVE || p->is_root)
			continue;
		if (p->superseded || !pid_running(p->pid))
			proc_finish(c, p);
	}
}

/* ---------- the loop ---------- */

static void procs_activate_pending(struct collector *c, uint64_t now)
{
	for (size_t i = 0; i < c->nall; i++)
		if (c->all[i]->phase == PROC_PENDING)
			proc_activate(c, c->all[i], now);
}

static uint64_t procs_drain(struct collector *c, bool force)
{
	uint64_t now = now_ns(), taken = 0;

	for (size_t i = 0; i < c->nall; i++)
		if (c->all[i]->phase == PROC_ACTIVE)
			taken += proc_drain(c, c->all[i], force, now);
	return taken;
}

static void program_reap_poll(struct collector *c)
{
	int status;
	pid_t r = wait4(c->cfg->root_pid, &status, WNOHANG, &c->rusage);

	if (r == c->cfg->root_pid) {
		c->ended = true;
		c->wait_status = status;
		signals_forward_stop();
	} else if (r < 0 && errno == ECHILD) {
		c->ended = true; /* cannot happen: nobody else reaps it */
		c->wait_status = 0;
		signals_forward_stop();
	}
}

/* Reads every pending inotify event; true when a file was created. */
static bool dir_events_read(struct collector *c)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool created = false;

	if (c->inotify_fd < 0)
		return false;
	while (read(c->inotify_fd, buf, sizeof(buf)) > 0)
		created = true;
	return created;
}

/* Sleeps up to IDLE_SLEEP_NS, waking early when a process file appears. */
static void idle_wait(struct collector *c)
{
	struct timespec idle = { 0, IDLE_SLEEP_NS };
	struct pollfd pfd = { .fd = c->inotify_fd, .events = POLLIN };

	if (c->inotify_fd >= 0)
		ppoll(&pfd, 1, &idle, NULL);
	else
		nanosleep(&idle, NULL);
}

static bool procs_any_pending(const struct collector *c)
{
	for (size_t i = 0; i < c->nall; i++)
		if (c->all[i]->phase == PROC_PENDING)
			return true;
	return false;
}

static void collect_until_end(struct collector *c)
{
	uint64_t last_scan = 0;

	while (!c->ended) {
		uint64_t now = now_ns();
		bool periodic = now - last_scan >= SCAN_INTERVAL_NS;

		program_reap_poll(c);
		if (c->ended)
			break;
		if (dir_events_read(c) || periodic) {
			last_scan = now;
			dir_scan(c);
		}
		if (procs_any_pending(c))
			procs_activate_pending(c, now);
		if (periodic)
			procs_retire_ended(c);
		if (procs_drain(c, false) == 0)
			idle_wait(c);
	}
}

static int result_trace_add(struct collector_result *res, const char *path)
{
	char **v = realloc(res->traces, (res->ntraces + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	res->traces = v;
	v[res->ntraces] = strdup(path);
	if (!v[res->ntraces])
		return -ENOMEM;
	res->ntraces++;
	return 0;
}

/* The pid in a process file name "p.PID.SERIAL" (0 if malformed). */
static unsigned name_pid(const char *name)
{
	unsigned long v = strtoul(name + 2, NULL, 10);

	return v <= UINT_MAX ? (unsigned)v : 0;
}

/* Gives process files that are still starting in running descendants a
 * short time to become readable, so a child forked just before the program
 * ended is not lost. */
static void procs_pending_settle(struct collector *c)
{
	uint64_t deadline = now_ns() + SETTLE_LIMIT_NS;

	for (;;) {
		bool waiting = false;
		struct timespec pause = { 0, 5 * IDLE_SLEEP_NS };

		for (size_t i = 0; i < c->nall; i++) {
			struct proc *p = c->all[i];

			if (p->phase == PROC_PENDING && pid_running(name_pid(p->name)))
				waiting = true;
		}
		if (!waiting || now_ns() > deadline)
			return;
		nanosleep(&pause, NULL);
		procs_activate_pending(c, now_ns());
	}
}

/* After the program ended: last scan, last drain, END chunks, results. */
static void collect_finish(struct collector *c, struct collector_result *res)
{
	struct proc *root = NULL;

	dir_scan(c);
	procs_activate_pending(c, now_ns());
	procs_pending_settle(c);
	for (size_t i = 0; i < c->nall; i++) {
		struct proc *p = c->all[i];

		if (p->is_root)
			root = p;
		if (p->phase == PROC_ACTIVE && !p->is_root && !p->superseded &&
		    p->pid != (unsigned)c->cfg->root_pid && pid_running(p->pid))
			res->still_running++;
		if (!p->is_root)
			proc_finish(c, p);
	}
	if (root) {
		proc_finish(c, root);
		res->root_seen = true;
	}
	if (root && root->display_path)
		result_trace_add(res, root->display_path);
	for (size_t i = 0; i < c->nall; i++)
		if (c->all[i] != root && c->all[i]->has_trace && c->all[i]->display_path)
			result_trace_add(res, c->all[i]->display_path);
	res->wait_status = c->wait_status;
	res->write_errors = c->write_errors;
}

static void collector_free(struct collector *c)
{
	for (size_t i = 0; i < c->nall; i++) {
		struct proc *p = c->all[i];

		proc_pending_release(p);
		if (p->base)
			munmap(p->base, p->map_bytes);
		trace_file_close(&p->tf);
		free(p->trace_path);
		free(p->display_path);
		free(p);
	}
	free(c->all);
	free(c->copy);
	if (c->dir)
		closedir(c->dir);
	if (c->inotify_fd >= 0)
		close(c->inotify_fd);
}

/* Without a readable session dir there is nothing to collect: just wait. */
static void program_wait_only(struct collector *c)
{
	while (!c->ended) {
		struct timespec idle = { 0, 10 * IDLE_SLEEP_NS };

		program_reap_poll(c);
		if (!c->ended)
			nanosleep(&idle, NULL);
	}
}

int collector_run(const struct collector_config *cfg, struct collector_result *res)
{
	struct collector c = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	int rc = 0;

	memset(res, 0, sizeof(*res));
	c.cfg = cfg;
	c.page_bytes = page > 0 ? (size_t)page : SESSION_PAGE_BYTES;
	if (gethostname(c.hostname, sizeof(c.hostname) - 1) != 0)
		c.hostname[0] = '\0';
	c.inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (c.inotify_fd >= 0 && inotify_add_watch(c.inotify_fd, cfg->session_dir, IN_CREATE) < 0) {
		close(c.inotify_fd);
		c.inotify_fd = -1;
	}
	c.dir = opendir(cfg->session_dir);
	if (!c.dir) {
		rc = -errno;
		program_wait_only(&c);
		res->wait_status = c.wait_status;
	} else {
		collect_until_end(&c);
		collect_finish(&c, res);
	}
	if (!res->root_seen && cfg->root_trace->path)
		trace_file_discard(cfg->root_trace);
	collector_free(&c);
	trace_files_release();
	return rc;
}

void collector_result_free(struct collector_result *res)
{
	for (size_t i = 0; i < res->ntraces; i++)
		free(res->traces[i]);
	free(res->traces);
	res->traces = NULL;
	res->ntraces = 0;
}
