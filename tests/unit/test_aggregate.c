/*
 * tests/unit/test_aggregate.c - unit tests of the report side of the
 * analyzer: the reorder buffer (thread streams merged in sequence order), the
 * aggregation (allocations, realloc rules, peak with its lazy snapshot,
 * temporary allocations, unmatched frees) and the trace reading around them
 * (a synthetic trace with interleaved slots, truncated and corrupt copies).
 *
 * Every test feeds synthetic events and checks exact numbers.  Scratch files
 * go to $TMPDIR (or /tmp) and are removed.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/aggregate/aggregate.h"
#include "analyze/aggregate/block_table.h"
#include "analyze/util/hash_seed.h"
#include "analyze/util/huge_array.h"
#include "analyze/aggregate/agg_read.h"
#include "analyze/aggregate/agg_thread.h"
#include "analyze/read/chunk_prefetch.h"
#include "analyze/read/event_stream.h"
#include "analyze/read/modules.h"
#include "analyze/read/reorder.h"
#include "analyze/output/output.h"
#include "analyze/profile/sites.h"
#include "analyze/read/stack_nodes.h"
#include "trace/chunk.h"
#include "trace/record.h"

/* ---- helpers: events straight into an aggregate ---- */

static struct aggregate agg;

static void agg_setup(void)
{
	CU_ASSERT_FATAL(aggregate_init(&agg) == 0);
}

static void feed(uint8_t type, uint8_t fn, uint64_t seq, uint64_t addr, uint64_t size,
		 uint32_t stack, uint32_t tid)
{
	struct alloc_event ev = {
		.seq = seq, .addr = addr, .value = size, .weight = 1, .stack_id = stack,
		.tid = tid, .type = type, .fn = fn,
	};

	aggregate_event(&agg, &ev);
}

static void feed_alloc(uint64_t seq, uint64_t addr, uint64_t size, uint32_t stack, uint32_t tid)
{
	feed(ALLOC_EV_ALLOC, TRACE_FN_MALLOC, seq, addr, size, stack, tid);
}

static void feed_free(uint64_t seq, uint64_t addr, uint32_t tid)
{
	feed(ALLOC_EV_FREE, TRACE_FREE_FREE, seq, addr, 0, 0, tid);
}

/* Site s's statistics, by value. */
static struct alloc_stats site_st(const struct site *s)
{
	struct alloc_stats buf;

	return *site_stats(s, &buf);
}

/* REALLOC: free part at seq, alloc part at seq + 1. */
static void feed_realloc(uint64_t seq, uint64_t old_addr, uint64_t new_addr, uint64_t size,
			 uint32_t stack, uint32_t tid)
{
	feed(ALLOC_EV_REALLOC_FREE, TRACE_FN_REALLOC, seq, old_addr, 0, 0, tid);
	feed(ALLOC_EV_REALLOC_ALLOC, TRACE_FN_REALLOC, seq + 1, new_addr, size, stack, tid);
}

/* The statistics of the k-th stack a met (aggregate_stack_stats). */
static struct stack_stats stk(const struct aggregate *a, size_t k)
{
	struct stack_stats st;

	aggregate_stack_stats(a, k, &st);
	return st;
}

/* agg's statistics of stack_id, or NULL; valid until 8 more calls. */
static const struct alloc_stats *stats_of(uint64_t stack_id)
{
	static struct stack_stats ring[8];
	static unsigned next;

	for (size_t i = 0; i < agg.stat_count; i++) {
		struct stack_stats *st = &ring[next++ % 8];

		aggregate_stack_stats(&agg, i, st);
		if (st->stack_id == stack_id)
			return &st->s;
	}
	return NULL;
}

/* Frame k (innermost first) of site s. */
static uint32_t frame_id_at(const struct site_table *t, const struct site *s, size_t k)
{
	static uint32_t ids[SITES_MAX_FRAMES];

	CU_ASSERT_FATAL(k < s->frame_count);
	return site_frame_ids(t, s, ids)[k];
}

/* ---- aggregation ---- */

static void test_realloc_grow_shrink_move_accounting(void)
{
	const struct alloc_stats *s1, *s2, *s3;

	agg_setup();
	feed_alloc(1, 0x1000, 100, 1, 7);           /* malloc(100) */
	feed_realloc(2, 0x1000, 0x1000, 200, 2, 7); /* grows in place */
	feed_realloc(4, 0x1000, 0x2000, 50, 3, 7);  /* shrinks and moves */
	aggregate_finish(&agg);

	CU_ASSERT_EQUAL(agg.allocations, 3);
	CU_ASSERT_EQUAL(agg.allocated_bytes, 350);
	CU_ASSERT_EQUAL(agg.reallocs, 2);
	CU_ASSERT_EQUAL(agg.calls[AGG_CALL_MALLOC], 1);
	CU_ASSERT_EQUAL(agg.calls[AGG_CALL_REALLOC], 2);
	CU_ASSERT_EQUAL(agg.calls[AGG_CALL_FREE], 0);
	CU_ASSERT_EQUAL(agg.frees, 0);         /* realloc's free part is no free call */
	CU_ASSERT_EQUAL(agg.blocks_freed, 2);
	CU_ASSERT_EQUAL(agg.live_bytes, 50);
	CU_ASSERT_EQUAL(agg.live_blocks, 1);
	CU_ASSERT_EQUAL(agg.peak_bytes, 200);  /* live changed by new - old */
	CU_ASSERT_EQUAL(agg.peak_blocks, 1);
	CU_ASSERT_EQUAL(agg.peak_seq, 3);
	CU_ASSERT_EQUAL(agg.unmatched_frees, 0);
	s1 = stats_of(1);
	s2 = stats_of(2);
	s3 = stats_of(3);
	CU_ASSERT_FATAL(s1 && s2 && s3);
	CU_ASSERT_EQUAL(s1->allocations, 1);
	CU_ASSERT_EQUAL(s1->freed, 1);
	CU_ASSERT_EQUAL(s1->live_bytes, 0);
	/* the thread's next allocator event (the realloc) freed the block */
	CU_ASSERT_EQUAL(s1->temporary, 1);
	CU_ASSERT_EQUAL(s2->allocated_bytes, 200);
	CU_ASSERT_EQUAL(s2->max_live_bytes, 200);
	CU_ASSERT_EQUAL(s2->peak_bytes, 200);
	CU_ASSERT_EQUAL(s2->temporary, 1);
	CU_ASSERT_EQUAL(s3->live_bytes, 50);
	CU_ASSERT_EQUAL(s3->live_blocks, 1);
	CU_ASSERT_EQUAL(s3->peak_bytes, 0);
	CU_ASSERT_EQUAL(s3->temporary, 0);
	CU_ASSERT_EQUAL(agg.temporary, 2);
	aggregate_free(&agg);
}

static void test_realloc_null_allocates(void)
{
	agg_setup();
	/* realloc(NULL, 77) as a REALLOC record with old address 0 */
	feed_realloc(1, 0, 0x3000, 77, 1, 1);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.allocations, 1);
	CU_ASSERT_EQUAL(agg.allocated_bytes, 77);
	CU_ASSERT_EQUAL(agg.live_bytes, 77);
	CU_ASSERT_EQUAL(agg.unmatched_frees, 0);
	CU_ASSERT_EQUAL(agg.blocks_freed, 0);
	aggregate_free(&agg);
}

static void test_realloc_to_zero_frees_block(void)
{
	const struct alloc_stats *s;

	agg_setup();
	feed_alloc(1, 0x1000, 100, 1, 1);
	feed(ALLOC_EV_FREE, TRACE_FREE_REALLOC, 2, 0x1000, 0, 0, 1); /* realloc(p, 0) */
	aggregate_finish(&agg);
	s = stats_of(1);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(agg.live_bytes, 0);
	CU_ASSERT_EQUAL(agg.live_blocks, 0);
	CU_ASSERT_EQUAL(agg.frees, 1);
	CU_ASSERT_EQUAL(agg.calls[AGG_CALL_REALLOC_TO_ZERO], 1);
	CU_ASSERT_EQUAL(agg.calls[AGG_CALL_REALLOC], 0);
	CU_ASSERT_EQUAL(agg.calls[AGG_CALL_FREE], 0);
	CU_ASSERT_EQUAL(s->freed, 1);
	CU_ASSERT_EQUAL(s->live_bytes, 0);
	aggregate_free(&agg);
}

static void test_failed_realloc_counts_nothing(void)
{
	agg_setup();
	feed_alloc(1, 0x1000, 200, 1, 1);
	feed(ALLOC_EV_SEQ_SKIP, 0, 2, 0, 0, 0, 1);
	feed_free(3, 0x1000, 1);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.allocations, 1);
	CU_ASSERT_EQUAL(agg.failed_reallocs, 1);
	CU_ASSERT_EQUAL(agg.live_bytes, 0);
	/* the failed realloc was the thread's next event: not temporary */
	CU_ASSERT_EQUAL(agg.temporary, 0);
	aggregate_free(&agg);
}

/* The peaks of test_peak_lazy_snapshot_with_higher_second_peak, the peak
 * generation starting at first_gen. */
static void peak_lazy_snapshot_from(uint32_t first_gen)
{
	const struct alloc_stats *x, *y, *z;

	agg_setup();
	agg.peak_gen = first_gen;
	feed_alloc(1, 0xa1, 500, 30, 1); /* Z: live 500, first peak */
	feed_free(2, 0xa1, 1);           /* live 0 */
	feed_alloc(3, 0xa2, 300, 10, 1); /* X: live 300 */
	feed_alloc(4, 0xa3, 400, 20, 1); /* Y: live 700, the new peak */
	feed_free(5, 0xa2, 1);           /* X: 0 after the peak */
	feed_alloc(6, 0xa4, 100, 20, 1); /* Y: 500, below the peak */
	aggregate_finish(&agg);
	x = stats_of(10);
	y = stats_of(20);
	z = stats_of(30);
	CU_ASSERT_FATAL(x && y && z);
	CU_ASSERT_EQUAL(agg.peak_bytes, 700);
	CU_ASSERT_EQUAL(agg.peak_blocks, 2);
	CU_ASSERT_EQUAL(agg.peak_seq, 4);
	CU_ASSERT_EQUAL(x->peak_bytes, 300);
	CU_ASSERT_EQUAL(x->peak_blocks, 1);
	CU_ASSERT_EQUAL(y->peak_bytes, 400);
	CU_ASSERT_EQUAL(y->peak_blocks, 1);
	CU_ASSERT_EQUAL(z->peak_bytes, 0);  /* Z's 500 was the first, lower peak */
	CU_ASSERT_EQUAL(z->max_live_bytes, 500);
	CU_ASSERT_EQUAL(y->max_live_bytes, 500);
	CU_ASSERT_EQUAL(y->max_live_blocks, 2);
	CU_ASSERT_EQUAL(y->live_bytes, 500);
	/* at-peak values add up to the peak */
	CU_ASSERT_EQUAL(x->peak_bytes + y->peak_bytes + z->peak_bytes, agg.peak_bytes);
	aggregate_free(&agg);
}

static void test_peak_lazy_snapshot_with_higher_second_peak(void)
{
	peak_lazy_snapshot_from(0);
}

/* The peak generation is 32-bit: when it would reach STACK_SMALL_FULL (at
 * the second peak here), every stack takes its value at the newest peak
 * and the generations start again, so X's live 300 at the second peak is
 * still its at-peak value when it changes after. */
static void test_peak_generation_wraps_around(void)
{
	peak_lazy_snapshot_from(STACK_SMALL_FULL - 2);
}

static void test_peak_equal_later_is_not_a_new_peak(void)
{
	const struct alloc_stats *x, *y;

	agg_setup();
	feed_alloc(1, 0xb1, 100, 1, 1); /* X 100: peak */
	feed_free(2, 0xb1, 1);
	feed_alloc(3, 0xb2, 100, 2, 1); /* Y 100: equal, t-gmax stays at 1 */
	aggregate_finish(&agg);
	x = stats_of(1);
	y = stats_of(2);
	CU_ASSERT_FATAL(x && y);
	CU_ASSERT_EQUAL(agg.peak_seq, 1);
	CU_ASSERT_EQUAL(x->peak_bytes, 100);
	CU_ASSERT_EQUAL(y->peak_bytes, 0);
	aggregate_free(&agg);
}

static void test_temporary_needs_the_same_threads_next_event(void)
{
	agg_setup();
	feed_alloc(1, 0xa, 10, 1, 101);  /* T1 alloc A */
	feed_alloc(2, 0xb, 10, 2, 202);  /* T2 alloc B */
	feed_free(3, 0xa, 101);          /* T1 frees A: its next event -> temporary */
	feed_alloc(4, 0xc, 10, 3, 202);  /* T2 alloc C */
	feed_free(5, 0xb, 202);          /* T2 frees B after C: not temporary */
	feed_free(6, 0xc, 202);          /* T2's previous event was a free: no */
	feed_alloc(7, 0xd, 10, 4, 101);  /* T1 alloc D */
	feed_free(8, 0xd, 202);          /* freed by T2: not T1's next event */
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.temporary, 1);
	CU_ASSERT_EQUAL(stats_of(1)->temporary, 1);
	CU_ASSERT_EQUAL(stats_of(2)->temporary, 0);
	CU_ASSERT_EQUAL(stats_of(3)->temporary, 0);
	CU_ASSERT_EQUAL(stats_of(4)->temporary, 0);
	CU_ASSERT_EQUAL(agg.live_blocks, 0);
	aggregate_free(&agg);
}

static void test_unmatched_free_is_counted_not_fatal(void)
{
	agg_setup();
	feed_alloc(1, 0x10, 64, 1, 1);
	feed_free(2, 0x999, 1);
	feed_free(3, 0, 1); /* free(NULL) */
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.unmatched_frees, 1);
	CU_ASSERT_EQUAL(agg.frees, 2);
	CU_ASSERT_EQUAL(agg.live_bytes, 64);
	CU_ASSERT_EQUAL(agg.live_blocks, 1);
	aggregate_free(&agg);
}

/* A table maps its buckets at its first block, with address space for
 * them alone: frees before any allocation find nothing (and map nothing),
 * and the sampling weights of an exact trace are never mapped. */
static void test_block_table_mapped_at_first_block(void)
{
	agg_setup();
	feed_free(1, 0x10, 1);
	feed_free(2, 0x20, 1);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.unmatched_frees, 2);
	CU_ASSERT_PTR_NULL(agg.blocks.words);
	CU_ASSERT_EQUAL(agg.blocks.reserved, 0);
	aggregate_free(&agg);

	agg_setup();
	feed_free(1, 0x10, 1);
	feed_alloc(2, 0x10, 64, 1, 1);
	feed_free(3, 0x10, 1);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.unmatched_frees, 1);
	CU_ASSERT_EQUAL(agg.blocks_freed, 1);
	CU_ASSERT_PTR_NOT_NULL(agg.blocks.words);
	CU_ASSERT_EQUAL(agg.blocks.reserved, HUGE_ARRAY_MIN);
	CU_ASSERT_PTR_NULL(agg.weights.words);
	aggregate_free(&agg);
}

static void test_address_reused_while_live_replaces_block(void)
{
	agg_setup();
	feed_alloc(1, 0x10, 64, 1, 1);
	feed_alloc(2, 0x10, 32, 2, 1);
	aggregate_finish(&agg);
	/* the reports' numbers outlive the table of live blocks */
	aggregate_release_blocks(&agg, NULL);
	CU_ASSERT_PTR_NULL(agg.blocks.words);
	CU_ASSERT_PTR_NULL(agg.weights.words);
	CU_ASSERT_EQUAL(agg.address_reused, 1);
	CU_ASSERT_EQUAL(agg.live_bytes, 32);
	CU_ASSERT_EQUAL(agg.live_blocks, 1);
	CU_ASSERT_EQUAL(stats_of(1)->live_bytes, 0);
	CU_ASSERT_EQUAL(stats_of(2)->live_bytes, 32);
	aggregate_free(&agg);
}

static void test_lifetimes_in_events_and_ns(void)
{
	const struct alloc_stats *s;
	struct alloc_event t = {.type = ALLOC_EV_TIME};

	agg_setup();
	t.seq = 0;
	t.value = 1000;
	aggregate_event(&agg, &t);
	feed_alloc(1, 0x10, 8, 1, 1);  /* at 1000 ns */
	t.seq = 1;
	t.value = 5000;
	aggregate_event(&agg, &t);
	feed_alloc(2, 0x20, 8, 1, 1);  /* at 5000 ns */
	feed_free(3, 0x10, 1); /* lives 2 events, 4000 ns */
	feed_free(4, 0x20, 1); /* lives 2 events, 0 ns */
	aggregate_finish(&agg);
	s = stats_of(1);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(s->freed, 2);
	CU_ASSERT_EQUAL(s->lifetime_events_min, 2);
	CU_ASSERT_EQUAL(s->lifetime_events_max, 2);
	CU_ASSERT_EQUAL(s->lifetime_events_sum, 4);
	CU_ASSERT_EQUAL(s->lifetime_ns_min, 0);
	CU_ASSERT_EQUAL(s->lifetime_ns_max, 4000);
	CU_ASSERT_EQUAL(s->lifetime_ns_sum, 4000);
	aggregate_free(&agg);
}

/* Blocks keep their sequence number as an offset from their time's entry:
 * lifetimes stay exact where blocks of one TIME stamp lie more than
 * BLOCK_SEQ_OFFSET_LIMIT apart, past 2^32, and when a block too large for a
 * compact bucket (2 GiB) turns the table wide in the middle. */
static void test_lifetimes_exact_across_far_sequence_numbers(void)
{
	const uint64_t far = BLOCK_SEQ_OFFSET_LIMIT, high = (uint64_t)1 << 33;
	const struct alloc_stats *s;
	struct alloc_event t = {.type = ALLOC_EV_TIME, .value = 7000};

	agg_setup();
	aggregate_event(&agg, &t);
	feed_alloc(1, 0x10, 8, 1, 1);
	feed_alloc(far + 2, 0x20, 8, 1, 1);
	feed_alloc(high, 0x30, 8, 1, 1);
	feed_alloc(high + far, 0x40, (uint64_t)2 << 30, 2, 1);
	feed_free(high + 3 * far, 0x10, 1);     /* lives high + 3 far - 1 events */
	feed_free(high + 3 * far + 1, 0x20, 1); /* high + 2 far - 1 */
	feed_free(high + 3 * far + 2, 0x30, 1); /* 3 far + 2 */
	feed_free(high + 3 * far + 3, 0x40, 1); /* 2 far + 3 */
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.blocks.shift, 2);
	s = stats_of(1);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(s->freed, 3);
	CU_ASSERT_EQUAL(s->lifetime_events_min, 3 * far + 2);
	CU_ASSERT_EQUAL(s->lifetime_events_max, high + 3 * far - 1);
	CU_ASSERT_EQUAL(s->lifetime_events_sum, 2 * high + 8 * far);
	CU_ASSERT_EQUAL(s->lifetime_ns_max, 0);
	s = stats_of(2);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(s->lifetime_events_min, 2 * far + 3);
	CU_ASSERT_EQUAL(s->allocated_bytes, (uint64_t)2 << 30);
	CU_ASSERT_EQUAL(agg.live_bytes, 0);
	aggregate_free(&agg);
}

/* Stack ids, dense from 1, far apart and past 2^22, each keep their own
 * statistics in the index (a hash of tagged slots) however they
 * interleave, across its growth. */
static void test_stack_ids_direct_and_hashed_keep_their_statistics(void)
{
	static const uint64_t direct_far[] = {600000, 3000000, ((uint64_t)1 << 22) - 1};
	uint64_t seq = 1, addr = 0x1000;
	size_t n_hashed = 3000, n_direct = 2000;

	agg_setup();
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < n_hashed + n_direct + 3; i++) {
			uint64_t id = i < n_direct		 ? 1 + i
				      : i < n_direct + 3	 ? direct_far[i - n_direct]
							   : ((uint64_t)1 << 22) + (i * 0x9e3779b97f4a7c15ull >> 20);
			struct alloc_event ev = {.seq = seq++, .addr = addr, .value = 1 + (id & 7),
						 .weight = 1, .stack_id = id, .tid = 1,
						 .type = ALLOC_EV_ALLOC, .fn = TRACE_FN_MALLOC};

			addr += 16;
			aggregate_event(&agg, &ev);
		}
	}
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL_FATAL(agg.error, 0);
	CU_ASSERT_EQUAL(agg.stat_count, n_hashed + n_direct + 3);
	for (size_t k = 0; k < agg.stat_count; k++) {
		CU_ASSERT_EQUAL(stk(&agg, k).s.allocations, 2);
		CU_ASSERT_EQUAL(stk(&agg, k).s.allocated_bytes, 2 * (1 + (stk(&agg, k).stack_id & 7)));
	}
	CU_ASSERT_EQUAL(stats_of(3000000)->allocations, 2);
	aggregate_release_blocks(&agg, NULL);
	aggregate_free(&agg);
}

/* The stack index grows at 3/4 load, exactly: 768 stacks keep 1,024 slots,
 * the 769th doubles them (an index + 1 stays below the slot count, the
 * tag's bits above it), and so on to 16,384 slots, a mapping of their own;
 * every stack met again finds its own statistics, ids spread over 32 bits
 * (0 and AGG_STACK_INHERITED's neighbour among them). */
static void test_stack_index_grows_at_three_quarters_exactly(void)
{
	enum { N = 12289 };
	uint64_t seq = 1, addr = 0x1000;

	agg_setup();
	CU_ASSERT_EQUAL(agg.stack_index_cap, 1024);
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < N; i++) {
			uint32_t id = i == 1 ? UINT32_MAX - 1 : (uint32_t)(i * 0x9e3779b1u);
			struct alloc_event ev = {.seq = seq++, .addr = addr, .value = 1 + (i & 7),
						 .weight = 1, .stack_id = id, .tid = 1,
						 .type = ALLOC_EV_ALLOC, .fn = TRACE_FN_MALLOC};

			addr += 16;
			aggregate_event(&agg, &ev);
			aggregate_flush(&agg);
			if (round == 0 && i + 1 == 768)
				CU_ASSERT_EQUAL(agg.stack_index_cap, 1024);
			if (round == 0 && i + 1 == 769)
				CU_ASSERT_EQUAL(agg.stack_index_cap, 2048);
			if (round == 0 && i + 1 == 12288)
				CU_ASSERT_EQUAL(agg.stack_index_cap, 16384);
		}
	}
	CU_ASSERT_EQUAL(agg.stack_index_cap, 32768);
	CU_ASSERT_NOT_EQUAL(agg.stack_index_reserved, 0);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL_FATAL(agg.error, 0);
	CU_ASSERT_EQUAL(agg.stat_count, N);
	for (size_t k = 0; k < agg.stat_count; k++) {
		struct stack_stats st = stk(&agg, k);

		CU_ASSERT_EQUAL(st.stack_id, k == 1 ? UINT32_MAX - 1 : (uint32_t)(k * 0x9e3779b1u));
		CU_ASSERT_EQUAL(st.s.allocations, 2);
		CU_ASSERT_EQUAL(st.s.allocated_bytes, 2 * (1 + (k & 7)));
	}
	aggregate_release_blocks(&agg, NULL);
	CU_ASSERT_EQUAL(agg.stack_index_reserved, 0);
	aggregate_free(&agg);
}

/* Packed statistics read back as they were, whatever their values: zero,
 * one byte, the largest (ten-byte varints), minima at either end, and
 * entries of every mask, one after another. */
static void test_packed_statistics_read_back_exactly(void)
{
	static const uint64_t values[] = {0, 1, 127, 128, 16383, 16384, (uint64_t)1 << 32,
					  UINT64_MAX - 1, UINT64_MAX};
	enum { N = 64 };
	struct aggregate a;
	struct stats_packed packed;
	struct stack_stats *want = calloc(N, sizeof(*want));
	const uint8_t *p;

	CU_ASSERT_FATAL(want != NULL);
	memset(&a, 0, sizeof(a));
	for (size_t k = 0; k < N; k++) {
		uint64_t *f = &want[k].s.allocations;

		want[k].stack_id = k == N - 1 ? AGG_STACK_INHERITED : (uint32_t)(k * 977);
		for (size_t i = 0; i < sizeof(struct alloc_stats) / sizeof(uint64_t); i++)
			f[i] = values[(k * 7 + i * (k % 5 + 1)) % (sizeof(values) / sizeof(values[0]))];
		if (k == 1)
			alloc_stats_init(&want[k].s); /* an empty entry: every field's empty value */
		CU_ASSERT_EQUAL_FATAL(aggregate_stack_stats_put(&a, &want[k]), (long)k);
	}
	CU_ASSERT_EQUAL_FATAL(aggregate_stats_pack(&a, &packed), 0);
	CU_ASSERT_PTR_NULL(a.small);
	CU_ASSERT_PTR_NULL(a.full);
	CU_ASSERT_EQUAL(a.stat_count, N);
	CU_ASSERT_EQUAL_FATAL(packed.count, N);
	p = packed.bytes;
	for (size_t k = 0; k < N; k++) {
		struct alloc_stats s;

		p = stats_packed_read(p, &s);
		CU_ASSERT_EQUAL(packed.stack_ids[k], want[k].stack_id);
		CU_ASSERT_EQUAL(memcmp(&s, &want[k].s, sizeof(s)), 0);
	}
	CU_ASSERT_PTR_EQUAL(p, packed.bytes + packed.size);
	stats_packed_free(&packed);
	aggregate_free(&a);
	free(want);
}

/* A stack of a few blocks, all freed, packs into a byte each of its small
 * fields: its minima too (13 bytes; 31 when a minimum took ten). */
static void test_packed_small_minima_take_one_byte(void)
{
	struct aggregate a;
	struct stats_packed packed;
	struct stack_stats st = {.stack_id = 7};
	struct alloc_stats *s = &st.s, back;

	memset(&a, 0, sizeof(a));
	alloc_stats_init(s);
	s->allocations = 4, s->allocated_bytes = 100, s->freed = 4;
	s->lifetime_events_sum = 10, s->lifetime_events_min = 1, s->lifetime_events_max = 4;
	s->lifetime_ns_sum = 1000, s->lifetime_ns_min = 100, s->lifetime_ns_max = 400;
	back = *s;
	CU_ASSERT_EQUAL_FATAL(aggregate_stack_stats_put(&a, &st), 0);
	CU_ASSERT_EQUAL_FATAL(aggregate_stats_pack(&a, &packed), 0);
	/* the mask, seven one-byte fields, 1000 and 400 in two */
	CU_ASSERT_EQUAL(packed.size, 13);
	stats_packed_read(packed.bytes, s = &(struct alloc_stats){0});
	CU_ASSERT_EQUAL(memcmp(s, &back, sizeof(back)), 0);
	stats_packed_free(&packed);
	aggregate_free(&a);
}

static void test_fork_child_inherits_parent_blocks(void)
{
	struct aggregate parent;
	struct alloc_event ev = {.weight = 1, .tid = 1, .type = ALLOC_EV_ALLOC};
	const struct alloc_stats *inh;

	CU_ASSERT_FATAL(aggregate_init(&parent) == 0);
	parent.seq_limit = 3; /* the fork happened after seq 3 */
	ev.seq = 1, ev.addr = 0x100, ev.value = 10, ev.stack_id = 1;
	aggregate_event(&parent, &ev);
	ev.seq = 2, ev.addr = 0x200, ev.value = 20;
	aggregate_event(&parent, &ev);
	ev.seq = 3, ev.addr = 0x100, ev.type = ALLOC_EV_FREE;
	aggregate_event(&parent, &ev);
	ev.seq = 4, ev.addr = 0x300, ev.value = 30, ev.type = ALLOC_EV_ALLOC; /* after the fork */
	aggregate_event(&parent, &ev);
	aggregate_finish(&parent);
	CU_ASSERT_EQUAL(parent.live_blocks, 1);

	agg_setup();
	CU_ASSERT_EQUAL(aggregate_seed_inherited(&agg, &parent, parent.seq_limit, parent.now_ns), 0);
	aggregate_free(&parent);
	CU_ASSERT_EQUAL(agg.inherited_blocks, 1);
	CU_ASSERT_EQUAL(agg.inherited_bytes, 20);
	feed_alloc(4, 0x400, 40, 9, 5);
	feed_free(5, 0x200, 5); /* the inherited block: matched */
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.unmatched_frees, 0);
	CU_ASSERT_EQUAL(agg.allocations, 1); /* inherited blocks are no allocations */
	CU_ASSERT_EQUAL(agg.live_bytes, 40);
	CU_ASSERT_EQUAL(agg.peak_bytes, 60);
	inh = stats_of(AGG_STACK_INHERITED);
	CU_ASSERT_FATAL(inh != NULL);
	CU_ASSERT_EQUAL(inh->freed, 1);
	CU_ASSERT_EQUAL(inh->live_bytes, 0);
	CU_ASSERT_EQUAL(inh->peak_bytes, 20);
	aggregate_free(&agg);
}

/* ---- young blocks: the decoder's pairing hints (ALLOC_EV_PAIRED) ---- */

static uint64_t rng_state;

/* xorshift64: the same sequence for the same seed. */
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/*
 * Feeds n pseudo-random events to a: allocations, frees and reallocs by
 * three threads on 1024 addresses (so allocations at live addresses, double
 * and unmatched frees and frees by other threads all happen), some blocks
 * weighted, TIME stamps between.  With hinted, each allocator event carries
 * ALLOC_EV_PAIRED with probability 1/2, right or wrong; the sequence is the
 * same either way.  Returns how many allocations carried the hint.
 */
static uint64_t feed_random_events(struct aggregate *a, uint64_t seed, size_t n, bool hinted)
{
	uint64_t seq = 1, hinted_allocs = 0;

	rng_state = seed;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng(), op = r % 16;
		struct alloc_event ev = {
			.seq = seq, .addr = 0x100000 + 16 * ((r >> 8) % 1024),
			.value = 1 + (r >> 20) % 300, .weight = (r >> 30) % 8 ? 1 : 3,
			.stack_id = 1 + (uint32_t)((r >> 33) % 5), .tid = 1 + (uint32_t)((r >> 36) % 3),
			.flags = hinted && (r >> 40) % 2 ? ALLOC_EV_PAIRED : 0,
		};

		if (op < 7) {
			ev.type = ALLOC_EV_ALLOC;
			hinted_allocs += ev.flags != 0;
		} else if (op < 14) {
			ev.type = ALLOC_EV_FREE;
		} else if (op == 14) {
			struct alloc_event second = ev;

			ev.type = ALLOC_EV_REALLOC_FREE;
			ev.fn = TRACE_FN_REALLOC;
			aggregate_event(a, &ev);
			second.type = ALLOC_EV_REALLOC_ALLOC;
			second.fn = TRACE_FN_REALLOC;
			second.seq = ++seq;
			second.addr = 0x100000 + 16 * ((r >> 44) % 1024);
			second.flags = hinted && (r >> 54) % 2 ? ALLOC_EV_PAIRED : 0;
			hinted_allocs += second.flags != 0;
			ev = second;
		} else {
			ev.type = ALLOC_EV_TIME;
			ev.seq = seq - 1;
			ev.value = 1000 * seq;
			seq--;
		}
		aggregate_event(a, &ev);
		seq++;
	}
	return hinted_allocs;
}

/* Every number two aggregations report, compared. */
static void assert_same_aggregation(const struct aggregate *x, const struct aggregate *y)
{
	CU_ASSERT_EQUAL(x->allocations, y->allocations);
	CU_ASSERT_EQUAL(x->allocated_bytes, y->allocated_bytes);
	CU_ASSERT_EQUAL(x->frees, y->frees);
	CU_ASSERT_EQUAL(x->blocks_freed, y->blocks_freed);
	CU_ASSERT_EQUAL(x->reallocs, y->reallocs);
	CU_ASSERT_EQUAL(x->temporary, y->temporary);
	CU_ASSERT_EQUAL(x->live_bytes, y->live_bytes);
	CU_ASSERT_EQUAL(x->live_blocks, y->live_blocks);
	CU_ASSERT_EQUAL(x->max_live_blocks, y->max_live_blocks);
	CU_ASSERT_EQUAL(x->peak_bytes, y->peak_bytes);
	CU_ASSERT_EQUAL(x->peak_blocks, y->peak_blocks);
	CU_ASSERT_EQUAL(x->peak_seq, y->peak_seq);
	CU_ASSERT_EQUAL(x->unmatched_frees, y->unmatched_frees);
	CU_ASSERT_EQUAL(x->address_reused, y->address_reused);
	CU_ASSERT_EQUAL(x->inherited_blocks, y->inherited_blocks);
	CU_ASSERT_EQUAL(x->inherited_bytes, y->inherited_bytes);
	CU_ASSERT_EQUAL(memcmp(x->calls, y->calls, sizeof(x->calls)), 0);
	CU_ASSERT_FATAL(x->stat_count == y->stat_count);
	for (size_t k = 0; k < x->stat_count; k++) {
		struct stack_stats sx = stk(x, k), sy = stk(y, k);

		CU_ASSERT_EQUAL(sx.stack_id, sy.stack_id);
		CU_ASSERT_EQUAL(memcmp(&sx.s, &sy.s, sizeof(sx.s)), 0);
	}
}

/* The hints decide where live blocks are kept, never a number: right,
 * wrong or missing, the same events aggregate the same, including
 * allocations at live addresses (either table), double frees, more hinted
 * blocks live than the young table holds, and a fork child seeded from
 * blocks in both tables. */
static void test_pairing_hints_change_no_number(void)
{
	struct aggregate plain, hinted, child_plain, child_hinted;
	struct alloc_event late = {.seq = 90001, .addr = 0x100000, .value = 5, .weight = 1,
				   .stack_id = 9, .tid = 1, .type = ALLOC_EV_FREE};
	uint64_t hints;

	CU_ASSERT_FATAL(aggregate_init(&plain) == 0);
	CU_ASSERT_FATAL(aggregate_init(&hinted) == 0);
	CU_ASSERT_EQUAL(feed_random_events(&plain, 12345, 60000, false), 0);
	hints = feed_random_events(&hinted, 12345, 60000, true);
	aggregate_finish(&plain);
	aggregate_finish(&hinted);
	assert_same_aggregation(&plain, &hinted);
	CU_ASSERT(plain.address_reused > 1000);
	CU_ASSERT(plain.unmatched_frees > 1000);
	CU_ASSERT_EQUAL(plain.young_allocations, 0);
	/* hinted blocks went into the young table, but not all: it filled up */
	CU_ASSERT(hinted.young_allocations > 1000);
	CU_ASSERT(hinted.young_allocations < hints);
	CU_ASSERT(hinted.young.count > 0); /* some were never freed */

	/* fork children seeded from each, then a free of an inherited block */
	CU_ASSERT_FATAL(aggregate_init(&child_plain) == 0);
	CU_ASSERT_FATAL(aggregate_init(&child_hinted) == 0);
	CU_ASSERT_EQUAL(aggregate_seed_inherited(&child_plain, &plain, plain.seq_limit,
						       plain.now_ns), 0);
	CU_ASSERT_EQUAL(aggregate_seed_inherited(&child_hinted, &hinted, hinted.seq_limit,
						       hinted.now_ns), 0);
	aggregate_event(&child_plain, &late);
	late.flags = ALLOC_EV_PAIRED;
	aggregate_event(&child_hinted, &late);
	aggregate_finish(&child_plain);
	aggregate_finish(&child_hinted);
	assert_same_aggregation(&child_plain, &child_hinted);
	CU_ASSERT_EQUAL(child_plain.inherited_blocks, plain.live_blocks);
	aggregate_free(&child_plain);
	aggregate_free(&child_hinted);
	aggregate_free(&plain);
	aggregate_free(&hinted);
}

/* Reading a parent only up to a fork, every block goes into the table the
 * child is seeded from: the hints are not followed. */
static void test_pairing_hints_ignored_up_to_a_fork(void)
{
	struct aggregate a;

	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	a.seq_limit = 1u << 30;
	feed_random_events(&a, 777, 5000, true);
	aggregate_finish(&a);
	CU_ASSERT(a.allocations > 1000);
	CU_ASSERT_EQUAL(a.young_allocations, 0);
	CU_ASSERT_EQUAL(a.young.count, 0);
	aggregate_free(&a);
}

/* ---- merging thread streams (reorder) ---- */

static uint64_t emitted[64];
static uint8_t emitted_type[64];
static size_t emitted_count;

static void collect(void *ctx, const struct alloc_event *ev)
{
	(void)ctx;
	if (emitted_count < 64) {
		emitted[emitted_count] = ev->seq;
		emitted_type[emitted_count] = ev->type;
	}
	emitted_count++;
}

static void count_only(void *ctx, const struct alloc_event *ev)
{
	(void)ctx;
	(void)ev;
	emitted_count++;
}

/* Test sources: events appended per source, pulled in order. */
#define TEST_SOURCE_EVENTS 20000
struct test_source {
	struct alloc_event ev[TEST_SOURCE_EVENTS];
	size_t n, pos;
};

static struct test_source sources[4];

static const struct alloc_event *test_pull(void *ctx, uint32_t source)
{
	struct test_source *t = &sources[source];

	(void)ctx;
	return t->pos < t->n ? &t->ev[t->pos++] : NULL;
}

static void merge_setup(struct reorder *r, void (*emit)(void *, const struct alloc_event *),
			void *emit_ctx)
{
	memset(sources, 0, sizeof(sources));
	emitted_count = 0;
	reorder_init(r, 1, test_pull, NULL, emit, emit_ctx);
}

/* Source gets an event (its thread's data arrived): wake the merge. */
static void push_event(struct reorder *r, uint32_t source, const struct alloc_event *ev)
{
	struct test_source *t = &sources[source];

	CU_ASSERT_FATAL(t->n < TEST_SOURCE_EVENTS);
	t->ev[t->n++] = *ev;
	CU_ASSERT_EQUAL(reorder_wake(r, source), 0);
}

static void push(struct reorder *r, uint32_t source, uint8_t type, uint64_t seq)
{
	struct alloc_event ev = {.seq = seq, .type = type, .addr = 0x10 + seq};

	push_event(r, source, &ev);
}

static void test_reorder_merges_slots_by_sequence(void)
{
	struct reorder r;

	merge_setup(&r, collect, NULL);
	push(&r, 0, ALLOC_EV_ALLOC, 2);
	push(&r, 0, ALLOC_EV_TIME, 2);  /* stamp after event 2 */
	push(&r, 0, ALLOC_EV_FREE, 4);
	CU_ASSERT_EQUAL(emitted_count, 0);
	push(&r, 1, ALLOC_EV_ALLOC, 1);
	CU_ASSERT_EQUAL(emitted_count, 3); /* 1, 2, TIME 2 */
	push(&r, 0, ALLOC_EV_ALLOC, 5);
	push(&r, 1, ALLOC_EV_FREE, 3);
	CU_ASSERT_EQUAL(emitted_count, 6);
	reorder_finish(&r);
	CU_ASSERT_EQUAL(emitted_count, 6);
	CU_ASSERT_EQUAL(emitted[0], 1);
	CU_ASSERT_EQUAL(emitted[1], 2);
	CU_ASSERT_EQUAL(emitted[2], 2);
	CU_ASSERT_EQUAL(emitted_type[2], ALLOC_EV_TIME);
	CU_ASSERT_EQUAL(emitted[3], 3);
	CU_ASSERT_EQUAL(emitted[4], 4);
	CU_ASSERT_EQUAL(emitted[5], 5);
	CU_ASSERT_EQUAL(r.gaps, 0);
	CU_ASSERT_EQUAL(r.late_events, 0);
	reorder_free(&r);
}

/* A marker stands after its own event (the SEQ_SKIP its thread took for
 * it): it comes out right after that event and before the next one, also
 * when the next one's source is woken first and that event is in order. */
static void test_reorder_marker_after_its_seq(void)
{
	struct reorder r;

	merge_setup(&r, collect, NULL);
	push(&r, 1, ALLOC_EV_ALLOC, 2);   /* waits for 1 */
	push(&r, 0, ALLOC_EV_ALLOC, 1);   /* 1, then 2 */
	CU_ASSERT_EQUAL(emitted_count, 2);
	push(&r, 1, ALLOC_EV_ALLOC, 4);   /* waits for 3 */
	sources[0].ev[sources[0].n++] = (struct alloc_event){.seq = 3, .type = ALLOC_EV_SEQ_SKIP};
	sources[0].ev[sources[0].n++] = (struct alloc_event){.seq = 3, .type = ALLOC_EV_MARKER};
	CU_ASSERT_EQUAL(reorder_wake(&r, 0), 0);
	reorder_finish(&r);
	CU_ASSERT_EQUAL(emitted_count, 5);
	CU_ASSERT_EQUAL(emitted[2], 3);
	CU_ASSERT_EQUAL(emitted_type[2], ALLOC_EV_SEQ_SKIP);
	CU_ASSERT_EQUAL(emitted[3], 3);
	CU_ASSERT_EQUAL(emitted_type[3], ALLOC_EV_MARKER);
	CU_ASSERT_EQUAL(emitted[4], 4);
	CU_ASSERT_EQUAL(r.gaps, 0);
	reorder_free(&r);
}

static void test_reorder_many_sources_interleaved(void)
{
	struct reorder r;

	merge_setup(&r, collect, NULL);
	/* seq s belongs to source s % 3; each source's data arrives late */
	for (uint64_t s = 1; s <= 12; s++)
		sources[s % 3].ev[sources[s % 3].n++] =
			(struct alloc_event){.seq = s, .type = ALLOC_EV_ALLOC};
	CU_ASSERT_EQUAL(reorder_wake(&r, 2), 0);
	CU_ASSERT_EQUAL(reorder_wake(&r, 0), 0);
	CU_ASSERT_EQUAL(emitted_count, 0);
	CU_ASSERT_EQUAL(reorder_wake(&r, 1), 0);
	CU_ASSERT_EQUAL(emitted_count, 12);
	for (size_t i = 0; i < 12; i++)
		CU_ASSERT_EQUAL(emitted[i], i + 1);
	reorder_finish(&r);
	CU_ASSERT_EQUAL(r.gaps, 0);
	reorder_free(&r);
}

static void test_reorder_gap_at_eof_is_skipped_and_counted(void)
{
	struct reorder r;

	merge_setup(&r, collect, NULL);
	push(&r, 0, ALLOC_EV_ALLOC, 1);
	push(&r, 0, ALLOC_EV_ALLOC, 2);
	push(&r, 1, ALLOC_EV_ALLOC, 5); /* 3 and 4 never come */
	push(&r, 0, ALLOC_EV_ALLOC, 6);
	CU_ASSERT_EQUAL(emitted_count, 2);
	reorder_finish(&r);
	CU_ASSERT_EQUAL(emitted_count, 4);
	CU_ASSERT_EQUAL(emitted[2], 5);
	CU_ASSERT_EQUAL(emitted[3], 6);
	CU_ASSERT_EQUAL(r.gaps, 1);
	CU_ASSERT_EQUAL(r.missing_seqs, 2);
	reorder_free(&r);
}

static void test_reorder_skip_gap_then_late_event(void)
{
	struct reorder r;

	merge_setup(&r, collect, NULL);
	for (uint64_t s = 2; s <= 5; s++) /* 1 is late */
		push(&r, (uint32_t)(s & 1), ALLOC_EV_ALLOC, s);
	CU_ASSERT_EQUAL(emitted_count, 0);
	reorder_skip_gap(&r);             /* too much waits: give up on 1 */
	CU_ASSERT_EQUAL(emitted_count, 4);
	CU_ASSERT_EQUAL(r.gaps, 1);
	CU_ASSERT_EQUAL(r.missing_seqs, 1);
	push(&r, 2, ALLOC_EV_ALLOC, 1);   /* arrives after all: late */
	CU_ASSERT_EQUAL(r.late_events, 1);
	CU_ASSERT_EQUAL(r.missing_seqs, 0); /* it filled the gap */
	CU_ASSERT_EQUAL(emitted_count, 5);
	reorder_finish(&r);
	reorder_free(&r);
}

/* An event whose sequence number was merged already (a chunk written twice)
 * is dropped, with the stamps after it; one in a gap fills it, once. */
static void test_reorder_drops_repeated_events(void)
{
	struct reorder r;

	merge_setup(&r, collect, NULL);
	push(&r, 0, ALLOC_EV_ALLOC, 1);
	push(&r, 0, ALLOC_EV_ALLOC, 2);
	push(&r, 1, ALLOC_EV_ALLOC, 7);   /* 3..6 wait */
	reorder_skip_gap(&r);
	CU_ASSERT_EQUAL(r.missing_seqs, 4);
	CU_ASSERT_EQUAL(emitted_count, 3);
	push(&r, 0, ALLOC_EV_ALLOC, 2);   /* merged already */
	push(&r, 0, ALLOC_EV_MARKER, 2);  /* its stamp goes with it */
	CU_ASSERT_EQUAL(r.repeated_events, 1);
	CU_ASSERT_EQUAL(emitted_count, 3);
	push(&r, 2, ALLOC_EV_ALLOC, 5);   /* in the gap: late, splits it */
	push(&r, 2, ALLOC_EV_TIME, 5);    /* a late event's stamp stays */
	CU_ASSERT_EQUAL(emitted_count, 5);
	push(&r, 3, ALLOC_EV_ALLOC, 5);   /* a second time: a repeat */
	push(&r, 3, ALLOC_EV_ALLOC, 3);   /* the gap's first */
	push(&r, 3, ALLOC_EV_ALLOC, 6);   /* its last */
	CU_ASSERT_EQUAL(r.repeated_events, 2);
	CU_ASSERT_EQUAL(r.late_events, 3);
	CU_ASSERT_EQUAL(r.missing_seqs, 1); /* 4 never came */
	CU_ASSERT_EQUAL(emitted_count, 7);
	CU_ASSERT_EQUAL(emitted[5], 3);
	CU_ASSERT_EQUAL(emitted[6], 6);
	push(&r, 3, ALLOC_EV_ALLOC, 3);   /* filled already: a repeat */
	CU_ASSERT_EQUAL(r.repeated_events, 3);
	CU_ASSERT_EQUAL(emitted_count, 7);
	reorder_finish(&r);
	reorder_free(&r);
}

/* ---- runs (reorder_set_runs) against one event at a time ---- */

#define RUN_PLAN_EVENTS 12000
#define RUN_LOG_EVENTS (2 * RUN_PLAN_EVENTS)

/* One source's event appended to its stream, then maybe a wake or a skip. */
struct run_step {
	uint32_t source;
	struct alloc_event ev;
	bool wake, skip_gap;
};

static struct run_step run_plan[RUN_PLAN_EVENTS];
static size_t run_plan_count;
static struct alloc_event run_log[RUN_LOG_EVENTS];
static size_t run_log_count, run_calls, run_events_in_runs;

static void run_log_one(void *ctx, const struct alloc_event *ev)
{
	(void)ctx;
	if (run_log_count < RUN_LOG_EVENTS)
		run_log[run_log_count] = *ev;
	run_log_count++;
}

static void run_log_run(void *ctx, const struct alloc_event *ev, size_t n)
{
	run_calls++;
	run_events_in_runs += n;
	for (size_t i = 0; i < n; i++)
		run_log_one(ctx, &ev[i]);
}

static size_t test_peek(void *ctx, uint32_t source)
{
	(void)ctx;
	return sources[source].n - sources[source].pos;
}

static void test_take(void *ctx, uint32_t source, size_t n)
{
	(void)ctx;
	sources[source].pos += n;
}

/* A plan of 4 sources' events from seed: runs of one source's sequence
 * numbers, TIME stamps, markers and recording stops after a SEQ_SKIP, lost
 * numbers (gaps), repeats, data arriving in pieces, gaps given up on. */
static void run_plan_make(uint64_t seed)
{
	uint64_t seq = 1;
	uint32_t src = 0;

	rng_state = seed;
	run_plan_count = 0;
	while (run_plan_count + 4 < RUN_PLAN_EVENTS) {
		uint64_t r = rng();
		struct run_step *st = &run_plan[run_plan_count];

		if (r % 10 >= 7)
			src = (uint32_t)(rng() % 4);
		memset(st, 0, sizeof(*st));
		st->source = src;
		st->ev.addr = 0x1000 + seq;
		st->ev.tid = src;
		switch ((r >> 8) % 16) {
		case 0: /* a lost number */
			seq++;
			continue;
		case 1: /* a repeat of a number merged (or waiting) already */
			st->ev.seq = seq > 40 ? seq - 1 - rng() % 40 : 1;
			st->ev.type = ALLOC_EV_FREE;
			break;
		case 2:
			st->ev.seq = seq++;
			st->ev.type = ALLOC_EV_SEQ_SKIP;
			run_plan[++run_plan_count] = *st;
			st = &run_plan[run_plan_count];
			st->ev.type = (r >> 16) & 1 ? ALLOC_EV_MARKER : ALLOC_EV_CONTROL;
			break;
		default:
			st->ev.seq = seq++;
			st->ev.type = (r >> 16) & 1 ? ALLOC_EV_ALLOC : ALLOC_EV_FREE;
			if ((r >> 20) % 8 == 0) { /* its stamp */
				run_plan[++run_plan_count] = *st;
				st = &run_plan[run_plan_count];
				st->ev.type = ALLOC_EV_TIME;
				st->ev.value = seq;
			}
		}
		st->wake = (r >> 24) % 6 == 0;
		st->skip_gap = (r >> 32) % 97 == 0;
		run_plan_count++;
	}
}

/* Merges the plan, with runs or one event at a time, into run_log. */
static void run_plan_merge(bool runs, struct reorder *r)
{
	merge_setup(r, run_log_one, NULL);
	if (runs)
		reorder_set_runs(r, test_peek, test_take, run_log_run);
	run_log_count = run_calls = run_events_in_runs = 0;
	for (size_t i = 0; i < run_plan_count; i++) {
		struct test_source *t = &sources[run_plan[i].source];

		CU_ASSERT_FATAL(t->n < TEST_SOURCE_EVENTS);
		t->ev[t->n++] = run_plan[i].ev;
		if (run_plan[i].wake)
			CU_ASSERT_EQUAL(reorder_wake(r, run_plan[i].source), 0);
		if (run_plan[i].skip_gap)
			reorder_skip_gap(r);
	}
	for (uint32_t k = 0; k < 4; k++)
		CU_ASSERT_EQUAL(reorder_wake(r, k), 0);
	reorder_finish(r);
}

/* The merge hands runs of one source's events on in exactly the order,
 * and with exactly the counts, of one event at a time. */
static void test_reorder_runs_equal_single_events(void)
{
	static struct alloc_event single[RUN_LOG_EVENTS];
	size_t single_count;
	struct reorder a, b;

	for (uint64_t seed = 1; seed <= 40; seed++) {
		run_plan_make(seed * 0x9e3779b97f4a7c15u);
		run_plan_merge(false, &a);
		single_count = run_log_count;
		CU_ASSERT_FATAL(single_count <= RUN_LOG_EVENTS);
		memcpy(single, run_log, single_count * sizeof(*single));
		run_plan_merge(true, &b);
		CU_ASSERT_EQUAL(run_log_count, single_count);
		CU_ASSERT(run_events_in_runs > 2 * run_calls); /* runs were taken */
		CU_ASSERT(memcmp(run_log, single, single_count * sizeof(*single)) == 0);
		CU_ASSERT_EQUAL(a.expected, b.expected);
		CU_ASSERT_EQUAL(a.gaps, b.gaps);
		CU_ASSERT_EQUAL(a.missing_seqs, b.missing_seqs);
		CU_ASSERT_EQUAL(a.late_events, b.late_events);
		CU_ASSERT_EQUAL(a.repeated_events, b.repeated_events);
		CU_ASSERT(a.repeated_events > 0 && a.late_events > 0 && a.gaps > 0);
		reorder_free(&a);
		reorder_free(&b);
	}
}

/* A run stops where the heap's minimum becomes ready, a real event too:
 * with source 1's event 5 waiting, source 0's run 1..4 ends before its own
 * event 5, so that source 1's 5 goes first (as one event at a time) and
 * source 0's is the repeat. */
static void test_reorder_run_stops_at_ready_heap_event(void)
{
	static const struct {
		uint32_t source;
		uint64_t seq, addr;
	} plan[] = {{1, 5, 0xb5}, {0, 1, 0xa1}, {0, 2, 0xa2}, {0, 3, 0xa3},
		    {0, 4, 0xa4}, {0, 5, 0xa5}};
	static struct alloc_event single[8];
	size_t single_count;
	struct reorder a, b;

	run_plan_count = 0;
	for (size_t i = 0; i < sizeof(plan) / sizeof(plan[0]); i++) {
		struct run_step *st = &run_plan[run_plan_count++];

		memset(st, 0, sizeof(*st));
		st->source = plan[i].source;
		st->ev = (struct alloc_event){.seq = plan[i].seq, .addr = plan[i].addr,
					      .type = ALLOC_EV_ALLOC};
		st->wake = i == 0;
	}
	run_plan_merge(false, &a);
	single_count = run_log_count;
	CU_ASSERT_EQUAL_FATAL(single_count, 5);
	memcpy(single, run_log, single_count * sizeof(*single));
	CU_ASSERT_EQUAL(single[4].addr, 0xb5);
	run_plan_merge(true, &b);
	CU_ASSERT_EQUAL(run_log_count, 5);
	CU_ASSERT_EQUAL(run_log[4].addr, 0xb5);
	CU_ASSERT(memcmp(run_log, single, single_count * sizeof(*single)) == 0);
	CU_ASSERT_EQUAL(a.repeated_events, 1);
	CU_ASSERT_EQUAL(b.repeated_events, 1);
	CU_ASSERT_EQUAL(run_calls, 1); /* 1..4 went as a run */
	reorder_free(&a);
	reorder_free(&b);
}

/* r->gaps counts the ranges still unfilled: a late event inside a range
 * splits it in two, and a range whose last number comes is gone. */
static void test_reorder_gaps_split_and_close(void)
{
	struct reorder r;

	merge_setup(&r, collect, NULL);
	push(&r, 0, ALLOC_EV_ALLOC, 1);
	push(&r, 1, ALLOC_EV_ALLOC, 7);   /* 2..6 wait */
	reorder_skip_gap(&r);
	CU_ASSERT_EQUAL(r.gaps, 1);
	CU_ASSERT_EQUAL(r.missing_seqs, 5);
	push(&r, 2, ALLOC_EV_ALLOC, 4);   /* [2,4) and [5,7) */
	CU_ASSERT_EQUAL(r.gaps, 2);
	push(&r, 2, ALLOC_EV_ALLOC, 5);
	push(&r, 2, ALLOC_EV_ALLOC, 6);   /* [5,7) closed */
	CU_ASSERT_EQUAL(r.gaps, 1);
	push(&r, 3, ALLOC_EV_ALLOC, 3);
	push(&r, 3, ALLOC_EV_ALLOC, 2);   /* [2,4) closed */
	CU_ASSERT_EQUAL(r.gaps, 0);
	CU_ASSERT_EQUAL(r.missing_seqs, 0);
	CU_ASSERT_EQUAL(r.late_events, 5);
	CU_ASSERT_EQUAL(r.repeated_events, 0);
	CU_ASSERT_EQUAL(emitted_count, 7);
	reorder_finish(&r);
	reorder_free(&r);
}

/* Once the gap table is full, a late event that would split a range is
 * taken as a fill and the range stays whole, so every later late event in
 * it still fills one missing number (a full table cut the range short and
 * counted the rest as lost: 800 threads' trace, all there, said 26 million
 * events missing). */
static void test_reorder_full_gap_table_keeps_filling(void)
{
	struct reorder r;

	merge_setup(&r, collect, NULL);
	push(&r, 0, ALLOC_EV_ALLOC, 1);
	push(&r, 1, ALLOC_EV_ALLOC, 10);  /* 2..9 wait */
	reorder_skip_gap(&r);
	CU_ASSERT_EQUAL(r.missing_seqs, 8);
	r.gap_ranges_full = true;         /* as after REORDER_GAP_RANGES_MAX */
	for (uint64_t s = 5; s <= 9; s++)  /* splits not kept */
		push(&r, 2, ALLOC_EV_ALLOC, s);
	for (uint64_t s = 2; s <= 4; s++)
		push(&r, 3, ALLOC_EV_ALLOC, s);
	CU_ASSERT_EQUAL(r.late_events, 8);
	CU_ASSERT_EQUAL(r.repeated_events, 0);
	CU_ASSERT_EQUAL(r.missing_seqs, 0);
	CU_ASSERT_EQUAL(emitted_count, 10);
	reorder_finish(&r);
	reorder_free(&r);
}

/* Ranges older than REORDER_GAP_SPLIT_WINDOW are not split (a split moves
 * every newer range): a late event inside one still fills a missing number,
 * and the range stays whole; newer ones split.  Filled ranges stay in the
 * table until a compaction and still tell a repeat from a late event. */
static void test_reorder_old_gaps_fill_without_split(void)
{
	const uint64_t n = REORDER_GAP_SPLIT_WINDOW + 100; /* gaps of 3 */
	struct reorder r;

	merge_setup(&r, count_only, NULL);
	push(&r, 0, ALLOC_EV_ALLOC, 1);
	for (uint64_t k = 1; k <= n; k++) { /* 4k+1 waits for 4k-2..4k */
		push(&r, 0, ALLOC_EV_ALLOC, 4 * k + 1);
		reorder_skip_gap(&r);
	}
	CU_ASSERT_EQUAL(r.gaps, n);
	CU_ASSERT_EQUAL(r.missing_seqs, 3 * n);
	for (uint64_t k = 1; k <= n; k++) /* the middles: old ones not split */
		push(&r, 1, ALLOC_EV_ALLOC, 4 * k - 1);
	CU_ASSERT_EQUAL(r.missing_seqs, 2 * n);
	CU_ASSERT(r.gaps > n && r.gaps < 2 * n);
	for (uint64_t k = 1; k <= n; k++) {
		push(&r, 2, ALLOC_EV_ALLOC, 4 * k - 2);
		push(&r, 2, ALLOC_EV_ALLOC, 4 * k);
	}
	CU_ASSERT_EQUAL(r.missing_seqs, 0);
	CU_ASSERT_EQUAL(r.late_events, 3 * n);
	CU_ASSERT_EQUAL(r.repeated_events, 0);
	push(&r, 3, ALLOC_EV_ALLOC, 4 * n); /* the newest range, filled: a repeat */
	CU_ASSERT_EQUAL(r.repeated_events, 1);
	CU_ASSERT_EQUAL(emitted_count, 4 * n + 1);
	reorder_finish(&r);
	reorder_free(&r);
}

static void test_reorder_fork_child_starts_after_fork_seq(void)
{
	struct reorder r;

	merge_setup(&r, collect, NULL);
	reorder_set_first_seq(&r, 101);
	push(&r, 0, ALLOC_EV_TIME, 0);    /* a slot's stamp before its first event */
	CU_ASSERT_EQUAL(emitted_count, 1);
	push(&r, 0, ALLOC_EV_ALLOC, 102);
	CU_ASSERT_EQUAL(emitted_count, 1);
	push(&r, 1, ALLOC_EV_ALLOC, 101);
	CU_ASSERT_EQUAL(emitted_count, 3);
	reorder_finish(&r);
	CU_ASSERT_EQUAL(r.gaps, 0);
	reorder_free(&r);
}

/* Events merged into an aggregate, their slots' data arriving out of order. */
static void test_out_of_order_events_aggregate_as_merged(void)
{
	struct reorder r;
	struct alloc_event a = {.seq = 1, .addr = 0x10, .value = 100, .weight = 1, .stack_id = 1,
				.tid = 1, .type = ALLOC_EV_ALLOC};
	struct alloc_event f = {.seq = 2, .addr = 0x10, .tid = 2, .type = ALLOC_EV_FREE};
	struct alloc_event b = {.seq = 3, .addr = 0x10, .value = 50, .weight = 1, .stack_id = 2,
				.tid = 1, .type = ALLOC_EV_ALLOC};

	agg_setup();
	merge_setup(&r, aggregate_event, &agg);
	/* thread 1's slot arrives first (alloc 1, alloc 3 at the same address);
	 * thread 2's free at 2 comes later: merged, no address reuse anomaly */
	push_event(&r, 0, &a);
	push_event(&r, 0, &b);
	push_event(&r, 1, &f);
	reorder_finish(&r);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.address_reused, 0);
	CU_ASSERT_EQUAL(agg.unmatched_frees, 0);
	CU_ASSERT_EQUAL(agg.live_bytes, 50);
	CU_ASSERT_EQUAL(agg.peak_bytes, 100);
	reorder_free(&r);
	aggregate_free(&agg);
}

/* ---- reading a synthetic trace ---- */

struct slot_writer {
	uint8_t buf[4096];
	size_t len;
	uint64_t lap_offset;
	struct record_state st;
};

/* Payload bytes of the first EVENTS chunk slot_flush wrote for slots 0
 * and 1 since slot_flush_reset. */
static size_t first_flush_bytes[2];

static void slot_flush_reset(void)
{
	first_flush_bytes[0] = first_flush_bytes[1] = 0;
}

static void slot_flush(struct trace_writer *w, struct slot_writer *s, unsigned slot)
{
	uint8_t out[4096 + 32], *p = out;

	p = varint_put_u64(p, slot);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, s->lap_offset);
	memcpy(p, s->buf, s->len);
	p += s->len;
	if (slot < 2 && !first_flush_bytes[slot])
		first_flush_bytes[slot] = (size_t)(p - out);
	CU_ASSERT_EQUAL(trace_writer_chunk(w, TRACE_CHUNK_EVENTS, out, (size_t)(p - out)), 0);
	s->lap_offset += s->len;
	s->len = 0;
}

static char trace_path[256];

/* Creates trace_path, $TMPDIR/mprof-test-WHAT-PID.trace, and starts w on
 * it; returns the descriptor (the caller closes it). */
static int trace_create(struct trace_writer *w, const char *what)
{
	int fd;

	snprintf(trace_path, sizeof(trace_path), "%s/mprof-test-%s-%d.trace",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", what, (int)getpid());
	fd = open(trace_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(trace_writer_start(w, fd, 0) == 0);
	return fd;
}

/*
 * Two threads in two slots: slot 0 (tid 11) allocates 20 blocks of 10 bytes
 * at even sequence numbers and slot 1 (tid 12) frees each at the next odd
 * number.  Each slot's records are split over several chunks, slot 1's
 * written first, so the reader must merge.  Then one leak (4444 bytes).
 */
static void write_trace(void)
{
	struct trace_writer w;
	struct slot_writer s0 = {0}, s1 = {0};
	const char meta[] = "pid=77\n";
	const char end[] = "exit_status=3\npeak_rss_kib=100\n";
	uint8_t *p;
	int fd;

	fd = trace_create(&w, "aggregate");
	slot_flush_reset();
	CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_META, meta, sizeof(meta) - 1) == 0);
	p = record_put_thread(s0.buf, &s0.st, 11);
	p = record_put_stack(p, &s0.st, 1, 0, 0);
	p = record_put_stack(p, &s0.st, 2, 1, 0x401000);
	s0.len = (size_t)(p - s0.buf);
	p = record_put_thread(s1.buf, &s1.st, 12);
	s1.len = (size_t)(p - s1.buf);
	for (uint64_t i = 0; i < 20; i++) {
		p = record_put_alloc(s0.buf + s0.len, &s0.st, TRACE_FN_MALLOC, 2 * i + 1,
				     0x10000 + 16 * i, 10, 2, 1);
		s0.len = (size_t)(p - s0.buf);
		p = record_put_free(s1.buf + s1.len, &s1.st, TRACE_FREE_FREE, 2 * i + 2,
				    0x10000 + 16 * i, NULL);
		s1.len = (size_t)(p - s1.buf);
		if (i % 5 == 4) {
			slot_flush(&w, &s1, 1);
			slot_flush(&w, &s0, 0);
		}
	}
	p = record_put_alloc(s0.buf + s0.len, &s0.st, TRACE_FN_MALLOC, 41, 0x90000, 4444, 2, 1);
	s0.len = (size_t)(p - s0.buf);
	slot_flush(&w, &s0, 0);
	CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_END, end, sizeof(end) - 1) == 0);
	trace_writer_finish(&w);
	close(fd);
}

struct read_result {
	struct trace_info info;
	struct stack_nodes nodes;
	struct module_maps maps;
	struct aggregate agg;
	int rc;
};

static void read_trace(struct read_result *res, const char *path)
{
	char err[256];

	trace_info_init(&res->info);
	stack_nodes_init(&res->nodes);
	module_maps_init(&res->maps);
	CU_ASSERT_FATAL(aggregate_init(&res->agg) == 0);
	res->rc = aggregate_read_trace(path, &res->info, &res->nodes, &res->maps, &res->agg, err,
				    sizeof(err));
}

static void read_free(struct read_result *res)
{
	aggregate_free(&res->agg);
	module_maps_free(&res->maps);
	stack_nodes_free(&res->nodes);
	trace_info_free(&res->info);
}

static void test_trace_with_interleaved_slots_reads_exactly(void)
{
	struct read_result res;

	write_trace();
	read_trace(&res, trace_path);
	CU_ASSERT_EQUAL(res.rc, 0);
	CU_ASSERT_EQUAL(res.agg.allocations, 21);
	CU_ASSERT_EQUAL(res.agg.allocated_bytes, 20 * 10 + 4444);
	CU_ASSERT_EQUAL(res.agg.frees, 20);
	CU_ASSERT_EQUAL(res.agg.unmatched_frees, 0);
	CU_ASSERT_EQUAL(res.agg.live_blocks, 1);
	CU_ASSERT_EQUAL(res.agg.live_bytes, 4444);
	CU_ASSERT_EQUAL(res.agg.peak_bytes, 4444);
	CU_ASSERT_EQUAL(res.agg.temporary, 0); /* freed by another thread */
	CU_ASSERT_EQUAL(res.info.seq_gaps, 0);
	/* slot 1's first chunk (its five frees) waited whole for slot 0's,
	 * though decoded ahead on arrival */
	CU_ASSERT_EQUAL(res.info.buffered_bytes_max, first_flush_bytes[1]);
	CU_ASSERT_EQUAL(res.info.chunks_lost, 0);
	CU_ASSERT_FALSE(res.info.truncated);
	CU_ASSERT_TRUE(res.info.has_end);
	CU_ASSERT_STRING_EQUAL(kv_list_get(&res.info.end, "exit_status"), "3");
	CU_ASSERT_STRING_EQUAL(kv_list_get(&res.info.meta, "pid"), "77");
	{
		struct stack_node node;

		CU_ASSERT(stack_nodes_get(&res.nodes, 2, &node));
	}
	read_free(&res);
}

/*
 * Pairing in the reader: slot 0 (tid 21) makes 100 blocks that it frees at
 * its next event, a block Y that it frees 200 events later, 100 more freed at
 * once, and a block W that slot 1 (tid 22) frees.  The blocks freed at once
 * are kept as young blocks; Y (its allocation merged long before its free
 * was read) and W (freed by another slot) are not.  The numbers are exact
 * either way.
 */
static void test_reader_pairs_blocks_freed_soon(void)
{
	struct trace_writer w;
	struct slot_writer s0 = {0}, s1 = {0};
	struct read_result res;
	uint64_t seq = 1;
	uint8_t *p;
	int fd;

	fd = trace_create(&w, "pairing");
	p = record_put_thread(s0.buf, &s0.st, 21);
	p = record_put_stack(p, &s0.st, 1, 0, 0x401000);
	s0.len = (size_t)(p - s0.buf);
	p = record_put_thread(s1.buf, &s1.st, 22);
	s1.len = (size_t)(p - s1.buf);
#define S0_ALLOC(addr, size)                                                                  \
	(s0.len = (size_t)(record_put_alloc(s0.buf + s0.len, &s0.st, TRACE_FN_MALLOC, seq++,   \
					    (addr), (size), 1, 1) - s0.buf))
#define S0_FREE(addr)                                                                         \
	(s0.len = (size_t)(record_put_free(s0.buf + s0.len, &s0.st, TRACE_FREE_FREE, seq++,    \
					   (addr), NULL) - s0.buf))
	for (uint64_t i = 0; i < 100; i++) {
		S0_ALLOC(0x20000 + 32 * i, 24);
		S0_FREE(0x20000 + 32 * i);
	}
	S0_ALLOC(0x90000, 1000); /* Y */
	for (uint64_t i = 0; i < 100; i++) {
		S0_ALLOC(0x30000 + 32 * i, 24);
		S0_FREE(0x30000 + 32 * i);
	}
	S0_FREE(0x90000);
	S0_ALLOC(0xa0000, 77); /* W */
#undef S0_ALLOC
#undef S0_FREE
	CU_ASSERT_FATAL(s0.len < sizeof(s0.buf));
	slot_flush(&w, &s0, 0);
	p = record_put_free(s1.buf + s1.len, &s1.st, TRACE_FREE_FREE, seq++, 0xa0000, NULL);
	s1.len = (size_t)(p - s1.buf);
	slot_flush(&w, &s1, 1);
	trace_writer_finish(&w);
	close(fd);

	read_trace(&res, trace_path);
	CU_ASSERT_EQUAL(res.rc, 0);
	CU_ASSERT_EQUAL(res.agg.young_allocations, 200);
	CU_ASSERT_EQUAL(res.agg.young.count, 0);
	CU_ASSERT_EQUAL(res.agg.allocations, 202);
	CU_ASSERT_EQUAL(res.agg.frees, 202);
	CU_ASSERT_EQUAL(res.agg.unmatched_frees, 0);
	CU_ASSERT_EQUAL(res.agg.temporary, 200);
	CU_ASSERT_EQUAL(res.agg.live_blocks, 0);
	CU_ASSERT_EQUAL(res.agg.peak_bytes, 1000 + 24);
	CU_ASSERT_EQUAL(res.info.seq_gaps, 0);
	read_free(&res);
	unlink(trace_path);
}

static long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

static void test_truncated_trace_reads_up_to_last_whole_chunk(void)
{
	struct read_result res;
	long n;

	write_trace();
	n = file_size(trace_path);
	CU_ASSERT_FATAL(n > 100);
	CU_ASSERT_FATAL(truncate(trace_path, n - 10) == 0); /* inside the END chunk */
	read_trace(&res, trace_path);
	CU_ASSERT_EQUAL(res.rc, 0);
	CU_ASSERT_TRUE(res.info.truncated);
	CU_ASSERT_FALSE(res.info.has_end);
	CU_ASSERT_EQUAL(res.agg.allocations, 21);
	CU_ASSERT_EQUAL(res.agg.live_bytes, 4444);
	read_free(&res);
}

/* Flips a byte in the payload of the n-th chunk (0-based). */
static void corrupt_chunk(const char *path, int n)
{
	FILE *f = fopen(path, "r+b");
	uint8_t h[TRACE_CHUNK_HEADER_BYTES];
	long off = TRACE_FILE_HEADER_BYTES;
	int c;

	CU_ASSERT_FATAL(f != NULL);
	for (int i = 0; i < n; i++) {
		fseek(f, off, SEEK_SET);
		CU_ASSERT_FATAL(fread(h, 1, sizeof(h), f) == sizeof(h));
		off += (long)sizeof(h) + (long)trace_get_le32(h + 8);
	}
	fseek(f, off + TRACE_CHUNK_HEADER_BYTES + 1, SEEK_SET);
	c = fgetc(f);
	fseek(f, off + TRACE_CHUNK_HEADER_BYTES + 1, SEEK_SET);
	fputc(c ^ 0x55, f);
	fclose(f);
}

static void test_corrupt_chunk_is_skipped_and_counted(void)
{
	struct read_result res;

	write_trace();
	/* chunk 0 is META; chunk 1 is slot 1's first (frees of 1..5) */
	corrupt_chunk(trace_path, 1);
	read_trace(&res, trace_path);
	CU_ASSERT_EQUAL(res.rc, 0);
	/* the corrupt chunk, and slot 1's later chunks (they continue it) */
	CU_ASSERT_EQUAL(res.info.chunks_lost, 4);
	CU_ASSERT_TRUE(res.info.lost_offset_count >= 1);
	CU_ASSERT_TRUE(res.info.has_end);
	CU_ASSERT_EQUAL(res.agg.allocations, 21);
	CU_ASSERT_EQUAL(res.agg.live_blocks, 21); /* every free was in slot 1 */
	CU_ASSERT_EQUAL(res.info.seq_gaps, 20);   /* each lost free leaves a gap */
	read_free(&res);
	unlink(trace_path);
}

/* ---- chunk_prefetch.c ---- */

#define PREFETCH_CHUNKS 23 /* several times CHUNK_PREFETCH_SLOTS */

/* A trace of PREFETCH_CHUNKS META chunks "n=I" of growing length; the file
 * offset of each chunk's header in offsets[]. */
static void write_numbered_trace(uint64_t *offsets)
{
	struct trace_writer w;
	char text[64 + PREFETCH_CHUNKS];
	int fd;

	fd = trace_create(&w, "prefetch");
	for (int i = 0; i < PREFETCH_CHUNKS; i++) {
		int n = snprintf(text, sizeof(text), "n=%d\n", i);

		memset(text + n, 'x', (size_t)i); /* lengths differ: buffers regrow */
		offsets[i] = w.offset_bytes;
		CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_META, text, (size_t)n + (size_t)i) == 0);
	}
	trace_writer_finish(&w);
	close(fd);
}

/* Reads trace_path through chunk_prefetch: the chunk numbers in got[] (-1
 * for a lost chunk), their count in *n; returns the final rc. */
static int prefetch_all(int *got, int *n, int stop_after)
{
	struct trace_reader r;
	struct chunk_prefetch *p;
	const struct prefetched_chunk *c;
	int rc;

	*n = 0;
	CU_ASSERT_FATAL(trace_reader_open(&r, trace_path) == 0);
	p = chunk_prefetch_start(&r);
	CU_ASSERT_FATAL(p != NULL);
	for (;;) {
		c = chunk_prefetch_next(p);
		rc = c->rc;
		if (rc == 1) {
			int k = -2;

			CU_ASSERT_EQUAL(c->chunk.type, TRACE_CHUNK_META);
			CU_ASSERT(sscanf((const char *)c->chunk.data, "n=%d", &k) == 1);
			CU_ASSERT_EQUAL(c->chunk.bytes, strlen("n=\n") + (k >= 10 ? 2 : 1) + (size_t)k);
			got[(*n)++] = k;
		} else if (rc < 0 && rc != -EIO && rc != -ENOMEM) {
			CU_ASSERT(c->error[0] != '\0');
			got[(*n)++] = -1;
		} else {
			break;
		}
		if (*n == stop_after)
			break;
	}
	if (rc == 0 || rc == -EIO) /* the last result is given again */
		CU_ASSERT_EQUAL(chunk_prefetch_next(p)->rc, rc);
	chunk_prefetch_stop(p);
	trace_reader_close(&r);
	return rc;
}

static void test_prefetch_gives_every_chunk_in_order(void)
{
	uint64_t offsets[PREFETCH_CHUNKS];
	int got[PREFETCH_CHUNKS + 4], n;

	write_numbered_trace(offsets);
	CU_ASSERT_EQUAL(prefetch_all(got, &n, -1), 0);
	CU_ASSERT_EQUAL_FATAL(n, PREFETCH_CHUNKS);
	for (int i = 0; i < PREFETCH_CHUNKS; i++)
		CU_ASSERT_EQUAL(got[i], i);
	unlink(trace_path);
}

static void test_prefetch_skips_a_corrupt_chunk_and_goes_on(void)
{
	uint64_t offsets[PREFETCH_CHUNKS];
	int got[PREFETCH_CHUNKS + 4], n;
	FILE *f;

	write_numbered_trace(offsets);
	/* a payload byte of chunk 9: its CRC fails, its header is fine */
	f = fopen(trace_path, "r+b");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fseek(f, (long)offsets[9] + TRACE_CHUNK_HEADER_BYTES + 2, SEEK_SET) == 0);
	fputc(0x55, f);
	fclose(f);
	CU_ASSERT_EQUAL(prefetch_all(got, &n, -1), 0);
	CU_ASSERT_EQUAL_FATAL(n, PREFETCH_CHUNKS);
	for (int i = 0; i < PREFETCH_CHUNKS; i++)
		CU_ASSERT_EQUAL(got[i], i == 9 ? -1 : i);
	unlink(trace_path);
}

static void test_prefetch_truncated_and_stopped_early(void)
{
	uint64_t offsets[PREFETCH_CHUNKS];
	int got[PREFETCH_CHUNKS + 4], n;

	write_numbered_trace(offsets);
	/* the file ends inside chunk 15 */
	CU_ASSERT_FATAL(truncate(trace_path, (off_t)offsets[15] + 10) == 0);
	CU_ASSERT_EQUAL(prefetch_all(got, &n, -1), -EIO);
	CU_ASSERT_EQUAL(n, 15);
	CU_ASSERT_EQUAL(got[14], 14);
	/* the caller stops after 2 chunks while the thread reads ahead */
	prefetch_all(got, &n, 2);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(got[1], 1);
	unlink(trace_path);
}

/* Payload i of test_prefetch_taken_payloads_stay_whole in text (room for
 * 64 + PREFETCH_TAKE_LONG bytes): "n=I" and a run of one letter, short for
 * even i (stored as it is), long for odd i (deflated).  Returns its length. */
#define PREFETCH_TAKE_LONG 70000
static size_t take_payload(char *text, int i)
{
	int n = snprintf(text, 16, "n=%d\n", i);
	size_t len = (size_t)n + (i % 2 ? PREFETCH_TAKE_LONG - (size_t)i : (size_t)i + 1);

	memset(text + n, 'a' + i, len - (size_t)n);
	return len;
}

/* Payload buffers taken from the prefetcher (chunk_prefetch_take) are the
 * caller's: every one kept stays whole while the thread reads on, whether
 * its chunk was stored (short) or inflated (long); buffers given back
 * (chunk_prefetch_give) come round again for later chunks. */
static void test_prefetch_taken_payloads_stay_whole(void)
{
	enum { CHUNKS = 19 };
	static char text[PREFETCH_TAKE_LONG + 64];
	uint8_t *taken[CHUNKS] = {0}, *given[CHUNKS] = {0};
	size_t bytes[CHUNKS] = {0};
	struct trace_writer w;
	struct trace_reader r;
	struct chunk_prefetch *p;
	const struct prefetched_chunk *c;
	int fd, whole = 0, reused = 0;

	fd = trace_create(&w, "take");
	for (int i = 0; i < CHUNKS; i++)
		CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_META, text, take_payload(text, i)) == 0);
	trace_writer_finish(&w);
	close(fd);
	CU_ASSERT_FATAL(trace_reader_open(&r, trace_path) == 0);
	p = chunk_prefetch_start(&r);
	CU_ASSERT_FATAL(p != NULL);
	for (int i = 0; (c = chunk_prefetch_next(p))->rc == 1 && i < CHUNKS; i++) {
		const void *data = c->chunk.data;
		size_t cap = 0, len = take_payload(text, i);
		uint8_t *b;

		CU_ASSERT_PTR_NULL(chunk_prefetch_take(p, (const uint8_t *)data + 1, &cap));
		bytes[i] = c->chunk.bytes;
		b = chunk_prefetch_take(p, data, &cap);
		CU_ASSERT_PTR_EQUAL(b, data);
		CU_ASSERT(cap >= bytes[i]);
		CU_ASSERT_PTR_NULL(c->chunk.data);
		CU_ASSERT_PTR_NULL(chunk_prefetch_take(p, data, &cap)); /* once */
		for (int k = 0; k < i; k++)
			reused += b == given[k];
		if (i % 3 == 0) {
			/* checked now, then given back for the chunks to come */
			whole += b && bytes[i] == len && memcmp(b, text, len) == 0;
			given[i] = b;
			chunk_prefetch_give(p, b, cap);
		} else {
			taken[i] = b;
		}
	}
	CU_ASSERT_EQUAL(c->rc, 0);
	chunk_prefetch_stop(p);
	trace_reader_close(&r);
	for (int i = 0; i < CHUNKS; i++) {
		size_t len = take_payload(text, i);

		if (i % 3 == 0)
			continue;
		whole += taken[i] && bytes[i] == len && memcmp(taken[i], text, len) == 0;
		free(taken[i]);
	}
	CU_ASSERT_EQUAL(whole, CHUNKS);
	CU_ASSERT(reused > 0);
	chunk_prefetch_give(NULL, malloc(16), 16); /* no prefetcher: freed */
	unlink(trace_path);
}

static void test_not_a_trace_is_an_error(void)
{
	struct read_result res;
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s.not", trace_path);
	f = fopen(path, "wb");
	CU_ASSERT_FATAL(f != NULL);
	fputs("hello, this is not a trace file at all, not even close to one....", f);
	fclose(f);
	read_trace(&res, path);
	CU_ASSERT_TRUE(res.rc < 0);
	read_free(&res);
	unlink(path);
	read_trace(&res, "/nonexistent/mprof.trace");
	CU_ASSERT_TRUE(res.rc < 0);
	read_free(&res);
}

/* ---- sites ---- */

static void test_alloc_wrappers_are_recognized(void)
{
	const char *extra[] = {"my_alloc", "pool_*"};
	struct site_options opt = {extra, 2, false};

	CU_ASSERT_TRUE(site_is_alloc_wrapper("operator new(unsigned long)", NULL));
	CU_ASSERT_TRUE(site_is_alloc_wrapper("operator new[](unsigned long, std::nothrow_t const&)",
					     NULL));
	CU_ASSERT_TRUE(site_is_alloc_wrapper(
		"std::allocator_traits<std::allocator<int> >::allocate(std::allocator<int>&, "
		"unsigned long)", NULL));
	CU_ASSERT_TRUE(site_is_alloc_wrapper("__gnu_cxx::new_allocator<char>::allocate(unsigned "
					     "long, void const*)", NULL));
	CU_ASSERT_TRUE(site_is_alloc_wrapper("strdup", NULL));
	CU_ASSERT_TRUE(site_is_alloc_wrapper("xmalloc", NULL));
	CU_ASSERT_TRUE(site_is_alloc_wrapper("g_malloc0", NULL));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("strdup_all", NULL));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("main", NULL));
	CU_ASSERT_FALSE(site_is_alloc_wrapper(NULL, NULL));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("operator delete(void*)", NULL));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("my_alloc", NULL));
	CU_ASSERT_TRUE(site_is_alloc_wrapper("my_alloc", &opt));
	CU_ASSERT_TRUE(site_is_alloc_wrapper("my_alloc(int)", &opt));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("my_allocator", &opt));
	CU_ASSERT_TRUE(site_is_alloc_wrapper("pool_get", &opt));
}

static void test_library_wrappers_skipped_unless_kept(void)
{
	const char *extra[] = {"my_alloc"};
	struct site_options keep = {extra, 1, true};
	/* Rust's layers as both manglings demangle them, and the entry points */
	static const char *const rust[] = {
		"alloc::alloc::alloc", "alloc::alloc::Global::alloc_impl",
		"<alloc::alloc::Global as core::alloc::Allocator>::allocate",
		"alloc::raw_vec::RawVec<T,A>::allocate_in", "<alloc::raw_vec::RawVec<u8>>::grow_amortized",
		"alloc::raw_vec::finish_grow", "__rust_alloc", "__rdl_realloc", "__rustc::__rust_alloc",
		"<std::alloc::System as core::alloc::global::GlobalAlloc>::alloc",
		"std::sys::unix::alloc::<impl core::alloc::global::GlobalAlloc for std::alloc::System>::alloc",
	};
	static const char *const others[] = {
		"g_try_malloc_n", "g_slice_alloc0", "xmemdup", "x2nrealloc", "sqlite3Malloc",
		"sqlite3DbMallocRawNN", "sqlite3_malloc64", "PyMem_RawMalloc", "_PyObject_Malloc",
		"CRYPTO_zalloc", "Perl_safesysmalloc", "ruby_xmalloc2", "luaM_malloc_",
	};

	for (size_t i = 0; i < sizeof(rust) / sizeof(rust[0]); i++) {
		CU_ASSERT_TRUE(site_is_alloc_wrapper(rust[i], NULL));
		CU_ASSERT_FALSE(site_is_alloc_wrapper(rust[i], &keep));
	}
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		CU_ASSERT_TRUE(site_is_alloc_wrapper(others[i], NULL));
		CU_ASSERT_FALSE(site_is_alloc_wrapper(others[i], &keep));
	}
	/* containers and the callers of wrappers are sites */
	CU_ASSERT_FALSE(site_is_alloc_wrapper("<alloc::vec::Vec<u8>>::with_capacity", NULL));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("alloc::vec::Vec<T,A>::push", NULL));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("sqlite3VdbeMemGrow", NULL));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("PyMem_RawFree", NULL));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("alloc_buffer", NULL));
	/* --keep-wrappers keeps the built-in list only: --alloc-fn still counts */
	CU_ASSERT_TRUE(site_is_alloc_wrapper("my_alloc", &keep));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("g_malloc", &keep));
	CU_ASSERT_FALSE(site_is_alloc_wrapper("operator new(unsigned long)", &keep));
}

static void test_sites_merge_stacks_and_sum(void)
{
	struct read_result res;
	struct symbolizer *sym;
	struct site_table t;

	write_trace();
	read_trace(&res, trace_path);
	CU_ASSERT_EQUAL_FATAL(res.rc, 0);
	sym = symbolizer_new(&res.maps);
	CU_ASSERT_FATAL(sym != NULL);
	CU_ASSERT_EQUAL_FATAL(site_table_build(&t, &res.agg, &res.nodes, sym, NULL, NULL), 0);
	CU_ASSERT_EQUAL(t.count, 1);
	CU_ASSERT_EQUAL(t.stacks, 1);
	CU_ASSERT_EQUAL(t.sites[0].id, 1);
	CU_ASSERT_EQUAL(site_st(&t.sites[0]).allocations, 21);
	CU_ASSERT_EQUAL(site_st(&t.sites[0]).live_bytes, 4444);
	CU_ASSERT_EQUAL(t.sites[0].frame_count, 1);
	CU_ASSERT_EQUAL(t.frames_total, 1);
	site_table_free(&t);
	symbolizer_free(sym);
	read_free(&res);
	unlink(trace_path);
}

/* The site whose first frame is at module offset leaf (frames without a
 * module or symbol keep their address), or NULL. */
static const struct site *site_with_leaf(const struct site_table *t, uint64_t leaf)
{
	for (size_t k = 0; k < t->count; k++) {
		const struct site *s = &t->sites[k];

		if (s->frame_count && t->frames[frame_id_at(t, s, 0)].module_offset == leaf)
			return s;
	}
	return NULL;
}

/* Stack nodes keep each distinct ip once: nodes read back their own ip and
 * parent through the hash's growths, a node defined again takes its new
 * ones, and ids never defined are not found. */
static void test_stack_nodes_share_distinct_ips(void)
{
	enum { N = 5000, IPS = 700 };
	struct stack_nodes nodes;
	struct stack_node node = {0, 0};

	stack_nodes_init(&nodes);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 1, 0, 2 * 3 + 1), 0); /* root, epoch 3 */
	for (uint64_t id = 2; id < N; id++)
		CU_ASSERT_EQUAL(stack_nodes_add(&nodes, id, id - 1, 0x400000 + 16 * (id % IPS)), 0);
	/* the root's ip is one more distinct value */
	CU_ASSERT_EQUAL(nodes.ip_count, IPS + 1);
	for (uint64_t id = 2; id < N; id++) {
		CU_ASSERT_FATAL(stack_nodes_get(&nodes, id, &node));
		CU_ASSERT_EQUAL(node.ip, 0x400000 + 16 * (id % IPS));
		CU_ASSERT_EQUAL(node.parent, id - 1);
	}
	CU_ASSERT(stack_nodes_get(&nodes, 1, &node) && node.ip == 7 && node.parent == 0);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 10, 1, 0xdead0), 0);
	CU_ASSERT(stack_nodes_get(&nodes, 10, &node) && node.ip == 0xdead0 && node.parent == 1);
	CU_ASSERT(stack_nodes_get(&nodes, 11, &node) && node.ip == 0x400000 + 16 * 11);
	CU_ASSERT_EQUAL(nodes.ip_count, IPS + 2);
	CU_ASSERT_FALSE(stack_nodes_get(&nodes, N, &node));
	CU_ASSERT_FALSE(stack_nodes_get(&nodes, 0, &node));
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, STACK_NODES_MAX_ID + 1, 1, 1), -EINVAL);
	stack_nodes_free(&nodes);
}

/* Stacks deeper than SITES_MAX_DEPTH (never written by mprof): the first
 * SITES_MAX_CAPPED_STACKS keep their leaf side, later ones are unknown
 * without a walk of their chains; a stack of normal depth is unharmed. */
static void test_sites_too_deep_stacks_bounded(void)
{
	const size_t extra = 100, deep = SITES_MAX_DEPTH + 1 + SITES_MAX_CAPPED_STACKS + extra;
	struct stack_nodes nodes;
	struct module_maps maps;
	struct symbolizer *sym;
	struct site_table t;
	uint64_t seq = 1, addr = 0x10000;

	stack_nodes_init(&nodes);
	module_maps_init(&maps);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 1, 0, 0), 0); /* root, epoch 0 */
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 2, 1, 0x1000), 0);
	for (size_t i = 0; i < deep; i++) /* a chain from node 100 */
		CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 100 + i, i ? 99 + i : 1,
						0x100000 + 16 * i), 0);
	agg_setup();
	/* an allocation at each of the deepest nodes, the deepest first, and
	 * one at node 2 */
	for (size_t i = 0; i < SITES_MAX_CAPPED_STACKS + extra; i++, addr += 64)
		feed_alloc(seq++, addr, 16, 99 + deep - i, 1);
	feed_alloc(seq++, addr, 32, 2, 1);
	aggregate_finish(&agg);
	sym = symbolizer_new(&maps);
	CU_ASSERT_FATAL(sym != NULL);
	CU_ASSERT_EQUAL_FATAL(site_table_build(&t, &agg, &nodes, sym, NULL, NULL), 0);
	CU_ASSERT_EQUAL(t.stacks, SITES_MAX_CAPPED_STACKS + extra + 1);
	CU_ASSERT_EQUAL(t.truncated_stacks, SITES_MAX_CAPPED_STACKS);
	CU_ASSERT_EQUAL(t.unknown_stacks, extra);
	CU_ASSERT_PTR_NOT_NULL(site_with_leaf(&t, 0x1000));
	site_table_free(&t);
	symbolizer_free(sym);
	aggregate_free(&agg);
	module_maps_free(&maps);
	stack_nodes_free(&nodes);
}

/* Stacks that share their root side, two stack nodes paths with the same
 * addresses, an interior node as a stack of its own, a chain longer than
 * SITES_MAX_DEPTH and a chain through an undefined node: the sites built
 * from the trie of frame sequences (each stack node walked once) are the
 * stacks' frames exactly. */
static void test_sites_from_shared_stacks(void)
{
	const uint64_t deep_first = 0x100000;
	const size_t deep = SITES_MAX_DEPTH + 476;
	struct stack_nodes nodes;
	struct module_maps maps;
	struct symbolizer *sym;
	struct site_table t;
	const struct site *s;
	uint64_t seq = 1, addr = 0x10000;

	stack_nodes_init(&nodes);
	module_maps_init(&maps);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 1, 0, 0), 0); /* root, epoch 0 */
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 2, 1, 0x1000), 0);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 3, 2, 0x2000), 0);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 4, 3, 0x3000), 0); /* A: 3000 2000 1000 */
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 5, 3, 0x4000), 0); /* B: 4000 2000 1000 */
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 6, 1, 0x1000), 0); /* C: A's addresses */
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 7, 6, 0x2000), 0);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 8, 7, 0x3000), 0);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 9, 500000, 0x5000), 0); /* parent undefined */
	for (size_t i = 0; i < deep; i++) /* D: 100..., the root at 1 */
		CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 100 + i, i ? 99 + i : 1,
						deep_first + 16 * i), 0);
	agg_setup();
	/* B first, then A, C (merged with A), the interior node 3, D's node
	 * 600 (walked first: D's walk stops there, within SITES_MAX_DEPTH, but
	 * D is longer), D, 9 */
	const uint32_t leaves[] = {5, 4, 8, 3, 699, (uint32_t)(99 + deep), 9, 4};
	for (size_t i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++, addr += 64)
		feed_alloc(seq++, addr, 100 + i, leaves[i], 1);
	aggregate_finish(&agg);
	sym = symbolizer_new(&maps);
	CU_ASSERT_FATAL(sym != NULL);
	CU_ASSERT_EQUAL_FATAL(site_table_build(&t, &agg, &nodes, sym, NULL, NULL), 0);
	CU_ASSERT_EQUAL(t.stacks, 7);
	CU_ASSERT_EQUAL(t.truncated_stacks, 1);
	CU_ASSERT_EQUAL(t.unknown_stacks, 1);
	CU_ASSERT_EQUAL(t.count, 6); /* A and C one site */
	/* 0x1000-0x4000 and D's, all walked by node 600 or by D's leaf side */
	CU_ASSERT_EQUAL(t.frames_total, 4 + deep);

	s = site_with_leaf(&t, 0x3000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->frame_count, 3);
	CU_ASSERT_EQUAL(s->stack_count, 2);
	CU_ASSERT_EQUAL(site_st(s).allocations, 3);
	CU_ASSERT_EQUAL(site_st(s).allocated_bytes, 101 + 102 + 107);
	CU_ASSERT_EQUAL(t.frames[frame_id_at(&t, s, 1)].module_offset, 0x2000);
	CU_ASSERT_EQUAL(t.frames[frame_id_at(&t, s, 2)].module_offset, 0x1000);
	CU_ASSERT_FALSE(s->truncated);

	s = site_with_leaf(&t, 0x4000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->frame_count, 3);
	CU_ASSERT_EQUAL(site_st(s).allocated_bytes, 100);
	CU_ASSERT_EQUAL(t.frames[frame_id_at(&t, s, 1)].module_offset, 0x2000);

	s = site_with_leaf(&t, 0x2000); /* node 3's own stack */
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->frame_count, 2);
	CU_ASSERT_EQUAL(site_st(s).allocated_bytes, 103);

	s = site_with_leaf(&t, deep_first + 16 * 599);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->frame_count, 600);
	CU_ASSERT_FALSE(s->truncated);
	CU_ASSERT_EQUAL(t.frames[frame_id_at(&t, s, 599)].module_offset, deep_first);

	s = site_with_leaf(&t, deep_first + 16 * (deep - 1));
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->frame_count, SITES_MAX_DEPTH); /* the leaf side */
	CU_ASSERT_TRUE(s->truncated);
	CU_ASSERT_EQUAL(t.frames[frame_id_at(&t, s, SITES_MAX_DEPTH - 1)].module_offset,
			deep_first + 16 * (deep - SITES_MAX_DEPTH));

	s = NULL;
	for (size_t k = 0; k < t.count; k++)
		if (t.sites[k].unknown_stack)
			s = &t.sites[k];
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->frame_count, 0);
	CU_ASSERT_EQUAL(site_st(s).allocated_bytes, 106);

	site_table_free(&t);
	symbolizer_free(sym);
	aggregate_free(&agg);
	module_maps_free(&maps);
	stack_nodes_free(&nodes);
}

/* The longest chain of nodes below a root (stack_nodes_chain_max), which
 * says whether the sites' build keeps its memo in the nodes: a chain that
 * ends at an undefined node counts, one past the limit or a cycle is the
 * limit + 1, and an added node makes it be counted again; a node given
 * over (stack_nodes_take) gives back its two words. */
static void test_stack_nodes_chain_max(void)
{
	struct stack_nodes nodes;
	uint32_t a = 0, b = 0;

	stack_nodes_init(&nodes);
	CU_ASSERT_EQUAL(stack_nodes_chain_max(&nodes, 10), 0);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 1, 0, 0), 0); /* root */
	for (uint64_t id = 2; id <= 11; id++) /* 10 nodes below it */
		CU_ASSERT_EQUAL(stack_nodes_add(&nodes, id, id - 1, 0x1000 + id), 0);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 20, 12, 0x20), 0); /* 12 undefined */
	CU_ASSERT_EQUAL(stack_nodes_chain_max(&nodes, 10), 10);
	CU_ASSERT_EQUAL(stack_nodes_chain_max(&nodes, 9), 10); /* past 9 */
	CU_ASSERT_EQUAL(stack_nodes_chain_max(&nodes, 100), 10);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 12, 11, 0x12), 0); /* 12 defined: 11 */
	CU_ASSERT_EQUAL(stack_nodes_chain_max(&nodes, 100), 12);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 30, 31, 0x30), 0); /* a cycle of two */
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 31, 30, 0x31), 0);
	CU_ASSERT_EQUAL(stack_nodes_chain_max(&nodes, 100), 101);
	CU_ASSERT_FALSE(stack_nodes_taken(&nodes, 5, &a, &b));
	stack_nodes_take(&nodes, 5, STACK_NODES_TAKEN - 1, UINT32_MAX);
	CU_ASSERT_TRUE(stack_nodes_taken(&nodes, 5, &a, &b));
	CU_ASSERT_EQUAL(a, STACK_NODES_TAKEN - 1);
	CU_ASSERT_EQUAL(b, UINT32_MAX);
	CU_ASSERT_FALSE(stack_nodes_taken(&nodes, 6, &a, &b));
	CU_ASSERT_FALSE(stack_nodes_taken(&nodes, 0, &a, &b));
	CU_ASSERT_FALSE(stack_nodes_taken(&nodes, 1000, &a, &b));
	stack_nodes_free(&nodes);
}

/* A chain of SITES_MAX_DEPTH nodes, the deepest the memo in the nodes'
 * entries allows, and one of SITES_MAX_DEPTH + 1, whose build keeps its
 * memo apart: in both, a stack through half of the chain walked first
 * gives its nodes their memo, and the whole chain's stack then walks from
 * there (its frames all, not truncated) or keeps its leaf side. */
static void test_sites_memo_in_nodes_at_the_depth_limit(void)
{
	const uint64_t first = 0x100000;

	for (size_t deep = SITES_MAX_DEPTH; deep <= SITES_MAX_DEPTH + 1; deep++) {
		struct stack_nodes nodes;
		struct module_maps maps;
		struct symbolizer *sym;
		struct site_table t;
		const struct site *s;

		stack_nodes_init(&nodes);
		module_maps_init(&maps);
		CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 1, 0, 0), 0); /* root, epoch 0 */
		for (size_t i = 0; i < deep; i++) /* 100..., the root at 1 */
			CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 100 + i, i ? 99 + i : 1,
							first + 16 * i), 0);
		CU_ASSERT_EQUAL(stack_nodes_chain_max(&nodes, SITES_MAX_DEPTH),
				deep);
		agg_setup();
		feed_alloc(1, 0x10000, 10, 99 + 500, 1);  /* half the chain first */
		feed_alloc(2, 0x10040, 20, 99 + deep, 1); /* the whole chain */
		aggregate_finish(&agg);
		sym = symbolizer_new(&maps);
		CU_ASSERT_FATAL(sym != NULL);
		CU_ASSERT_EQUAL_FATAL(site_table_build(&t, &agg, &nodes, sym, NULL, NULL), 0);
		CU_ASSERT_EQUAL(t.stacks, 2);
		CU_ASSERT_EQUAL(t.unknown_stacks, 0);
		CU_ASSERT_EQUAL(t.truncated_stacks, deep > SITES_MAX_DEPTH);
		CU_ASSERT_EQUAL(t.count, 2);
		s = site_with_leaf(&t, first + 16 * 499);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(s->frame_count, 500);
		CU_ASSERT_EQUAL(t.frames[frame_id_at(&t, s, 499)].module_offset, first);
		s = site_with_leaf(&t, first + 16 * (deep - 1));
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(s->frame_count, SITES_MAX_DEPTH);
		CU_ASSERT_EQUAL(s->truncated, deep > SITES_MAX_DEPTH);
		CU_ASSERT_EQUAL(site_st(s).allocated_bytes, 20);
		CU_ASSERT_EQUAL(t.frames[frame_id_at(&t, s, 0)].module_offset,
				first + 16 * (deep - 1));
		CU_ASSERT_EQUAL(t.frames[frame_id_at(&t, s, SITES_MAX_DEPTH - 1)].module_offset,
				first + 16 * (deep - SITES_MAX_DEPTH));
		site_table_free(&t);
		symbolizer_free(sym);
		aggregate_free(&agg);
		module_maps_free(&maps);
		stack_nodes_free(&nodes);
	}
}

/* The sites of n_sites stacks of depth frames each (stack i's frames at
 * 0x1000 * (i + 1) + 16 * j, j = 0 leaf side) with one allocation each of
 * i + 1 bytes, or (i % size_mod) + 1 with size_mod not 0, built with spare
 * memory of spare_bytes (0: none) holding old contents; t is then the
 * caller's to check and free. */
static void sites_sized(struct site_table *t, size_t n_sites, size_t depth, size_t spare_bytes,
			size_t size_mod)
{
	struct stack_nodes nodes;
	struct module_maps maps;
	struct symbolizer *sym;
	struct huge_spare spare = {0};
	uint32_t id = 2;

	stack_nodes_init(&nodes);
	module_maps_init(&maps);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 1, 0, 0), 0);
	agg_setup();
	for (size_t i = 0; i < n_sites; i++) {
		uint32_t parent = 1;

		for (size_t j = depth; j-- > 0; parent = id++)
			CU_ASSERT_EQUAL(stack_nodes_add(&nodes, id, parent,
							0x1000 * (i + 1) + 16 * j), 0);
		feed_alloc(i + 1, 0x10000 + 64 * i, size_mod ? i % size_mod + 1 : i + 1, parent, 1);
	}
	aggregate_finish(&agg);
	if (spare_bytes) {
		spare.p = huge_array_alloc(spare_bytes, &spare.reserved);
		CU_ASSERT_FATAL(spare.p != NULL);
		/* old contents that, read as a memo, would say "walked: no
		 * frames" (8-byte entries beginning with a 1) */
		for (size_t k = 0; k < spare_bytes / 4; k++)
			((uint32_t *)spare.p)[k] = k % 2 == 0;
		spare.bytes = spare_bytes;
		site_spare_fit(&spare, &agg, &nodes);
	}
	sym = symbolizer_new(&maps);
	CU_ASSERT_FATAL(sym != NULL);
	CU_ASSERT_EQUAL_FATAL(site_table_build(t, &agg, &nodes, sym, NULL, &spare), 0);
	CU_ASSERT_PTR_NULL(spare.p); /* taken over */
	symbolizer_free(sym); /* (the checks read no strings) */
	module_maps_free(&maps);
	stack_nodes_free(&nodes);
	/* agg stays (the caller frees it) */
}

static void sites_with_spare(struct site_table *t, size_t n_sites, size_t depth,
			     size_t spare_bytes)
{
	sites_sized(t, n_sites, depth, spare_bytes, 0);
}

/* Whether site table t holds exactly the sites sites_with_spare made. */
static bool sites_are_the_stacks(const struct site_table *t, size_t n_sites, size_t depth)
{
	if (t->count != n_sites)
		return false;
	for (size_t k = 0; k < t->count; k++) {
		const struct site *s = &t->sites[k];
		size_t i = n_sites - 1 - k; /* by allocated bytes, the largest first */

		if (s->id != k + 1 || site_st(s).allocated_bytes != i + 1 || s->frame_count != depth)
			return false;
		for (size_t j = 0; j < depth; j++)
			if (t->frames[frame_id_at(t, s, j)].module_offset !=
			    0x1000 * (i + 1) + 16 * j)
				return false;
	}
	return true;
}

/* The sites and the memo are made in the block table's
 * memory (aggregate_release_blocks) when it has room, whatever it holds,
 * and on the heap when it has not; the sites are the same. */
static void test_sites_built_in_spare_memory(void)
{
	struct site_table t;

	/* room for everything: 300 sites of 3 frames in 1 MiB */
	sites_with_spare(&t, 300, 3, (size_t)1 << 20);
	CU_ASSERT_TRUE(t.sites_in_spare);
	CU_ASSERT_PTR_NOT_NULL(t.spare.p);
	CU_ASSERT_TRUE(t.spare.bytes < (size_t)1 << 20); /* the rest unmapped */
	CU_ASSERT_TRUE(sites_are_the_stacks(&t, 300, 3));
	site_table_free(&t);
	aggregate_free(&agg);
	/* deep sites (100 frames a site) */
	sites_with_spare(&t, 40, 100, (size_t)1 << 20);
	CU_ASSERT_TRUE(t.sites_in_spare);
	CU_ASSERT_TRUE(sites_are_the_stacks(&t, 40, 100));
	site_table_free(&t);
	aggregate_free(&agg);
	/* no room for the sites: the spare is freed, everything on the heap */
	sites_with_spare(&t, 300, 3, 4096);
	CU_ASSERT_FALSE(t.sites_in_spare);
	CU_ASSERT_PTR_NULL(t.spare.p);
	CU_ASSERT_TRUE(sites_are_the_stacks(&t, 300, 3));
	site_table_free(&t);
	aggregate_free(&agg);
	/* and without any */
	sites_with_spare(&t, 300, 3, 0);
	CU_ASSERT_FALSE(t.sites_in_spare);
	CU_ASSERT_TRUE(sites_are_the_stacks(&t, 300, 3));
	site_table_free(&t);
	aggregate_free(&agg);
}

/*
 * 140,000 sites of 3 frames, their sizes 1 to 5 bytes: every table of the
 * build is large enough to be mapped on huge pages (the trie, its hash,
 * the memo, the sites, the sort's scratch, the packed statistics), and the
 * sites come sorted by allocated bytes, the largest first, then in the
 * order they were made (their stacks' first allocations), with their own
 * frames.
 */
static void test_sites_many_sorted_with_ties(void)
{
	const size_t n = 140000, depth = 3, mod = 5;
	struct site_table t;
	size_t bad_order = 0, bad_frames = 0, prev = 0;

	sites_sized(&t, n, depth, 0, mod);
	CU_ASSERT_EQUAL_FATAL(t.count, n);
	CU_ASSERT_EQUAL(t.stacks, n);
	CU_ASSERT_TRUE(t.sites_reserved > 0); /* (mapped: 4.5 MB) */
	for (size_t k = 0; k < t.count; k++) {
		const struct site *s = &t.sites[k];
		size_t i = t.frames[frame_id_at(&t, s, 0)].module_offset / 0x1000 - 1;

		if (s->id != k + 1 || s->frame_count != depth || site_st(s).allocated_bytes != i % mod + 1)
			bad_frames++;
		for (size_t j = 0; j < depth; j++)
			if (t.frames[frame_id_at(&t, s, j)].module_offset != 0x1000 * (i + 1) + 16 * j)
				bad_frames++;
		/* by bytes (mod - i % mod), then by creation order (i) */
		if (k && !(prev % mod > i % mod || (prev % mod == i % mod && prev < i)))
			bad_order++;
		prev = i;
	}
	CU_ASSERT_EQUAL(bad_frames, 0);
	CU_ASSERT_EQUAL(bad_order, 0);
	site_table_free(&t);
	aggregate_free(&agg);
}

/*
 * Two copies of 30,000 stacks of 3 frames, the second one's stack nodes
 * made after all of the first's (ids past 90,000, beyond what the trie's
 * hash slots first hold of a node id): each pair of stacks with the same
 * addresses is one site, made of both.
 */
static void test_sites_merge_copies_with_high_node_ids(void)
{
	const size_t n = 30000, depth = 3;
	struct stack_nodes nodes;
	struct module_maps maps;
	struct symbolizer *sym;
	struct site_table t;
	uint32_t id = 2;
	size_t bad = 0;

	stack_nodes_init(&nodes);
	module_maps_init(&maps);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 1, 0, 0), 0);
	agg_setup();
	for (size_t copy = 0; copy < 2; copy++)
		for (size_t i = 0; i < n; i++) {
			uint32_t parent = 1;

			for (size_t j = depth; j-- > 0; parent = id++)
				CU_ASSERT_EQUAL(stack_nodes_add(&nodes, id, parent,
								0x1000 * (i + 1) + 16 * j), 0);
			feed_alloc(copy * n + i + 1, 0x10000 + 64 * (copy * n + i), i + 1, parent, 1);
		}
	aggregate_finish(&agg);
	sym = symbolizer_new(&maps);
	CU_ASSERT_FATAL(sym != NULL);
	CU_ASSERT_EQUAL_FATAL(site_table_build(&t, &agg, &nodes, sym, NULL, NULL), 0);
	CU_ASSERT_EQUAL(t.stacks, 2 * n);
	CU_ASSERT_EQUAL(t.count, n);
	for (size_t k = 0; k < t.count; k++)
		if (t.sites[k].stack_count != 2 || site_st(&t.sites[k]).allocations != 2 ||
		    site_st(&t.sites[k]).allocated_bytes != 2 * (n - k) || t.sites[k].frame_count != depth)
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
	site_table_free(&t);
	symbolizer_free(sym);
	aggregate_free(&agg);
	module_maps_free(&maps);
	stack_nodes_free(&nodes);
}

/* The site ids of each ranking section of a text report, in order: ids[k]
 * gets those of the k-th section, counts[k] how many. */
#define RANK_SECTIONS 5
#define RANK_SITES 1000
static void ranked_site_ids(const char *text, uint32_t ids[][RANK_SITES], size_t *counts)
{
	int section = -1;

	memset(counts, 0, RANK_SECTIONS * sizeof(*counts));
	for (const char *line = text; line && *line;) {
		const char *next = strchr(line, '\n');
		unsigned rank, id;

		if (strncmp(line, "== ", 3) == 0)
			section++;
		else if (section >= 0 && section < RANK_SECTIONS &&
			 sscanf(line, "#%u  site %u:", &rank, &id) == 2 &&
			 counts[section] < RANK_SITES)
			ids[section][counts[section]++] = id;
		line = next ? next + 1 : NULL;
	}
}

static char *text_report(const struct profile *p, size_t top_n)
{
	struct output_options o = {.top_n = top_n};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(output_text.write(f, p, &o) == 0);
	fclose(f);
	return text;
}

/*
 * The rankings print the first N sites by their value (ties by id).  A
 * short list is picked in one pass, a long one by sorting them all: the
 * short list must be exactly the front of the long one, on values with many
 * ties and zeros (which a ranking leaves out), with ids out of the order in
 * which the sites are listed.
 */
static void test_rankings_top_n_is_the_front_of_the_full_order(void)
{
	enum { SHORT = 7 };
	static uint32_t short_ids[RANK_SECTIONS][RANK_SITES], full_ids[RANK_SECTIONS][RANK_SITES];
	size_t short_counts[RANK_SECTIONS], full_counts[RANK_SECTIONS];
	struct profile p;
	struct site_table t;
	char *text;

	memset(&p, 0, sizeof(p));
	trace_info_init(&p.info);
	memset(&t, 0, sizeof(t));
	t.sites = calloc(RANK_SITES, sizeof(*t.sites));
	CU_ASSERT_FATAL(t.sites != NULL);
	t.count = t.cap = RANK_SITES;
	for (uint32_t i = 0; i < RANK_SITES; i++) {
		struct site *s = &t.sites[i];
		struct alloc_stats st;

		s->id = (i * 7919u) % RANK_SITES + 1; /* not in index order, so
		                                      * that ties test rank_cmp's id rule */
		s->unknown_stack = true;
		alloc_stats_init(&st);
		st.peak_bytes = (i * 7919u) % 97u;
		st.live_bytes = (i * 31u) % 13u;
		st.allocated_bytes = 1000000u - i * 3u + (i % 5u);
		st.allocations = (i * 17u) % 41u;
		st.temporary = i % 3u ? 0 : (i * 13u) % 29u;
		CU_ASSERT_EQUAL_FATAL(site_stats_store(&t, s, &st), 0);
	}
	p.sites = t;
	text = text_report(&p, SHORT);
	ranked_site_ids(text, short_ids, short_counts);
	free(text);
	text = text_report(&p, RANK_SITES);
	ranked_site_ids(text, full_ids, full_counts);
	free(text);
	for (int k = 0; k < RANK_SECTIONS; k++) {
		CU_ASSERT_EQUAL(short_counts[k], SHORT);
		CU_ASSERT(full_counts[k] > 4 * SHORT);
		CU_ASSERT_EQUAL(memcmp(short_ids[k], full_ids[k], SHORT * sizeof(uint32_t)), 0);
	}
	free(t.sites);
	site_stats_pool_free(&t.stats_pool);
	trace_info_free(&p.info);
}

/*
 * A corrupt sequence number at the top of the range (UINT64_MAX) followed by
 * a TIME stamp once made the merge loop forever: the stamp's order key
 * wrapped and no gap skip could make it ready.  Such a number is refused
 * (the chunk counts as lost) and the read ends.
 */
static void test_impossible_sequence_number_is_refused(void)
{
	struct trace_writer w;
	struct slot_writer s0 = {0};
	const char meta[] = "pid=78\n";
	struct read_result res;
	uint8_t *p;
	int fd;

	fd = trace_create(&w, "aggregate-seq");
	CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_META, meta, sizeof(meta) - 1) == 0);
	p = record_put_thread(s0.buf, &s0.st, 11);
	p = record_put_stack(p, &s0.st, 1, 0, 0);
	p = record_put_stack(p, &s0.st, 2, 1, 0x401000);
	p = record_put_alloc(p, &s0.st, TRACE_FN_MALLOC, 1, 0x10000, 10, 2, 1);
	s0.len = (size_t)(p - s0.buf);
	slot_flush(&w, &s0, 0);
	p = record_put_alloc(s0.buf, &s0.st, TRACE_FN_MALLOC, UINT64_MAX, 0x20000, 20, 2, 1);
	p = record_put_time(p, 5);
	s0.len = (size_t)(p - s0.buf);
	slot_flush(&w, &s0, 0);
	trace_writer_finish(&w);
	close(fd);
	read_trace(&res, trace_path);
	CU_ASSERT_EQUAL(res.rc, 0);
	CU_ASSERT_EQUAL(res.agg.allocations, 1);
	CU_ASSERT_EQUAL(res.agg.live_bytes, 10);
	CU_ASSERT_EQUAL(res.info.chunks_lost, 1);
	read_free(&res);
	unlink(trace_path);
}

/* One event of a weighted (sampled) recording, fed straight to the
 * aggregation. */
static void weighted_event(struct aggregate *a, int type, uint64_t seq, uint64_t addr,
			   uint64_t value, uint32_t weight, uint32_t stack)
{
	struct alloc_event e = { .seq = seq, .addr = addr, .value = value, .weight = weight,
				 .stack_id = stack, .tid = 1, .type = (uint8_t)type };

	aggregate_event(a, &e);
}

static long stat_of_stack(const struct aggregate *a, uint64_t stack_id)
{
	for (size_t i = 0; i < a->stat_count; i++)
		if (stk(a, i).stack_id == stack_id)
			return (long)i;
	return -1;
}

/* Weights other than 1 are kept per block through frees, a reused address,
 * lifetimes and a fork child's inherited blocks. */
static void test_weighted_blocks_keep_their_weight(void)
{
	struct aggregate a, c;
	long k;

	aggregate_init(&a);
	weighted_event(&a, ALLOC_EV_TIME, 0, 0, 1000, 0, 0);
	weighted_event(&a, ALLOC_EV_ALLOC, 1, 0x100, 10, 5, 1);  /* 5 x 10 bytes */
	weighted_event(&a, ALLOC_EV_ALLOC, 2, 0x200, 20, 1, 2);
	weighted_event(&a, ALLOC_EV_TIME, 2, 0, 4000, 0, 0);
	weighted_event(&a, ALLOC_EV_ALLOC, 3, 0x100, 7, 3, 2);   /* reuse: 5 x 10 dropped */
	weighted_event(&a, ALLOC_EV_ALLOC, 4, 0x300, 8, 7, 1);
	weighted_event(&a, ALLOC_EV_TIME, 4, 0, 9000, 0, 0);
	weighted_event(&a, ALLOC_EV_FREE, 5, 0x100, 0, 1, 0);    /* frees 3 x 7 */
	aggregate_finish(&a);
	CU_ASSERT_EQUAL(a.address_reused, 1);
	CU_ASSERT_EQUAL(a.live_bytes, 20 + 56);
	CU_ASSERT_EQUAL(a.live_blocks, 8);
	CU_ASSERT_EQUAL(a.blocks_freed, 3);
	k = stat_of_stack(&a, 2);
	CU_ASSERT_FATAL(k >= 0);
	CU_ASSERT_EQUAL(stk(&a, k).s.freed, 3);
	CU_ASSERT_EQUAL(stk(&a, k).s.lifetime_ns_sum, 15000);
	CU_ASSERT_EQUAL(stk(&a, k).s.lifetime_ns_max, 5000);
	CU_ASSERT_EQUAL(stk(&a, k).s.lifetime_events_sum, 6);

	/* a fork child of a at seq 5 inherits 8 blocks, 76 bytes */
	a.seq_limit = 5;
	aggregate_init(&c);
	CU_ASSERT_EQUAL_FATAL(aggregate_seed_inherited(&c, &a, a.seq_limit, a.now_ns), 0);
	CU_ASSERT_EQUAL(c.inherited_blocks, 8);
	CU_ASSERT_EQUAL(c.inherited_bytes, 76);
	weighted_event(&c, ALLOC_EV_TIME, 5, 0, 12000, 0, 0);
	weighted_event(&c, ALLOC_EV_FREE, 6, 0x300, 0, 1, 0);
	aggregate_finish(&c);
	CU_ASSERT_EQUAL(c.blocks_freed, 7);
	CU_ASSERT_EQUAL(c.live_blocks, 1);
	CU_ASSERT_EQUAL(c.live_bytes, 20);
	k = stat_of_stack(&c, AGG_STACK_INHERITED);
	CU_ASSERT_FATAL(k >= 0);
	CU_ASSERT_EQUAL(stk(&c, k).s.lifetime_ns_max, 3000);
	CU_ASSERT_EQUAL(stk(&c, k).s.lifetime_ns_sum, 21000);
	aggregate_free(&a);
	aggregate_free(&c);
}

/* Stacks keep 32-bit statistics until a figure would outgrow them, then
 * full ones with exact values: bytes past 4 GiB, a weighted block's bytes
 * past 2^32; a stack whose figures stay small keeps its small ones (a
 * lifetime past 4.29 s too: lifetimes in ns are 48-bit there), and the
 * at-peak value taken while small is kept when a stack grows later. */
static void test_stack_statistics_outgrow_32_bits_exactly(void)
{
	const uint64_t gib3 = (uint64_t)3 << 30;
	struct aggregate a;
	struct stack_stats st;

	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	weighted_event(&a, ALLOC_EV_TIME, 0, 0, 1000, 0, 0);
	weighted_event(&a, ALLOC_EV_ALLOC, 1, 0x100, 40, 1, 1);   /* stack 1: small */
	weighted_event(&a, ALLOC_EV_ALLOC, 2, 0x200, gib3, 1, 2); /* stack 2: 3 GiB, */
	weighted_event(&a, ALLOC_EV_ALLOC, 3, 0x300, gib3, 1, 2); /* 6 GiB: full */
	weighted_event(&a, ALLOC_EV_FREE, 4, 0x200, 0, 1, 0);
	weighted_event(&a, ALLOC_EV_FREE, 5, 0x300, 0, 1, 0);     /* peak was 6 GiB + 40 */
	weighted_event(&a, ALLOC_EV_ALLOC, 6, 0x400, 8, UINT32_MAX, 3); /* 8 x (2^32 - 1) B */
	weighted_event(&a, ALLOC_EV_TIME, 6, 0, 1000 + 5000000000ull, 0, 0);
	weighted_event(&a, ALLOC_EV_FREE, 7, 0x100, 0, 1, 0);     /* stack 1: 5 s */
	weighted_event(&a, ALLOC_EV_ALLOC, 8, 0x500, 16, 1, 4);   /* stack 4: small */
	aggregate_finish(&a);
	CU_ASSERT_EQUAL(a.stat_count, 4);
	CU_ASSERT_EQUAL(a.full_count, 2);
	CU_ASSERT_FALSE(stack_small_is_full(&a.small[0]));
	CU_ASSERT_FALSE(stack_small_is_full(&a.small[3]));
	st = stk(&a, 0);
	CU_ASSERT_EQUAL(st.stack_id, 1);
	CU_ASSERT_EQUAL(st.s.allocated_bytes, 40);
	CU_ASSERT_EQUAL(st.s.peak_bytes, 40);     /* taken while small */
	CU_ASSERT_EQUAL(st.s.lifetime_ns_sum, 5000000000ull);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_min, 5000000000ull);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_max, 5000000000ull);
	CU_ASSERT_EQUAL(st.s.lifetime_events_min, 6);
	CU_ASSERT_EQUAL(st.s.live_bytes, 0);
	st = stk(&a, 1);
	CU_ASSERT_EQUAL(st.s.allocations, 2);
	CU_ASSERT_EQUAL(st.s.allocated_bytes, 2 * gib3);
	CU_ASSERT_EQUAL(st.s.max_live_bytes, 2 * gib3);
	CU_ASSERT_EQUAL(st.s.peak_bytes, 0);  /* none live at the last peak */
	CU_ASSERT_EQUAL(st.s.freed, 2);
	CU_ASSERT_EQUAL(st.s.lifetime_events_sum, 2 + 2);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_min, 0);
	st = stk(&a, 2);
	CU_ASSERT_EQUAL(st.s.allocations, UINT32_MAX);
	CU_ASSERT_EQUAL(st.s.allocated_bytes, 8 * (uint64_t)UINT32_MAX);
	CU_ASSERT_EQUAL(st.s.live_blocks, UINT32_MAX);
	st = stk(&a, 3);
	CU_ASSERT_EQUAL(st.s.allocations, 1);
	CU_ASSERT_EQUAL(st.s.live_bytes, 16);
	CU_ASSERT_EQUAL(st.s.peak_bytes, 0);
	CU_ASSERT_EQUAL(st.s.lifetime_events_min, UINT64_MAX);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_min, UINT64_MAX);
	CU_ASSERT_EQUAL(a.peak_bytes, 8 * (uint64_t)UINT32_MAX + 40);
	CU_ASSERT_FALSE(a.saturated);
	aggregate_free(&a);
}

/* A stack's lifetimes in ns stay in the compact form up to 2^48 - 1 ns: a
 * block that lived 2^48 - 2 ns keeps its stack small (its minimum + 1 is
 * the limit), one of 2^48 - 1 ns and two whose sum passes the limit make
 * theirs full, with exact figures. */
static void test_stack_lifetimes_outgrow_48_bits_exactly(void)
{
	const uint64_t t0 = 1000, lim = STATS_SMALL_NS_MAX;
	struct aggregate a;
	struct stack_stats st;

	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	weighted_event(&a, ALLOC_EV_TIME, 0, 0, t0, 0, 0);
	weighted_event(&a, ALLOC_EV_ALLOC, 1, 0x100, 8, 1, 1);
	weighted_event(&a, ALLOC_EV_ALLOC, 2, 0x200, 8, 1, 2);
	weighted_event(&a, ALLOC_EV_ALLOC, 3, 0x300, 8, 1, 3);
	weighted_event(&a, ALLOC_EV_TIME, 3, 0, t0 + (lim + 1) / 2, 0, 0);
	weighted_event(&a, ALLOC_EV_FREE, 4, 0x300, 0, 1, 0);     /* stack 3: 2^47 */
	weighted_event(&a, ALLOC_EV_ALLOC, 5, 0x400, 8, 1, 3);
	weighted_event(&a, ALLOC_EV_TIME, 5, 0, t0 + lim - 1, 0, 0);
	weighted_event(&a, ALLOC_EV_FREE, 6, 0x100, 0, 1, 0);     /* stack 1: limit - 1 */
	weighted_event(&a, ALLOC_EV_TIME, 6, 0, t0 + lim, 0, 0);
	weighted_event(&a, ALLOC_EV_FREE, 7, 0x200, 0, 1, 0);     /* stack 2: limit */
	weighted_event(&a, ALLOC_EV_TIME, 7, 0, t0 + lim + 1, 0, 0);
	weighted_event(&a, ALLOC_EV_FREE, 8, 0x400, 0, 1, 0);     /* stack 3: 2^47 more */
	aggregate_finish(&a);
	CU_ASSERT_EQUAL(a.stat_count, 3);
	CU_ASSERT_EQUAL(a.full_count, 2);
	CU_ASSERT_FALSE(stack_small_is_full(&a.small[0]));
	CU_ASSERT_TRUE(stack_small_is_full(&a.small[1]));
	CU_ASSERT_TRUE(stack_small_is_full(&a.small[2]));
	st = stk(&a, 0);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_sum, lim - 1);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_min, lim - 1);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_max, lim - 1);
	st = stk(&a, 1);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_sum, lim);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_min, lim);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_max, lim);
	CU_ASSERT_EQUAL(st.s.freed, 1);
	st = stk(&a, 2);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_sum, lim + 1);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_min, (lim + 1) / 2);
	CU_ASSERT_EQUAL(st.s.lifetime_ns_max, (lim + 1) / 2);
	CU_ASSERT_EQUAL(st.s.freed, 2);
	CU_ASSERT_EQUAL(st.s.allocations, 2);
	CU_ASSERT_EQUAL(st.s.lifetime_events_sum, 1 + 3);
	CU_ASSERT_FALSE(a.saturated);
	aggregate_free(&a);
}

/* A stack's block counts stay in the compact form up to 65,535: a block of
 * weight 65,535 freed at once (temporary) keeps its stack small, one more
 * allocation makes it full, as does a block of weight 65,536; a stack of
 * 65,535 live blocks in two stays small.  Figures exact either way. */
static void test_stack_block_counts_outgrow_16_bits_exactly(void)
{
	const uint32_t lim = STACK_SMALL_BLOCKS_MAX;
	struct aggregate a;
	struct stack_stats st;

	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	weighted_event(&a, ALLOC_EV_TIME, 0, 0, 1000, 0, 0);
	weighted_event(&a, ALLOC_EV_ALLOC, 1, 0x100, 1, lim, 1);     /* stack 1: limit */
	weighted_event(&a, ALLOC_EV_FREE, 2, 0x100, 0, 1, 0);        /* temporary */
	weighted_event(&a, ALLOC_EV_ALLOC, 3, 0x200, 2, lim + 1, 2); /* stack 2: limit + 1 */
	weighted_event(&a, ALLOC_EV_ALLOC, 4, 0x300, 1, 1, 3);       /* stack 3: 1, */
	weighted_event(&a, ALLOC_EV_ALLOC, 5, 0x400, 1, lim - 1, 3); /* limit live */
	aggregate_finish(&a);
	CU_ASSERT_EQUAL(a.stat_count, 3);
	CU_ASSERT_EQUAL(a.full_count, 1);
	CU_ASSERT_FALSE(stack_small_is_full(&a.small[0]));
	CU_ASSERT_TRUE(stack_small_is_full(&a.small[1]));
	CU_ASSERT_FALSE(stack_small_is_full(&a.small[2]));
	st = stk(&a, 0);
	CU_ASSERT_EQUAL(st.s.allocations, lim);
	CU_ASSERT_EQUAL(st.s.allocated_bytes, lim);
	CU_ASSERT_EQUAL(st.s.max_live_blocks, lim);
	CU_ASSERT_EQUAL(st.s.peak_blocks, 0);
	CU_ASSERT_EQUAL(st.s.freed, lim);
	CU_ASSERT_EQUAL(st.s.temporary, lim);
	CU_ASSERT_EQUAL(st.s.lifetime_events_sum, lim);
	st = stk(&a, 1);
	CU_ASSERT_EQUAL(st.s.allocations, lim + 1);
	CU_ASSERT_EQUAL(st.s.allocated_bytes, 2 * (uint64_t)(lim + 1));
	CU_ASSERT_EQUAL(st.s.live_blocks, lim + 1);
	CU_ASSERT_EQUAL(st.s.peak_blocks, lim + 1);
	st = stk(&a, 2);
	CU_ASSERT_EQUAL(st.s.allocations, lim);
	CU_ASSERT_EQUAL(st.s.live_blocks, lim);
	CU_ASSERT_EQUAL(st.s.max_live_blocks, lim);
	CU_ASSERT_EQUAL(st.s.peak_blocks, lim);
	CU_ASSERT_EQUAL(st.s.peak_bytes, lim);
	aggregate_free(&a);
	/* one more allocation of stack 1 outgrows its count: full, exact */
	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	weighted_event(&a, ALLOC_EV_ALLOC, 1, 0x100, 1, lim, 1);
	weighted_event(&a, ALLOC_EV_FREE, 2, 0x100, 0, 1, 0);
	weighted_event(&a, ALLOC_EV_ALLOC, 3, 0x200, 5, 1, 1);
	aggregate_finish(&a);
	CU_ASSERT_TRUE(stack_small_is_full(&a.small[0]));
	st = stk(&a, 0);
	CU_ASSERT_EQUAL(st.s.allocations, lim + 1);
	CU_ASSERT_EQUAL(st.s.allocated_bytes, lim + 5);
	CU_ASSERT_EQUAL(st.s.freed, lim);
	CU_ASSERT_EQUAL(st.s.live_bytes, 5);
	CU_ASSERT_EQUAL(st.s.max_live_blocks, lim);
	CU_ASSERT_FALSE(a.saturated);
	aggregate_free(&a);
}

/* The peak generations start again from 0 before they reach
 * STACK_SMALL_FULL, the mark of a stack whose statistics are full: such a
 * stack stays full through it, and every stack keeps its at-peak value. */
static void test_stack_peak_generations_rewind_keeps_full_stacks(void)
{
	struct aggregate a;
	struct stack_stats st;

	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	a.peak_gen = STACK_SMALL_FULL - 3;
	weighted_event(&a, ALLOC_EV_ALLOC, 1, 0x100, 10, 1, 1);       /* peak: 10 */
	weighted_event(&a, ALLOC_EV_ALLOC, 2, 0x200, 1, 70000, 2);    /* full; 70,010 */
	aggregate_flush(&a);
	CU_ASSERT_EQUAL(a.peak_gen, STACK_SMALL_FULL - 1);
	weighted_event(&a, ALLOC_EV_FREE, 3, 0x100, 0, 1, 0);
	weighted_event(&a, ALLOC_EV_ALLOC, 4, 0x300, 100, 1, 3);      /* rewinds: 70,100 */
	aggregate_flush(&a);
	CU_ASSERT_EQUAL(a.peak_gen, 1);
	weighted_event(&a, ALLOC_EV_ALLOC, 5, 0x400, 7, 1, 2);        /* 70,107 */
	aggregate_flush(&a);
	CU_ASSERT_EQUAL(a.peak_gen, 2);
	aggregate_finish(&a);
	CU_ASSERT_EQUAL(a.full_count, 1);
	CU_ASSERT_FALSE(stack_small_is_full(&a.small[0]));
	CU_ASSERT_TRUE(stack_small_is_full(&a.small[1]));
	CU_ASSERT_FALSE(stack_small_is_full(&a.small[2]));
	st = stk(&a, 0);
	CU_ASSERT_EQUAL(st.s.peak_bytes, 0);
	CU_ASSERT_EQUAL(st.s.max_live_bytes, 10);
	st = stk(&a, 1);
	CU_ASSERT_EQUAL(st.s.allocations, 70001);
	CU_ASSERT_EQUAL(st.s.peak_bytes, 70007);
	CU_ASSERT_EQUAL(st.s.peak_blocks, 70001);
	st = stk(&a, 2);
	CU_ASSERT_EQUAL(st.s.peak_bytes, 100);
	CU_ASSERT_EQUAL(a.peak_bytes, 70107);
	aggregate_free(&a);
}

/* The compact form of statistics (stats_small.h), a stack's and a site's:
 * counts and bytes in 32 bits, lifetimes in ns in 48 (a minimum as value
 * + 1, so "none" fits too), exactly: each of the 16 figures at the largest
 * value that fits reads back unchanged, one more does not fit and leaves
 * the compact form as it was. */
static void test_statistics_small_form_exactly(void)
{
	enum { FIGURES = sizeof(struct alloc_stats) / sizeof(uint64_t) };
	const size_t ev_min = offsetof(struct alloc_stats, lifetime_events_min) / sizeof(uint64_t);
	const size_t ns_min = offsetof(struct alloc_stats, lifetime_ns_min) / sizeof(uint64_t);
	const size_t ns_first = offsetof(struct alloc_stats, lifetime_ns_sum) / sizeof(uint64_t);
	struct stats_small small, before;
	struct alloc_stats empty, back;

	_Static_assert(sizeof(struct alloc_stats) == 16 * sizeof(uint64_t), "16 figures");
	CU_ASSERT_EQUAL(sizeof(struct stats_small), 72);
	CU_ASSERT_EQUAL(sizeof(struct stack_small), 68);
	CU_ASSERT_EQUAL(sizeof(struct site), 88);
	alloc_stats_init(&empty);
	memset(&small, 0xa5, sizeof(small));
	CU_ASSERT_TRUE(stats_small_fits(&empty));
	CU_ASSERT_TRUE(stats_small_pack(&empty, &small));
	CU_ASSERT_EQUAL(memcmp(&small, &(struct stats_small){0}, sizeof(small)), 0);
	for (size_t f = 0; f < FIGURES; f++) {
		bool minimum = f == ev_min || f == ns_min;
		uint64_t limit = f >= ns_first ? STATS_SMALL_NS_MAX : UINT32_MAX;
		uint64_t v[FIGURES], largest = minimum ? limit - 1 : limit;
		struct alloc_stats st;

		for (size_t g = 0; g < FIGURES; g++) /* the others: small, distinct */
			v[g] = 1000 + g;
		v[f] = largest;
		memcpy(&st, v, sizeof(st));
		CU_ASSERT_TRUE(stats_small_fits(&st));
		CU_ASSERT_TRUE(stats_small_pack(&st, &small));
		stats_small_unpack(&small, &back);
		CU_ASSERT_EQUAL(memcmp(&back, &st, sizeof(st)), 0);
		before = small;
		v[f] = largest + 1;
		memcpy(&st, v, sizeof(st));
		CU_ASSERT_FALSE(stats_small_fits(&st));
		CU_ASSERT_FALSE(stats_small_pack(&st, &small));
		CU_ASSERT_EQUAL(memcmp(&small, &before, sizeof(small)), 0);
		v[f] = UINT64_MAX; /* a minimum's "none" fits; other figures do not */
		memcpy(&st, v, sizeof(st));
		CU_ASSERT_EQUAL(stats_small_pack(&st, &small), minimum);
		if (minimum) {
			stats_small_unpack(&small, &back);
			CU_ASSERT_EQUAL(memcmp(&back, &st, sizeof(st)), 0);
		}
	}
}

/* site_stats_store: a site keeps the small form while its figures fit;
 * past them it takes a full record for good (smaller figures stored later
 * go into it), and full records never move as the pool grows (the pool's
 * chunks hold 256). */
static void test_site_statistics_outgrow_small_form_for_good(void)
{
	enum { SITES = 600 };
	struct site_table t;
	struct site *sites = calloc(SITES, sizeof(*sites));
	const struct alloc_stats *first_full;
	struct alloc_stats st, buf;

	CU_ASSERT_FATAL(sites != NULL);
	memset(&t, 0, sizeof(t));
	alloc_stats_init(&st);
	st.allocations = 7;
	st.allocated_bytes = UINT32_MAX;
	CU_ASSERT_EQUAL(site_stats_store(&t, &sites[0], &st), 0);
	CU_ASSERT_FALSE(sites[0].stats_full);
	CU_ASSERT_EQUAL(metric_site_value(&sites[0], METRIC_ALLOCATED), UINT32_MAX);
	st.allocated_bytes = (uint64_t)UINT32_MAX + 1;
	CU_ASSERT_EQUAL(site_stats_store(&t, &sites[0], &st), 0);
	CU_ASSERT_TRUE(sites[0].stats_full);
	CU_ASSERT_EQUAL(t.stats_pool.count, 1);
	CU_ASSERT_EQUAL(metric_site_value(&sites[0], METRIC_ALLOCATED), (uint64_t)UINT32_MAX + 1);
	first_full = sites[0].st.full;
	st.allocated_bytes = 5;
	CU_ASSERT_EQUAL(site_stats_store(&t, &sites[0], &st), 0);
	CU_ASSERT_TRUE(sites[0].stats_full);
	CU_ASSERT_PTR_EQUAL(sites[0].st.full, first_full);
	CU_ASSERT_EQUAL(t.stats_pool.count, 1);
	CU_ASSERT_EQUAL(memcmp(site_stats(&sites[0], &buf), &st, sizeof(st)), 0);
	for (size_t k = 1; k < SITES; k++) {
		alloc_stats_init(&st);
		st.lifetime_ns_sum = ((uint64_t)1 << 50) + k; /* past 48 bits */
		CU_ASSERT_EQUAL_FATAL(site_stats_store(&t, &sites[k], &st), 0);
	}
	CU_ASSERT_EQUAL(t.stats_pool.count, SITES);
	CU_ASSERT_PTR_EQUAL(sites[0].st.full, first_full);
	CU_ASSERT_EQUAL(site_stats(&sites[0], &buf)->allocated_bytes, 5);
	for (size_t k = 1; k < SITES; k++) {
		CU_ASSERT_TRUE(sites[k].stats_full);
		CU_ASSERT_EQUAL(site_stats(&sites[k], &buf)->lifetime_ns_sum, ((uint64_t)1 << 50) + k);
		CU_ASSERT_EQUAL(site_stats(&sites[k], &buf)->lifetime_ns_min, UINT64_MAX);
	}
	site_stats_pool_free(&t.stats_pool);
	free(sites);
}

/* Two stacks of one site, 3 GiB each: each stack's figures fit 32 bits,
 * their sum does not, so the site's statistics become full ones with the
 * exact sum; another site stays small; the order is by allocated bytes. */
static void test_site_sum_outgrows_small_form(void)
{
	const uint64_t gib3 = (uint64_t)3 << 30;
	struct stack_nodes nodes;
	struct module_maps maps;
	struct symbolizer *sym;
	struct site_table t;
	struct alloc_stats st;

	stack_nodes_init(&nodes);
	module_maps_init(&maps);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 1, 0, 0), 0); /* root, epoch 0 */
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 2, 1, 0x1000), 0);
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 3, 1, 0x1000), 0); /* 2's address */
	CU_ASSERT_EQUAL(stack_nodes_add(&nodes, 4, 1, 0x2000), 0);
	agg_setup();
	feed_alloc(1, 0x10000, 40, 4, 1);
	feed_alloc(2, 0x20000, gib3, 2, 1);
	feed_alloc(3, 0x30000, gib3, 3, 1);
	feed_free(4, 0x20000, 1);
	aggregate_finish(&agg);
	sym = symbolizer_new(&maps);
	CU_ASSERT_FATAL(sym != NULL);
	CU_ASSERT_EQUAL_FATAL(site_table_build(&t, &agg, &nodes, sym, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(t.count, 2);
	CU_ASSERT_EQUAL(t.sites[0].stack_count, 2);
	CU_ASSERT_TRUE(t.sites[0].stats_full);
	CU_ASSERT_EQUAL(t.stats_pool.count, 1);
	st = site_st(&t.sites[0]);
	CU_ASSERT_EQUAL(st.allocations, 2);
	CU_ASSERT_EQUAL(st.allocated_bytes, 2 * gib3);
	CU_ASSERT_EQUAL(st.max_live_bytes, 2 * gib3); /* the stacks' maxima summed */
	CU_ASSERT_EQUAL(st.live_bytes, gib3);
	CU_ASSERT_EQUAL(st.freed, 1);
	CU_ASSERT_EQUAL(st.lifetime_events_min, 2);
	CU_ASSERT_EQUAL(st.lifetime_ns_min, 0);
	CU_ASSERT_EQUAL(metric_site_value(&t.sites[0], METRIC_ALLOCATED), 2 * gib3);
	CU_ASSERT_FALSE(t.sites[1].stats_full);
	st = site_st(&t.sites[1]);
	CU_ASSERT_EQUAL(st.allocated_bytes, 40);
	CU_ASSERT_EQUAL(st.lifetime_events_min, UINT64_MAX);
	CU_ASSERT_EQUAL(metric_site_value(&t.sites[1], METRIC_LEAKED), 40);
	CU_ASSERT_FALSE(t.saturated);
	site_table_free(&t);
	symbolizer_free(sym);
	aggregate_free(&agg);
	module_maps_free(&maps);
	stack_nodes_free(&nodes);
}

/* ---- the aggregation thread ---- */

/* A stream of n events from 3 threads: allocations of pseudo-random sizes
 * at 200 addresses, each freed when its address comes up again (so some
 * frees are unmatched at first), with a TIME stamp every 1000 events. */
static void agg_thread_stream(void (*emit)(void *, const struct alloc_event *), void *ctx,
			      uint64_t n)
{
	uint64_t x = 88172645463325252ull;
	bool live[200] = { false };

	for (uint64_t seq = 1; seq <= n; seq++) {
		struct alloc_event ev = { .seq = seq, .weight = 1 };
		unsigned k;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = (unsigned)(x % 200);
		ev.addr = 0x10000 + 64 * (uint64_t)k;
		ev.tid = 1 + (uint32_t)(x >> 40) % 3;
		if (live[k] || (x >> 20) % 7 == 0) {
			ev.type = ALLOC_EV_FREE;
			ev.fn = TRACE_FREE_FREE;
			live[k] = false;
		} else {
			ev.type = ALLOC_EV_ALLOC;
			ev.fn = TRACE_FN_MALLOC;
			ev.value = 1 + (x >> 32) % 4000;
			ev.stack_id = 1 + (uint32_t)(x >> 48) % 50;
			live[k] = true;
		}
		emit(ctx, &ev);
		if (seq % 1000 == 0) {
			struct alloc_event t = { .seq = seq, .type = ALLOC_EV_TIME, .value = seq * 10 };

			emit(ctx, &t);
		}
	}
}

/* Events handed to an aggregation thread in runs (agg_thread_emit_run) of
 * 1 to 97 events, the lengths pseudo-random: odd and even runs start the
 * ring's copies at either alignment, and some cross its end. */
struct run_feed {
	struct agg_thread *t;
	struct alloc_event ev[97];
	size_t n, want;
	uint64_t x;
};

static void run_feed_flush(struct run_feed *f)
{
	if (f->n)
		agg_thread_emit_run(f->t, f->ev, f->n);
	f->n = 0;
	f->x = f->x * 6364136223846793005ull + 1442695040888963407ull;
	f->want = 1 + (size_t)(f->x >> 33) % 97;
}

static void run_feed_emit(void *ctx, const struct alloc_event *ev)
{
	struct run_feed *f = ctx;

	f->ev[f->n++] = *ev;
	if (f->n == f->want)
		run_feed_flush(f);
}

/* Streams n events into agg through t (from agg_thread_start or
 * agg_thread_start_after, over agg), one at a time or in runs, and checks
 * that agg ends as a direct aggregation of the same events does. */
static void agg_thread_check_equal_fed(struct agg_thread *t, struct aggregate *threaded,
				       uint64_t n, bool runs)
{
	struct aggregate direct;

	CU_ASSERT_FATAL(aggregate_init(&direct) == 0);
	agg_thread_stream(aggregate_event, &direct, n);
	aggregate_finish(&direct);
	CU_ASSERT_FATAL(t != NULL);
	if (runs) {
		struct run_feed f = {.t = t, .x = 168};

		run_feed_flush(&f);
		agg_thread_stream(run_feed_emit, &f, n);
		run_feed_flush(&f);
	} else {
		agg_thread_stream(agg_thread_emit, t, n);
	}
	CU_ASSERT_FALSE(agg_thread_failed(t));
	agg_thread_stop(t);
	aggregate_finish(threaded);

	CU_ASSERT_EQUAL(threaded->events, n);
	CU_ASSERT_EQUAL(threaded->events, direct.events);
	CU_ASSERT_EQUAL(threaded->frees, direct.frees);
	CU_ASSERT(direct.unmatched_frees > 0);
	CU_ASSERT_EQUAL(threaded->unmatched_frees, direct.unmatched_frees);
	CU_ASSERT_EQUAL(threaded->live_bytes, direct.live_bytes);
	CU_ASSERT_EQUAL(threaded->live_blocks, direct.live_blocks);
	CU_ASSERT_EQUAL(threaded->peak_bytes, direct.peak_bytes);
	CU_ASSERT_EQUAL(threaded->peak_seq, direct.peak_seq);
	CU_ASSERT_EQUAL(threaded->peak_time_ns, direct.peak_time_ns);
	CU_ASSERT_EQUAL(threaded->last_time_ns, n / 1000 * 10000);
	CU_ASSERT_EQUAL_FATAL(threaded->stat_count, direct.stat_count);
	for (size_t i = 0; i < direct.stat_count; i++) {
		CU_ASSERT_EQUAL(stk(threaded, i).stack_id, stk(&direct, i).stack_id);
		CU_ASSERT_EQUAL(stk(threaded, i).s.allocated_bytes,
				stk(&direct, i).s.allocated_bytes);
		CU_ASSERT_EQUAL(stk(threaded, i).s.max_live_bytes, stk(&direct, i).s.max_live_bytes);
		CU_ASSERT_EQUAL(stk(threaded, i).s.peak_bytes, stk(&direct, i).s.peak_bytes);
		CU_ASSERT_EQUAL(stk(threaded, i).s.temporary, stk(&direct, i).s.temporary);
		CU_ASSERT_EQUAL(stk(threaded, i).s.lifetime_ns_sum,
				stk(&direct, i).s.lifetime_ns_sum);
	}
	aggregate_free(&direct);
	aggregate_free(threaded);
}

static void agg_thread_check_equal(struct agg_thread *t, struct aggregate *threaded, uint64_t n)
{
	agg_thread_check_equal_fed(t, threaded, n, false);
}

/* Runs stored into the ring at once (agg_thread_emit_run's block copy)
 * aggregate as the same events one at a time do. */
static void test_agg_thread_runs_equal_direct_aggregation(void)
{
	struct aggregate threaded, late;

	CU_ASSERT_FATAL(aggregate_init(&threaded) == 0);
	agg_thread_check_equal_fed(agg_thread_start(&threaded), &threaded,
				   5 * AGG_THREAD_RING_EVENTS + 123, true);
	CU_ASSERT_FATAL(aggregate_init(&late) == 0);
	agg_thread_check_equal_fed(agg_thread_start_after(&late, 3 * AGG_THREAD_BATCH + 17), &late,
				   3 * AGG_THREAD_RING_EVENTS + 5, true);
}

static void test_agg_thread_equals_direct_aggregation(void)
{
	struct aggregate threaded;

	CU_ASSERT_FATAL(aggregate_init(&threaded) == 0);
	/* several laps of the ring, so the producer has to wait */
	agg_thread_check_equal(agg_thread_start(&threaded), &threaded,
			       5 * AGG_THREAD_RING_EVENTS + 123);
}

/* The thread started after some events were aggregated on the caller's
 * thread, mid-batch; and never, for fewer events than that. */
static void test_agg_thread_started_late_equals_direct_aggregation(void)
{
	struct aggregate late, never;

	CU_ASSERT_FATAL(aggregate_init(&late) == 0);
	agg_thread_check_equal(agg_thread_start_after(&late, 3 * AGG_THREAD_BATCH + 17), &late,
			       3 * AGG_THREAD_RING_EVENTS + 5);
	CU_ASSERT_FATAL(aggregate_init(&never) == 0);
	agg_thread_check_equal(agg_thread_start_after(&never, 100000), &never, 5000);
}

static void test_agg_thread_stops_with_nothing_queued(void)
{
	struct aggregate a;
	struct agg_thread *t;

	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	t = agg_thread_start(&a);
	CU_ASSERT_FATAL(t != NULL);
	agg_thread_stop(t);
	CU_ASSERT_EQUAL(a.events, 0);
	/* and a few events, fewer than a batch, still arrive */
	t = agg_thread_start(&a);
	CU_ASSERT_FATAL(t != NULL);
	agg_thread_stream(agg_thread_emit, t, 10);
	agg_thread_stop(t);
	aggregate_finish(&a);
	CU_ASSERT_EQUAL(a.events, 10);
	aggregate_free(&a);
}

/* ---- the live-block table ---- */

/* Whether t's layout is the one its lookups rely on: every block at or
 * after its home bucket, no empty bucket between, hashes never decreasing
 * from bucket to bucket, the last bucket empty, count blocks in all. */
static bool table_is_ordered(const struct block_table *t)
{
	size_t last_empty = SIZE_MAX, blocks = 0;
	uint64_t last_hash = 0;

	for (size_t i = 0; i < t->buckets; i++) {
		uint64_t addr = block_table_addr_at(t, i), h;

		if (!addr) {
			last_empty = i;
			continue;
		}
		h = block_hash(addr);
		if (block_home(h, t->homes) > i || (last_empty != SIZE_MAX && last_empty >= block_home(h, t->homes)) ||
		    h < last_hash)
			return false;
		last_hash = h;
		blocks++;
	}
	return blocks == t->count && last_empty == t->buckets - 1;
}

/* Address i of test_block_table_against_reference: three kinds of heap
 * address, each unique: runs of 16-byte chunks, runs of 48-byte chunks, and
 * scattered ones (i times an odd number, modulo 2^30 chunks: a bijection). */
static uint64_t table_test_addr(uint32_t i)
{
	switch (i % 3) {
	case 0:
		return 0x555555550000ull + 16ull * (i / 3);
	case 1:
		return 0x7f0000000000ull + 48ull * (i / 3);
	default:
		return 0x7e0000000000ull + 16ull * ((uint64_t)(i / 3) * 0x9e3779b1u % (1u << 30));
	}
}

/* Inserts, finds and removes 400000 blocks, checking every answer against
 * what the test knows is live.  On the way the table grows eight times: on
 * the heap up to 2^16 buckets, into a mapping (2^17), within its reservation
 * (2^18, 2^19, each new part faulted in beforehand by another thread), and
 * into a larger reservation (moved when 3 * 2^18 is planned for). */
static void test_block_table_against_reference(void)
{
	enum { N = 400000 };
	struct block_table t;
	struct live_block b, out;
	uint32_t found = 0, absent = 0;

	CU_ASSERT_FATAL(block_table_init(&t) == 0);
	for (uint32_t i = 0; i < N; i++) {
		b = (struct live_block){ .addr = table_test_addr(i), .size_bytes = i };
		CU_ASSERT_EQUAL(block_table_insert(&t, &b, &out), 0);
	}
	CU_ASSERT_EQUAL(t.count, N);
	CU_ASSERT(table_is_ordered(&t));
	for (uint32_t i = 0; i < N; i++)
		found += block_table_find(&t, table_test_addr(i), &out) && out.size_bytes == i;
	CU_ASSERT_EQUAL(found, N);
	/* remove every other block, in a scrambled order */
	for (uint32_t k = 0; k < N; k++) {
		uint32_t i = (uint32_t)((uint64_t)k * 7919 % N);

		if (i % 2 == 0) {
			CU_ASSERT_EQUAL(block_table_remove(&t, table_test_addr(i), &out), 1);
			CU_ASSERT_EQUAL(out.size_bytes, i);
		}
	}
	CU_ASSERT_EQUAL(t.count, N / 2);
	CU_ASSERT(table_is_ordered(&t));
	found = 0;
	for (uint32_t i = 0; i < N; i++) {
		int f = block_table_find(&t, table_test_addr(i), &out);

		if (i % 2)
			found += f && out.size_bytes == i;
		else
			absent += !f;
	}
	CU_ASSERT_EQUAL(found, N / 2);
	CU_ASSERT_EQUAL(absent, N / 2);
	CU_ASSERT_EQUAL(block_table_remove(&t, table_test_addr(0), &out), 0);
	/* a live address again replaces its block and says which it was */
	b = (struct live_block){ .addr = table_test_addr(1), .size_bytes = 7 };
	CU_ASSERT_EQUAL(block_table_insert(&t, &b, &out), 1);
	CU_ASSERT_EQUAL(out.size_bytes, 1);
	CU_ASSERT(block_table_find(&t, table_test_addr(1), &out) && out.size_bytes == 7);
	CU_ASSERT_EQUAL(t.count, N / 2);
	block_table_free(&t);
}

/* Runs that reach past the last home bucket go on in the tail, which grows
 * when a run reaches its end; blocks of equal hash (addresses 8 bytes
 * apart) are told apart; and the layout stays ordered through growth,
 * tail growth and removals. */
static void test_block_table_runs_past_the_last_home(void)
{
	enum { TOP = 3000, N = 60000 };
	static uint64_t top[TOP];
	struct block_table t;
	struct live_block b = { .size_bytes = 1 }, out;
	uint32_t found = 0, n = 0;

	/* TOP addresses whose hashes lie in the top 2^-12 of the range: in
	 * the last 32 homes of a table of 2^17 buckets */
	for (uint64_t a = 0x7d0000000000ull; n < TOP; a += 16)
		if (block_hash(a) >> 52 == 0xfff)
			top[n++] = a;
	CU_ASSERT_FATAL(block_table_init(&t) == 0);
	for (uint32_t i = 0; i < TOP; i++) {
		b.addr = top[i];
		b.size_bytes = i;
		CU_ASSERT_EQUAL_FATAL(block_table_insert(&t, &b, &out), 0);
	}
	CU_ASSERT(t.buckets >= t.homes + TOP / 2);
	CU_ASSERT(table_is_ordered(&t));
	/* then ordinary ones, and 8 bytes after some: the same hash */
	for (uint32_t i = 0; i < N; i++) {
		b.addr = table_test_addr(i);
		b.size_bytes = TOP + i;
		CU_ASSERT_EQUAL_FATAL(block_table_insert(&t, &b, &out), 0);
		if (i % 3 == 0) {
			b.addr += 8;
			b.size_bytes = TOP + N + i;
			CU_ASSERT_EQUAL_FATAL(block_table_insert(&t, &b, &out), 0);
		}
	}
	CU_ASSERT_EQUAL(t.homes, ((size_t)1 << 17) - 256);
	CU_ASSERT(t.buckets >= t.homes + TOP / 2);
	CU_ASSERT(table_is_ordered(&t));
	for (uint32_t i = 0; i < TOP; i++)
		found += block_table_find(&t, top[i], &out) && out.size_bytes == i;
	for (uint32_t i = 0; i < N; i++) {
		found += block_table_find(&t, table_test_addr(i), &out) && out.size_bytes == TOP + i;
		if (i % 3 == 0)
			found += block_table_find(&t, table_test_addr(i) + 8, &out) &&
				 out.size_bytes == TOP + N + i;
	}
	CU_ASSERT_EQUAL(found, TOP + N + N / 3);
	/* the first of each equal pair, and every other top block, go */
	for (uint32_t i = 0; i < N; i += 3)
		CU_ASSERT_EQUAL(block_table_remove(&t, table_test_addr(i), &out), 1);
	for (uint32_t i = 0; i < TOP; i += 2)
		CU_ASSERT_EQUAL(block_table_remove(&t, top[i], &out), 1);
	CU_ASSERT(table_is_ordered(&t));
	found = 0;
	for (uint32_t i = 0; i < N; i += 3)
		found += !block_table_find(&t, table_test_addr(i), &out) &&
			 block_table_find(&t, table_test_addr(i) + 8, &out) && out.size_bytes == TOP + N + i;
	for (uint32_t i = 0; i < TOP; i++)
		found += block_table_find(&t, top[i], &out) == (int)(i % 2);
	CU_ASSERT_EQUAL(found, N / 3 + TOP);
	block_table_free(&t);
}

/* Block i of test_block_table_widens_for_a_block_too_large: every field
 * different, each near the top of what a compact bucket holds. */
static struct live_block table_test_block(uint32_t i)
{
	return (struct live_block){
		.addr = BLOCK_COMPACT_ADDR_LIMIT - 16 - 16ull * i,
		.size_bytes = BLOCK_COMPACT_SIZE_LIMIT - 1 - i,
		.stat_index = BLOCK_COMPACT_STAT_LIMIT - 1 - i,
		.time_index = BLOCK_COMPACT_TIME_LIMIT - 1 - 2 * i,
		.seq_offset = (BLOCK_SEQ_OFFSET_LIMIT - 1 - 3 * i) % BLOCK_SEQ_OFFSET_LIMIT,
	};
}

/* Whether t holds block i of table_test_block, every field as inserted. */
static int table_has_test_block(const struct block_table *t, uint32_t i)
{
	struct live_block want = table_test_block(i), out;

	return block_table_find(t, want.addr, &out) && out.addr == want.addr &&
	       out.size_bytes == want.size_bytes && out.stat_index == want.stat_index &&
	       out.time_index == want.time_index && out.seq_offset == want.seq_offset;
}

/* Blocks whose values fill a compact bucket's fields come back exactly;
 * the first block that does not fit (each field's limit, and an address
 * above 2^48, in turn) turns the buckets wide, keeping every block, with
 * few blocks (1000), more (40000) and while another thread faults in the
 * half it will grow into (95000 blocks in 2^17 buckets: that thread is
 * joined once, by the widening). */
static void test_block_table_widens_for_a_block_too_large(void)
{
	static const uint32_t counts[] = { 1000, 40000, 95000 };

	for (int field = 0; field < 5; field++) {
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			struct block_table t;
			struct live_block b, out;
			uint32_t n = counts[c], kept = 0;

			CU_ASSERT_FATAL(block_table_init(&t) == 0);
			for (uint32_t i = 0; i < n; i++) {
				b = table_test_block(i);
				CU_ASSERT_EQUAL(block_table_insert(&t, &b, &out), 0);
			}
			CU_ASSERT_EQUAL(t.shift, 1);
			for (uint32_t i = 0; i < n; i++)
				kept += table_has_test_block(&t, i);
			CU_ASSERT_EQUAL(kept, n);
			b = (struct live_block){ .addr = 0x1000, .size_bytes = 1 };
			if (field == 0)
				b.addr = BLOCK_COMPACT_ADDR_LIMIT + 0x1000;
			else if (field == 1)
				b.size_bytes = BLOCK_COMPACT_SIZE_LIMIT;
			else if (field == 2)
				b.stat_index = BLOCK_COMPACT_STAT_LIMIT;
			else if (field == 3)
				b.time_index = UINT32_MAX;
			else
				b.addr = 0xffff800000001000ull;
			CU_ASSERT_EQUAL(block_table_insert(&t, &b, &out), 0);
			CU_ASSERT_EQUAL(t.shift, 2);
			CU_ASSERT_FALSE(t.prefault.running); /* joined once, not again later */
			CU_ASSERT_EQUAL(t.count, n + 1);
			kept = 0;
			for (uint32_t i = 0; i < n; i++)
				kept += table_has_test_block(&t, i);
			CU_ASSERT_EQUAL(kept, n);
			CU_ASSERT(block_table_find(&t, b.addr, &out) && out.size_bytes == b.size_bytes &&
				  out.stat_index == b.stat_index && out.time_index == b.time_index);
			/* its low 48 bits are another address, not this block */
			if (b.addr >= BLOCK_COMPACT_ADDR_LIMIT)
				CU_ASSERT_FALSE(block_table_find(&t, b.addr & (BLOCK_COMPACT_ADDR_LIMIT - 1),
								 &out));
			CU_ASSERT_EQUAL(block_table_remove(&t, b.addr, &out), 1);
			CU_ASSERT_EQUAL(block_table_remove(&t, table_test_block(0).addr, &out), 1);
			CU_ASSERT_EQUAL(out.seq_offset, BLOCK_SEQ_OFFSET_LIMIT - 1);
			CU_ASSERT_EQUAL(t.count, n - 1);
			block_table_free(&t);
		}
	}
}

/* A huge array comes zeroed with room reserved: growing within it keeps the
 * array where it is, growing past it moves the array into a larger aligned
 * reservation; contents are kept and new bytes are zero, faulted in by
 * another thread or not. */
static void test_huge_array_grows_in_place_and_by_moving(void)
{
	const size_t mib2 = HUGE_ARRAY_MIN, words = mib2 / 4;
	struct huge_prefault pf = {0};
	size_t reserved = 0, nonzero = 0, wrong = 0;
	uint32_t *v = huge_array_alloc(mib2, &reserved), *w;

	CU_ASSERT_FATAL(v != NULL);
	CU_ASSERT_EQUAL(reserved, 4 * mib2);
	CU_ASSERT_EQUAL((uintptr_t)v % mib2, 0);
	for (size_t i = 0; i < words; i++)
		nonzero += v[i] != 0;
	CU_ASSERT_EQUAL(nonzero, 0);
	for (size_t i = 0; i < words; i++)
		v[i] = (uint32_t)i * 2654435761u;
	/* the next 2 MiB faulted in by another thread, then grown into */
	huge_prefault_start(&pf, (char *)v + mib2, mib2);
	huge_prefault_wait(&pf);
	CU_ASSERT_FALSE(pf.running);
	w = huge_array_grow(v, mib2, 2 * mib2, &reserved);
	CU_ASSERT_PTR_EQUAL(w, v);
	CU_ASSERT_EQUAL(reserved, 4 * mib2);
	/* past the reservation: moved, 4 times the new size reserved */
	w = huge_array_grow(v, 2 * mib2, 8 * mib2, &reserved);
	CU_ASSERT_FATAL(w != NULL);
	CU_ASSERT(w != v);
	CU_ASSERT_EQUAL((uintptr_t)w % mib2, 0);
	CU_ASSERT_EQUAL(reserved, 32 * mib2);
	v = w;
	for (size_t i = 0; i < words; i++)
		wrong += v[i] != (uint32_t)i * 2654435761u;
	for (size_t i = words; i < 8 * words; i++)
		nonzero += v[i] != 0;
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT_EQUAL(nonzero, 0);
	huge_array_free(v, reserved);
}

/* Mean distance of the blocks of t from their home buckets. */
static double table_mean_displacement(const struct block_table *t)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < t->buckets; i++) {
		uint64_t addr = block_table_addr_at(t, i);

		if (addr)
			sum += i - block_home(block_hash(addr), t->homes);
	}
	return t->count ? (double)sum / (double)t->count : 0.0;
}

/* Blocks made one after another at a fixed stride (what the C library does
 * for a run of same-sized requests) must spread over the table: a hash that
 * put strides of 496, 992, 3632 or 112592 bytes into a few buckets made
 * probe runs hundreds of blocks long and reports 15x slower. */
static void test_block_table_strided_addresses_spread(void)
{
	static const uint64_t strides[] = { 16, 32, 48, 496, 992, 3632, 4096, 65536, 112592 };
	static const uint32_t counts[] = { 3000, 49000, 200000 };

	for (size_t s = 0; s < sizeof(strides) / sizeof(strides[0]); s++) {
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			struct block_table t;
			struct live_block b = { .size_bytes = 1 }, out;
			double mean;

			CU_ASSERT_FATAL(block_table_init(&t) == 0);
			for (uint32_t i = 0; i < counts[c]; i++) {
				b.addr = 0x555555560010ull + strides[s] * i;
				CU_ASSERT_EQUAL_FATAL(block_table_insert(&t, &b, &out), 0);
			}
			mean = table_mean_displacement(&t);
			/* linear probing at the table's load (at most 3/4) with a
			 * well-mixed hash: about 1.5 on average */
			if (mean >= 4.0)
				fprintf(stderr, "stride %llu, %u blocks: mean displacement %.1f\n",
					(unsigned long long)strides[s], counts[c], mean);
			CU_ASSERT(mean < 4.0);
			block_table_free(&t);
		}
	}
}

/* The inverse of x * m modulo 2^64 for an odd m (Newton's iteration: each
 * step doubles the bits that are right). */
static uint64_t mul_inverse(uint64_t m)
{
	uint64_t x = m;

	for (int i = 0; i < 6; i++)
		x *= 2 - m * x;
	return x;
}

/* The key that hash_mix64 turns into h under the seed now in hash_seed:
 * murmur3's finalizer undone step by step (x ^= x >> 33 is its own
 * inverse; inv1 and inv2 the inverses of its two multipliers), what someone
 * writing a trace to collide would do. */
static uint64_t unmix64(uint64_t h, uint64_t inv1, uint64_t inv2)
{
	h ^= h >> 33;
	h *= inv2;
	h ^= h >> 33;
	h *= inv1;
	h ^= h >> 33;
	return h ^ hash_seed;
}

/* Addresses chosen so that, unseeded, all hash into one home bucket (hash
 * flooding) make one probe run as long as their count; with a seed the
 * same addresses spread like any others (hash_seed.h). */
static void test_block_table_seed_defeats_crafted_collisions(void)
{
	enum { N = 2000 };
	static uint64_t addrs[N];
	const uint64_t inv1 = mul_inverse(0xff51afd7ed558ccdull);
	const uint64_t inv2 = mul_inverse(0xc4ceb9fe1a85ec53ull);
	uint64_t saved = hash_seed;
	double unseeded, seeded;
	size_t n = 0;

	CU_ASSERT_EQUAL(0xff51afd7ed558ccdull * inv1, 1);
	hash_seed = 0;
	for (uint64_t i = 1; n < N; i++) {
		/* top 17 bits 0x1234: one home of the first 2^17 */
		uint64_t key = unmix64(0x1234ull << 47 | i, inv1, inv2);

		if (key && key < (1ull << 60)) /* addr >> 4 gives it back */
			addrs[n++] = key << 4;
	}
	for (int round = 0; round < 2; round++) {
		struct block_table t;
		struct live_block b = { .size_bytes = 1 }, out;

		hash_seed = round ? 0x6a09e667f3bcc909ull : 0;
		CU_ASSERT_FATAL(block_table_init(&t) == 0);
		for (size_t i = 0; i < N; i++) {
			b.addr = addrs[i];
			CU_ASSERT_EQUAL_FATAL(block_table_insert(&t, &b, &out), 0);
		}
		CU_ASSERT_EQUAL(t.count, N);
		*(round ? &seeded : &unseeded) = table_mean_displacement(&t);
		block_table_free(&t);
	}
	hash_seed = saved;
	CU_ASSERT(unseeded > N / 4); /* the attack works on the unseeded hash */
	CU_ASSERT(seeded < 4.0);
}

/* Buckets of a table holding n blocks (distinct, 16 bytes apart). */
static size_t table_buckets_for(uint32_t n)
{
	struct block_table t;
	struct live_block b = { .size_bytes = 1 }, out;
	size_t buckets;

	CU_ASSERT_FATAL(block_table_init(&t) == 0);
	for (uint32_t i = 0; i < n; i++) {
		b.addr = 0x555555560010ull + 16ull * i;
		CU_ASSERT_EQUAL_FATAL(block_table_insert(&t, &b, &out), 0);
	}
	buckets = t.buckets;
	block_table_free(&t);
	return buckets;
}

/* After block_table_reserve(n), n blocks go in without the table growing,
 * also in the order of another table (block_table_each: what seeding a fork
 * child does), and every one is found. */
static void copy_block(void *ctx, const struct live_block *b)
{
	struct block_table *to = ctx;
	struct live_block out;

	CU_ASSERT_EQUAL(block_table_insert(to, b, &out), 0);
}

static void test_block_table_reserve_then_copy_in_order(void)
{
	enum { N = 300000 };
	struct block_table from, to;
	struct live_block b = { .size_bytes = 1 }, out;
	size_t buckets;
	uint32_t found = 0;

	CU_ASSERT_FATAL(block_table_init(&from) == 0);
	CU_ASSERT_FATAL(block_table_init(&to) == 0);
	for (uint32_t i = 0; i < N; i++) {
		b.addr = table_test_addr(i);
		b.size_bytes = i;
		CU_ASSERT_EQUAL_FATAL(block_table_insert(&from, &b, &out), 0);
	}
	CU_ASSERT_EQUAL(block_table_reserve(&to, N), 0);
	buckets = to.buckets;
	CU_ASSERT_EQUAL(buckets, from.buckets);
	block_table_each(&from, copy_block, &to);
	CU_ASSERT_EQUAL(to.buckets, buckets);
	CU_ASSERT_EQUAL(to.count, N);
	CU_ASSERT(table_is_ordered(&to));
	for (uint32_t i = 0; i < N; i++)
		found += block_table_find(&to, table_test_addr(i), &out) && out.size_bytes == i;
	CU_ASSERT_EQUAL(found, N);
	/* a table large enough already stays as it is */
	CU_ASSERT_EQUAL(block_table_reserve(&to, N / 2), 0);
	CU_ASSERT_EQUAL(to.buckets, buckets);
	block_table_free(&from);
	block_table_free(&to);
}

/* A table starts with 2^17 buckets (one 2 MiB huge page) and grows when
 * one more block would make it more than 3/4 full: doubling up to 2^19,
 * then by half from 2^k and by a third from 3 * 2^(k-1). */
static void test_block_table_grows_at_three_quarters_load(void)
{
	CU_ASSERT_EQUAL(table_buckets_for(1), (size_t)1 << 17);
	CU_ASSERT_EQUAL(table_buckets_for(40000), (size_t)1 << 17);
	CU_ASSERT_EQUAL(table_buckets_for(98304), (size_t)1 << 17);
	CU_ASSERT_EQUAL(table_buckets_for(98305), (size_t)1 << 18);
	CU_ASSERT_EQUAL(table_buckets_for(196609), (size_t)1 << 19);
	CU_ASSERT_EQUAL(table_buckets_for(393216), (size_t)1 << 19);
	/* python3's trace: 551 k blocks in 3 * 2^18 buckets, not 2^20 */
	CU_ASSERT_EQUAL(table_buckets_for(393217), (size_t)3 << 18);
	CU_ASSERT_EQUAL(table_buckets_for(551101), (size_t)3 << 18);
	CU_ASSERT_EQUAL(table_buckets_for(589825), (size_t)1 << 20);
}

int main(void)
{
	CU_pSuite s;
	unsigned failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("aggregate", NULL, NULL);
	CU_add_test(s, "realloc grow/shrink/move accounting", test_realloc_grow_shrink_move_accounting);
	CU_add_test(s, "stack ids: direct and hashed keep their statistics",
		    test_stack_ids_direct_and_hashed_keep_their_statistics);
	CU_add_test(s, "stack index grows at 3/4 load exactly",
		    test_stack_index_grows_at_three_quarters_exactly);
	CU_add_test(s, "packed statistics read back exactly",
		    test_packed_statistics_read_back_exactly);
	CU_add_test(s, "stack statistics outgrow 32 bits exactly",
		    test_stack_statistics_outgrow_32_bits_exactly);
	CU_add_test(s, "stack and site statistics: the compact form holds them exactly",
		    test_statistics_small_form_exactly);
	CU_add_test(s, "stack lifetimes in ns outgrow the compact form's 48 bits exactly",
		    test_stack_lifetimes_outgrow_48_bits_exactly);
	CU_add_test(s, "stack block counts outgrow 16 bits exactly",
		    test_stack_block_counts_outgrow_16_bits_exactly);
	CU_add_test(s, "stack peak generations rewind, full stacks kept",
		    test_stack_peak_generations_rewind_keeps_full_stacks);
	CU_add_test(s, "site statistics outgrow the small form for good",
		    test_site_statistics_outgrow_small_form_for_good);
	CU_add_test(s, "a site's sum outgrows the small form",
		    test_site_sum_outgrows_small_form);
	CU_add_test(s, "packed statistics: small minima take one byte",
		    test_packed_small_minima_take_one_byte);
	CU_add_test(s, "realloc(NULL, n) allocates", test_realloc_null_allocates);
	CU_add_test(s, "realloc(p, 0) frees the block", test_realloc_to_zero_frees_block);
	CU_add_test(s, "failed realloc counts nothing", test_failed_realloc_counts_nothing);
	CU_add_test(s, "peak: lazy snapshot, higher second peak",
		    test_peak_lazy_snapshot_with_higher_second_peak);
	CU_add_test(s, "peak: the generation wraps around", test_peak_generation_wraps_around);
	CU_add_test(s, "peak: an equal later level is not a new t-gmax",
		    test_peak_equal_later_is_not_a_new_peak);
	CU_add_test(s, "temporary: the same thread's next event",
		    test_temporary_needs_the_same_threads_next_event);
	CU_add_test(s, "unmatched free is counted", test_unmatched_free_is_counted_not_fatal);
	CU_add_test(s, "address reused while live", test_address_reused_while_live_replaces_block);
	CU_add_test(s, "lifetimes in events and ns", test_lifetimes_in_events_and_ns);
	CU_add_test(s, "lifetimes exact across far sequence numbers",
		    test_lifetimes_exact_across_far_sequence_numbers);
	CU_add_test(s, "fork child inherits the parent's blocks",
		    test_fork_child_inherits_parent_blocks);
	CU_add_test(s, "pairing hints change no number", test_pairing_hints_change_no_number);
	CU_add_test(s, "pairing hints ignored up to a fork",
		    test_pairing_hints_ignored_up_to_a_fork);
	s = CU_add_suite("reorder", NULL, NULL);
	CU_add_test(s, "slots merged by sequence", test_reorder_merges_slots_by_sequence);
	CU_add_test(s, "a marker right after its own seq", test_reorder_marker_after_its_seq);
	CU_add_test(s, "gap at end of input", test_reorder_gap_at_eof_is_skipped_and_counted);
	CU_add_test(s, "many sources interleaved", test_reorder_many_sources_interleaved);
	CU_add_test(s, "skipped gap, then a late event", test_reorder_skip_gap_then_late_event);
	CU_add_test(s, "repeated events dropped, a gap filled once", test_reorder_drops_repeated_events);
	CU_add_test(s, "runs of one source equal single events", test_reorder_runs_equal_single_events);
	CU_add_test(s, "a run stops at a ready heap event", test_reorder_run_stops_at_ready_heap_event);
	CU_add_test(s, "gaps split and closed", test_reorder_gaps_split_and_close);
	CU_add_test(s, "a full gap table keeps filling", test_reorder_full_gap_table_keeps_filling);
	CU_add_test(s, "old gaps filled without a split", test_reorder_old_gaps_fill_without_split);
	CU_add_test(s, "fork child starts after fork_seq",
		    test_reorder_fork_child_starts_after_fork_seq);
	CU_add_test(s, "out-of-order events aggregate as merged",
		    test_out_of_order_events_aggregate_as_merged);
	s = CU_add_suite("event_stream", NULL, NULL);
	CU_add_test(s, "interleaved slots read exactly", test_trace_with_interleaved_slots_reads_exactly);
	CU_add_test(s, "truncated trace", test_truncated_trace_reads_up_to_last_whole_chunk);
	CU_add_test(s, "corrupt chunk skipped and counted", test_corrupt_chunk_is_skipped_and_counted);
	CU_add_test(s, "not a trace", test_not_a_trace_is_an_error);
	CU_add_test(s, "blocks freed soon are paired", test_reader_pairs_blocks_freed_soon);
	CU_add_test(s, "impossible sequence number refused",
		    test_impossible_sequence_number_is_refused);
	s = CU_add_suite("chunk_prefetch", NULL, NULL);
	CU_add_test(s, "every chunk in order", test_prefetch_gives_every_chunk_in_order);
	CU_add_test(s, "corrupt chunk skipped", test_prefetch_skips_a_corrupt_chunk_and_goes_on);
	CU_add_test(s, "truncated, and stopped early", test_prefetch_truncated_and_stopped_early);
	CU_add_test(s, "taken payloads stay whole", test_prefetch_taken_payloads_stay_whole);
	s = CU_add_suite("sites", NULL, NULL);
	CU_add_test(s, "allocator wrappers", test_alloc_wrappers_are_recognized);
	CU_add_test(s, "library wrappers skipped unless kept",
		    test_library_wrappers_skipped_unless_kept);
	CU_add_test(s, "stacks merged into sites", test_sites_merge_stacks_and_sum);
	CU_add_test(s, "sites from stacks that share nodes", test_sites_from_shared_stacks);
	CU_add_test(s, "sites: the memo in the nodes up to the depth limit, apart past it",
		    test_sites_memo_in_nodes_at_the_depth_limit);
	CU_add_test(s, "sites built in spare memory", test_sites_built_in_spare_memory);
	CU_add_test(s, "many sites sorted, ties in creation order", test_sites_many_sorted_with_ties);
	CU_add_test(s, "copies of stacks merged, high node ids",
		    test_sites_merge_copies_with_high_node_ids);
	CU_add_test(s, "rankings: top N is the front of the full order",
		    test_rankings_top_n_is_the_front_of_the_full_order);
	CU_add_test(s, "weighted blocks keep their weight", test_weighted_blocks_keep_their_weight);
	CU_add_test(s, "block table against a reference", test_block_table_against_reference);
	CU_add_test(s, "block table widens for a block too large",
		    test_block_table_widens_for_a_block_too_large);
	CU_add_test(s, "huge array grows in place and by moving",
		    test_huge_array_grows_in_place_and_by_moving);
	CU_add_test(s, "block table spreads strided addresses",
		    test_block_table_strided_addresses_spread);
	CU_add_test(s, "sites of too deep stacks bounded", test_sites_too_deep_stacks_bounded);
	CU_add_test(s, "stack nodes share their distinct ips", test_stack_nodes_share_distinct_ips);
	CU_add_test(s, "stack nodes: the longest chain, entries given over",
		    test_stack_nodes_chain_max);
	CU_add_test(s, "block table seed defeats crafted collisions",
		    test_block_table_seed_defeats_crafted_collisions);
	CU_add_test(s, "block table runs past the last home", test_block_table_runs_past_the_last_home);
	CU_add_test(s, "block table reserved, then copied in order",
		    test_block_table_reserve_then_copy_in_order);
	CU_add_test(s, "block table mapped at its first block",
		    test_block_table_mapped_at_first_block);
	CU_add_test(s, "block table grows at 3/4 load",
		    test_block_table_grows_at_three_quarters_load);
	CU_add_test(s, "aggregation thread equals direct calls",
		    test_agg_thread_equals_direct_aggregation);
	CU_add_test(s, "aggregation thread fed runs equals direct aggregation",
		    test_agg_thread_runs_equal_direct_aggregation);
	CU_add_test(s, "aggregation thread started late equals direct aggregation",
		    test_agg_thread_started_late_equals_direct_aggregation);
	CU_add_test(s, "aggregation thread stops with little or nothing queued",
		    test_agg_thread_stops_with_nothing_queued);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
