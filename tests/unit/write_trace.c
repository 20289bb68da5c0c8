/*
 * tests/unit/write_trace.c - writes small synthetic traces with the records
 * of trace minor 2 (MARKER, CONTROL, pool annotations), built with the
 * codec's own encoders (trace/record.h, trace/chunk.h), for the end-to-end
 * test tests/e2e/markers-pause-pool.sh to report on.  Test-only: the
 * recorder writes these records in real runs.
 *
 * usage: write_trace markers|paused|asked|pool PATH
 * Each trace's facts are listed beside its writer; the test checks them.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace/chunk.h"
#include "trace/record.h"

#define MS 1000000ull
#define T0 (5000 * MS) /* CLOCK_MONOTONIC of the first TIME stamp */
#define POOL_BIT TRACE_POOL_ADDR_BIT

/* One thread slot's records and lap offset. */
struct slot {
	unsigned number;
	struct record_state st;
	uint8_t rec[4096];
	uint8_t *p;
	uint64_t lap_offset;
};

static void slot_start(struct slot *s, unsigned number, uint64_t tid)
{
	memset(s, 0, sizeof(*s));
	s->number = number;
	s->p = record_put_thread(s->rec, &s->st, tid);
	s->p = record_put_time(s->p, T0);
}

/* Writes the slot's records so far as one EVENTS chunk. */
static int slot_flush(struct trace_writer *w, struct slot *s)
{
	uint8_t out[8192], *p = out;
	size_t n = (size_t)(s->p - s->rec);

	p = varint_put_u64(p, s->number);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, s->lap_offset);
	memcpy(p, s->rec, n);
	p += n;
	s->lap_offset += n;
	s->p = s->rec;
	return trace_writer_chunk_stream(w, TRACE_CHUNK_EVENTS, s->number + 1, out,
					 (size_t)(p - out));
}

static void put_time(struct slot *s, uint64_t ms)
{
	s->p = record_put_time(s->p, T0 + ms * MS);
}

static void put_alloc(struct slot *s, unsigned fn, uint64_t seq, uint64_t addr, uint64_t size,
		      uint64_t weight)
{
	s->p = record_put_alloc(s->p, &s->st, fn, seq, addr, size, 2, weight);
}

static void put_free(struct slot *s, unsigned fn, uint64_t seq, uint64_t addr)
{
	s->p = record_put_free(s->p, &s->st, fn, seq, addr, NULL);
}

/* A MARKER as the recorder writes it: a sequence number of its own
 * (SEQ_SKIP), then the record, which stands at that number. */
static void put_marker(struct slot *s, uint64_t seq, uint64_t ms, const char *name)
{
	uint8_t *rec;

	s->p = record_put_seq_skip(s->p, &s->st, seq);
	rec = s->p;
	s->p = record_ext_begin(s->p, TRACE_REC_EXT_MARKER);
	s->p = varint_put_u64(s->p, T0 + ms * MS);
	memcpy(s->p, name, strlen(name));
	s->p += strlen(name);
	record_ext_end(rec, s->p);
}

/* A CONTROL: recording started (with rate_bytes, 0 exact) or stopped. */
static void put_control(struct slot *s, uint64_t seq, uint64_t ms, int started,
			uint64_t rate_bytes)
{
	uint8_t *rec;

	s->p = record_put_seq_skip(s->p, &s->st, seq);
	rec = s->p;
	s->p = record_ext_begin(s->p, TRACE_REC_EXT_CONTROL);
	s->p = varint_put_u64(s->p, T0 + ms * MS);
	s->p = varint_put_u64(s->p, (uint64_t)started);
	s->p = varint_put_u64(s->p, rate_bytes);
	record_ext_end(rec, s->p);
}

/* The metadata stream: the one stack every allocation uses (no module
 * map: its frame stays unsymbolized). */
static int write_stacks(struct trace_writer *w)
{
	struct slot m;

	memset(&m, 0, sizeof(m));
	m.p = record_put_thread(m.rec, &m.st, 0);
	m.p = record_put_time(m.p, T0);
	m.p = record_put_stack(m.p, &m.st, 1, 0, 0);
	m.p = record_put_stack(m.p, &m.st, 2, 1, 0x401000);
	return slot_flush(w, &m);
}

/*
 * Two threads, four markers (start, phase, phase, end) set by both in turn;
 * seven allocations of 100 to 700 bytes (A1-A3 by thread 101 at 0x10000 +
 * 0x100 k, B1-B4 by thread 102 at 0x20000 + 0x100 k), A1 and A2 freed:
 *   seq 1 A1 100 (0 ms), 2 B1 200 (0 ms), 3 marker start (100 ms), 4 B2 300
 *   (150 ms), 5 A2 400 (200 ms), 6 marker phase (300 ms), 7 free A1
 *   (400 ms), 8 B3 500 (450 ms), 9 marker phase (600 ms), 10 B4 600
 *   (700 ms), 11 free A2 (800 ms), 12 marker end (900 ms), 13 A3 700
 *   (950 ms).
 * Each event's thread takes a TIME stamp right after it, as the clock
 * reads then.  Thread 102's chunk comes first in the file.
 */
static int write_markers(struct trace_writer *w)
{
	struct slot a, b;
	int rc = 0;

	slot_start(&a, 1, 101);
	slot_start(&b, 2, 102);
	put_alloc(&a, TRACE_FN_MALLOC, 1, 0x10000, 100, 1);
	put_alloc(&b, TRACE_FN_MALLOC, 2, 0x20000, 200, 1);
	put_marker(&a, 3, 100, "start");
	put_time(&a, 100);
	put_alloc(&b, TRACE_FN_MALLOC, 4, 0x20100, 300, 1);
	put_time(&b, 150);
	put_alloc(&a, TRACE_FN_MALLOC, 5, 0x10100, 400, 1);
	put_time(&a, 200);
	put_marker(&b, 6, 300, "phase");
	put_time(&b, 300);
	put_free(&a, TRACE_FREE_FREE, 7, 0x10000);
	put_time(&a, 400);
	put_alloc(&b, TRACE_FN_MALLOC, 8, 0x20200, 500, 1);
	put_time(&b, 450);
	put_marker(&a, 9, 600, "phase");
	put_time(&a, 600);
	put_alloc(&b, TRACE_FN_MALLOC, 10, 0x20300, 600, 1);
	put_time(&b, 700);
	put_free(&a, TRACE_FREE_FREE, 11, 0x10100);
	put_time(&a, 800);
	put_marker(&b, 12, 900, "end");
	put_time(&b, 900);
	put_alloc(&a, TRACE_FN_MALLOC, 13, 0x10200, 700, 1);
	put_time(&a, 950);
	rc |= slot_flush(w, &b);
	rc |= slot_flush(w, &a);
	return rc;
}

/*
 * Started paused (META paused=1) in a run of 5 s: recording on from 1.0 s
 * to 2.0 s exactly, and from 3.0 s to 4.1 s sampled at 64 KiB; 2.1 s of 5 s
 * recorded.  seq 1 start, 2 malloc 1000 B (1.5 s), 3 stop, 4 start at
 * 65536, 5 marker mid (3.2 s), 6 a weighted malloc of 100 B, weight 10
 * (3.5 s), 7 stop.  Estimates: 11 allocations, 2000 B.
 */
static int write_paused(struct trace_writer *w)
{
	struct slot a;

	slot_start(&a, 1, 101);
	put_control(&a, 1, 1000, 1, 0);
	put_time(&a, 1000);
	put_alloc(&a, TRACE_FN_MALLOC, 2, 0x10000, 1000, 1);
	put_time(&a, 1500);
	put_control(&a, 3, 2000, 0, 0);
	put_time(&a, 2000);
	put_control(&a, 4, 3000, 1, 65536);
	put_time(&a, 3000);
	put_marker(&a, 5, 3200, "mid");
	put_time(&a, 3200);
	put_alloc(&a, TRACE_FN_MALLOC, 6, 0x10100, 100, 10);
	put_time(&a, 3500);
	put_control(&a, 7, 4100, 0, 0);
	put_time(&a, 4100);
	return slot_flush(w, &a);
}

/*
 * Toggles timed when they were asked, as the recorder writes them: started
 * paused (META paused=1), a run of 5 s, two threads.  seq 1 start (1.0 s,
 * thread 101), 2 malloc 1000 B (101, 1.2 s), 3 malloc 2000 B (102, 2.5 s:
 * mid-call when the stop was asked), 4 stop asked at 2.0 s (101, applied
 * at 3.0 s), 5 start (101, 3.5 s), 6 stop (102) timed 3.4 s, before the
 * record before it (a toggle whose handler read the clock before another
 * thread's record was written): taken at 3.5 s.  Recorded 1.0 s of 5 s;
 * changes at 1000, 2000, 3500, 3500 ms; 2 allocations, 3000 B, leaked.
 */
static int write_asked(struct trace_writer *w)
{
	struct slot a, b;
	int rc = 0;

	slot_start(&a, 1, 101);
	slot_start(&b, 2, 102);
	put_control(&a, 1, 1000, 1, 0);
	put_time(&a, 1000);
	put_alloc(&a, TRACE_FN_MALLOC, 2, 0x10000, 1000, 1);
	put_time(&a, 1200);
	put_alloc(&b, TRACE_FN_MALLOC, 3, 0x20000, 2000, 1);
	put_time(&b, 2500);
	put_control(&a, 4, 2000, 0, 0);
	put_time(&a, 3000);
	put_control(&a, 5, 3500, 1, 0);
	put_time(&a, 3500);
	put_control(&b, 6, 3400, 0, 0);
	put_time(&b, 3600);
	rc |= slot_flush(w, &b);
	rc |= slot_flush(w, &a);
	return rc;
}

/*
 * A pool inside a malloc'd arena: seq 1 malloc 4096 B at 0x30000; 2 pool
 * block of 64 B at the arena's own address (bit 63 set); 3 pool block of
 * 128 B at +0x40; 4 the first pool block freed; 5 the second resized to
 * 256 B in place.  Totals 4 allocations, 4544 B; pool 3 and 448 B; peak
 * 4352 B (256 of it pool); leaked the arena and the 256 B block.
 */
static int write_pool(struct trace_writer *w)
{
	struct slot a;

	slot_start(&a, 1, 101);
	put_alloc(&a, TRACE_FN_MALLOC, 1, 0x30000, 4096, 1);
	put_alloc(&a, TRACE_FN_POOL, 2, POOL_BIT | 0x30000, 64, 1);
	put_alloc(&a, TRACE_FN_POOL, 3, POOL_BIT | 0x30040, 128, 1);
	put_free(&a, TRACE_FREE_POOL, 4, POOL_BIT | 0x30000);
	a.p = record_put_realloc(a.p, &a.st, TRACE_FN_POOL, 5, POOL_BIT | 0x30040, NULL, 6,
				 POOL_BIT | 0x30040, 256, 2, 1);
	return slot_flush(w, &a);
}

int main(int argc, char **argv)
{
	static const char end5[] = "exit_status=0\nwall_ns=5000000000\n";
	static const char end1[] = "exit_status=0\nwall_ns=1000000000\n";
	char meta[256];
	struct trace_writer w;
	int fd, rc, paused;
	const char *end = end1;

	if (argc != 3 || (strcmp(argv[1], "markers") && strcmp(argv[1], "paused") &&
			  strcmp(argv[1], "asked") && strcmp(argv[1], "pool"))) {
		fputs("usage: write_trace markers|paused|asked|pool PATH\n", stderr);
		return 2;
	}
	paused = strcmp(argv[1], "paused") == 0 || strcmp(argv[1], "asked") == 0;
	snprintf(meta, sizeof(meta), "pid=7\nslots=8\nstack_stream=1\nexe=/bin/%s\n%s", argv[1],
		 paused ? "paused=1\n" : "");
	fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || trace_writer_start(&w, fd, 0) < 0) {
		perror(argv[2]);
		return 1;
	}
	rc = trace_writer_chunk(&w, TRACE_CHUNK_META, meta, strlen(meta));
	if (strcmp(argv[1], "markers") == 0) {
		rc |= write_markers(&w);
	} else if (strcmp(argv[1], "paused") == 0) {
		rc |= write_paused(&w);
		end = end5;
	} else if (strcmp(argv[1], "asked") == 0) {
		rc |= write_asked(&w);
		end = end5;
	} else {
		rc |= write_pool(&w);
	}
	rc |= write_stacks(&w);
	rc |= trace_writer_chunk(&w, TRACE_CHUNK_END, end, strlen(end));
	trace_writer_finish(&w);
	if (rc || close(fd) < 0) {
		fprintf(stderr, "%s: write failed\n", argv[2]);
		return 1;
	}
	return 0;
}
