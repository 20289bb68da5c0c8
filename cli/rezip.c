/*
 * cli/rezip.c - re-compression jobs: rewriting a trace whose EVENTS chunks
 * were stored into a new file with them deflated, then renaming it into
 * the trace's place (see cli/rezip.h).
 *
 * Owns the jobs (a list only the collector's thread touches), their files,
 * and the worker threads that read and deflate one chunk at a time for
 * them: one at SCHED_IDLE while the program runs, one per processor but
 * the collector's at full priority at its end.  A worker and the collector
 * share no lock: the collector hands the worker a task (which chunk, a
 * descriptor of its own to read it with) and takes the framed result back,
 * each through one atomic state and a wake-up, and does every write
 * itself.  A lock held by a thread that runs only when a processor is idle
 * could stall the collector, and so the program, for as long as the
 * processors are busy.  Never prints: failures go to the
 * caller's report function.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/rezip.h"
#include "trace/split.h"

/* The worker deflates at TRACE_LEVEL_FAST: chunks are stored only while
 * the program keeps every processor busy, so its idle time is scarce, and
 * higher levels cost far more time than the bytes they save
 * (bench/HISTORY.md, session 26: the end-of-run re-compression). */
#define REZIP_LEVEL TRACE_LEVEL_FAST
#define NAME_TRIES 100
#define FINISH_HELPERS_MAX 15   /* helper threads at the end of the run */

struct rezip_job {
	struct rezip_job *next;
	struct trace_file *tf;  /* the open trace, or NULL once detached */
	char *path;             /* the trace's absolute path, owned */
	int in_fd;              /* the trace as it is, read with pread (a
	                         * descriptor of the job's own; -1 until
	                         * job_open) */
	dev_t in_dev;           /* what path named when the job started */
	ino_t in_ino;
	int out_fd;             /* the new file */
	char *out_name;         /* its name, when it has one (no O_TMPFILE) */
	struct trace_writer out;
	uint64_t in_offset;     /* the next chunk to read */
	uint64_t end_offset;    /* the trace's end, whole chunks */
	int error;              /* the first failure, negative errno */
};

/* One chunk as read, and the compression state, of one thread. */
struct rezip_buffers {
	uint8_t *buf;
	size_t cap;
	struct trace_deflater deflater;
};

/* What the new file gets for one chunk of the trace. */
struct rezip_piece {
	bool framed;            /* frame; else the chunk as read, buf[0..bytes) */
	struct trace_chunk_frame frame;
	size_t bytes;
	uint64_t next;          /* the offset of the chunk after it */
};

enum worker_state {
	WORKER_IDLE,            /* no task: the collector may hand one over */
	WORKER_TASK,            /* the worker owns the task and its buffers */
	WORKER_DONE,            /* the collector owns the result */
};

/*
 * A thread that prepares pieces (piece_prepare) for the collector, one at a
 * time: the collector fills in the task and sets WORKER_TASK, the worker
 * sets WORKER_DONE when the result is there.  Once told to stop, the
 * worker frees the structure itself (the collector never waits for it).
 */
struct rezip_worker {
	sem_t go;               /* posted by the collector: a task, or stop */
	_Atomic int state;      /* enum worker_state */
	atomic_bool stop;
	int wake_fd;            /* eventfd the worker writes when done */
	bool idle_priority;     /* SCHED_IDLE */
	struct rezip_job *task_job; /* the collector's: whose result it is */
	int task_fd;            /* the worker's own descriptor, it closes it */
	uint64_t task_offset, task_end;
	int task_level;
	int result_rc;
	struct rezip_piece result;
	struct rezip_buffers buffers;
};

static struct {
	struct rezip_job *jobs; /* the collector's, oldest first */
	struct rezip_worker *idle; /* at SCHED_IDLE while the program runs */
} rz;

static int pread_all(int fd, void *buf, size_t n, uint64_t offset)
{
	uint8_t *p = buf;

	while (n > 0) {
		ssize_t r = pread(fd, p, n, (off_t)offset);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
		offset += (uint64_t)r;
	}
	return 0;
}

static int buffers_reserve(struct rezip_buffers *b, size_t bytes)
{
	uint8_t *nb;

	if (b->cap >= bytes)
		return 0;
	nb = realloc(b->buf, bytes);
	if (!nb)
		return -ENOMEM;
	b->buf = nb;
	b->cap = bytes;
	return 0;
}

static void buffers_free(struct rezip_buffers *b)
{
	free(b->buf);
	trace_deflater_free(&b->deflater);
	memset(b, 0, sizeof(*b));
}

/* A chunk the collector stored: no compression flag, and a type whose
 * payload the launcher writes (never SYMBOLS, which the analyzer adds). */
static bool chunk_is_stored(const struct trace_chunk_header *ch)
{
	return ch->flags == 0 && ch->stored_bytes > 0 &&
	       (ch->type == TRACE_CHUNK_EVENTS || ch->type == TRACE_CHUNK_META ||
		ch->type == TRACE_CHUNK_END);
}

/*
 * Reads the chunk at offset of fd (the trace ends at end) into b and sets
 * *pc to what the new file gets for it: the chunk as it is, or, when it is
 * stored, deflated at level (split, for EVENTS).  Returns 0 or a negative
 * errno (-EBADMSG: not a whole chunk of ours there).
 */
static int piece_prepare(int fd, uint64_t offset, uint64_t end, int level,
			 struct rezip_buffers *b, struct rezip_piece *pc)
{
	uint8_t h[TRACE_CHUNK_HEADER_BYTES];
	struct trace_chunk_header ch;
	uint8_t *payload;
	size_t total;
	int rc;

	if (offset > end || end - offset < sizeof(h))
		return -EBADMSG;
	rc = pread_all(fd, h, sizeof(h), offset);
	if (rc < 0)
		return rc;
	if (trace_chunk_header_parse(h, &ch) < 0)
		return -EBADMSG;
	total = sizeof(h) + ch.stored_bytes;
	if (end - offset < total)
		return -EBADMSG;
	rc = buffers_reserve(b, total + TRACE_SPLIT_EXTRA_BYTES);
	if (rc < 0)
		return rc;
	payload = b->buf + sizeof(h);
	memcpy(b->buf, h, sizeof(h));
	rc = pread_all(fd, payload, ch.stored_bytes, offset + sizeof(h));
	if (rc < 0)
		return rc;
	pc->next = offset + total;
	pc->framed = false;
	pc->bytes = total;
	if (!chunk_is_stored(&ch))
		return 0;
	if (libdeflate_crc32(0, payload, ch.stored_bytes) != ch.crc)
		return -EBADMSG;
	pc->framed = true;
	if (ch.type == TRACE_CHUNK_EVENTS)
		return trace_chunk_frame_events(&b->deflater, level, ch.stream, payload,
						ch.stored_bytes, b->cap - sizeof(h), &pc->frame);
	return trace_chunk_frame(&b->deflater, level, ch.type, ch.stream, payload,
				 ch.stored_bytes, &pc->frame);
}

/* Appends pc (prepared in b) to j's new file. */
static void piece_write(struct rezip_job *j, const struct rezip_piece *pc,
			const struct rezip_buffers *b)
{
	int rc = pc->framed ? trace_writer_frame(&j->out, &pc->frame)
			    : trace_writer_copy_chunk(&j->out, b->buf, pc->bytes);

	if (rc < 0 && !j->error)
		j->error = rc;
	else if (rc == 0)
		j->in_offset = pc->next;
}

/* ---------- the workers ---------- */

static void *worker_main(void *arg)
{
	struct rezip_worker *w = arg;
	struct sched_param sp = { 0 };

	/* where SCHED_IDLE is refused, the lowest priority a thread may take */
	if (w->idle_priority && pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) != 0)
		setpriority(PRIO_PROCESS, (id_t)gettid(), 19);
	for (;;) {
		uint64_t one = 1;

		while (sem_wait(&w->go) != 0)
			;
		if (atomic_load_explicit(&w->stop, memory_order_acquire))
			break;
		if (atomic_load_explicit(&w->state, memory_order_acquire) != WORKER_TASK)
			continue;
		w->result_rc = piece_prepare(w->task_fd, w->task_offset, w->task_end,
					     w->task_level, &w->buffers, &w->result);
		close(w->task_fd);
		atomic_store_explicit(&w->state, WORKER_DONE, memory_order_release);
		if (write(w->wake_fd, &one, sizeof(one)) < 0) {
			/* the collector also looks at the state */
		}
	}
	buffers_free(&w->buffers);
	close(w->wake_fd);
	sem_destroy(&w->go);
	free(w);
	return NULL;
}

/* Starts a worker thread, at SCHED_IDLE with idle_priority.  Returns NULL
 * when it cannot, with errno set (EMFILE: no descriptor for its eventfd). */
static struct rezip_worker *worker_new(bool idle_priority)
{
	struct rezip_worker *w = calloc(1, sizeof(*w));
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;
	int rc;

	if (!w)
		return NULL;
	w->idle_priority = idle_priority;
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->wake_fd < 0 || sem_init(&w->go, 0, 0) != 0) {
		int err = errno;

		if (w->wake_fd >= 0)
			close(w->wake_fd);
		free(w);
		errno = err;
		return NULL;
	}
	/* the collector's signals are its own: the worker blocks them all */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&thread, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		sem_destroy(&w->go);
		close(w->wake_fd);
		free(w);
		errno = rc;
		return NULL;
	}
	return w;
}

/* Tells w to stop; it frees itself (a task still running is dropped). */
static void worker_stop(struct rezip_worker *w)
{
	atomic_store_explicit(&w->stop, true, memory_order_release);
	sem_post(&w->go);
}

/* Hands w (idle) the chunk of j at offset; false when no descriptor is left
 * for it. */
static bool worker_give(struct rezip_worker *w, struct rezip_job *j, uint64_t offset, int level)
{
	int fd = fcntl(j->in_fd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		return false;
	w->task_job = j;
	w->task_fd = fd;
	w->task_offset = offset;
	w->task_end = j->end_offset;
	w->task_level = level;
	atomic_store_explicit(&w->state, WORKER_TASK, memory_order_release);
	sem_post(&w->go);
	return true;
}

static bool worker_done(struct rezip_worker *w)
{
	return atomic_load_explicit(&w->state, memory_order_acquire) == WORKER_DONE;
}

/* Makes w (done) idle again: its wake-up read, its task forgotten. */
static void worker_release(struct rezip_worker *w)
{
	uint64_t n;

	if (w->wake_fd >= 0 && read(w->wake_fd, &n, sizeof(n)) < 0) {
		/* nothing to clear */
	}
	w->task_job = NULL;
	atomic_store_explicit(&w->state, WORKER_IDLE, memory_order_release);
}

/* Takes w's result (w done) into its job's new file when the job still
 * waits for it there; w is idle again. */
static void worker_take(struct rezip_worker *w)
{
	struct rezip_job *j = w->task_job;

	if (j && j->in_offset == w->task_offset && !j->error) {
		if (w->result_rc < 0)
			j->error = w->result_rc;
		else
			piece_write(j, &w->result, &w->buffers);
	}
	worker_release(w);
}

/* Waits until w is done with its task. */
static void worker_wait(struct rezip_worker *w)
{
	struct pollfd pfd = { .fd = w->wake_fd, .events = POLLIN };

	while (!worker_done(w))
		poll(&pfd, 1, 100);
}

/* ---------- jobs ---------- */

/* The folder of path (absolute), in buf. */
static void path_folder(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (!slash) {
		snprintf(buf, size, ".");
		return;
	}
	if (n == 0)
		n = 1; /* "/" */
	snprintf(buf, size, "%.*s", (int)n, path);
}

/* A name beside path for the new file: PATH.rezip-PID, then -2, -3 ... */
static void side_name(const char *path, unsigned n, char *buf, size_t size)
{
	if (n == 1)
		snprintf(buf, size, "%s.rezip-%ld", path, (long)getpid());
	else
		snprintf(buf, size, "%s.rezip-%ld-%u", path, (long)getpid(), n);
}

/* Opens the new file beside path: unnamed where the file system allows
 * (*name NULL), else named (*name owned by the caller). */
static int new_file_open(const char *path, char **name)
{
	char folder[PATH_MAX], side[PATH_MAX + 32];
	int fd;

	*name = NULL;
	path_folder(path, folder, sizeof(folder));
	fd = open(folder, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	for (unsigned n = 1; n <= NAME_TRIES; n++) {
		side_name(path, n, side, sizeof(side));
		fd = open(side, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			*name = strdup(side);
			if (*name)
				return fd;
			close(fd);
			unlink(side);
			return -ENOMEM;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static void job_free(struct rezip_job *j)
{
	if (j->in_fd >= 0)
		close(j->in_fd);
	if (j->out_fd >= 0)
		close(j->out_fd);
	if (j->out_name)
		unlink(j->out_name);
	free(j->out_name);
	free(j->path);
	free(j);
}

/*
 * Opens j's files when it first needs them (a run may close thousands of
 * traces whose jobs then wait their turn, holding no descriptor): the
 * trace by its path, which must still name the file the job was started
 * on, and the new file, which gets the trace's file header.  Returns 0 or
 * a negative errno.
 */
static int job_open(struct rezip_job *j)
{
	uint8_t header[TRACE_FILE_HEADER_BYTES];
	struct stat st;
	int rc;

	if (j->in_fd >= 0)
		return 0;
	j->in_fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (j->in_fd < 0)
		return -errno;
	if (fstat(j->in_fd, &st) != 0)
		return -errno;
	if (st.st_dev != j->in_dev || st.st_ino != j->in_ino)
		return -ESTALE;
	j->out_fd = new_file_open(j->path, &j->out_name);
	if (j->out_fd < 0)
		return j->out_fd;
	rc = pread_all(j->in_fd, header, sizeof(header), 0);
	if (rc < 0)
		return rc;
	j->out.fd = j->out_fd;
	return trace_writer_copy_chunk(&j->out, header, sizeof(header));
}

int rezip_start(struct trace_file *tf, const char *path)
{
	struct rezip_job *j, **tail;
	struct stat st;

	if (tf->fd < 0 || tf->rezip)
		return -EINVAL;
	if (fstat(tf->fd, &st) != 0)
		return -errno;
	if (!rz.idle)
		rz.idle = worker_new(true);
	if (!rz.idle)
		return errno ? -errno : -ENOMEM;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->in_fd = j->out_fd = -1;
	j->path = strdup(path);
	if (!j->path) {
		job_free(j);
		return -ENOMEM;
	}
	j->in_dev = st.st_dev;
	j->in_ino = st.st_ino;
	j->tf = tf;
	j->in_offset = TRACE_FILE_HEADER_BYTES;
	j->end_offset = tf->w.offset_bytes;
	for (tail = &rz.jobs; *tail; tail = &(*tail)->next)
		;
	*tail = j;
	tf->rezip = j;
	return 0;
}

void rezip_detach(struct trace_file *tf)
{
	struct rezip_job *j = tf->rezip;

	if (!j)
		return;
	j->end_offset = tf->w.offset_bytes;
	j->tf = NULL;
	tf->rezip = NULL;
}

/* Gives the new file j's trace's name.  Returns 0 or a negative errno
 * (-ESTALE: the name is another file's now). */
static int job_link(struct rezip_job *j)
{
	char proc[64], side[PATH_MAX + 32];
	struct stat st;

	if (stat(j->path, &st) != 0)
		return -errno;
	if (st.st_dev != j->in_dev || st.st_ino != j->in_ino)
		return -ESTALE;
	if (!j->out_name) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", j->out_fd);
		for (unsigned n = 1;; n++) {
			side_name(j->path, n, side, sizeof(side));
			if (linkat(AT_FDCWD, proc, AT_FDCWD, side, AT_SYMLINK_FOLLOW) == 0)
				break;
			if (errno != EEXIST || n == NAME_TRIES)
				return -errno;
		}
		j->out_name = strdup(side);
		if (!j->out_name) {
			unlink(side);
			return -ENOMEM;
		}
	}
	if (rename(j->out_name, j->path) != 0)
		return -errno;
	free(j->out_name);
	j->out_name = NULL;
	return 0;
}

/* j has caught up with its trace: the new file takes the trace's place
 * (and, for an open trace, its descriptor).  Returns 0 or a negative errno. */
static int job_complete(struct rezip_job *j)
{
	struct trace_file *tf = j->tf;
	int rc = job_link(j);

	if (rc < 0)
		return rc;
	if (tf) {
		close(tf->fd);
		tf->fd = tf->w.fd = j->out_fd;
		tf->w.offset_bytes = j->out.offset_bytes;
		tf->stored_bytes = 0;
		tf->rezip = NULL;
		j->out_fd = -1;
	}
	return 0;
}

/* Drops j from the list (pp points at it) and frees it; err: why it
 * failed, or 0.  A worker still reading for it uses a descriptor of its
 * own and touches nothing of j. */
static void job_drop(struct rezip_job **pp, int err, rezip_report_fn *report)
{
	struct rezip_job *j = *pp;

	*pp = j->next;
	if (j->tf) {
		j->tf->rezip = NULL;
		if (err)
			j->tf->rezip_failed = true;
	}
	if (err && report)
		report(j->path, err);
	if (rz.idle && rz.idle->task_job == j)
		rz.idle->task_job = NULL;
	job_free(j);
}

/* Hands the idle worker the next chunk of the first job with one to read. */
static void task_give(void)
{
	struct rezip_worker *w = rz.idle;

	if (!w || atomic_load_explicit(&w->state, memory_order_acquire) != WORKER_IDLE)
		return;
	for (struct rezip_job *j = rz.jobs; j; j = j->next) {
		if (j->error || j->in_offset >= j->end_offset)
			continue;
		j->error = job_open(j);
		if (j->error)
			continue;
		worker_give(w, j, j->in_offset, REZIP_LEVEL);
		return;
	}
}

void rezip_poll(rezip_report_fn *report)
{
	struct rezip_job **pp = &rz.jobs;

	if (rz.idle && worker_done(rz.idle))
		worker_take(rz.idle);
	while (*pp) {
		struct rezip_job *j = *pp;

		if (j->tf)
			j->end_offset = j->tf->w.offset_bytes;
		if (j->error) {
			job_drop(pp, j->error, report);
			continue;
		}
		if (j->in_fd >= 0 && j->in_offset == j->end_offset) {
			job_drop(pp, job_complete(j), report);
			continue;
		}
		pp = &j->next;
	}
	task_give();
}

int rezip_wake_fd(void)
{
	return rz.idle ? rz.idle->wake_fd : -1;
}

/* The offset of the chunk after the one at offset in j's trace, or 0 when
 * there is none before its end (or it cannot be read). */
static uint64_t chunk_after(const struct rezip_job *j, uint64_t offset)
{
	uint8_t h[TRACE_CHUNK_HEADER_BYTES];
	struct trace_chunk_header ch;
	uint64_t next;

	if (j->end_offset - offset < sizeof(h) || pread_all(j->in_fd, h, sizeof(h), offset) < 0 ||
	    trace_chunk_header_parse(h, &ch) < 0)
		return 0;
	next = offset + sizeof(h) + ch.stored_bytes;
	return next < j->end_offset ? next : 0;
}

/* Prepares the chunk of j at offset on the calling thread, in self (a
 * worker without a thread), which is then done. */
static void self_prepare(struct rezip_worker *self, struct rezip_job *j, uint64_t offset, int level)
{
	self->task_job = j;
	self->task_offset = offset;
	self->result_rc = piece_prepare(j->in_fd, offset, j->end_offset, level, &self->buffers,
					&self->result);
	atomic_store_explicit(&self->state, WORKER_DONE, memory_order_release);
}

/* Waits for w's task, if any, and drops its result: w is idle again. */
static void worker_settle(struct rezip_worker *w)
{
	if (atomic_load_explicit(&w->state, memory_order_acquire) == WORKER_IDLE)
		return;
	worker_wait(w);
	worker_release(w);
}

/* The chunks handed out at the end of the run, in file order: each is
 * written as soon as those before it are. */
struct finish_queue {
	struct rezip_worker *w[FINISH_HELPERS_MAX + 1];
	unsigned head, count;
};

static void queue_push(struct finish_queue *q, struct rezip_worker *w)
{
	q->w[(q->head + q->count++) % (FINISH_HELPERS_MAX + 1)] = w;
}

static struct rezip_worker *queue_pop(struct finish_queue *q)
{
	struct rezip_worker *w = q->w[q->head];

	q->head = (q->head + 1) % (FINISH_HELPERS_MAX + 1);
	q->count--;
	return w;
}

/*
 * Reads j's trace up to its end into the new file at level: the helpers
 * (full priority, idle) prepare the chunks after the one to write next,
 * one each, the calling thread one more (self) while the oldest is not
 * ready, and every piece is written in file order.  Returns true when
 * stopped half way (stop_halfway), leaving the helpers' tasks running.
 */
static bool job_run(struct rezip_job *j, int level, struct rezip_worker **helpers,
		    unsigned nhelpers, struct rezip_worker *self, bool stop_halfway)
{
	struct finish_queue q = { .count = 0 };
	uint64_t next; /* the next chunk to hand out, 0: none left */

	j->error = job_open(j);
	next = j->in_offset;
	while (!j->error && j->in_offset < j->end_offset) {
		if (stop_halfway && 2 * j->in_offset >= j->end_offset)
			return true;
		if (!q.count && !next)
			next = j->in_offset; /* a header chunk_after could not read */
		for (unsigned i = 0; i < nhelpers && next; i++) {
			if (atomic_load_explicit(&helpers[i]->state, memory_order_acquire) !=
				    WORKER_IDLE || !worker_give(helpers[i], j, next, level))
				continue;
			queue_push(&q, helpers[i]);
			next = chunk_after(j, next);
		}
		if (q.count && worker_done(q.w[q.head])) {
			worker_take(queue_pop(&q));
		} else if (next && atomic_load_explicit(&self->state, memory_order_acquire) ==
					   WORKER_IDLE) {
			self_prepare(self, j, next, level);
			queue_push(&q, self);
			next = chunk_after(j, next);
		} else if (q.count) {
			worker_wait(q.w[q.head]);
		}
	}
	while (q.count)
		worker_settle(queue_pop(&q));
	return false;
}

/* The processors this thread may run on. */
static unsigned processors_usable(void)
{
	cpu_set_t set;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	return online > 0 ? (unsigned)online : 1;
}

bool rezip_finish(int level, bool stop_halfway, rezip_report_fn *report)
{
	struct rezip_worker *helpers[FINISH_HELPERS_MAX];
	struct rezip_worker self = { .state = WORKER_IDLE, .wake_fd = -1 };
	unsigned nhelpers = 0, want = processors_usable() - 1;
	bool stopped = false;

	if (rz.idle) {
		if (worker_done(rz.idle))
			worker_take(rz.idle);
		/* a task still running is left to it, and dropped */
		worker_stop(rz.idle);
		rz.idle = NULL;
	}
	/* the program has ended: every other processor helps */
	if (want > FINISH_HELPERS_MAX)
		want = FINISH_HELPERS_MAX;
	while (rz.jobs && nhelpers < want && (helpers[nhelpers] = worker_new(false)))
		nhelpers++;
	while (rz.jobs && !stopped) {
		struct rezip_job *j = rz.jobs;

		if (j->tf)
			j->end_offset = j->tf->w.offset_bytes;
		stopped = job_run(j, level, helpers, nhelpers, &self, stop_halfway);
		if (!stopped)
			job_drop(&rz.jobs, j->error ? j->error : job_complete(j), report);
	}
	for (unsigned i = 0; i < nhelpers; i++)
		worker_stop(helpers[i]);
	buffers_free(&self.buffers);
	return stopped;
}
