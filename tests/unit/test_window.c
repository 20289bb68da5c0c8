/*
 * tests/unit/test_window.c - unit tests of a report's time window
 * (analyze/aggregate/window.c: parsing, resolving, the sink in front of the
 * aggregation) and of LSan-style suppression patterns
 * (analyze/profile/suppressions.c).  Synthetic events, exact numbers.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/aggregate/agg_read.h"
#include "analyze/aggregate/aggregate.h"
#include "analyze/aggregate/window.h"
#include "analyze/profile/suppressions.h"
#include "trace/chunk.h"
#include "trace/format.h"
#include "trace/record.h"
#include "trace/varint.h"

#define MS 1000000ull

static void test_time_parse_forms(void)
{
	struct window_time t;

	CU_ASSERT_EQUAL(window_time_parse("2.5", &t), 0);
	CU_ASSERT_EQUAL(t.ns, 2500 * MS);
	CU_ASSERT_FALSE(t.percent);
	CU_ASSERT_EQUAL(window_time_parse("2.5s", &t), 0);
	CU_ASSERT_EQUAL(t.ns, 2500 * MS);
	CU_ASSERT_EQUAL(window_time_parse("300ms", &t), 0);
	CU_ASSERT_EQUAL(t.ns, 300 * MS);
	CU_ASSERT_EQUAL(window_time_parse("0.3", &t), 0);
	CU_ASSERT_EQUAL(t.ns, 300 * MS);
	CU_ASSERT_EQUAL(window_time_parse(".5ms", &t), 0);
	CU_ASSERT_EQUAL(t.ns, 500000);
	CU_ASSERT_EQUAL(window_time_parse("0", &t), 0);
	CU_ASSERT_EQUAL(t.ns, 0);
	CU_ASSERT_TRUE(t.given);
	CU_ASSERT_EQUAL(window_time_parse("50%", &t), 0);
	CU_ASSERT_TRUE(t.percent);
	CU_ASSERT_DOUBLE_EQUAL(t.share, 0.5, 1e-12);
	CU_ASSERT_EQUAL(window_time_parse("100%", &t), 0);
}

static void test_time_parse_refuses(void)
{
	static const char *const bad[] = {
		"", "-1", "+1", "abc", "1.5x", "3min", "101%", "1e3", " 1", "1 ", "inf", "nan",
		".", "1..2", "0x10", "1.2.3", "%", "ms", "2000000000",
	};
	struct window_time t;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(window_time_parse(bad[i], &t), -EINVAL);
		if (window_time_parse(bad[i], &t) != -EINVAL)
			fprintf(stderr, "accepted: '%s'\n", bad[i]);
	}
}

static void test_time_parse_markers(void)
{
	struct window_time t;

	CU_ASSERT_EQUAL(window_time_parse("marker:start", &t), 0);
	CU_ASSERT_TRUE(t.given);
	CU_ASSERT_EQUAL(t.marker_len, 5);
	CU_ASSERT_EQUAL(strncmp(t.marker, "start", t.marker_len), 0);
	CU_ASSERT_EQUAL(t.marker_nth, 1);
	CU_ASSERT_EQUAL(window_time_parse("marker:phase#2", &t), 0);
	CU_ASSERT_EQUAL(t.marker_len, 5);
	CU_ASSERT_EQUAL(t.marker_nth, 2);
	/* '#' not followed by digits only is part of the name */
	CU_ASSERT_EQUAL(window_time_parse("marker:a#b", &t), 0);
	CU_ASSERT_EQUAL(t.marker_len, 3);
	CU_ASSERT_EQUAL(t.marker_nth, 1);
	/* a name that ends in #digits takes its own #1 */
	CU_ASSERT_EQUAL(window_time_parse("marker:x#2#1", &t), 0);
	CU_ASSERT_EQUAL(t.marker_len, 3);
	CU_ASSERT_EQUAL(t.marker_nth, 1);
	CU_ASSERT_EQUAL(window_time_parse("marker:", &t), -EINVAL);
	CU_ASSERT_EQUAL(window_time_parse("marker:#2", &t), -EINVAL);
	CU_ASSERT_EQUAL(window_time_parse("marker:x#0", &t), -EINVAL);
	CU_ASSERT_EQUAL(window_time_parse("marker:x#9999999999", &t), -EINVAL);
}

static void test_resolve(void)
{
	struct window_spec spec;
	struct window_facts f;
	char err[256];

	memset(&spec, 0, sizeof(spec));
	CU_ASSERT_EQUAL(window_time_parse("25%", &spec.from), 0);
	CU_ASSERT_EQUAL(window_resolve(&spec, true, 2000 * MS, &f, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(f.range);
	CU_ASSERT_EQUAL(f.from_ns, 500 * MS);
	CU_ASSERT_EQUAL(f.to_ns, UINT64_MAX);
	/* a percent needs the run time */
	CU_ASSERT_EQUAL(window_resolve(&spec, false, 0, &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "run time is not known"));
	/* mixed units: known to be backwards only now */
	CU_ASSERT_EQUAL(window_time_parse("400ms", &spec.to), 0);
	CU_ASSERT_EQUAL(window_resolve(&spec, true, 2000 * MS, &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "--from 25% is not before --to 400ms");
	/* --to alone, at the start: no --from to name */
	memset(&spec, 0, sizeof(spec));
	CU_ASSERT_EQUAL(window_time_parse("0%", &spec.to), 0);
	CU_ASSERT_EQUAL(window_resolve(&spec, true, 2000 * MS, &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "--to 0% is not after the recording's start: the window is empty");
	memset(&spec, 0, sizeof(spec));
	CU_ASSERT_EQUAL(window_time_parse("1s", &spec.at), 0);
	CU_ASSERT_EQUAL(window_resolve(&spec, false, 0, &f, err, sizeof(err)), 0);
	CU_ASSERT_TRUE(f.at);
	CU_ASSERT_FALSE(f.range);
	CU_ASSERT_EQUAL(f.at_ns, 1000 * MS);
}

/* ---- the sink in front of an aggregation (called directly) ---- */

static struct aggregate agg;
static struct window_facts facts;
static struct window_sink win;
static struct event_sink next, sink;

static void sink_setup(const char *from, const char *to, const char *at)
{
	struct window_spec spec;
	char err[256];

	memset(&spec, 0, sizeof(spec));
	if (from)
		CU_ASSERT_FATAL(window_time_parse(from, &spec.from) == 0);
	if (to)
		CU_ASSERT_FATAL(window_time_parse(to, &spec.to) == 0);
	if (at)
		CU_ASSERT_FATAL(window_time_parse(at, &spec.at) == 0);
	CU_ASSERT_FATAL(window_resolve(&spec, false, 0, &facts, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(aggregate_init(&agg) == 0);
	memset(&next, 0, sizeof(next));
	next.emit = aggregate_event;
	next.ctx = &agg;
	CU_ASSERT_FATAL(window_sink_init(&win, &facts, &next) == 0);
	window_sink_bind(&win, &sink);
}

static void sink_teardown(void)
{
	window_sink_free(&win);
	aggregate_free(&agg);
}

static void put_marked(uint8_t type, uint64_t seq, uint64_t addr, uint64_t value, uint32_t tid,
		       uint8_t flags)
{
	struct alloc_event ev = {
		.seq = seq, .addr = addr, .value = value, .weight = 1, .stack_id = 1,
		.tid = tid, .type = type, .flags = flags,
	};

	sink.emit(sink.ctx, &ev);
}

static void put(uint8_t type, uint64_t seq, uint64_t addr, uint64_t value, uint32_t tid)
{
	put_marked(type, seq, addr, value, tid, 0);
}

static void put_time(uint64_t seq, uint64_t ms)
{
	put(ALLOC_EV_TIME, seq, 0, 1000000000ull + ms * MS, 0);
}

#define EARLY ALLOC_EV_EARLY
#define LATE ALLOC_EV_LATE

/* The reader marks each event by its thread's clock (EARLY, LATE) and
 * hands the start of the recording first (event_stream.h). */
static void test_range_keeps_its_allocations_and_their_frees(void)
{
	sink_setup("100ms", "200ms", NULL);
	put_time(0, 0);                                    /* the start */
	put_marked(ALLOC_EV_ALLOC, 1, 0xa0, 10, 1, EARLY); /* before: dropped */
	put_marked(ALLOC_EV_ALLOC, 2, 0xa8, 11, 1, EARLY);
	put_marked(ALLOC_EV_FREE, 3, 0xa8, 0, 1, EARLY);   /* before: dropped */
	/* a stamp after an event from before: dropped, whatever it says */
	put_marked(ALLOC_EV_TIME, 3, 0, 1000000000ull + 300 * MS, 0, EARLY);
	put_time(3, 150);
	put(ALLOC_EV_ALLOC, 4, 0xb0, 20, 1);               /* in the window */
	put(ALLOC_EV_FREE, 5, 0xa0, 0, 1);                 /* a block from before */
	put(ALLOC_EV_FREE, 6, 0x999, 0, 1);                /* never allocated */
	put(ALLOC_EV_ALLOC, 7, 0xc0, 40, 1);               /* in it, freed after it */
	put_time(7, 250);
	put_marked(ALLOC_EV_ALLOC, 8, 0xd0, 80, 1, LATE);  /* after: a placeholder */
	put_marked(ALLOC_EV_FREE, 9, 0xc0, 0, 1, LATE);    /* a window block's */
	put_marked(ALLOC_EV_FREE, 10, 0xd0, 0, 1, LATE);   /* a block from after */
	window_sink_flush(&win);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.allocations, 2);
	CU_ASSERT_EQUAL(agg.allocated_bytes, 60);
	CU_ASSERT_EQUAL(agg.frees, 1);          /* 0xc0 */
	CU_ASSERT_EQUAL(agg.unmatched_frees, 0);
	CU_ASSERT_EQUAL(agg.live_bytes, 20);
	CU_ASSERT_EQUAL(agg.live_blocks, 1);
	CU_ASSERT_EQUAL(agg.peak_bytes, 60);
	CU_ASSERT_EQUAL(facts.frees_outside, 3); /* 0xa0, 0x999, 0xd0 */
	CU_ASSERT_EQUAL(facts.dropped_events, 4);
	CU_ASSERT_EQUAL(agg.events, 3);          /* the window's own: 4, 7 and 9 */
	CU_ASSERT_EQUAL(agg.first_time_ns, 1000000000ull);
	CU_ASSERT_EQUAL(agg.last_time_ns, 1000000000ull + 250 * MS);
	sink_teardown();
}

/* A window block whose thread's next event was dropped is not temporary:
 * the aggregation still sees that event (a placeholder). */
static void test_dropped_event_still_ends_a_temporary(void)
{
	sink_setup("0", "100ms", NULL);
	put_time(0, 0);
	put(ALLOC_EV_ALLOC, 1, 0xb0, 10, 1);               /* window */
	put_marked(ALLOC_EV_ALLOC, 2, 0xa0, 10, 1, LATE);  /* thread 1's next event */
	put_marked(ALLOC_EV_FREE, 3, 0xb0, 0, 1, LATE);    /* so this is no temporary */
	put(ALLOC_EV_ALLOC, 4, 0xc0, 10, 2);
	put(ALLOC_EV_FREE, 5, 0xc0, 0, 2);                 /* this one is */
	window_sink_flush(&win);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.allocations, 2);
	CU_ASSERT_EQUAL(agg.temporary, 1);
	CU_ASSERT_EQUAL(agg.unmatched_frees, 0);
	CU_ASSERT_EQUAL(agg.live_blocks, 0);
	sink_teardown();
}

/* A block from before the range whose address a window allocation takes
 * again (its free was lost) is gone: the later free is the window block's. */
static void test_window_allocation_replaces_outside_block(void)
{
	sink_setup("100ms", NULL, NULL);
	put_time(0, 0);
	put_marked(ALLOC_EV_ALLOC, 1, 0xa0, 10, 1, EARLY);
	put_time(1, 100);
	put(ALLOC_EV_ALLOC, 2, 0xa0, 30, 1);
	put(ALLOC_EV_FREE, 3, 0xa0, 0, 1);
	window_sink_flush(&win);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.blocks_freed, 1);
	CU_ASSERT_EQUAL(agg.live_blocks, 0);
	CU_ASSERT_EQUAL(facts.frees_outside, 0);
	sink_teardown();
}

/* A free of a window block by a thread whose clock is still before the
 * range (its last stamp was) is the window's; so a fork child's inherited
 * blocks are outside without being known. */
static void test_range_frees_are_told_by_their_blocks(void)
{
	sink_setup("100ms", NULL, NULL);
	put_time(0, 0);
	put_time(0, 120);
	put(ALLOC_EV_ALLOC, 1, 0xb0, 20, 1);
	put_marked(ALLOC_EV_FREE, 2, 0xb0, 0, 2, EARLY);   /* thread 2: clock behind */
	put(ALLOC_EV_FREE, 3, 0x1000, 0, 2);               /* inherited at fork */
	put(ALLOC_EV_ALLOC, 4, 0xc0, 20, 2);
	window_sink_flush(&win);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.allocations, 2);
	CU_ASSERT_EQUAL(agg.frees, 1);
	CU_ASSERT_EQUAL(agg.unmatched_frees, 0);
	CU_ASSERT_EQUAL(agg.live_bytes, 20);
	CU_ASSERT_EQUAL(facts.frees_outside, 1);
	sink_teardown();
}

static void test_at_keeps_the_events_before_and_is_done(void)
{
	sink_setup(NULL, NULL, "100ms");
	put_time(0, 0);
	put(ALLOC_EV_ALLOC, 1, 0xa0, 10, 1);
	put(ALLOC_EV_ALLOC, 2, 0xb0, 20, 1);
	put(ALLOC_EV_FREE, 3, 0xa0, 0, 1);
	CU_ASSERT_FALSE(sink.done(sink.ctx));
	put_time(3, 100);                      /* T: the events from here are not */
	put(ALLOC_EV_FREE, 4, 0xb0, 0, 1);
	put(ALLOC_EV_ALLOC, 5, 0xc0, 40, 1);
	CU_ASSERT_TRUE(sink.done(sink.ctx));
	CU_ASSERT_TRUE(facts.stopped);
	window_sink_flush(&win);
	aggregate_finish(&agg);
	CU_ASSERT_EQUAL(agg.allocations, 2);
	CU_ASSERT_EQUAL(agg.live_bytes, 20);   /* live at T */
	CU_ASSERT_EQUAL(agg.live_blocks, 1);
	CU_ASSERT_EQUAL(agg.events, 3);
	sink_teardown();
}

/* ---- reading stops at T (a synthetic trace) ---- */

/* Writes one EVENTS chunk of slot (stream slot + 1) from records rec[0..n),
 * at lap offset *lap_offset (advanced). */
static void events_chunk(struct trace_writer *w, unsigned slot, uint64_t *lap_offset,
			 const uint8_t *rec, size_t n)
{
	uint8_t out[8192], *p = out;

	p = varint_put_u64(p, slot);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, *lap_offset);
	memcpy(p, rec, n);
	p += n;
	CU_ASSERT_EQUAL(trace_writer_chunk_stream(w, TRACE_CHUNK_EVENTS, slot + 1, out,
						  (size_t)(p - out)), 0);
	*lap_offset += n;
}

/*
 * Slot 1 allocates 10 blocks at 0 ms, 10 at 200 ms and 10 at 400 ms, a
 * chunk each; slot 0, the metadata stream, defines their stack after them
 * in the file.  With stack_stream, META names slot 0's stream.
 */
static void write_timed_trace(const char *path, bool stack_stream)
{
	const char meta1[] = "pid=5\nslots=8\nstack_stream=1\n", meta0[] = "pid=5\nslots=8\n";
	const char end[] = "exit_status=0\nwall_ns=600000000\n";
	struct trace_writer w;
	struct record_state st, ms;
	uint8_t rec[4096], *p;
	uint64_t off1 = 0, off0 = 0, seq = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(trace_writer_start(&w, fd, 0) == 0);
	CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_META, stack_stream ? meta1 : meta0,
				     stack_stream ? sizeof(meta1) - 1 : sizeof(meta0) - 1) == 0);
	memset(&st, 0, sizeof(st));
	for (int phase = 0; phase < 3; phase++) {
		p = rec;
		if (phase == 0)
			p = record_put_thread(p, &st, 21);
		p = record_put_time(p, 1000000000ull + (uint64_t)phase * 200 * MS);
		for (int i = 0; i < 10; i++, seq++)
			p = record_put_alloc(p, &st, TRACE_FN_MALLOC, seq + 1, 0x100000 + 64 * seq,
					     100, 2, 1);
		events_chunk(&w, 1, &off1, rec, (size_t)(p - rec));
	}
	memset(&ms, 0, sizeof(ms));
	p = record_put_thread(rec, &ms, 0);
	p = record_put_stack(p, &ms, 1, 0, 0);
	p = record_put_stack(p, &ms, 2, 1, 0x401000);
	events_chunk(&w, 0, &off0, rec, (size_t)(p - rec));
	CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_END, end, sizeof(end) - 1) == 0);
	trace_writer_finish(&w);
	close(fd);
}

/* A read of the trace at path with --at 100ms, and what it made. */
struct at_read {
	struct trace_info info;
	struct stack_nodes nodes;
	struct module_maps maps;
	struct aggregate a;
	struct window_sink w;
};

static void at_read_100ms(struct at_read *r, const char *path)
{
	char err[256];
	struct window_spec spec;

	memset(&spec, 0, sizeof(spec));
	CU_ASSERT_FATAL(window_time_parse("100ms", &spec.at) == 0);
	CU_ASSERT_FATAL(window_resolve(&spec, false, 0, &facts, err, sizeof(err)) == 0);
	trace_info_init(&r->info);
	stack_nodes_init(&r->nodes);
	module_maps_init(&r->maps);
	CU_ASSERT_FATAL(aggregate_init(&r->a) == 0);
	CU_ASSERT_FATAL(window_sink_init(&r->w, &facts, NULL) == 0);
	CU_ASSERT_EQUAL(aggregate_read_trace_window(path, &r->info, &r->nodes, &r->maps, &r->a,
						    &r->w, err, sizeof(err)), 0);
}

static void at_read_free(struct at_read *r)
{
	window_sink_free(&r->w);
	aggregate_free(&r->a);
	module_maps_free(&r->maps);
	stack_nodes_free(&r->nodes);
	trace_info_free(&r->info);
}

static void read_at_100ms(bool stack_stream, uint64_t *alloc_records)
{
	char path[256];
	struct stack_node node;
	struct at_read r;

	snprintf(path, sizeof(path), "%s/mprof-test-window-%d.trace",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	write_timed_trace(path, stack_stream);
	at_read_100ms(&r, path);
	CU_ASSERT_EQUAL(r.a.allocations, 10);
	CU_ASSERT_EQUAL(r.a.live_blocks, 10);
	CU_ASSERT_TRUE(facts.stopped);
	/* the stack defined after T, in the metadata stream, is there */
	CU_ASSERT_TRUE(stack_nodes_get(&r.nodes, 2, &node));
	CU_ASSERT_TRUE(r.info.has_end);
	CU_ASSERT_EQUAL(r.info.seq_gaps, 0);
	*alloc_records = r.info.alloc_records;
	at_read_free(&r);
	unlink(path);
}

/* With META stack_stream, the chunks of the other streams after T are not
 * decoded (the one read ahead may be); without it every chunk is. */
static void test_reading_stops_at_t_but_not_the_stacks(void)
{
	uint64_t with = 0, without = 0;

	read_at_100ms(true, &with);
	read_at_100ms(false, &without);
	CU_ASSERT_EQUAL(without, 30);
	CU_ASSERT(with < 30);
}

/*
 * Thread 21 (slot 1) allocates 10 blocks at 0 ms (seq 1-10); thread 22
 * (slot 2) starts at 300 ms and allocates 10 more (seq 11-20), and its
 * chunk comes first in the file.  Its THREAD record's TIME stamp has no
 * sequence number of its own (0): merged as it is, it moved the clock to
 * 300 ms before thread 21's events, and --at 100ms then saw no heap.
 */
static void test_a_late_thread_start_does_not_move_the_clock_early(void)
{
	const char meta[] = "pid=5\nslots=8\n", end[] = "exit_status=0\nwall_ns=400000000\n";
	char path[256];
	struct trace_writer w;
	struct record_state st;
	uint8_t rec[4096], *p;
	uint64_t off1 = 0, off2 = 0, off0 = 0;
	struct at_read r;
	int fd;

	snprintf(path, sizeof(path), "%s/mprof-test-window-late-%d.trace",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(trace_writer_start(&w, fd, 0) == 0);
	CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_META, meta, sizeof(meta) - 1) == 0);
	memset(&st, 0, sizeof(st));
	p = record_put_thread(rec, &st, 22);
	p = record_put_time(p, 1000000000ull + 300 * MS);
	for (uint64_t seq = 11; seq <= 20; seq++)
		p = record_put_alloc(p, &st, TRACE_FN_MALLOC, seq, 0x200000 + 64 * seq, 100, 2, 1);
	events_chunk(&w, 2, &off2, rec, (size_t)(p - rec));
	memset(&st, 0, sizeof(st));
	p = record_put_thread(rec, &st, 21);
	p = record_put_time(p, 1000000000ull);
	for (uint64_t seq = 1; seq <= 10; seq++)
		p = record_put_alloc(p, &st, TRACE_FN_MALLOC, seq, 0x100000 + 64 * seq, 100, 2, 1);
	events_chunk(&w, 1, &off1, rec, (size_t)(p - rec));
	memset(&st, 0, sizeof(st));
	p = record_put_thread(rec, &st, 0);
	p = record_put_stack(p, &st, 1, 0, 0);
	p = record_put_stack(p, &st, 2, 1, 0x401000);
	events_chunk(&w, 0, &off0, rec, (size_t)(p - rec));
	CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_END, end, sizeof(end) - 1) == 0);
	trace_writer_finish(&w);
	close(fd);

	at_read_100ms(&r, path);
	CU_ASSERT_EQUAL(r.a.allocations, 10);   /* thread 21's, all before 100 ms */
	CU_ASSERT_EQUAL(r.a.live_blocks, 10);
	CU_ASSERT_TRUE(facts.stopped);
	CU_ASSERT_EQUAL(r.info.seq_gaps, 0);
	at_read_free(&r);
	unlink(path);
}

/*
 * Thread 21 (slot 1) allocates at 0 ms (seq 1), then waits 300 ms (for
 * ring room, as a thread does while the launcher is stopped) and
 * allocates again (seq 4), timed afresh.  Meanwhile thread 22 (slot 2)
 * allocates a block at 10 ms (seq 2) and frees it at 60 ms (seq 3).  The
 * 300 ms stamp was keyed to seq 1, the event before it, and moved the
 * clock past thread 22's events: the block's lifetime read 0 and the peak
 * 300 ms, in an ordinary read (a windowed one put it right before seq 4).
 */
static void test_a_stamp_after_a_wait_does_not_move_other_threads_events(void)
{
	const char meta[] = "pid=5\nslots=8\n", end[] = "exit_status=0\nwall_ns=400000000\n";
	const uint64_t t0 = 1000000000ull;
	char path[256], err[256];
	struct trace_writer w;
	struct record_state st;
	uint8_t rec[4096], *p;
	uint64_t off1 = 0, off2 = 0, off0 = 0;
	struct trace_info info;
	struct stack_nodes nodes;
	struct module_maps maps;
	struct aggregate a;
	struct stack_stats k;
	int fd, found = 0;

	snprintf(path, sizeof(path), "%s/mprof-test-window-wait-%d.trace",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(trace_writer_start(&w, fd, 0) == 0);
	CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_META, meta, sizeof(meta) - 1) == 0);
	memset(&st, 0, sizeof(st));
	p = record_put_thread(rec, &st, 21);
	p = record_put_time(p, t0);
	p = record_put_alloc(p, &st, TRACE_FN_MALLOC, 1, 0x100000, 100, 2, 1);
	p = record_put_time(p, t0 + 300 * MS);
	p = record_put_alloc(p, &st, TRACE_FN_MALLOC, 4, 0x100100, 50, 2, 1);
	events_chunk(&w, 1, &off1, rec, (size_t)(p - rec));
	memset(&st, 0, sizeof(st));
	p = record_put_thread(rec, &st, 22);
	p = record_put_time(p, t0 + 10 * MS);
	p = record_put_alloc(p, &st, TRACE_FN_MALLOC, 2, 0x200000, 100, 3, 1);
	p = record_put_time(p, t0 + 60 * MS);
	p = record_put_free_explicit(p, &st, TRACE_FREE_FREE, 3, 0x200000, -1);
	events_chunk(&w, 2, &off2, rec, (size_t)(p - rec));
	memset(&st, 0, sizeof(st));
	p = record_put_thread(rec, &st, 0);
	p = record_put_stack(p, &st, 1, 0, 0);
	p = record_put_stack(p, &st, 2, 1, 0x401000);
	p = record_put_stack(p, &st, 3, 1, 0x402000);
	events_chunk(&w, 0, &off0, rec, (size_t)(p - rec));
	CU_ASSERT(trace_writer_chunk(&w, TRACE_CHUNK_END, end, sizeof(end) - 1) == 0);
	trace_writer_finish(&w);
	close(fd);

	trace_info_init(&info);
	stack_nodes_init(&nodes);
	module_maps_init(&maps);
	CU_ASSERT_FATAL(aggregate_init(&a) == 0);
	CU_ASSERT_EQUAL(aggregate_read_trace(path, &info, &nodes, &maps, &a, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(a.allocations, 3);
	CU_ASSERT_EQUAL(a.peak_bytes, 200);
	CU_ASSERT_EQUAL(a.peak_time_ns, t0 + 10 * MS); /* seq 2, thread 22's clock */
	for (size_t i = 0; i < 2; i++) {
		aggregate_stack_stats(&a, i, &k);
		if (k.stack_id != 3)
			continue;
		found++;
		CU_ASSERT_EQUAL(k.s.freed, 1);
		CU_ASSERT_EQUAL(k.s.lifetime_ns_max, 50 * MS); /* 10 ms to 60 ms */
	}
	CU_ASSERT_EQUAL(found, 1);
	CU_ASSERT_EQUAL(info.seq_gaps, 0);
	aggregate_free(&a);
	module_maps_free(&maps);
	stack_nodes_free(&nodes);
	trace_info_free(&info);
	unlink(path);
}

/* ---- suppression patterns, as LeakSanitizer matches them ---- */

static void test_suppression_patterns(void)
{
	CU_ASSERT_TRUE(suppression_pattern_match("leaky", "my_leaky_fn"));
	CU_ASSERT_TRUE(suppression_pattern_match("^my_", "my_leaky_fn"));
	CU_ASSERT_FALSE(suppression_pattern_match("^leaky", "my_leaky_fn"));
	CU_ASSERT_TRUE(suppression_pattern_match("fn$", "my_leaky_fn"));
	CU_ASSERT_FALSE(suppression_pattern_match("leaky$", "my_leaky_fn"));
	CU_ASSERT_TRUE(suppression_pattern_match("^my_leaky_fn$", "my_leaky_fn"));
	CU_ASSERT_TRUE(suppression_pattern_match("my*fn", "my_leaky_fn"));
	CU_ASSERT_TRUE(suppression_pattern_match("^m*y*k*$", "my_leaky_fn_k"));
	CU_ASSERT_FALSE(suppression_pattern_match("^m*y*k$", "my_leaky_fn"));
	CU_ASSERT_TRUE(suppression_pattern_match("libfoo.so", "/usr/lib/libfoo.so.1"));
	CU_ASSERT_TRUE(suppression_pattern_match("a?b", "xa?by"));   /* '?' is literal */
	CU_ASSERT_FALSE(suppression_pattern_match("a?b", "xaXby"));
	CU_ASSERT_TRUE(suppression_pattern_match("*", "anything"));
	CU_ASSERT_FALSE(suppression_pattern_match("x", NULL));
	CU_ASSERT_FALSE(suppression_pattern_match("x", ""));
	CU_ASSERT_TRUE(suppression_pattern_match("aab", "aaab"));   /* backtracking */
}

int main(void)
{
	CU_pSuite s;
	unsigned failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("window", NULL, NULL);
	CU_add_test(s, "times: seconds, ms, percent", test_time_parse_forms);
	CU_add_test(s, "a late thread's start does not move the clock early",
		    test_a_late_thread_start_does_not_move_the_clock_early);
	CU_add_test(s, "a stamp after a wait does not move other threads' events",
		    test_a_stamp_after_a_wait_does_not_move_other_threads_events);
	CU_add_test(s, "times: bad ones refused", test_time_parse_refuses);
	CU_add_test(s, "times: markers by name and number", test_time_parse_markers);
	CU_add_test(s, "resolved against the run time", test_resolve);
	CU_add_test(s, "a range keeps its allocations and their frees",
		    test_range_keeps_its_allocations_and_their_frees);
	CU_add_test(s, "a dropped event still ends a temporary",
		    test_dropped_event_still_ends_a_temporary);
	CU_add_test(s, "a window allocation replaces an outside block",
		    test_window_allocation_replaces_outside_block);
	CU_add_test(s, "a range's frees are told by their blocks",
		    test_range_frees_are_told_by_their_blocks);
	CU_add_test(s, "at T: the events before, then done",
		    test_at_keeps_the_events_before_and_is_done);
	CU_add_test(s, "reading stops at T, but not the stacks",
		    test_reading_stops_at_t_but_not_the_stacks);
	s = CU_add_suite("suppressions", NULL, NULL);
	CU_add_test(s, "patterns as LSan matches them", test_suppression_patterns);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
