/*
 * tests/progs/stack_residue.c - what an allocator call leaves on the stack
 * below the caller, in each state the recorder can be in
 * (tests/e2e/stack-residue.sh).
 *
 * A conservative collector scans a thread's stack and keeps every block a
 * word there points to; words an allocator call leaves below the stack
 * pointer are scanned again when later frames grow over them without
 * writing every slot.  Each probe fills 16 KiB below the stack pointer
 * with a canary, loads six callee-saved registers with pointers into a
 * marked array (the program's pointers, as a collector's loop holds them
 * in registers), makes one allocator call from an assembly trampoline, and
 * scans the region: the deepest word changed is the call's stack use, the
 * deepest word pointing into the marked array, the call's argument or
 * result block, or a mapping whose path names mprof is its residue.
 *
 * Usage: stack_residue [stop]
 * "stop" stops the launcher (the parent under `mprof run`) for 300 ms
 * during the ring scenario, so that the ring fills and its writer waits.
 * Prints one line a scenario:
 *   NAME calls N used BYTES residue BYTES recorder BYTES least BYTES
 * used: the deepest word changed; residue: the deepest word pointing into
 * the marked array or the call's blocks; recorder: the deepest pointing
 * into the recorder's data (all maxima over the scenario's calls, bytes
 * below the allocator's entry, 0: none); least: the shallowest of the two
 * residues over the calls (the path most calls take).  The fork child's
 * line comes first.  x86-64 only: elsewhere prints "unsupported" and exits 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher_stop.h"

#if defined(__x86_64__)

#define REGION_BYTES 16384u
#define REGION_WORDS (REGION_BYTES / sizeof(uintptr_t))
/* The trampoline's frame and return address below the probe's stack
 * pointer: the allocator's own frames start under it. */
#define TRAMPOLINE_BYTES 72u
#define CANARY ((uintptr_t)0x5ca1ab1e5ca1ab1eULL)
#define MARK_BLOCK_BYTES 256u
#define MAX_RANGES 64

/* residue_call(fn, a, b, c, marks): fn(a, b, c) with rbx, rbp and r12-r15
 * holding marks[0..5]; they are restored before it returns. */
uintptr_t residue_call(void *fn, uintptr_t a, uintptr_t b, uintptr_t c, const uintptr_t *marks);
__asm__(".text\n"
	".globl residue_call\n"
	".type residue_call, @function\n"
	"residue_call:\n"
	"	push %rbx\n	push %rbp\n	push %r12\n	push %r13\n	push %r14\n	push %r15\n"
	"	sub $8, %rsp\n"
	"	mov %rdi, %r11\n"
	"	mov 0(%r8), %rbx\n	mov 8(%r8), %rbp\n	mov 16(%r8), %r12\n"
	"	mov 24(%r8), %r13\n	mov 32(%r8), %r14\n	mov 40(%r8), %r15\n"
	"	mov %rsi, %rdi\n	mov %rdx, %rsi\n	mov %rcx, %rdx\n"
	"	call *%r11\n"
	"	add $8, %rsp\n"
	"	pop %r15\n	pop %r14\n	pop %r13\n	pop %r12\n	pop %rbp\n	pop %rbx\n"
	"	ret\n"
	".size residue_call, .-residue_call\n");

struct stats {
	const char *name;
	unsigned long calls;
	size_t used_bytes, residue_bytes, recorder_bytes, least_bytes;
};

enum { S_FIRST_SITE, S_CACHED, S_FREE, S_REALLOC, S_CALLOC, S_MEMALIGN, S_NEW_SITES,
       S_DEEP, S_THREAD_FIRST, S_THREAD, S_SIGNAL, S_FORK_CHILD, S_FORK_PARENT, S_RING,
       S_IDLE, S_COUNT };

static struct stats stats[S_COUNT] = {
	[S_FIRST_SITE] = { "first-site" },   [S_CACHED] = { "cached-site" },
	[S_FREE] = { "free" },               [S_REALLOC] = { "realloc" },
	[S_CALLOC] = { "calloc" },           [S_MEMALIGN] = { "posix_memalign" },
	[S_NEW_SITES] = { "new-sites" },     [S_DEEP] = { "deep-stack" },
	[S_THREAD_FIRST] = { "thread-first" }, [S_THREAD] = { "thread" },
	[S_SIGNAL] = { "signal-handler" },   [S_FORK_CHILD] = { "fork-child" },
	[S_FORK_PARENT] = { "fork-parent" }, [S_RING] = { "ring" },
	[S_IDLE] = { "after-idle" },
};

static uintptr_t marks[6], mark_block;
static uintptr_t recorder_lo[MAX_RANGES], recorder_hi[MAX_RANGES];
static int recorder_ranges;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

/* The recorder's data: writable mappings whose path names mprof (its
 * library's data, its process file) and the anonymous mappings that follow
 * one without a gap (its reservation, made right after the process file). */
static void read_recorder_ranges(void)
{
	char line[512], perms[8];
	uintptr_t last_hi = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && recorder_ranges < MAX_RANGES) {
		unsigned long lo, hi;
		int name_at = 0;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &name_at) != 3)
			continue;
		if ((strstr(line, "mprof") && perms[1] == 'w') ||
		    (lo == last_hi && last_hi && line[name_at] == '\0')) {
			recorder_lo[recorder_ranges] = lo;
			recorder_hi[recorder_ranges++] = hi;
			last_hi = hi;
		} else {
			last_hi = 0;
		}
	}
	fclose(f);
}

static int in_recorder(uintptr_t w)
{
	for (int i = 0; i < recorder_ranges; i++)
		if (w >= recorder_lo[i] && w < recorder_hi[i])
			return 1;
	return 0;
}

static int in_block(uintptr_t w, uintptr_t p, size_t n)
{
	return p && w >= p && w < p + n;
}

/* One allocator call, fn(a, b, c), with the region below it canaried and
 * scanned; block and block_bytes name the call's argument block, result
 * the bytes of the block it returns.  Returns fn's return value. */
static __attribute__((noinline)) uintptr_t probe(int s, void *fn, uintptr_t a, uintptr_t b,
						 uintptr_t c, uintptr_t block, size_t block_bytes,
						 size_t result_bytes)
{
	struct stats *st = &stats[s];
	volatile uintptr_t *top;
	size_t used = 0, residue = 0, recorder = 0, deepest;
	uintptr_t sp, r;

	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	top = (volatile uintptr_t *)((sp - TRAMPOLINE_BYTES) & ~(uintptr_t)7);
	for (size_t i = 1; i <= REGION_WORDS; i++)
		top[-(ptrdiff_t)i] = CANARY;
	r = residue_call(fn, a, b, c, marks);
	for (size_t i = 1; i <= REGION_WORDS; i++) {
		uintptr_t w = top[-(ptrdiff_t)i];

		if (w == CANARY)
			continue;
		used = i * sizeof(uintptr_t);
		if (in_recorder(w))
			recorder = i * sizeof(uintptr_t);
		else if (in_block(w, mark_block, MARK_BLOCK_BYTES) ||
			 in_block(w, block, block_bytes) || in_block(w, r, result_bytes))
			residue = i * sizeof(uintptr_t);
	}
	deepest = residue > recorder ? residue : recorder;
	pthread_mutex_lock(&stats_lock);
	st->calls++;
	if (used > st->used_bytes)
		st->used_bytes = used;
	if (residue > st->residue_bytes)
		st->residue_bytes = residue;
	if (recorder > st->recorder_bytes)
		st->recorder_bytes = recorder;
	if (st->calls == 1 || deepest < st->least_bytes)
		st->least_bytes = deepest;
	pthread_mutex_unlock(&stats_lock);
	return r;
}

static uintptr_t probe_malloc(int s, size_t n)
{
	return probe(s, (void *)malloc, n, 0, 0, 0, 0, n);
}

static void probe_free(int s, uintptr_t p, size_t n)
{
	probe(s, (void *)free, p, 0, 0, p, n, 0);
}

static void pair(int s, size_t n)
{
	probe_free(s, probe_malloc(s, n), n);
}

__attribute__((noinline)) static void at_depth(int d, int s)
{
	if (d > 0) {
		at_depth(d - 1, s);
		__asm__ volatile("" ::: "memory");
		return;
	}
	pair(s, 48);
}

static void scenario_sites(void)
{
	for (int i = 0; i < 2000; i++) {
		uintptr_t p = probe_malloc(i == 0 ? S_FIRST_SITE : S_CACHED, 64);

		probe_free(S_FREE, p, 64);
	}
}

static void scenario_entry_points(void)
{
	uintptr_t p = probe_malloc(S_REALLOC, 16);
	size_t n = 16;

	for (int i = 0; i < 400; i++) {
		size_t m = i % 2 ? 16 + (size_t)i * 64 : 8;

		p = probe(S_REALLOC, (void *)realloc, p, m, 0, p, n, m);
		n = m;
	}
	probe_free(S_REALLOC, p, n);
	for (int i = 0; i < 200; i++) {
		uintptr_t out = 0;

		probe_free(S_CALLOC, probe(S_CALLOC, (void *)calloc, 10, 10, 0, 0, 0, 100), 100);
		probe(S_MEMALIGN, (void *)posix_memalign, (uintptr_t)&out, 256, 300, 0, 0, 0);
		probe_free(S_MEMALIGN, out, 300);
	}
}

static void scenario_stacks(void)
{
	for (int d = 1; d <= 300; d++)
		at_depth(d, S_NEW_SITES);
	for (int i = 0; i < 50; i++)
		at_depth(200, S_DEEP);
}

static void *thread_main(void *arg)
{
	(void)arg;
	pair(S_THREAD_FIRST, 40);
	for (int i = 0; i < 200; i++)
		pair(S_THREAD, 40);
	return NULL;
}

static void scenario_threads(void)
{
	for (int i = 0; i < 8; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread_main, NULL) == 0)
			pthread_join(t, NULL);
	}
}

static void on_usr1(int sig)
{
	(void)sig;
	pair(S_SIGNAL, 24);
}

static void print_stats(int from, int to)
{
	for (int s = from; s < to; s++)
		printf("%s calls %lu used %zu residue %zu recorder %zu least %zu\n", stats[s].name,
		       stats[s].calls, stats[s].used_bytes, stats[s].residue_bytes,
		       stats[s].recorder_bytes, stats[s].least_bytes);
	fflush(stdout);
}

static void scenario_signal_fork(void)
{
	struct sigaction sa;
	pid_t pid;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 20; i++)
		raise(SIGUSR1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		pair(S_FORK_CHILD, 56);
		print_stats(S_FORK_CHILD, S_FORK_CHILD + 1);
		_exit(0);
	}
	pair(S_FORK_PARENT, 56);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void scenario_ring(int stop)
{
	pthread_t resumer;
	int stopped = stop && launcher_stop_300ms(&resumer) == 0;

	for (int i = 0; i < 200000; i++)
		pair(S_RING, 32 + (size_t)(i % 64));
	if (stopped)
		pthread_join(resumer, NULL);
	for (int round = 0; round < 3; round++) {
		struct timespec ts = { 0, 250000000L };

		nanosleep(&ts, NULL);
		for (int i = 0; i < 20000; i++)
			pair(S_IDLE, 32);
	}
}

int main(int argc, char **argv)
{
	static char mark_bytes[MARK_BLOCK_BYTES];

	mark_block = (uintptr_t)mark_bytes;
	for (int i = 0; i < 6; i++)
		marks[i] = mark_block + 16 + 32 * (uintptr_t)i;
	read_recorder_ranges();
	scenario_sites();
	scenario_entry_points();
	scenario_stacks();
	scenario_threads();
	scenario_signal_fork();
	scenario_ring(argc > 1 && strcmp(argv[1], "stop") == 0);
	print_stats(0, S_FORK_CHILD);
	print_stats(S_FORK_PARENT, S_COUNT);
	return 0;
}

#else

int main(void)
{
	puts("unsupported");
	return 0;
}

#endif
