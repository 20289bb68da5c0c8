/*
 * tests/progs/control_race.c - runtime start and stop (mprof.h) while
 * worker threads allocate; the facts are exact (tests/e2e/control-race.sh).
 *
 * Usage: control_race MODE [ARGS...]
 *   script CMD...  4 workers churn through noise() (a ring of 8 blocks
 *                  each, malloc and free without pause) the whole run.  The
 *                  main thread runs each CMD in turn: "stop" calls
 *                  mprof_stop(), "every", "run" or a number N call
 *                  mprof_start(MPROF_RATE_EVERY, MPROF_RATE_RUN or N).
 *                  After each command every worker frees the window blocks
 *                  it holds and then, after a start, allocates 25 new ones
 *                  in window_exact() (a start at "every" or 1: each weighs
 *                  1) or window_sampled() (any other rate); the main thread
 *                  waits for all of them before the next command, and
 *                  writes a marker "cmd-I" before each.  At the end: stop,
 *                  the workers free everything and exit.
 *                  So window_exact holds exactly 100 allocations per start
 *                  at every or 1, nothing is live at exit, and every free
 *                  matches.
 *   threads R      R rounds: start, 4 fresh threads each allocate 25 blocks
 *                  in window_exact() and exit while the main thread stops
 *                  (it does not join them first); then it joins them and
 *                  frees the blocks while stopped.
 *   fork N         script "every" "stop" repeated, while a fifth thread
 *                  forks N children one after another; each child starts
 *                  recording, allocates 30 blocks in child_window(),
 *                  frees them and exits 0 (prints "children ok N").
 *   signal         raises SIGUSR2 (recording toggles at the next call),
 *                  allocates 40 blocks in window_exact(), raises it again,
 *                  allocates 40 in window_sampled() (not recorded: stopped
 *                  again), frees all 80.
 *   signal-realloc for a run that starts recording with the toggle signal
 *                  SIGUSR2: mallocs 8 bytes in window_exact(), raises the
 *                  signal, reallocs the block to 100 bytes (that realloc
 *                  stops recording: its free part is recorded, its new
 *                  block not), raises it again, reallocs to 200 (starts
 *                  again: the new block is recorded), frees it.
 *   own-handler    installs a SIGUSR2 handler of its own, raises SIGUSR2
 *                  3 times and prints how often it ran.
 *   signal-wait PREFIX  for a --paused run whose toggle signal is sent from
 *                  outside: writes its pid to PREFIX.pid, allocates and
 *                  frees a block in wait_poll() every millisecond until
 *                  recording runs, allocates 40 blocks in window_exact(),
 *                  writes PREFIX.on, polls again until recording stopped,
 *                  allocates 40 in window_sampled() (not recorded) and
 *                  frees all 80; exits 3 when a wait passes 30 s.
 *   segv           allocates and frees a block, then writes through a null
 *                  pointer: killed by SIGSEGV.
 *   markers        4 threads take turns, 50 times each: thread i writes the
 *                  marker "tI-K" and allocates and frees a block, then hands
 *                  the turn on; so the markers were written in the order
 *                  t0-0 t1-0 t2-0 t3-0 t0-1 ... t3-49.
 *   api            prints what each API call returns.
 * Prints "control_race MODE done" at the end (and nothing that depends on
 * mprof, except in mode api).
 */
#define _GNU_SOURCE
#include <mprof.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 4
#define WINDOW_BLOCKS 25
#define NOISE_RING 8
#define CHILD_BLOCKS 30

enum cmd_kind { CMD_STOP, CMD_START_EXACT, CMD_START_SAMPLED, CMD_QUIT };

static _Atomic int cmd_index;       /* commands published so far */
static _Atomic int cmd_kind_now;
static _Atomic int acks;            /* workers done with the current command */

struct worker {
	pthread_t th;
	void *noise[NOISE_RING];
	void *window[WINDOW_BLOCKS];
	unsigned nwindow;
	unsigned long n;
};

static struct worker workers[WORKERS];

static __attribute__((noinline)) void *window_exact(size_t size)
{
	void *p = malloc(size);

	__asm__ volatile("" ::"r"(p) : "memory");
	return p;
}

static __attribute__((noinline)) void *window_sampled(size_t size)
{
	void *p = malloc(size);

	__asm__ volatile("" ::"r"(p) : "memory");
	return p;
}

static __attribute__((noinline)) void *wait_poll(size_t size)
{
	void *p = malloc(size);

	__asm__ volatile("" ::"r"(p) : "memory");
	return p;
}

static __attribute__((noinline)) void *child_window(size_t size)
{
	void *p = malloc(size);

	__asm__ volatile("" ::"r"(p) : "memory");
	return p;
}

static __attribute__((noinline)) void noise(struct worker *w)
{
	unsigned k = (unsigned)(w->n++ % NOISE_RING);

	free(w->noise[k]);
	w->noise[k] = malloc(32 + (w->n % 7) * 16);
}

static void window_free(struct worker *w)
{
	for (unsigned i = 0; i < w->nwindow; i++)
		free(w->window[i]);
	w->nwindow = 0;
}

/* Does the worker's part of command kind. */
static void worker_do(struct worker *w, int kind)
{
	window_free(w);
	for (unsigned i = 0; kind != CMD_STOP && kind != CMD_QUIT && i < WINDOW_BLOCKS; i++) {
		noise(w);
		w->window[w->nwindow++] = kind == CMD_START_EXACT ? window_exact(48)
								   : window_sampled(48);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int seen = 0;

	for (;;) {
		int idx = atomic_load_explicit(&cmd_index, memory_order_acquire);

		noise(w);
		if (idx == seen) {
			if (w->n % 64 == 0)
				sched_yield();
			continue;
		}
		seen = idx;
		worker_do(w, atomic_load_explicit(&cmd_kind_now, memory_order_relaxed));
		if (atomic_load_explicit(&cmd_kind_now, memory_order_relaxed) == CMD_QUIT)
			break;
		atomic_fetch_add_explicit(&acks, 1, memory_order_release);
	}
	for (unsigned k = 0; k < NOISE_RING; k++)
		free(w->noise[k]);
	return NULL;
}

/* Publishes a command to the workers and waits for all of them. */
static void command_post(int kind, int wait)
{
	atomic_store_explicit(&acks, 0, memory_order_relaxed);
	atomic_store_explicit(&cmd_kind_now, kind, memory_order_relaxed);
	atomic_fetch_add_explicit(&cmd_index, 1, memory_order_release);
	while (wait && atomic_load_explicit(&acks, memory_order_acquire) < WORKERS)
		sched_yield();
}

static int command_run(const char *cmd, int index)
{
	char name[32];
	uint64_t rate;
	int rc;

	snprintf(name, sizeof(name), "cmd-%d", index);
	mprof_marker(name);
	if (strcmp(cmd, "stop") == 0) {
		mprof_stop();
		return CMD_STOP;
	}
	rate = strcmp(cmd, "every") == 0 ? MPROF_RATE_EVERY
	       : strcmp(cmd, "run") == 0 ? MPROF_RATE_RUN
					 : strtoull(cmd, NULL, 10);
	rc = mprof_start(rate);
	if (rc != 0 && rc != -ENOSYS)
		fprintf(stderr, "mprof_start(%s): %d\n", cmd, rc);
	return rate == MPROF_RATE_EVERY || rate == 1 ? CMD_START_EXACT : CMD_START_SAMPLED;
}

static void workers_start(void)
{
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&workers[i].th, NULL, worker_main, &workers[i]);
}

static void workers_end(void)
{
	mprof_stop();
	command_post(CMD_QUIT, 0);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(workers[i].th, NULL);
}

static void script(int ncmds, char **cmds)
{
	workers_start();
	for (int i = 0; i < ncmds; i++)
		command_post(command_run(cmds[i], i), 1);
	workers_end();
}

/* ---- threads ---- */

static void *window_thread(void *arg)
{
	void **blocks = arg;

	for (int i = 0; i < WINDOW_BLOCKS; i++)
		blocks[i] = window_exact(64);
	atomic_fetch_add_explicit(&acks, 1, memory_order_release);
	return NULL;
}

static void threads(int rounds)
{
	static void *blocks[WORKERS][WINDOW_BLOCKS];
	pthread_t th[WORKERS];

	for (int r = 0; r < rounds; r++) {
		atomic_store(&acks, 0);
		mprof_start(MPROF_RATE_EVERY);
		for (int i = 0; i < WORKERS; i++)
			pthread_create(&th[i], NULL, window_thread, blocks[i]);
		while (atomic_load_explicit(&acks, memory_order_acquire) < WORKERS)
			sched_yield();
		mprof_stop(); /* while the threads exit */
		for (int i = 0; i < WORKERS; i++)
			pthread_join(th[i], NULL);
		for (int i = 0; i < WORKERS; i++)
			for (int k = 0; k < WINDOW_BLOCKS; k++)
				free(blocks[i][k]);
	}
}

/* ---- fork ---- */

static _Atomic int forks_done;

static void child_run(void)
{
	void *blocks[CHILD_BLOCKS];

	mprof_start(MPROF_RATE_EVERY);
	for (int i = 0; i < CHILD_BLOCKS; i++)
		blocks[i] = child_window(100);
	mprof_stop();
	for (int i = 0; i < CHILD_BLOCKS; i++)
		free(blocks[i]);
	_exit(0);
}

static void *forker_main(void *arg)
{
	int n = *(int *)arg, ok = 0;

	for (int i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0)
			child_run();
		if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			ok++;
	}
	printf("children ok %d\n", ok);
	atomic_store(&forks_done, 1);
	return NULL;
}

static void fork_mode(int n)
{
	static char *cmds[] = { "every", "stop" };
	pthread_t forker;
	int i = 0;

	workers_start();
	pthread_create(&forker, NULL, forker_main, &n);
	while (!atomic_load(&forks_done) || i % 2) {
		command_post(command_run(cmds[i % 2], i), 1);
		i++;
	}
	pthread_join(forker, NULL);
	workers_end();
}

/* ---- signals ---- */

static void signal_mode(void)
{
	void *blocks[80];

	raise(SIGUSR2);
	for (int i = 0; i < 40; i++)
		blocks[i] = window_exact(40);
	raise(SIGUSR2);
	for (int i = 40; i < 80; i++)
		blocks[i] = window_sampled(40);
	for (int i = 0; i < 80; i++)
		free(blocks[i]);
}

static void signal_realloc_mode(void)
{
	char *p = window_exact(8);

	raise(SIGUSR2);
	p = realloc(p, 100);
	raise(SIGUSR2);
	p = realloc(p, 200);
	free(p);
}

static volatile sig_atomic_t handled;

static void own_handler(int sig)
{
	(void)sig;
	handled++;
}

static void own_handler_mode(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = own_handler;
	sigaction(SIGUSR2, &sa, NULL);
	for (int i = 0; i < 3; i++) {
		raise(SIGUSR2);
		free(window_exact(24));
	}
	printf("handled %d\n", (int)handled);
}

/* Writes text to path whole: to path.tmp first, then renamed. */
static void write_whole(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
		perror(path);
		exit(3);
	}
}

/* Allocates and frees a block in wait_poll() every millisecond (the next
 * allocator call applies a toggle) until mprof_is_running() is want; exits
 * 3 after 30 s. */
static void wait_running(int want)
{
	for (int i = 0; i < 30000 && mprof_is_running() != want; i++) {
		free(wait_poll(16));
		usleep(1000);
	}
	if (mprof_is_running() != want) {
		fprintf(stderr, "control_race: recording did not %s in 30 s\n",
			want ? "start" : "stop");
		exit(3);
	}
}

static void signal_wait_mode(const char *prefix)
{
	char path[4096], pid[32];
	void *blocks[80];

	snprintf(path, sizeof(path), "%s.pid", prefix);
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	write_whole(path, pid);
	wait_running(1);
	for (int i = 0; i < 40; i++)
		blocks[i] = window_exact(40);
	snprintf(path, sizeof(path), "%s.on", prefix);
	write_whole(path, "on\n");
	wait_running(0);
	for (int i = 40; i < 80; i++)
		blocks[i] = window_sampled(40);
	for (int i = 0; i < 80; i++)
		free(blocks[i]);
}

/* A null pointer the compiler cannot see, so the store is a real one. */
static int *volatile nowhere;

static void segv_mode(void)
{
	free(window_exact(8));
	*nowhere = 1;
}

/* ---- markers ---- */

static _Atomic int turn;

static void *marker_thread(void *arg)
{
	int i = (int)(intptr_t)arg;

	for (int k = 0; k < 50; k++) {
		char name[32];

		while (atomic_load_explicit(&turn, memory_order_acquire) != 4 * k + i)
			sched_yield();
		snprintf(name, sizeof(name), "t%d-%d", i, k);
		mprof_marker(name);
		free(window_exact(16));
		atomic_store_explicit(&turn, 4 * k + i + 1, memory_order_release);
	}
	return NULL;
}

static void markers_mode(void)
{
	pthread_t th[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, marker_thread, (void *)(intptr_t)i);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
}

static void api_mode(void)
{
	int start = mprof_start(MPROF_RATE_EVERY), running = mprof_is_running();
	int marker = mprof_marker("api"), stop = mprof_stop();

	mprof_pool_alloc((void *)0x1000, 16);
	mprof_pool_realloc((void *)0x1000, (void *)0x2000, 32);
	mprof_pool_free((void *)0x2000);
	printf("start %d running %d marker %d stop %d running %d\n", start, running, marker,
	       stop, mprof_is_running());
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "script") == 0)
		script(argc - 2, argv + 2);
	else if (strcmp(argv[1], "threads") == 0 && argc == 3)
		threads(atoi(argv[2]));
	else if (strcmp(argv[1], "fork") == 0 && argc == 3)
		fork_mode(atoi(argv[2]));
	else if (strcmp(argv[1], "signal") == 0)
		signal_mode();
	else if (strcmp(argv[1], "signal-realloc") == 0)
		signal_realloc_mode();
	else if (strcmp(argv[1], "own-handler") == 0)
		own_handler_mode();
	else if (strcmp(argv[1], "signal-wait") == 0 && argc == 3)
		signal_wait_mode(argv[2]);
	else if (strcmp(argv[1], "segv") == 0)
		segv_mode();
	else if (strcmp(argv[1], "api") == 0)
		api_mode();
	else if (strcmp(argv[1], "markers") == 0)
		markers_mode();
	else
		return 2;
	printf("control_race %s done\n", argv[1]);
	return 0;
}
