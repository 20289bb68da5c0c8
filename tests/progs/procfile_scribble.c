/*
 * procfile_scribble.c - a program that writes over its own recorder's
 * process file, as a program with a stray pointer may: it finds the file's
 * mapping in /proc/self/maps (a "p.PID.*" file under $MPROF_SESSION) and
 * damages one field chosen by name, or random bytes from a seed, while two
 * threads keep allocating.  Without mprof (no MPROF_SESSION) it damages
 * nothing and prints the same lines.
 *
 * usage: procfile_scribble MODE[@WHEN] [SEED]
 *   WHEN: now (default: while the threads allocate), exit (in an atexit
 *   handler), child (in a fork child, which then allocates and exits 0;
 *   the parent's own recording must be whole), orphan (in a fork child
 *   that then kills itself with SIGKILL; the parent does not wait for it,
 *   only until it has ended, so no recorded call reaps it).
 * Prints "workers made N", "main made N" and, with @child, "child exited 0";
 * exits 7.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace/session.h"

#define WORKER_ALLOCS 200000
#define MAIN_ALLOCS 50000

static const char *mode;
static uint64_t seed = 1;

static uint64_t rnd(void)
{
	/* splitmix64: the same bytes for the same seed on every run */
	uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void rnd_fill(void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((uint8_t *)p)[i] = (uint8_t)rnd();
}

/* The start and length of this process's process file mapping, or NULL. */
static uint8_t *procfile_find(size_t *bytes)
{
	const char *dir = getenv(SESSION_ENV);
	char want[4200], line[4400];
	uint8_t *found = NULL;
	FILE *f;

	if (!dir)
		return NULL;
	snprintf(want, sizeof(want), "%s/p.%d.", dir, (int)getpid());
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char *path = strchr(line, '/');

		if (!path || sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &off) != 3 || off != 0 ||
		    strncmp(path, want, strlen(want)) != 0)
			continue;
		found = (uint8_t *)lo;
		*bytes = hi - lo;
		break;
	}
	fclose(f);
	return found;
}

/* The slot this thread writes in, or NULL. */
static struct session_slot *own_slot(uint8_t *base)
{
	struct session_proc_header *h = (void *)base;
	uint32_t high = atomic_load(&h->slots_high);

	for (uint32_t i = 0; i < high && i < h->nslots; i++) {
		struct session_slot *s = session_slot_at(base, i);

		if (s->tid == (uint32_t)gettid() && atomic_load(&s->state) == SLOT_OWNED)
			return s;
	}
	return NULL;
}

static void fill_strings(struct session_proc_header *h)
{
	memset(h->exe, 0xff, sizeof(h->exe));
	memset(h->command, 'A', sizeof(h->command));
	memset(h->comm, 0x1b, sizeof(h->comm));
	memset(h->parent_file, '/', sizeof(h->parent_file));
	memset(h->diag_text, 0xff, sizeof(h->diag_text));
	memset(h->exit_command, 'B', sizeof(h->exit_command));
	memset(h->exit_comm, 0x9b, sizeof(h->exit_comm));
	memset(h->exec_unrecorded_path, 0xff, sizeof(h->exec_unrecorded_path));
	memset(h->exec_self_path, 0xff, sizeof(h->exec_self_path));
	memset(h->exec_unreachable_path, 0xff, sizeof(h->exec_unreachable_path));
	memset(h->exec_unseen_path, 0xff, sizeof(h->exec_unseen_path));
	atomic_store(&h->diag_flags, UINT32_MAX);
	atomic_store(&h->execs_unrecorded, UINT32_MAX);
	atomic_store(&h->children_unrecorded, UINT32_MAX);
	atomic_store(&h->children_unrecorded_errno, -1);
}

/* Damages the field that mode names; returns 0, or -1 for a mode not known. */
static int scribble(void)
{
	size_t bytes = 0;
	uint8_t *base = procfile_find(&bytes);
	struct session_proc_header *h = (void *)base;
	struct session_slot *s;
	uint32_t ring;

	if (!base)
		return 0;
	ring = h->ring_bytes;
	s = own_slot(base);
	if (!s)
		return -1;
	/* modes that damage the header wait until the launcher has read this
	 * thread's ring, so it has mapped the file (a header damaged before
	 * makes the file refused instead); the others damage the first
	 * records while they are unread */
	if (!strcmp(mode, "nslots") || !strcmp(mode, "header-random") ||
	    !strcmp(mode, "all-random"))
		for (int k = 0; k < 10000 && atomic_load(&s->read_pos) == 0; k++)
			usleep(1000);
	if (!strcmp(mode, "none"))
		return 0;
	if (!strcmp(mode, "wpos-max"))
		atomic_store(&s->write_pos, UINT64_MAX);
	else if (!strcmp(mode, "wpos-zero"))
		atomic_store(&s->write_pos, 0);
	else if (!strcmp(mode, "wpos-past"))
		atomic_store(&s->write_pos, atomic_load(&s->read_pos) + ring + 1);
	else if (!strcmp(mode, "rpos-ahead"))
		atomic_store(&s->read_pos, atomic_load(&s->write_pos) + 4096);
	else if (!strcmp(mode, "rpos-max"))
		atomic_store(&s->read_pos, UINT64_MAX);
	else if (!strcmp(mode, "rpos-full"))
		atomic_store(&s->read_pos, atomic_load(&s->write_pos) - ring);
	else if (!strcmp(mode, "state"))
		atomic_store(&s->state, 77);
	else if (!strcmp(mode, "ring-ff"))
		memset(session_ring_at(base, (uint32_t)(s - session_slot_at(base, 0))), 0xff, ring);
	else if (!strcmp(mode, "ring-random"))
		rnd_fill(session_ring_at(base, (uint32_t)(s - session_slot_at(base, 0))), ring);
	else if (!strcmp(mode, "meta-ff"))
		memset(session_ring_at(base, SESSION_META_SLOT), 0xff, ring);
	else if (!strcmp(mode, "meta-random"))
		rnd_fill(session_ring_at(base, SESSION_META_SLOT), ring);
	else if (!strcmp(mode, "nslots"))
		h->nslots = UINT32_MAX, h->ring_bytes = UINT32_MAX, h->ring_offset = UINT64_MAX;
	else if (!strcmp(mode, "slots-high"))
		atomic_store(&h->slots_high, UINT32_MAX);
	else if (!strcmp(mode, "reaps-max"))
		atomic_store(&session_reaps_at(base)->count, UINT64_MAX / 2);
	else if (!strcmp(mode, "reaps-random"))
		rnd_fill(session_reaps_at(base), sizeof(struct session_reaps));
	else if (!strcmp(mode, "exit-note")) {
		h->exit_status = -5;
		h->exit_mono_ns = UINT64_MAX;
		h->exit_maxrss_kib = UINT64_MAX;
		h->exit_recorder_bytes = UINT64_MAX;
		memset(h->exit_command, 0xff, sizeof(h->exit_command));
		memset(h->exit_comm, 0xff, sizeof(h->exit_comm));
		atomic_store(&h->exit_known, 1);
	} else if (!strcmp(mode, "strings"))
		fill_strings(h);
	else if (!strcmp(mode, "header-random"))
		rnd_fill(base, SESSION_PAGE_BYTES);
	else if (!strcmp(mode, "slots-random"))
		rnd_fill(base + SESSION_SLOTS_OFFSET, 64 * sizeof(struct session_slot));
	else if (!strcmp(mode, "all-random"))
		rnd_fill(base, bytes < (8u << 20) ? bytes : (8u << 20));
	else
		return -1;
	return 0;
}

static void *worker(void *arg)
{
	long *made = arg;

	for (long i = 0; i < WORKER_ALLOCS; i++) {
		void *p = malloc(16 + (size_t)(i % 200));

		if (p)
			(*made)++;
		free(p);
	}
	return NULL;
}

/* Whether process pid is a zombie (ended, not yet waited for), or gone. */
static int child_ended(pid_t pid)
{
	char path[64], stat[512], *close_paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	close_paren = strrchr(stat, ')');
	return !close_paren || close_paren[1] != ' ' || close_paren[2] == 'Z' ||
	       close_paren[2] == 'X';
}

static void at_exit_scribble(void)
{
	if (scribble() != 0)
		_exit(2);
}

int main(int argc, char **argv)
{
	static char when[16] = "now";
	char *at;
	pthread_t t[2];
	long made[2] = { 0, 0 }, main_made = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s MODE[@now|@exit|@child] [SEED]\n", argv[0]);
		return 2;
	}
	mode = argv[1];
	at = strchr(argv[1], '@');
	if (at) {
		snprintf(when, sizeof(when), "%s", at + 1);
		*at = '\0';
	}
	if (argc > 2)
		seed = strtoull(argv[2], NULL, 10);
	free(malloc(1)); /* the recorder starts; this thread has its slot */
	for (int k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, worker, &made[k]);
	if (!strcmp(when, "now") && scribble() != 0) {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	if (!strcmp(when, "exit"))
		atexit(at_exit_scribble);
	for (long i = 0; i < MAIN_ALLOCS; i++) {
		void *p = malloc(32 + (size_t)(i % 100));

		if (p)
			main_made++;
		free(p);
	}
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	printf("workers made %ld\nmain made %ld\n", made[0] + made[1], main_made);
	if (!strcmp(when, "child")) {
		int status = -1;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			free(malloc(1));
			if (scribble() != 0)
				_exit(2);
			for (long i = 0; i < MAIN_ALLOCS; i++)
				free(malloc(48));
			_exit(0);
		}
		waitpid(pid, &status, 0);
		printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	if (!strcmp(when, "orphan")) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			free(malloc(1));
			if (scribble() != 0)
				_exit(2);
			kill(getpid(), SIGKILL);
		}
		while (pid > 0 && !child_ended(pid))
			usleep(1000);
	}
	return 7;
}
