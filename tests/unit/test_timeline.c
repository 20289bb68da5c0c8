/*
 * tests/unit/test_timeline.c - the heap timeline (analyze/aggregate/
 * timeline.h) driven through the aggregation, and the RSS series
 * (analyze/read/rss_series.h): bounded memory, the peak kept exactly, the
 * maximum of every bucket kept when buckets widen, RSS chunks decoded and
 * refused when malformed.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "analyze/aggregate/aggregate.h"
#include "analyze/read/rss_series.h"
#include "trace/varint.h"

#define MS 1000000ull

static uint64_t seq;

static void time_at(struct aggregate *a, uint64_t ns)
{
	struct alloc_event ev = { .seq = seq, .value = ns, .type = ALLOC_EV_TIME };

	aggregate_event(a, &ev);
}

static void alloc_at(struct aggregate *a, uint64_t addr, uint64_t size)
{
	struct alloc_event ev = { .seq = ++seq, .addr = addr, .value = size, .weight = 1,
				  .stack_id = 1, .tid = 1, .type = ALLOC_EV_ALLOC };

	aggregate_event(a, &ev);
}

static void free_at(struct aggregate *a, uint64_t addr)
{
	struct alloc_event ev = { .seq = ++seq, .addr = addr, .tid = 1, .type = ALLOC_EV_FREE };

	aggregate_event(a, &ev);
}

/* Steps up and down over 100 s with a stamp per ms: 100,000 buckets fold
 * into at most 1024 points; the peak is one, at its exact seq; the end
 * state is the last point. */
static void test_timeline_bounded_peak_exact(void)
{
	struct aggregate a;
	const struct timeline *t = &a.timeline;
	size_t peak;

	seq = 0;
	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	for (uint64_t ms = 1; ms <= 100000; ms++) {
		time_at(&a, ms * MS);
		alloc_at(&a, 0x1000 + 16 * ms, ms == 61234 ? 5000 : 100 + ms % 7);
		if (ms > 1)
			free_at(&a, 0x1000 + 16 * (ms - 1));
	}
	aggregate_finish(&a);
	CU_ASSERT(t->count <= TIMELINE_MAX_POINTS + 1);
	CU_ASSERT(t->count >= TIMELINE_MAX_POINTS / 2);
	peak = timeline_peak_index(t);
	CU_ASSERT_EQUAL(t->points[peak].heap_bytes, a.peak_bytes);
	CU_ASSERT_EQUAL(t->points[peak].seq, a.peak_seq);
	CU_ASSERT_EQUAL(t->points[peak].time_ns, a.peak_time_ns);
	CU_ASSERT_EQUAL(a.peak_bytes, 5000 + 100 + 61235 % 7); /* the next one allocated before its free */
	CU_ASSERT_EQUAL(t->points[t->count - 1].heap_bytes, a.live_bytes);
	CU_ASSERT_EQUAL(t->points[t->count - 1].seq, a.last_seq);
	for (size_t i = 1; i < t->count; i++)
		CU_ASSERT(t->points[i - 1].time_ns <= t->points[i].time_ns);
	aggregate_free(&a);
}

/* A stamp a second for an hour: every point in a bucket of its own until
 * the buckets have doubled past a second; never more than the bound. */
static void test_timeline_sparse_points_bounded(void)
{
	struct aggregate a;

	seq = 0;
	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	for (uint64_t s = 1; s <= 3600; s++) {
		time_at(&a, s * 1000 * MS);
		alloc_at(&a, 0x1000 + 16 * s, s);
	}
	aggregate_finish(&a);
	CU_ASSERT(a.timeline.count <= TIMELINE_MAX_POINTS + 1);
	CU_ASSERT(a.timeline.bucket_ns >= 1000 * MS);
	CU_ASSERT_EQUAL(a.timeline.points[timeline_peak_index(&a.timeline)].seq, a.peak_seq);
	CU_ASSERT_EQUAL(a.timeline.points[a.timeline.count - 1].heap_bytes, 3600 * 3601 / 2);
	aggregate_free(&a);
}

/* A spike inside a bucket between two stamps (up and down again) is the
 * bucket's point, after the buckets widened too. */
static void test_timeline_keeps_spikes_within_buckets(void)
{
	struct aggregate a;
	const struct timeline *t = &a.timeline;
	size_t spikes = 0;

	seq = 0;
	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	for (uint64_t ms = 1; ms <= 5000; ms++) {
		time_at(&a, ms * MS);
		if (ms % 1000 == 500) {
			alloc_at(&a, 0x9000, 1000000 + ms);
			free_at(&a, 0x9000);
		}
		alloc_at(&a, 0x1000, 10);
		free_at(&a, 0x1000);
	}
	aggregate_finish(&a);
	for (size_t i = 0; i < t->count; i++)
		spikes += t->points[i].heap_bytes > 1000000;
	CU_ASSERT_EQUAL(spikes, 5);
	CU_ASSERT_EQUAL(t->points[timeline_peak_index(t)].heap_bytes, 1000000 + 4500);
	aggregate_free(&a);
}

/* RSS chunks: deltas summed; a malformed one refused (the samples before
 * the fault kept); the series thins out by keeping the higher of two. */
static void test_rss_series_decode_and_bound(void)
{
	struct rss_series s = { 0 };
	uint8_t buf[64], *p = buf;

	p = varint_put_u64(p, 2);
	p = varint_put_u64(p, 5 * MS);
	p = varint_put_u64(p, 100);
	p = varint_put_u64(p, 100 * MS);
	p = varint_put_u64(p, 300);
	CU_ASSERT_EQUAL(rss_series_decode(&s, buf, (size_t)(p - buf)), 0);
	CU_ASSERT_EQUAL(s.count, 2);
	CU_ASSERT_EQUAL(s.v[1].time_ns, 105 * MS);
	CU_ASSERT_EQUAL(s.v[1].rss_bytes, 300 * 1024);
	CU_ASSERT_EQUAL(rss_series_decode(&s, buf, (size_t)(p - buf) - 1), -EINVAL);
	rss_series_free(&s);
	for (uint64_t i = 0; i < 6000; i++)
		CU_ASSERT_EQUAL(rss_series_add(&s, i * MS, i == 777 ? 999999 : i % 10), 0);
	CU_ASSERT(s.count <= RSS_SERIES_MAX);
	CU_ASSERT_EQUAL(s.merged, 2);
	CU_ASSERT_EQUAL(s.v[777 / 2].rss_bytes, 999999);
	rss_series_free(&s);
}

int main(void)
{
	CU_pSuite s;
	unsigned failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("timeline", NULL, NULL);
	CU_add_test(s, "bounded, the peak exact", test_timeline_bounded_peak_exact);
	CU_add_test(s, "sparse points bounded", test_timeline_sparse_points_bounded);
	CU_add_test(s, "spikes within buckets kept", test_timeline_keeps_spikes_within_buckets);
	CU_add_test(s, "RSS chunks decoded, series bounded", test_rss_series_decode_and_bound);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
