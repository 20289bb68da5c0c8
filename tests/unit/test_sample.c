/*
 * tests/unit/test_sample.c - the recorder's byte sampler and its set of
 * sampled blocks (preload/sample.c, preload/sample_set.c), driven directly
 * on thread states of the test's own, without the preloaded shim.
 *
 * Statistical checks use fixed seeds and a 6-sigma bound, so they pass or
 * fail the same way on every run.
 */
#include <CUnit/Basic.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "preload/process.h"
#include "preload/sample.h"
#include "preload/sample_math.h"
#include "preload/sample_set.h"

/* What preload/mem.c reads of the shim's process state. */
struct preload_process preload_proc;
_Atomic int preload_phase;

/* No seccomp filter here: the set's lock yields (preload/wait.h). */
int seccomp_watch_filtered(void)
{
	return 0;
}

#define SIGMAS 6.0

static struct preload_thread *thread_state_new(void)
{
	return calloc(1, sizeof(struct preload_thread));
}

/* The sum of weights over n allocations of size_bytes estimates n: within
 * 6 sigma of it, for sizes from 0 to 32 intervals. */
static void test_weights_are_unbiased_per_size(void)
{
	static const size_t sizes[] = {0, 100, 4096, 65536, 300000, 1 << 20, 2 << 20};
	const double T = 65536;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct preload_thread *t = thread_state_new();
		double s = (double)sizes[i], p = -expm1(-(s + 1) / T), f = 1 / p - floor(1 / p);
		long n = 2000000;
		double sum = 0, sigma = sqrt(n * ((1 - p) / p + p * f * (1 - f)));
		long samples = 0;

		sample_configure(1, 12345 + i);
		sample_thread_rate(t, (uint64_t)T);
		for (long k = 0; k < n; k++) {
			uint64_t w = sample_weight(t, sizes[i]);

			sum += (double)w;
			samples += w != 0;
		}
		CU_ASSERT(fabs(sum - n) <= SIGMAS * sigma);
		/* sampled with probability p: a binomial count */
		CU_ASSERT(fabs(samples - n * p) <= SIGMAS * sqrt(n * p * (1 - p)) + 1);
		free(t);
	}
	sample_configure(1, 0);
}

/* In exact mode (interval 0) every allocation weighs 1. */
/* Units in the last place between a and b (same sign, finite). */
static double ulps_apart(double a, double b)
{
	double ulp = nextafter(fabs(a), INFINITY) - fabs(a);

	return fabs(a - b) / ulp;
}

/* The shim's own ln and e^y - 1 (it links no libm) stay within one unit in
 * the last place of libm's over the ranges the sampler uses: uniforms in
 * (0, 1] down to 2^-53, and -bytes / interval from -1e-300 to -700. */
static void test_math_matches_libm(void)
{
	double worst_log = 0, worst_expm1 = 0;

	for (int e = 0; e <= 53; e++)
		for (int i = 0; i < 2000; i++) {
			double x = ldexp(1.0 - i / 4000.0, -e);

			if (ulps_apart(log(x), sample_math_log(x)) > worst_log)
				worst_log = ulps_apart(log(x), sample_math_log(x));
		}
	for (int e = -300; e <= 9; e++)
		for (int i = 1; i <= 200; i++) {
			double y = -ldexp(1.0 + i / 200.0, e) * 0.7;

			if (y < -700)
				continue;
			if (ulps_apart(expm1(y), sample_math_expm1(y)) > worst_expm1)
				worst_expm1 = ulps_apart(expm1(y), sample_math_expm1(y));
		}
	CU_ASSERT(sample_math_log(1.0) == 0.0);
	CU_ASSERT(worst_log <= 1.0);
	CU_ASSERT(worst_expm1 <= 1.0);
	CU_ASSERT(sample_math_expm1(-41.0) == -1.0);
}

static void test_exact_mode_records_everything(void)
{
	struct preload_thread *t = thread_state_new();

	sample_configure(1, 0);
	for (int k = 0; k < 1000; k++)
		CU_ASSERT_EQUAL(sample_weight(t, (size_t)k * 977), 1);
	free(t);
}

/* The same seed gives the same samples and weights; another seed others. */
static void test_same_seed_same_samples(void)
{
	uint64_t a[4096], b[4096], c[4096];
	uint64_t *runs[3] = {a, b, c};
	static const uint64_t seeds[3] = {7, 7, 8};

	for (int r = 0; r < 3; r++) {
		struct preload_thread *t = thread_state_new();

		sample_configure(1, seeds[r]);
		sample_thread_rate(t, 4096);
		for (int k = 0; k < 4096; k++)
			runs[r][k] = sample_weight(t, (size_t)(k % 97) * 13);
		free(t);
	}
	CU_ASSERT(memcmp(a, b, sizeof(a)) == 0);
	CU_ASSERT(memcmp(a, c, sizeof(a)) != 0);
	sample_configure(1, 0);
}

/* splitmix64's finalizer, as preload/sample.c mixes seeds. */
static uint64_t mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A given seed is the image's as given, 2^64 - 1 too; without one each
 * image draws its own (two in a row differ); a fork child's is the
 * parent's mixed with the number of the fork, counted from 1 in each
 * image. */
static void test_image_and_fork_seeds(void)
{
	uint64_t drawn;

	sample_configure(1, UINT64_MAX);
	CU_ASSERT_EQUAL(sample_seed_get(), UINT64_MAX);
	sample_configure(0, 5);
	drawn = sample_seed_get();
	sample_configure(0, 5);
	CU_ASSERT_NOT_EQUAL(sample_seed_get(), drawn);
	CU_ASSERT_NOT_EQUAL(drawn, 5);
	sample_configure(1, 7);
	sample_fork_prepare();
	sample_fork_prepare();
	sample_fork_child(NULL);
	CU_ASSERT_EQUAL(sample_seed_get(), mix64(7 ^ mix64(2 * 0x9e3779b97f4a7c15ull)));
	drawn = sample_seed_get();
	sample_fork_prepare();
	sample_fork_child(NULL);
	CU_ASSERT_EQUAL(sample_seed_get(), mix64(drawn ^ mix64(0x9e3779b97f4a7c15ull)));
	sample_configure(1, 0);
}

/* fork() between sample_set_fork_prepare and _release, as the atfork
 * handlers do: both processes then insert and remove without waiting on a
 * lock.  Run once before the first insert (no chain heads: the stripe locks
 * are left alone) and once after. */
static void fork_and_use_set(char *addr)
{
	int status = -1;
	pid_t pid;

	sample_set_fork_prepare();
	pid = fork();
	sample_set_fork_release();
	if (pid == 0)
		_exit(sample_set_insert(addr) == 0 && sample_set_remove(addr) == 1 ? 0 : 1);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(sample_set_insert(addr), 0);
	CU_ASSERT_EQUAL(sample_set_remove(addr), 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_set_fork_before_first_sample(void)
{
	fork_and_use_set((char *)0x30000000);
}

static void test_set_fork_after_samples(void)
{
	sample_set_insert((char *)0x30001000);
	fork_and_use_set((char *)0x30000000);
	CU_ASSERT_EQUAL(sample_set_remove((char *)0x30001000), 1);
}

/* Insert, find once, not twice; neighbours are told apart. */
static void test_set_finds_each_block_once(void)
{
	char *base = (char *)0x10000000;

	for (int k = 0; k < 10000; k++)
		CU_ASSERT_EQUAL(sample_set_insert(base + 16 * k), 0);
	CU_ASSERT_EQUAL(sample_set_remove(base + 16 * 10000), 0);
	for (int k = 0; k < 10000; k++)
		CU_ASSERT_EQUAL(sample_set_remove(base + 16 * k), 1);
	for (int k = 0; k < 10000; k++)
		CU_ASSERT_EQUAL(sample_set_remove(base + 16 * k), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(atomic_load(&sample_set_bits));
	for (size_t w = 0; w < (1u << SAMPLE_SET_BUCKETS_LOG) / 64; w++)
		CU_ASSERT_EQUAL_FATAL(atomic_load(&atomic_load(&sample_set_bits)[w]), 0);
}

/* Two blocks in neighbouring buckets (the same top 16 bits): removing one
 * clears its bucket's bit only, and the other is still found. */
static void test_set_neighbour_buckets(void)
{
	char *a = (char *)0x20000000, *b = NULL;
	uint32_t ba = sample_set_bucket(a);

	for (char *p = a + 16; !b && p < a + (16u << 24); p += 16)
		if (sample_set_bucket(p) >> 2 == ba >> 2 && sample_set_bucket(p) != ba)
			b = p;
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(sample_set_insert(a), 0);
	CU_ASSERT_EQUAL(sample_set_insert(b), 0);
	CU_ASSERT(sample_set_may_hold(a) && sample_set_may_hold(b));
	CU_ASSERT_EQUAL(sample_set_remove(a), 1);
	CU_ASSERT_FALSE(sample_set_may_hold(a));
	CU_ASSERT_TRUE(sample_set_may_hold(b));
	CU_ASSERT_EQUAL(sample_set_remove(b), 1);
	CU_ASSERT_FALSE(sample_set_may_hold(b));
	CU_ASSERT_EQUAL(sample_set_remove(a), 0);
}

#define HANDOFF_THREADS 8
#define HANDOFF_BLOCKS 20000

struct handoff {
	int idx;
	_Atomic int ready;
	_Atomic int found;
};

static struct handoff handoffs[HANDOFF_THREADS];

/* Thread i inserts its blocks, then removes those of thread i+1 once it
 * has inserted them: every block is removed by another thread. */
static void *handoff_thread(void *arg)
{
	struct handoff *h = arg, *next = &handoffs[(h->idx + 1) % HANDOFF_THREADS];
	char *mine = (char *)0x40000000 + (size_t)h->idx * HANDOFF_BLOCKS * 32;
	char *theirs = (char *)0x40000000 + (size_t)next->idx * HANDOFF_BLOCKS * 32;
	int found = 0;

	for (int k = 0; k < HANDOFF_BLOCKS; k++)
		sample_set_insert(mine + 32 * k);
	atomic_store_explicit(&h->ready, 1, memory_order_release);
	while (!atomic_load_explicit(&next->ready, memory_order_acquire))
		;
	for (int k = 0; k < HANDOFF_BLOCKS; k++)
		found += sample_set_remove(theirs + 32 * k);
	atomic_store(&next->found, found);
	return NULL;
}

static void test_set_blocks_removed_by_other_threads(void)
{
	pthread_t th[HANDOFF_THREADS];

	for (int i = 0; i < HANDOFF_THREADS; i++)
		handoffs[i].idx = i;
	for (int i = 0; i < HANDOFF_THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, handoff_thread, &handoffs[i]), 0);
	for (int i = 0; i < HANDOFF_THREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < HANDOFF_THREADS; i++)
		CU_ASSERT_EQUAL(atomic_load(&handoffs[i].found), HANDOFF_BLOCKS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(atomic_load(&sample_set_bits));
	for (size_t w = 0; w < (1u << SAMPLE_SET_BUCKETS_LOG) / 64; w++)
		CU_ASSERT_EQUAL_FATAL(atomic_load(&atomic_load(&sample_set_bits)[w]), 0);
}

int main(void)
{
	CU_pSuite s;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("sampler", NULL, NULL);
	CU_add_test(s, "weights are unbiased per size", test_weights_are_unbiased_per_size);
	CU_add_test(s, "exact mode records everything", test_exact_mode_records_everything);
	CU_add_test(s, "ln and expm1 match libm", test_math_matches_libm);
	CU_add_test(s, "same seed, same samples", test_same_seed_same_samples);
	CU_add_test(s, "image and fork seeds", test_image_and_fork_seeds);
	CU_add_test(s, "set: fork before the first sample", test_set_fork_before_first_sample);
	CU_add_test(s, "set finds each block once", test_set_finds_each_block_once);
	CU_add_test(s, "set: fork after samples", test_set_fork_after_samples);
	CU_add_test(s, "set: neighbouring buckets", test_set_neighbour_buckets);
	CU_add_test(s, "set: blocks removed by other threads",
		    test_set_blocks_removed_by_other_threads);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
