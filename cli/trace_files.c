/*
 * cli/trace_files.c - creating trace files and writing chunks into them for
 * the launcher.
 *
 * Owns: the safe creation rule (O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600, never
 * overwrite), the FILE.PID[.N] naming of the other processes' traces, one
 * compression state shared by every open trace (so memory does not grow
 * with the number of processes), and the keys and "key=value" text of the
 * META and END chunks.
 * Never prints, never exits: errors are returned as negative errno values.
 *
 * The collector sets each EVENTS chunk's level (TRACE_LEVEL_*): it must
 * drain the rings faster than the program fills them (a full ring blocks
 * the program).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/trace_files.h"

#define NAME_TRIES 1000

/* The compression state lent to every trace (the launcher writes one chunk
 * at a time). */
static struct trace_deflater shared_deflater;

/* The file header flags of new traces. */
static uint32_t trace_files_flags;

void trace_files_set_sampled(bool sampled)
{
	trace_files_flags = sampled ? TRACE_FLAG_SAMPLED : 0;
}

int trace_file_create(struct trace_file *tf, const char *path)
{
	int fd, rc;

	memset(tf, 0, sizeof(*tf));
	tf->fd = -1;
	tf->path = strdup(path);
	if (!tf->path)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		free(tf->path);
		tf->path = NULL;
		return rc;
	}
	rc = trace_writer_start(&tf->w, fd, trace_files_flags);
	if (rc < 0) {
		close(fd);
		unlink(path);
		free(tf->path);
		tf->path = NULL;
		return rc;
	}
	tf->w.level = TRACE_LEVEL_SMALL;
	tf->w.deflater = &shared_deflater;
	tf->fd = fd;
	return 0;
}

int trace_file_create_for_pid(struct trace_file *tf, const char *base, unsigned pid)
{
	size_t size = strlen(base) + 48;
	char *path = malloc(size);
	int rc = -EEXIST;

	if (!path)
		return -ENOMEM;
	for (unsigned n = 1; n <= NAME_TRIES && rc == -EEXIST; n++) {
		if (n == 1)
			snprintf(path, size, "%s.%u", base, pid);
		else
			snprintf(path, size, "%s.%u.%u", base, pid, n);
		rc = trace_file_create(tf, path);
	}
	free(path);
	return rc;
}

/* Cuts a partly written chunk off the end, so the file stays a valid
 * trace up to its last whole chunk. */
static void trace_file_cut(struct trace_file *tf)
{
	off_t good = (off_t)tf->w.offset_bytes;

	if (ftruncate(tf->fd, good) == 0)
		lseek(tf->fd, good, SEEK_SET);
}

int trace_file_chunk(struct trace_file *tf, unsigned type, const void *raw, size_t raw_bytes)
{
	return trace_file_chunk_stream(tf, type, 0, raw, raw_bytes);
}

/* Whether a chunk of type may be written: 0, or the error that stops it.
 * After a failure only the END chunk is tried (it is small and says that
 * the trace is incomplete). */
static int trace_file_may_write(const struct trace_file *tf, unsigned type)
{
	if (tf->error && type != TRACE_CHUNK_END)
		return tf->error;
	return tf->fd < 0 ? -EBADF : 0;
}

/* Books the writer's result rc for a chunk of raw_bytes. */
static int trace_file_wrote(struct trace_file *tf, unsigned type, size_t raw_bytes, int rc)
{
	if (rc < 0) {
		if (!tf->error)
			tf->error = rc;
		trace_file_cut(tf);
		return rc;
	}
	tf->chunks++;
	if (type == TRACE_CHUNK_EVENTS)
		tf->events_raw_bytes += raw_bytes;
	return 0;
}

int trace_file_chunk_stream(struct trace_file *tf, unsigned type, unsigned stream, const void *raw,
			    size_t raw_bytes)
{
	int rc = trace_file_may_write(tf, type);

	if (rc < 0)
		return rc;
	return trace_file_wrote(tf, type, raw_bytes,
				trace_writer_chunk_stream(&tf->w, type, stream, raw, raw_bytes));
}

int trace_file_events_chunk(struct trace_file *tf, unsigned stream, uint8_t *buf, size_t bytes,
			    size_t cap)
{
	int rc = trace_file_may_write(tf, TRACE_CHUNK_EVENTS);

	if (rc < 0)
		return rc;
	rc = trace_file_wrote(tf, TRACE_CHUNK_EVENTS, bytes,
			      trace_writer_events_chunk(&tf->w, stream, buf, bytes, cap));
	if (rc == 0 && tf->w.level == TRACE_LEVEL_STORED)
		tf->stored_bytes += bytes;
	return rc;
}

int trace_file_events_chunk_indexed(struct trace_file *tf, unsigned stream, uint8_t *buf,
				    size_t bytes, size_t cap, struct chunk_index_entry *e)
{
	int rc = trace_file_events_chunk(tf, stream, buf, bytes, cap);

	e->stream = stream;
	if (rc == 0)
		chunk_index_add(&tf->index, e);
	else
		tf->index.failed = true; /* an index must list every chunk */
	return rc;
}

int trace_file_index(struct trace_file *tf)
{
	size_t bytes;
	uint8_t *payload;
	int level = tf->w.level, rc;

	if (tf->index.failed || tf->index.count == 0)
		return 0;
	payload = chunk_index_payload(&tf->index, &bytes);
	if (!payload)
		return 0; /* out of memory: a trace without an index reads all */
	if (tf->w.level == TRACE_LEVEL_STORED)
		tf->w.level = TRACE_LEVEL_FAST;
	rc = trace_file_chunk(tf, TRACE_CHUNK_INDEX, payload, bytes);
	tf->w.level = level;
	free(payload);
	return rc;
}

void trace_file_close(struct trace_file *tf)
{
	if (tf->fd >= 0) {
		trace_writer_finish(&tf->w);
		if (close(tf->fd) != 0 && !tf->error)
			tf->error = -errno;
		tf->fd = -1;
	}
	free(tf->path);
	tf->path = NULL;
	chunk_index_writer_free(&tf->index);
}

void trace_file_discard(struct trace_file *tf)
{
	if (tf->path)
		unlink(tf->path);
	trace_file_close(tf);
}

void trace_files_release(void)
{
	trace_deflater_free(&shared_deflater);
}

static int kv_text_reserve(struct kv_text *t, size_t more)
{
	size_t need = t->len + more + 1, cap = t->cap ? t->cap : 256;
	char *nb;

	if (need <= t->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	nb = realloc(t->buf, cap);
	if (!nb)
		return -ENOMEM;
	t->buf = nb;
	t->cap = cap;
	return 0;
}

void kv_text_add(struct kv_text *t, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;
	size_t start;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || kv_text_reserve(t, strlen(key) + (size_t)n + 2) < 0)
		return;
	t->len += (size_t)sprintf(t->buf + t->len, "%s=", key);
	start = t->len;
	va_start(ap, fmt);
	vsnprintf(t->buf + start, (size_t)n + 1, fmt, ap);
	va_end(ap);
	for (size_t i = start; i < start + (size_t)n; i++)
		if (t->buf[i] == '\n' || t->buf[i] == '\r')
			t->buf[i] = ' ';
	t->len = start + (size_t)n;
	t->buf[t->len++] = '\n';
	t->buf[t->len] = '\0';
}

int kv_text_write(struct kv_text *t, struct trace_file *tf, unsigned type)
{
	int rc = trace_file_chunk(tf, type, t->buf ? t->buf : "", t->len);

	free(t->buf);
	t->buf = NULL;
	t->len = t->cap = 0;
	return rc;
}

int trace_file_meta(struct trace_file *tf, const struct trace_meta *m)
{
	struct kv_text t = { 0 };

	kv_text_add(&t, "mprof_version", "%s", PACKAGE_VERSION);
	kv_text_add(&t, "trace_role", "%s", m->is_root ? "root" : "child");
	kv_text_add(&t, "pid", "%u", m->pid);
	kv_text_add(&t, "ppid", "%u", m->ppid);
	if (m->ns_pid)
		kv_text_add(&t, "ns_pid", "%u", m->ns_pid);
	kv_text_add(&t, "exe", "%s", m->exe);
	if (m->command && m->command[0])
		kv_text_add(&t, "command", "%s", m->command);
	if (m->comm && m->comm[0])
		kv_text_add(&t, "comm", "%s", m->comm);
	kv_text_add(&t, "start_time_unix_ns", "%" PRIu64, m->start_time_unix_ns);
	kv_text_add(&t, "hostname", "%s", m->hostname);
	if (m->sample_rate_bytes) {
		kv_text_add(&t, "mode", "sampled");
		kv_text_add(&t, "sample_rate_bytes", "%" PRIu64, m->sample_rate_bytes);
	} else {
		kv_text_add(&t, "mode", "exact");
	}
	kv_text_add(&t, "sample_seed", "%" PRIu64, m->sample_seed);
	if (m->paused)
		kv_text_add(&t, "paused", "1");
	if (m->no_children)
		kv_text_add(&t, "no_children", "1");
	kv_text_add(&t, "max_frames", "%u", m->max_frames);
	if (m->time_resolution_ns)
		kv_text_add(&t, "time_resolution_ns", "%" PRIu64, m->time_resolution_ns);
	kv_text_add(&t, "ring_bytes", "%u", m->ring_bytes);
	kv_text_add(&t, "slots", "%u", m->slots);
	if (m->stack_stream)
		kv_text_add(&t, "stack_stream", "%u", m->stack_stream);
	if (m->is_fork_child) {
		if (m->parent_trace)
			kv_text_add(&t, "parent_trace", "%s", m->parent_trace);
		kv_text_add(&t, "fork_seq", "%" PRIu64, m->fork_seq);
	}
	return kv_text_write(&t, tf, TRACE_CHUNK_META);
}

int trace_file_end(struct trace_file *tf, const struct trace_end *e)
{
	struct kv_text t = { 0 };

	if (e->has_status && WIFSIGNALED(e->wait_status))
		kv_text_add(&t, "signal", "%d", WTERMSIG(e->wait_status));
	else if (e->has_status)
		kv_text_add(&t, "exit_status", "%d", WEXITSTATUS(e->wait_status));
	if (e->has_status && e->exit_unnoted && WIFEXITED(e->wait_status))
		kv_text_add(&t, "exit_unnoted", "1");
	if (e->peak_rss_kib > 0) {
		kv_text_add(&t, "peak_rss_kib", "%ld", e->peak_rss_kib);
		kv_text_add(&t, "peak_rss_how", "%s", e->peak_rss_how);
	}
	if (e->wall_ns)
		kv_text_add(&t, "wall_ns", "%" PRIu64, e->wall_ns);
	if (e->is_root)
		kv_text_add(&t, "launcher_cpu_ns", "%" PRIu64, e->launcher_cpu_ns);
	kv_text_add(&t, "recorder_kib", "%" PRIu64, e->recorder_kib);
	kv_text_add(&t, "ring_waits", "%" PRIu64, e->ring_waits);
	kv_text_add(&t, "unrecorded_allocs", "%" PRIu64, e->unrecorded_allocs);
	kv_text_add(&t, "unrecorded_frees", "%" PRIu64, e->unrecorded_frees);
	kv_text_add(&t, "diag_flags", "%" PRIu32, e->diag_flags);
	kv_text_add(&t, "diag_text", "%s", e->diag_text);
	kv_text_add(&t, "process_state", "%s", e->process_state);
	if (e->command)
		kv_text_add(&t, "command", "%s", e->command);
	if (e->comm)
		kv_text_add(&t, "comm", "%s", e->comm);
	if (e->name_how)
		kv_text_add(&t, "name_how", "%s", e->name_how);
	if (e->collector_error)
		kv_text_add(&t, "collector_error", "%s", e->collector_error);
	if (e->exec_into) {
		kv_text_add(&t, "exec_into", "%s", e->exec_into);
		kv_text_add(&t, "exec_into_why", "%s", e->exec_into_why);
	}
	if (e->children_unrecorded)
		kv_text_add(&t, "children_unrecorded", "%" PRIu32, e->children_unrecorded);
	if (e->execs_unrecorded) {
		kv_text_add(&t, "execs_unrecorded", "%" PRIu32, e->execs_unrecorded);
		kv_text_add(&t, "exec_unrecorded_path", "%s", e->exec_unrecorded_path);
	}
	if (tf->error) {
		kv_text_add(&t, "trace_incomplete", "1");
		kv_text_add(&t, "write_error", "%s", strerror(-tf->error));
	}
	return kv_text_write(&t, tf, TRACE_CHUNK_END);
}
