/*
 * tests/unit/test_trace_codec.c - CUnit tests of the trace codec (trace/):
 * varints, every record kind's round trip, chunk framing, and how a reader
 * treats truncated, corrupt and unknown input.  Writes scratch files under
 * $TMPDIR (or /tmp) and removes them.
 */
#define _GNU_SOURCE
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "analyze/read/slot_decoder.h"
#include "trace/argv_quote.h"
#include "trace/chunk.h"
#include "trace/chunk_index.h"
#include "trace/modules_delta.h"
#include "trace/recode.h"
#include "trace/record.h"
#include "trace/split.h"
#include "trace/symbolize_request.h"
#include <sys/socket.h>

static char scratch_path[256];

static int make_scratch(void)
{
	const char *dir = getenv("TMPDIR");

	snprintf(scratch_path, sizeof(scratch_path), "%s/mprof-codec-XXXXXX", dir ? dir : "/tmp");
	int fd = mkstemp(scratch_path);
	return fd;
}

static void test_varint_round_trip_extremes(void)
{
	const uint64_t values[] = { 0, 1, 127, 128, 300, 1ull << 32, UINT64_MAX };
	uint8_t buf[VARINT_MAX_BYTES];

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint8_t *end = varint_put_u64(buf, values[i]);
		const uint8_t *p = buf;
		uint64_t out = 0;

		CU_ASSERT_EQUAL(varint_get_u64(&p, end, &out), 0);
		CU_ASSERT_EQUAL(out, values[i]);
		CU_ASSERT_PTR_EQUAL(p, end);
	}
	uint8_t *end = varint_put_u64(buf, UINT64_MAX);
	CU_ASSERT_EQUAL(end - buf, 10);
	/* a number cut short is refused and the cursor stays put */
	const uint8_t *p = buf;
	uint64_t out;
	CU_ASSERT_EQUAL(varint_get_u64(&p, buf + 3, &out), -1);
	CU_ASSERT_PTR_EQUAL(p, buf);
	CU_ASSERT_EQUAL(varint_unzigzag(varint_zigzag(-5)), -5);
	CU_ASSERT_EQUAL(varint_zigzag(-1), 1u);
}

/* A DIAG record of code with text at p; returns the end. */
static uint8_t *put_diag(uint8_t *p, unsigned code, const char *text)
{
	uint8_t *ext = record_ext_begin(p, TRACE_REC_EXT_DIAG);

	p = varint_put_u64(ext, code);
	p = record_put_bytes(p, text, strlen(text));
	record_ext_end(ext - RECORD_EXT_HEADER_BYTES, p);
	return p;
}

/* What record_diag_each gives, "CODE:TEXT|..." */
struct diag_seen {
	char s[256];
};

static void diag_seen_add(void *arg, uint64_t code, const char *text, size_t len)
{
	struct diag_seen *d = arg;
	size_t at = strlen(d->s);

	snprintf(d->s + at, sizeof(d->s) - at, "%llu:%.*s|", (unsigned long long)code, (int)len,
		 text);
}

/* record_diag_each gives every DIAG record's code and text in order, past
 * the other records, and stops at one it cannot read. */
static void test_diag_records_each(void)
{
	uint8_t buf[512], *p = buf, *cut;
	struct record_state enc = { 0 };
	struct diag_seen seen = { "" };

	p = record_put_thread(p, &enc, 7);
	p = put_diag(p, TRACE_DIAG_FOREIGN_MALLOC, "own malloc");
	p = record_put_stack(p, &enc, 1, 0, 0x7f0000001234ull);
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 1, 0x55550000, 16, 1, 1);
	p = put_diag(p, TRACE_DIAG_INFO, "LD_AUDIT loaded x");
	CU_ASSERT_EQUAL(record_diag_each(buf, (size_t)(p - buf), diag_seen_add, &seen), 0);
	CU_ASSERT_STRING_EQUAL(seen.s, "1:own malloc|0:LD_AUDIT loaded x|");
	/* cut inside the second: the first only, and -1 */
	cut = p - 3;
	seen.s[0] = '\0';
	CU_ASSERT_EQUAL(record_diag_each(buf, (size_t)(cut - buf), diag_seen_add, &seen), -1);
	CU_ASSERT_STRING_EQUAL(seen.s, "1:own malloc|");
	/* none */
	seen.s[0] = '\0';
	CU_ASSERT_EQUAL(record_diag_each(buf, 0, diag_seen_add, &seen), 0);
	CU_ASSERT_STRING_EQUAL(seen.s, "");
}

/* Encodes one of every core record, plus an extended one, then decodes. */
static void test_every_record_kind_round_trips(void)
{
	uint8_t buf[1024], *p = buf;
	struct record_state enc = { 0 }, dec = { 0 };
	struct trace_event ev;
	const uint8_t *q = buf;

	p = record_put_thread(p, &enc, 4242);
	p = record_put_time(p, 123456789);
	p = record_put_stack(p, &enc, 1, 0, 2 * 1 + 1);
	p = record_put_stack(p, &enc, 2, 1, 0x7f0000001234ull);
	p = record_put_alloc(p, &enc, TRACE_FN_CALLOC, 10, 0x55550000, 4096, 2, 1);
	p = record_put_free(p, &enc, TRACE_FREE_SIZED, 11, 0x55550000, NULL);
	p = record_put_realloc(p, &enc, TRACE_FN_REALLOC, 12, 0x55551000, NULL, 13, 0x55540000, 77, 2, 1);
	p = record_put_seq_skip(p, &enc, 14);
	*p++ = TRACE_REC_PAD;
	uint8_t *ext = record_ext_begin(p, TRACE_REC_EXT_DIAG);
	p = varint_put_u64(ext, TRACE_DIAG_INFO);
	p = record_put_bytes(p, "hello", 5);
	record_ext_end(ext - RECORD_EXT_HEADER_BYTES, p);

	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_THREAD);
	CU_ASSERT_EQUAL(ev.tid, 4242);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_TIME);
	CU_ASSERT_EQUAL(ev.time_ns, 123456789);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_STACK);
	CU_ASSERT_EQUAL(ev.stack_id, 1);
	CU_ASSERT_EQUAL(ev.parent, 0);
	CU_ASSERT_EQUAL(ev.ip, 3);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.stack_id, 2);
	CU_ASSERT_EQUAL(ev.parent, 1);
	CU_ASSERT_EQUAL(ev.ip, 0x7f0000001234ull);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_ALLOC);
	CU_ASSERT_EQUAL(ev.fn, TRACE_FN_CALLOC);
	CU_ASSERT_EQUAL(ev.seq, 10);
	CU_ASSERT_EQUAL(ev.addr, 0x55550000);
	CU_ASSERT_EQUAL(ev.size_bytes, 4096);
	CU_ASSERT_EQUAL(ev.stack_id, 2);
	CU_ASSERT_EQUAL(ev.weight, 1);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_FREE);
	CU_ASSERT_EQUAL(ev.fn, TRACE_FREE_SIZED);
	CU_ASSERT_EQUAL(ev.seq, 11);
	CU_ASSERT_EQUAL(ev.addr, 0x55550000);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_REALLOC);
	CU_ASSERT_EQUAL(ev.seq, 12);
	CU_ASSERT_EQUAL(ev.addr, 0x55551000);
	CU_ASSERT_EQUAL(ev.seq2, 13);
	CU_ASSERT_EQUAL(ev.addr2, 0x55540000);
	CU_ASSERT_EQUAL(ev.size_bytes, 77);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_SEQ_SKIP);
	CU_ASSERT_EQUAL(ev.seq, 14);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_EXT);
	CU_ASSERT_EQUAL(ev.kind, TRACE_REC_EXT_DIAG);
	CU_ASSERT_EQUAL(ev.ext_len, 7);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_END);
}

/* A STACK_DELTA node is a few bytes; it continues from the id of the slot's
 * previous node, also when that was a major 1 STACK record. */
static void test_stack_nodes_are_written_as_deltas(void)
{
	const uint8_t old_node[] = { TRACE_REC_STACK, 0x90, 0x4e /* 10000 */, 0, 3 };
	uint8_t buf[64], *p = buf, *mark;
	struct record_state enc, dec;
	struct trace_event ev;
	const uint8_t *q = buf;

	record_state_reset(&enc);
	record_state_reset(&dec);
	memcpy(p, old_node, sizeof(old_node));
	p += sizeof(old_node);
	enc.stack_node = 10000;
	enc.stack_ip = (uint64_t)-2; /* the s ip~ of old_node: 3 is zigzag -2 */
	p = record_put_stack(p, &enc, 10001, 10000, 0x7f0000001000ull);
	mark = p;
	p = record_put_stack(p, &enc, 10002, 10001, 0x7f0000001100ull);
	p = record_put_stack(p, &enc, 10004, 10001, 0x7f0000001080ull);
	/* each: kind, id~ and parent delta one byte each, ip~ two bytes */
	CU_ASSERT_EQUAL(p - mark, 2 * 5);
	const struct { uint64_t id, parent, ip; } want[] = {
		{ 10000, 0, (uint64_t)-2 },
		{ 10001, 10000, 0x7f0000001000ull },
		{ 10002, 10001, 0x7f0000001100ull },
		{ 10004, 10001, 0x7f0000001080ull },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
		CU_ASSERT_EQUAL(ev.type, TRACE_EV_STACK);
		CU_ASSERT_EQUAL(ev.stack_id, want[i].id);
		CU_ASSERT_EQUAL(ev.parent, want[i].parent);
		CU_ASSERT_EQUAL(ev.ip, want[i].ip);
	}
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_END);
}

/* A free of a recent block names it by reference; the next allocation of
 * the same size class at that address costs no address either. */
static void test_recent_blocks_are_named_by_reference(void)
{
	uint8_t buf[256], *p = buf, *mark;
	struct record_state enc, dec;
	struct trace_event ev;
	const uint8_t *q = buf;

	record_state_reset(&enc);
	record_state_reset(&dec);
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 1, 0x7f1234560010ull, 100, 7, 1);
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 2, 0x7f1234560080ull, 40, 8, 1);
	mark = p;
	p = record_put_free(p, &enc, TRACE_FREE_FREE, 3, 0x7f1234560010ull, NULL);
	CU_ASSERT_EQUAL(p - mark, 3); /* kind, seq+1, MRU reference 2 */
	mark = p;
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 4, 0x7f1234560010ull, 104, 7, 1);
	CU_ASSERT_EQUAL(p - mark, 5); /* kind, seq, aref LIFO, size, stack delta */
	p = record_put_alloc(p, &enc, TRACE_FN_CALLOC, 5, 0x7f1234560090ull, 64, 7, 1);
	p = record_put_realloc(p, &enc, TRACE_FN_REALLOC, 6, 0x7f1234560080ull, NULL, 7,
			       0x7f1234560080ull, 48, 9, 1);
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 8, 0x1000, 16, 7, 3);

	const struct { unsigned type; uint64_t seq, addr, size, stack; } want[] = {
		{ TRACE_EV_ALLOC, 1, 0x7f1234560010ull, 100, 7 },
		{ TRACE_EV_ALLOC, 2, 0x7f1234560080ull, 40, 8 },
		{ TRACE_EV_FREE, 3, 0x7f1234560010ull, 0, 0 },
		{ TRACE_EV_ALLOC, 4, 0x7f1234560010ull, 104, 7 },
		{ TRACE_EV_ALLOC, 5, 0x7f1234560090ull, 64, 7 },
		{ TRACE_EV_REALLOC, 6, 0x7f1234560080ull, 48, 9 },
		{ TRACE_EV_ALLOC, 8, 0x1000, 16, 7 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
		CU_ASSERT_EQUAL(ev.type, want[i].type);
		CU_ASSERT_EQUAL(ev.seq, want[i].seq);
		CU_ASSERT_EQUAL(ev.addr, want[i].addr);
		if (want[i].type != TRACE_EV_FREE) {
			CU_ASSERT_EQUAL(ev.size_bytes, want[i].size);
			CU_ASSERT_EQUAL(ev.stack_id, want[i].stack);
		}
	}
	CU_ASSERT_EQUAL(ev.weight, 3);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_END);
}

/* The MRU entries past the 16 newest are named by the codes after the size
 * classes (major 5), and the freed blocks 8 to 15 places below the newest
 * of their class by arefs past those of major 2 to 4: both decode to the
 * blocks they name. */
static void test_far_mru_and_deep_lifo_references_decode(void)
{
	uint8_t buf[1024], *p = buf, *mark;
	struct record_state enc, dec;
	struct trace_event ev;
	const uint8_t *q = buf;
	uint64_t seq = 1;

	record_state_reset(&enc);
	record_state_reset(&dec);
	for (uint64_t i = 0; i < RECORD_MRU_BLOCKS; i++)
		p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, seq++, 0x10000 + 0x100 * i, 40, 3, 1);
	/* block 11 is 20 places below the newest (31) */
	mark = p;
	p = record_put_free(p, &enc, TRACE_FREE_FREE, seq++, 0x10000 + 0x100 * 11, NULL);
	CU_ASSERT_EQUAL(mark[2], RECORD_FREF_FAR + 20 - RECORD_MRU_NEAR);
	CU_ASSERT_EQUAL(p - mark, 3); /* kind, seq, fref: no address */
	/* 12 more blocks of its class freed on top of it (blocks 31 .. 20) */
	for (uint64_t i = 31; i >= 20; i--)
		p = record_put_free(p, &enc, TRACE_FREE_FREE, seq++, 0x10000 + 0x100 * i, NULL);
	mark = p;
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, seq++, 0x10000 + 0x100 * 11, 40, 3, 1);
	CU_ASSERT_EQUAL(mark[2], RECORD_AREF_DEEP + 12 - 1); /* 12 places below the newest */
	CU_ASSERT(RECORD_AREF_DEEP + 12 - 1 <= RECORD_AREF_MAX);

	for (uint64_t i = 0; i < RECORD_MRU_BLOCKS; i++)
		CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_FREE);
	CU_ASSERT_EQUAL(ev.addr, 0x10000 + 0x100 * 11);
	CU_ASSERT(ev.freed_recent);
	for (uint64_t i = 31; i >= 20; i--) {
		CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
		CU_ASSERT_EQUAL(ev.addr, 0x10000 + 0x100 * i);
	}
	CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_ALLOC);
	CU_ASSERT_EQUAL(ev.addr, 0x10000 + 0x100 * 11);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_END);
}

/* A free of an older block that names its size class puts the block in
 * that class's list, so the allocation that reuses its chunk (here after
 * two newer frees of the class) is a one-byte reference again; a lookup made
 * before a lap start reset the state is not trusted. */
static void test_older_block_freed_with_its_class_is_reused_by_reference(void)
{
	uint8_t buf[512], *p = buf, *mark;
	struct record_state enc, dec;
	struct record_free_ref ref;
	struct trace_event ev;
	const uint8_t *q = buf;
	int c48 = record_size_class(48);
	const uint64_t s = 2 + RECORD_MRU_BLOCKS;

	record_state_reset(&enc);
	record_state_reset(&dec);
	/* block A at 0x5000, then RECORD_MRU_BLOCKS newer blocks push it out of
	 * the MRU list; the free and what follows take sequence numbers s on */
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 1, 0x5000, 48, 3, 1);
	for (uint64_t i = 0; i < RECORD_MRU_BLOCKS; i++)
		p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 2 + i, 0x9000 + 0x100 * i, 48, 3, 1);
	ref = record_free_lookup(&enc, 0x5000);
	CU_ASSERT_EQUAL(ref.mru_index, -1);
	ref.size_class = c48; /* what the recorder learns from the allocator */
	mark = p;
	p = record_put_free(p, &enc, TRACE_FREE_FREE, s, 0x5000, &ref);
	CU_ASSERT_EQUAL(mark[2], RECORD_FREF_CLASSED + c48);
	/* two newer blocks of the class freed on top of it (MRU references) */
	p = record_put_free(p, &enc, TRACE_FREE_FREE, s + 1, 0x9f00, NULL);
	p = record_put_free(p, &enc, TRACE_FREE_FREE, s + 2, 0x9e00, NULL);
	mark = p;
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, s + 3, 0x5000, 44, 3, 1);
	CU_ASSERT_EQUAL(p - mark, 5); /* kind, seq, aref, size, stack delta */
	CU_ASSERT_EQUAL(mark[2], RECORD_AREF_DEEP + 1); /* two places below the newest */
	/* a stale lookup: the MRU index no longer names the block */
	ref = record_free_lookup(&enc, 0x5000);
	CU_ASSERT_EQUAL(ref.mru_index, 0);
	record_state_reset(&enc);
	p = record_put_thread(p, &enc, 77);
	mark = p;
	p = record_put_free(p, &enc, TRACE_FREE_FREE, s + 4, 0x5000, &ref);
	CU_ASSERT_EQUAL(mark[2], 0); /* spelled out, not a reference into an empty list */

	for (uint64_t i = 0; i < 1 + RECORD_MRU_BLOCKS; i++)
		CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_FREE);
	CU_ASSERT_EQUAL(ev.addr, 0x5000);
	CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.addr, 0x9f00);
	CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.addr, 0x9e00);
	CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_ALLOC);
	CU_ASSERT_EQUAL(ev.seq, s + 3);
	CU_ASSERT_EQUAL(ev.addr, 0x5000);
	CU_ASSERT_EQUAL(ev.size_bytes, 44);
	CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_THREAD);
	CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_FREE);
	CU_ASSERT_EQUAL(ev.seq, s + 4);
	CU_ASSERT_EQUAL(ev.addr, 0x5000);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_END);
}

/* An allocation carved after the previous allocation that no freed list
 * served, with freed chunks reused in between, is named by aref FRESH in one
 * byte (major 6); a free list's block and the carve guess come first. */
static void test_allocation_after_last_fresh_block_is_named_by_reference(void)
{
	uint8_t buf[256], *p = buf, *mark;
	struct record_state enc, dec;
	struct trace_event ev;
	const uint8_t *q = buf;

	record_state_reset(&enc);
	record_state_reset(&dec);
	/* A and B carved from fresh memory (A explicit, B right after it) */
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 1, 0x7000, 40, 3, 1);
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 2, 0x7030, 24, 3, 1);
	/* B freed, then reused by an allocation of its class: carve moves on to
	 * after B, fresh stays there */
	p = record_put_free(p, &enc, TRACE_FREE_FREE, 3, 0x7030, NULL);
	mark = p;
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 4, 0x7030, 20, 3, 1);
	CU_ASSERT_EQUAL(mark[2], RECORD_AREF_LIFO);
	/* a fresh block elsewhere (explicit: fresh is after it), freed and
	 * reused at once (carve moves, fresh stays) */
	p = record_put_free(p, &enc, TRACE_FREE_FREE, 5, 0x7030, NULL);
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 6, 0x2000, 100, 3, 1);
	p = record_put_free(p, &enc, TRACE_FREE_FREE, 7, 0x2000, NULL);
	mark = p;
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 8, 0x2000, 100, 3, 1);
	CU_ASSERT_EQUAL(mark[2], RECORD_AREF_LIFO);
	/* the next fresh block: carve and fresh agree, carve comes first */
	mark = p;
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 9, 0x2070, 64, 3, 1);
	CU_ASSERT_EQUAL(mark[2], RECORD_AREF_CARVE);
	/* B's chunk reused again, then the next fresh block after 0x2070's */
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 10, 0x7030, 20, 3, 1);
	mark = p;
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 11, 0x20c0, 32, 3, 1);
	CU_ASSERT_EQUAL(mark[2], RECORD_AREF_FRESH);
	CU_ASSERT_EQUAL(p - mark, 5); /* kind, seq, aref, size, stack delta */
	mark = p;
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 12, 0x20f0, 32, 3, 1);
	CU_ASSERT_EQUAL(mark[2], RECORD_AREF_CARVE);

	for (unsigned i = 0; i < 11; i++)
		CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_ALLOC);
	CU_ASSERT_EQUAL(ev.seq, 11);
	CU_ASSERT_EQUAL(ev.addr, 0x20c0);
	CU_ASSERT_EQUAL_FATAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.addr, 0x20f0);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_END);
}

/* A reference to a block the reader does not have is corruption, not a
 * crash or a made-up address. */
static void test_reference_to_missing_block_is_corrupt(void)
{
	const uint8_t free_ref[] = { TRACE_REC_FREE, 1, 5 };
	const uint8_t lifo_ref[] = { TRACE_REC_ALLOC, 1, RECORD_AREF_LIFO, 16, 0 };
	const uint8_t deep_ref[] = { TRACE_REC_ALLOC, 1, RECORD_AREF_DEEP, 16, 0 };
	const uint8_t bad_fref[] = { TRACE_REC_FREE, 1, RECORD_FREF_MAX + 1, 2 };
	const uint8_t bad_aref[] = { TRACE_REC_ALLOC, 1, RECORD_AREF_MAX + 1, 16, 0 };
	struct record_state dec;
	struct trace_event ev;
	const uint8_t *q = free_ref;

	record_state_reset(&dec);
	CU_ASSERT_EQUAL(record_decode(&q, free_ref + sizeof(free_ref), &dec, &ev), RECORD_CORRUPT);
	q = lifo_ref;
	record_state_reset(&dec);
	CU_ASSERT_EQUAL(record_decode(&q, lifo_ref + sizeof(lifo_ref), &dec, &ev), RECORD_CORRUPT);
	/* the class list holds one block: "one below the newest" is not there */
	record_state_reset(&dec);
	record_lifo_push(&dec, record_size_class(16), 0x4000);
	q = deep_ref;
	CU_ASSERT_EQUAL(record_decode(&q, deep_ref + sizeof(deep_ref), &dec, &ev), RECORD_CORRUPT);
	q = bad_fref;
	CU_ASSERT_EQUAL(record_decode(&q, bad_fref + sizeof(bad_fref), &dec, &ev), RECORD_CORRUPT);
	q = bad_aref;
	CU_ASSERT_EQUAL(record_decode(&q, bad_aref + sizeof(bad_aref), &dec, &ev), RECORD_CORRUPT);
}

/* The recorder's reset of a state it has used (record_put_thread_reused)
 * clears only the class lists in use, and leaves the same state as a full
 * reset: after allocations and frees of many classes (lists filled past
 * their depth, blocks taken out of the middle), both are all zero, and a
 * stream written on after either decodes the same. */
static void test_reset_of_used_lists_equals_a_full_reset(void)
{
	static const struct record_state zero;
	struct record_state used, full;
	uint8_t buf[16384], *p = buf, a[64], b[64], *pa, *pb;
	uint64_t seq = 1;

	record_state_reset(&used);
	for (uint64_t round = 0; round < 3; round++)
		for (uint64_t i = 0; i < 40; i++) {
			uint64_t addr = 0x100000 + 0x1000 * i, size = 8 + 24 * (i % 21);

			p = record_put_alloc(p, &used, TRACE_FN_MALLOC, seq++, addr, size, 3, 1);
			if (i % 3 != 1)
				p = record_put_free(p, &used, TRACE_FREE_FREE, seq++, addr, NULL);
			CU_ASSERT_FATAL(p < buf + sizeof(buf) - 64);
		}
	CU_ASSERT_NOT_EQUAL(memcmp(&used, &zero, sizeof(used)), 0);
	full = used;
	pa = record_put_thread_reused(a, &used, 5);
	pb = record_put_thread(b, &full, 5);
	CU_ASSERT_EQUAL(memcmp(&used, &zero, sizeof(used)), 0);
	CU_ASSERT_EQUAL(memcmp(&full, &zero, sizeof(full)), 0);
	pa = record_put_alloc(pa, &used, TRACE_FN_MALLOC, seq, 0x7000, 40, 3, 1);
	pb = record_put_alloc(pb, &full, TRACE_FN_MALLOC, seq, 0x7000, 40, 3, 1);
	CU_ASSERT_EQUAL(pa - a, pb - b);
	CU_ASSERT_EQUAL(memcmp(a, b, (size_t)(pa - a)), 0);
}

/* A chunk of slot 0 at lap 0, offset 0 into buf: 3 rounds of 40 blocks of
 * 21 sizes, two of each three freed (every class list used), then a
 * THREAD record when thread.  Returns its bytes. */
static size_t churn_chunk(uint8_t *buf, size_t cap, bool thread)
{
	struct record_state enc;
	uint8_t *p = buf;
	uint64_t seq = 1;

	record_state_reset(&enc);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, 0);
	for (uint64_t round = 0; round < 3; round++)
		for (uint64_t i = 0; i < 40; i++) {
			uint64_t addr = 0x100000 + 0x1000 * i, size = 8 + 24 * (i % 21);

			p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, seq++, addr, size, 3, 1);
			if (i % 3 != 1)
				p = record_put_free(p, &enc, TRACE_FREE_FREE, seq++, addr, NULL);
			CU_ASSERT_FATAL(p < buf + cap - 64);
		}
	if (thread)
		p = record_put_thread(p, &enc, 7);
	return (size_t)(p - buf);
}

/* The decoder's THREAD record clears a state its records filled (with
 * record_state_reset_used), and slot decoders restarted for another trace
 * decode it as fresh ones do: the slot's chunks are new again, and its
 * record state starts from zero. */
static void test_decoder_thread_and_restart_start_from_zero(void)
{
	static const struct record_state zero;
	static uint8_t buf[16384];
	struct slot_decoders d, fresh;
	struct chunk_cursor cur, fcur;
	struct trace_event ev, fev;
	size_t n = churn_chunk(buf, sizeof(buf), true), events = 0;

	slot_decoders_init(&d);
	CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&d, buf, n, false, 0, &cur), 0);
	while (chunk_cursor_next(&cur, &ev) == RECORD_OK && ev.type != TRACE_EV_THREAD)
		;
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_THREAD);
	CU_ASSERT_EQUAL(memcmp(&cur.state->st, &zero, sizeof(zero)), 0);

	/* the same chunk without the THREAD record leaves the lists filled */
	n = churn_chunk(buf, sizeof(buf), false);
	slot_decoders_free(&d);
	slot_decoders_init(&d);
	CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&d, buf, n, false, 0, &cur), 0);
	while (chunk_cursor_next(&cur, &ev) == RECORD_OK)
		;
	CU_ASSERT_NOT_EQUAL(memcmp(&cur.state->st, &zero, sizeof(zero)), 0);
	CU_ASSERT_EQUAL(slot_decoders_begin(&d, buf, n, false, 0, &cur), -EEXIST);

	/* restarted: the chunk is another trace's, decoded as by fresh ones */
	slot_decoders_restart(&d);
	slot_decoders_init(&fresh);
	CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&d, buf, n, false, 0, &cur), 0);
	CU_ASSERT_EQUAL(memcmp(&cur.state->st, &zero, sizeof(zero)), 0);
	CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&fresh, buf, n, false, 0, &fcur), 0);
	for (;;) {
		int rc = chunk_cursor_next(&cur, &ev), frc = chunk_cursor_next(&fcur, &fev);

		CU_ASSERT_EQUAL_FATAL(rc, frc);
		if (rc != RECORD_OK)
			break;
		CU_ASSERT_EQUAL(ev.type, fev.type);
		CU_ASSERT_EQUAL(ev.seq, fev.seq);
		CU_ASSERT_EQUAL(ev.addr, fev.addr);
		CU_ASSERT_EQUAL(ev.size_bytes, fev.size_bytes);
		events++;
	}
	CU_ASSERT_EQUAL(events, 201);
	CU_ASSERT_EQUAL(memcmp(&cur.state->st, &fcur.state->st, sizeof(zero)), 0);
	slot_decoders_free(&d);
	slot_decoders_free(&fresh);
}

static void test_unknown_extended_record_is_skipped(void)
{
	uint8_t buf[64], *p = buf;
	struct record_state enc = { 0 }, dec = { 0 };
	struct trace_event ev;
	const uint8_t *q = buf;

	uint8_t *ext = record_ext_begin(p, 0xfe);
	p = record_put_bytes(ext, "future", 6);
	record_ext_end(ext - RECORD_EXT_HEADER_BYTES, p);
	p = record_put_free(p, &enc, TRACE_FREE_FREE, 9, 0x1000, NULL);

	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_EXT);
	CU_ASSERT_EQUAL(ev.kind, 0xfe);
	CU_ASSERT_EQUAL(record_decode(&q, p, &dec, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.type, TRACE_EV_FREE);
	CU_ASSERT_EQUAL(ev.seq, 9);
}

static void test_unknown_core_record_is_an_error(void)
{
	const uint8_t buf[] = { 0x7e, 1, 2, 3 };
	const uint8_t *q = buf;
	struct record_state dec = { 0 };
	struct trace_event ev;

	CU_ASSERT_EQUAL(record_decode(&q, buf + sizeof(buf), &dec, &ev), RECORD_UNKNOWN);
	CU_ASSERT_PTR_EQUAL(q, buf);
}

static void test_record_cut_short_is_truncated(void)
{
	uint8_t buf[64], *p = buf;
	struct record_state enc = { 0 }, dec = { 0 };
	struct trace_event ev;
	const uint8_t *q = buf;

	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 1000, 0x7fff12345678ull, 100000, 5, 1);
	CU_ASSERT_EQUAL(record_decode(&q, p - 1, &dec, &ev), RECORD_TRUNCATED);
	CU_ASSERT_EQUAL(dec.seq, 0); /* state untouched by the failed record */
	CU_ASSERT_EQUAL(dec.mru_count, 0);
}

/* Writes a trace with three EVENTS chunks and an unknown chunk type. */
static int write_sample_trace(int fd, uint64_t *chunk_offsets)
{
	struct trace_writer w;
	uint8_t buf[256], *p;
	struct record_state enc = { 0 };

	if (trace_writer_start(&w, fd, 0) != 0)
		return -1;
	trace_writer_chunk(&w, TRACE_CHUNK_META, "pid=1\n", 6);
	for (int i = 0; i < 3; i++) {
		p = buf;
		p = varint_put_u64(p, 0);                 /* slot */
		p = varint_put_u64(p, 0);                 /* lap */
		p = varint_put_u64(p, i == 0 ? 0 : 1000u * (unsigned)i); /* offset */
		if (i == 0)
			record_state_reset(&enc);
		p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, (uint64_t)i + 1, 0x1000 + 16u * (unsigned)i, 8, 1, 1);
		chunk_offsets[i] = w.offset_bytes;
		trace_writer_chunk(&w, TRACE_CHUNK_EVENTS, buf, (size_t)(p - buf));
	}
	trace_writer_chunk(&w, 200, "unknown chunk type", 18);
	trace_writer_finish(&w);
	return 0;
}

static void test_chunks_round_trip_and_unknown_type_is_skipped(void)
{
	uint64_t offsets[3];
	int fd = make_scratch();
	struct trace_reader r;
	struct trace_chunk c;
	int types[8], n = 0;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write_sample_trace(fd, offsets), 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	CU_ASSERT_EQUAL(r.version_major, TRACE_VERSION_MAJOR);
	while (n < 8 && trace_reader_next(&r, &c) == 1)
		types[n++] = (int)c.type;
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_EQUAL(types[0], TRACE_CHUNK_META);
	CU_ASSERT_EQUAL(types[1], TRACE_CHUNK_EVENTS);
	CU_ASSERT_EQUAL(types[4], 200);
	trace_reader_close(&r);
	unlink(scratch_path);
}

static int want_meta_only(unsigned type, unsigned stream, void *arg)
{
	(void)stream;
	(*(int *)arg)++;
	return type == TRACE_CHUNK_META;
}

static void test_chunk_stream_is_kept_and_filtered_chunks_are_skipped(void)
{
	int fd = make_scratch();
	struct trace_writer w;
	struct trace_reader r;
	struct trace_chunk c;
	int asked = 0;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(trace_writer_start(&w, fd, 0), 0);
	CU_ASSERT_EQUAL(trace_writer_chunk_stream(&w, TRACE_CHUNK_EVENTS, 513, "abc", 3), 0);
	CU_ASSERT_EQUAL(trace_writer_chunk(&w, TRACE_CHUNK_META, "k=v\n", 4), 0);
	trace_writer_finish(&w);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
	CU_ASSERT_EQUAL(c.stream, 513);
	CU_ASSERT_EQUAL(c.bytes, 3);
	trace_reader_close(&r);

	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	CU_ASSERT_EQUAL(trace_reader_next_filtered(&r, &c, want_meta_only, &asked), 1);
	CU_ASSERT_EQUAL(c.type, TRACE_CHUNK_EVENTS);
	CU_ASSERT_PTR_NULL(c.data);
	CU_ASSERT_EQUAL(trace_reader_next_filtered(&r, &c, want_meta_only, &asked), 1);
	CU_ASSERT_EQUAL(c.type, TRACE_CHUNK_META);
	CU_ASSERT_EQUAL(c.bytes, 4);
	CU_ASSERT_EQUAL(memcmp(c.data, "k=v\n", 4), 0);
	CU_ASSERT_EQUAL(trace_reader_next_filtered(&r, &c, want_meta_only, &asked), 0);
	CU_ASSERT_EQUAL(asked, 2);
	trace_reader_close(&r);
	unlink(scratch_path);
}

/* Level 0 writes the payload as it is (no zlib flag); a reader takes it
 * back unchanged, between zlib chunks, and still checks its CRC. */
static void test_stored_chunk_round_trips_between_zlib_chunks(void)
{
	static const char events[] = "\x10\x01\x02\x18\x00";
	int fd = make_scratch();
	struct trace_writer w;
	struct trace_reader r;
	struct trace_chunk c;
	uint8_t header[TRACE_CHUNK_HEADER_BYTES];
	off_t stored_at;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(trace_writer_start(&w, fd, 0), 0);
	CU_ASSERT_EQUAL(trace_writer_chunk(&w, TRACE_CHUNK_META, "a=1\n", 4), 0);
	stored_at = (off_t)w.offset_bytes;
	w.level = 0;
	CU_ASSERT_EQUAL(trace_writer_chunk_stream(&w, TRACE_CHUNK_EVENTS, 2, events, 5), 0);
	w.level = 6;
	CU_ASSERT_EQUAL(trace_writer_chunk(&w, TRACE_CHUNK_META, "b=2\n", 4), 0);
	trace_writer_finish(&w);
	CU_ASSERT_EQUAL(pread(fd, header, sizeof(header), stored_at), (ssize_t)sizeof(header));
	CU_ASSERT_EQUAL(header[5], 0);                    /* no zlib flag */
	CU_ASSERT_EQUAL(trace_get_le32(header + 8), 5);   /* stored = raw */
	CU_ASSERT_EQUAL(trace_get_le32(header + 12), 5);
	close(fd);

	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
	CU_ASSERT_EQUAL(c.type, TRACE_CHUNK_META);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
	CU_ASSERT_EQUAL(c.type, TRACE_CHUNK_EVENTS);
	CU_ASSERT_EQUAL(c.stream, 2);
	CU_ASSERT_EQUAL_FATAL(c.bytes, 5);
	CU_ASSERT_EQUAL(memcmp(c.data, events, 5), 0);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
	CU_ASSERT_EQUAL(c.bytes, 4);
	CU_ASSERT_EQUAL(memcmp(c.data, "b=2\n", 4), 0);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 0);
	trace_reader_close(&r);

	/* a flipped payload byte is caught by the CRC, as in zlib chunks */
	fd = open(scratch_path, O_RDWR);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(pwrite(fd, "\x11", 1, stored_at + TRACE_CHUNK_HEADER_BYTES), 1);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), -EBADMSG);
	trace_reader_close(&r);
	unlink(scratch_path);
}

/* Writes a chunk made by hand at file offset at: header (flags as given,
 * CRCs computed) and the stored payload of stored bytes, raw bytes after
 * inflating.  Returns 0 or -1. */
static int pwrite_chunk(int fd, off_t at, unsigned type, unsigned flags, unsigned stream,
			const void *payload, size_t stored, size_t raw)
{
	uint8_t h[TRACE_CHUNK_HEADER_BYTES] = { 0 };

	trace_put_le32(h, TRACE_CHUNK_MAGIC);
	h[4] = (uint8_t)type;
	h[5] = (uint8_t)flags;
	h[6] = (uint8_t)stream;
	h[7] = (uint8_t)(stream >> 8);
	trace_put_le32(h + 8, (uint32_t)stored);
	trace_put_le32(h + 12, (uint32_t)raw);
	trace_put_le32(h + 16, (uint32_t)crc32(0, payload, (uInt)stored));
	trace_put_le32(h + 20, (uint32_t)crc32(0, h, 20));
	if (pwrite(fd, h, sizeof(h), at) != (ssize_t)sizeof(h) ||
	    pwrite(fd, payload, stored, at + (off_t)sizeof(h)) != (ssize_t)stored)
		return -1;
	return 0;
}

/* At a compression level, a payload that would not shrink (random bytes)
 * is stored as it is; one that does is a zlib stream.  A chunk compressed
 * by zlib itself (as traces of earlier mprof versions are) reads back too. */
static void test_incompressible_chunk_is_stored_and_zlib_chunks_read(void)
{
	enum { N = 4096 };
	static uint8_t noise[N], text[N], packed[N + 64];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int fd = make_scratch();
	struct trace_writer w;
	struct trace_reader r;
	struct trace_chunk c;
	uint8_t h[TRACE_CHUNK_HEADER_BYTES];
	uLongf packed_bytes = sizeof(packed);
	off_t noise_at, text_at, zlib_at;

	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		noise[i] = (uint8_t)x;
		text[i] = (uint8_t)("allocation site "[i % 16]);
	}
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(trace_writer_start(&w, fd, 0), 0);
	w.level = 6;
	noise_at = (off_t)w.offset_bytes;
	CU_ASSERT_EQUAL(trace_writer_chunk_stream(&w, TRACE_CHUNK_EVENTS, 1, noise, N), 0);
	text_at = (off_t)w.offset_bytes;
	CU_ASSERT_EQUAL(trace_writer_chunk_stream(&w, TRACE_CHUNK_EVENTS, 1, text, N), 0);
	zlib_at = (off_t)w.offset_bytes;
	trace_writer_finish(&w);
	/* a chunk made with zlib's compress2, header and CRCs by hand */
	CU_ASSERT_EQUAL_FATAL(compress2(packed, &packed_bytes, text, N, 9), Z_OK);
	CU_ASSERT_EQUAL(pwrite_chunk(fd, zlib_at, TRACE_CHUNK_EVENTS, TRACE_CHUNK_ZLIB, 1, packed,
				     packed_bytes, N),
			0);

	CU_ASSERT_EQUAL(pread(fd, h, sizeof(h), noise_at), (ssize_t)sizeof(h));
	CU_ASSERT_EQUAL(h[5], 0);
	CU_ASSERT_EQUAL(trace_get_le32(h + 8), N);
	CU_ASSERT_EQUAL(pread(fd, h, sizeof(h), text_at), (ssize_t)sizeof(h));
	CU_ASSERT_EQUAL(h[5], TRACE_CHUNK_ZLIB);
	CU_ASSERT(trace_get_le32(h + 8) < N / 10);
	close(fd);

	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
	CU_ASSERT_EQUAL_FATAL(c.bytes, N);
	CU_ASSERT_EQUAL(memcmp(c.data, noise, N), 0);
	for (int k = 0; k < 2; k++) {
		CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
		CU_ASSERT_EQUAL_FATAL(c.bytes, N);
		CU_ASSERT_EQUAL(memcmp(c.data, text, N), 0);
	}
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 0);
	trace_reader_close(&r);
	unlink(scratch_path);
}

static void test_truncated_file_reads_to_last_whole_chunk(void)
{
	uint64_t offsets[3];
	int fd = make_scratch();
	struct trace_reader r;
	struct trace_chunk c;
	int events = 0, rc;

	CU_ASSERT_FATAL(fd >= 0);
	write_sample_trace(fd, offsets);
	/* cut the file in the middle of the third EVENTS chunk */
	CU_ASSERT_EQUAL(ftruncate(fd, (off_t)offsets[2] + 30), 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	while ((rc = trace_reader_next(&r, &c)) == 1)
		events += c.type == TRACE_CHUNK_EVENTS;
	CU_ASSERT_EQUAL(rc, -EIO);
	CU_ASSERT_EQUAL(events, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.error, "truncated"));
	trace_reader_close(&r);
	unlink(scratch_path);
}

static void test_corrupt_chunk_is_reported_with_its_offset(void)
{
	uint64_t offsets[3];
	int fd = make_scratch();
	struct trace_reader r;
	struct trace_chunk c;
	char expect[64];
	int rc, events = 0;
	uint8_t byte;

	CU_ASSERT_FATAL(fd >= 0);
	write_sample_trace(fd, offsets);
	/* flip one payload byte of the second EVENTS chunk */
	off_t at = (off_t)offsets[1] + TRACE_CHUNK_HEADER_BYTES + 2;
	CU_ASSERT_EQUAL(pread(fd, &byte, 1, at), 1);
	byte ^= 0x55;
	CU_ASSERT_EQUAL(pwrite(fd, &byte, 1, at), 1);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	while ((rc = trace_reader_next(&r, &c)) == 1)
		events += c.type == TRACE_CHUNK_EVENTS;
	CU_ASSERT_EQUAL(rc, -EBADMSG);
	CU_ASSERT_EQUAL(events, 1);
	snprintf(expect, sizeof(expect), "offset %llu", (unsigned long long)offsets[1]);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.error, expect));
	trace_reader_close(&r);
	unlink(scratch_path);
}

/* Writes a 64-byte file header of the given major version. */
static int write_header_of_major(unsigned major)
{
	uint8_t h[TRACE_FILE_HEADER_BYTES] = { 0 };
	int fd = make_scratch();

	if (fd < 0)
		return -1;
	memcpy(h, TRACE_FILE_MAGIC, 8);
	h[8] = (uint8_t)major;
	h[12] = TRACE_FILE_HEADER_BYTES;
	if (write(fd, h, sizeof(h)) != (ssize_t)sizeof(h)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Major 1 traces (written before classed frees and deep references) and
 * major 2 ones (before split payloads) are still read; a major this reader
 * does not know is refused by name. */
static void test_older_major_is_read_and_newer_refused(void)
{
	struct trace_reader r;
	struct trace_chunk c;

	for (unsigned major = 1; major < TRACE_VERSION_MAJOR; major++) {
		CU_ASSERT_EQUAL_FATAL(write_header_of_major(major), 0);
		CU_ASSERT_EQUAL(trace_reader_open(&r, scratch_path), 0);
		CU_ASSERT_EQUAL(r.version_major, major);
		CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 0);
		trace_reader_close(&r);
		unlink(scratch_path);
	}
	CU_ASSERT_EQUAL_FATAL(write_header_of_major(TRACE_VERSION_MAJOR + 1), 0);
	CU_ASSERT_EQUAL(trace_reader_open(&r, scratch_path), -ENOTSUP);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.error, "reads versions 1 to 6"));
	trace_reader_close(&r);
	unlink(scratch_path);
}

static void test_not_a_trace_is_refused(void)
{
	int fd = make_scratch();
	struct trace_reader r;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "hello world, not a trace at all, just some text....!!!!!!!!!!!!!!!", 66), 66);
	close(fd);
	CU_ASSERT_EQUAL(trace_reader_open(&r, scratch_path), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.error, "not an mprof trace"));
	trace_reader_close(&r);
	unlink(scratch_path);
}

/* A chunk that continues a lap whose start was never seen is refused. */
static void test_slot_decoder_refuses_continuation_of_lost_lap(void)
{
	struct slot_decoders d;
	struct chunk_cursor cur;
	uint8_t buf[64], *p = buf;
	struct record_state enc = { 0 };
	struct trace_event ev;

	slot_decoders_init(&d);
	p = varint_put_u64(p, 3);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, 0);
	uint8_t *records = p;
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 5, 0x2000, 64, 1, 1);
	CU_ASSERT_EQUAL(slot_decoders_begin(&d, buf, (size_t)(p - buf), false, 0, &cur), 0);
	CU_ASSERT_EQUAL(chunk_cursor_next(&cur, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.seq, 5);
	CU_ASSERT_EQUAL(chunk_cursor_next(&cur, &ev), RECORD_END);

	/* the next chunk of slot 3 continues at the right offset: accepted */
	uint8_t buf2[64], *q = buf2;
	q = varint_put_u64(q, 3);
	q = varint_put_u64(q, 0);
	q = varint_put_u64(q, (uint64_t)(p - records));
	q = record_put_free(q, &enc, TRACE_FREE_FREE, 6, 0x2000, NULL);
	CU_ASSERT_EQUAL(slot_decoders_begin(&d, buf2, (size_t)(q - buf2), false, 0, &cur), 0);
	CU_ASSERT_EQUAL(chunk_cursor_next(&cur, &ev), RECORD_OK);
	CU_ASSERT_EQUAL(ev.seq, 6);
	CU_ASSERT_EQUAL(ev.addr, 0x2000);

	/* a chunk at a wrong offset (data in between was lost): refused */
	buf2[2] = 99;
	CU_ASSERT_EQUAL(slot_decoders_begin(&d, buf2, (size_t)(q - buf2), false, 0, &cur), -EBADMSG);

	/* a slot number no recorder makes is refused, not allocated for */
	uint8_t buf3[32], *r3 = buf3;
	r3 = varint_put_u64(r3, 1u << 16);
	r3 = varint_put_u64(r3, 0);
	r3 = varint_put_u64(r3, 0);
	CU_ASSERT_EQUAL(slot_decoders_begin(&d, buf3, (size_t)(r3 - buf3), false, 0, &cur), -EPROTO);
	CU_ASSERT(d.count <= 4096);
	slot_decoders_free(&d);
}

/* xorshift64: the same pseudo-random sequence on every run */
static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Writes an EVENTS payload (slot 2, lap 0, offset 0) of n events: every
 * record kind, one-byte and long fields, recent and old blocks (references
 * and explicit addresses), weighted records, PADs and an extended record.
 * Blocks lie at 16-byte multiples plus skew, so that the address granule
 * (trace/split.h) is 2^4 for skew 0, 2^3 for skew 8 and none for skew 1.
 * Returns its length (buf must hold n * RECORD_MAX_BYTES + 256).
 */
static size_t make_events_payload(uint8_t *buf, unsigned n, uint64_t seed, uint64_t skew)
{
	struct record_state enc = { 0 };
	uint64_t live[64] = { 0 }, seq = 1, x = seed, top = 0x555555560000ull + skew;
	uint8_t *p = buf, *ext;

	p = varint_put_u64(p, 2);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, 0);
	p = record_put_thread(p, &enc, 777);
	p = record_put_time(p, 1000000007ull);
	p = record_put_stack(p, &enc, 1, 0, 2);
	p = record_put_stack(p, &enc, 2, 1, 0x7f00000012ull);
	for (unsigned i = 0; i < n; i++) {
		uint64_t r = next_random(&x), k = r % 64, size = (r >> 8) % 3 ? (r >> 16) % 200
									    : (r >> 16) % 100000;

		if (!live[k]) {
			live[k] = top;
			top += record_chunk_bytes(size) + ((r >> 40) % 4 ? 0 : 4096);
			p = record_put_alloc(p, &enc, (unsigned)(r >> 50) % TRACE_FN_ALLOC_COUNT,
					     seq++, live[k], size, 1 + (r >> 32) % 5,
					     (r >> 44) % 16 ? 1 : 3);
		} else if ((r >> 56) % 8 == 0) {
			uint64_t moved = top;

			top += record_chunk_bytes(size);
			p = record_put_realloc(p, &enc, TRACE_FN_REALLOC, seq, live[k], NULL,
					       seq + 1, moved, size, 2, (r >> 44) % 16 ? 1 : 5);
			seq += 2;
			live[k] = moved;
		} else {
			p = record_put_free(p, &enc, TRACE_FREE_FREE, seq++, live[k], NULL);
			live[k] = 0;
		}
		if (i % 97 == 0)
			p = record_put_seq_skip(p, &enc, seq++);
		if (i % 113 == 0)
			*p++ = TRACE_REC_PAD;
		if (i % 500 == 0)
			p = record_put_time(p, 1000000007ull + i);
	}
	ext = record_ext_begin(p, TRACE_REC_EXT_DIAG);
	p = varint_put_u64(ext, TRACE_DIAG_INFO);
	p = record_put_bytes(p, "split me", 8);
	record_ext_end(ext - RECORD_EXT_HEADER_BYTES, p);
	return (size_t)(p - buf);
}

/* Splitting moves only the seq+ and addr~ fields, and joining restores the
 * payload byte for byte, for short payloads (every field checked) and long
 * ones (the unchecked walk), with each address granule: 2^4 and 2^3 divide
 * the addr part's fields (P, the fourth count, keeps its plain length), an
 * odd address leaves them as they are. */
static void test_split_payload_joins_back_byte_for_byte(void)
{
	static const unsigned counts[] = { 0, 1, 3, 40, 5000 };
	static const struct {
		uint64_t skew;
		unsigned shift;
	} granules[] = { { 0, 4 }, { 8, 3 }, { 1, 0 } };

	for (size_t g = 0; g < sizeof(granules) / sizeof(granules[0]); g++)
		for (size_t t = 0; t < sizeof(counts) / sizeof(counts[0]); t++) {
			size_t cap = counts[t] * RECORD_MAX_BYTES + 256;
			uint8_t *plain = malloc(cap), *split = malloc(cap + TRACE_SPLIT_EXTRA_BYTES);
			uint8_t *scratch = malloc(cap), *joined = malloc(trace_join_bytes(cap));
			size_t n = make_events_payload(plain, counts[t], 42 + t, granules[g].skew), m;
			unsigned shift = 99, want = counts[t] ? granules[g].shift : 0;
			uint32_t r, s;

			CU_ASSERT_FATAL(plain && split && scratch && joined);
			memcpy(split, plain, n);
			m = trace_split_records(split, n, scratch, &shift);
			/* (a few blocks may share larger powers of two) */
			CU_ASSERT(counts[t] >= 40 ? shift == want : shift >= want);
			CU_ASSERT_EQUAL(memcmp(split, plain, 3), 0); /* slot, lap, offset */
			r = trace_get_le32(split + 3);
			s = trace_get_le32(split + 7);
			CU_ASSERT(r + s <= n - 3);
			if (!shift) {
				CU_ASSERT_EQUAL_FATAL(m, n + 8);
			} else {
				/* P: the addr part's plain length */
				CU_ASSERT_EQUAL(trace_get_le32(split + 11), n - 3 - r - s);
				CU_ASSERT(m <= n + 12);
				if (counts[t] >= 1000) { /* divided fields are shorter */
					CU_ASSERT(m < n + 8);
				}
			}
			if (counts[t] >= 40) { /* one seq+ per event at least, and some addr~ */
				CU_ASSERT(s >= counts[t]);
				CU_ASSERT(n - 3 - r - s > 0);
			}
			CU_ASSERT_EQUAL(trace_join_records(split, m, shift, joined, trace_join_bytes(m)),
					(long)n);
			CU_ASSERT_EQUAL(memcmp(joined, plain, n), 0);
			free(plain);
			free(split);
			free(scratch);
			free(joined);
		}
}

/* The granule is the largest power of two dividing every addr~ delta, 2^7
 * at most: blocks 64 KiB apart get 2^7, and read back in place at the same
 * addresses as plain. */
static void test_split_address_granule_is_capped(void)
{
	uint8_t plain[128], split[128 + TRACE_SPLIT_EXTRA_BYTES], scratch[128], *p = plain;
	struct record_state enc = { 0 };
	struct slot_decoders ds, dp;
	struct chunk_cursor cs, cp;
	struct trace_event es, ep;
	unsigned shift = 0, events = 0;
	size_t n, m;
	int rs, rp;

	p = varint_put_u64(p, 1);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, 0);
	p = record_put_alloc_explicit(p, &enc, TRACE_FN_MALLOC, 1, 0x7f0000010000ull, 1 << 20, 1, 1);
	p = record_put_alloc_explicit(p, &enc, TRACE_FN_MALLOC, 2, 0x7f0000030000ull, 1 << 20, 1, 1);
	p = record_put_free_explicit(p, &enc, TRACE_FREE_FREE, 3, 0x7f0000010000ull, -1);
	n = (size_t)(p - plain);
	memcpy(split, plain, n);
	m = trace_split_records(split, n, scratch, &shift);
	CU_ASSERT_EQUAL_FATAL(shift, 7);
	CU_ASSERT(m > 0 && m <= n + 12);
	slot_decoders_init(&ds);
	slot_decoders_init(&dp);
	CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&ds, split, m, true, shift, &cs), 0);
	CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&dp, plain, n, false, 0, &cp), 0);
	while ((rs = chunk_cursor_next(&cs, &es)) == RECORD_OK) {
		rp = chunk_cursor_next(&cp, &ep);
		CU_ASSERT_EQUAL_FATAL(rp, RECORD_OK);
		CU_ASSERT_EQUAL(es.type, ep.type);
		CU_ASSERT_EQUAL(es.addr, ep.addr);
		events++;
	}
	CU_ASSERT_EQUAL(rs, RECORD_END);
	CU_ASSERT_EQUAL(chunk_cursor_next(&cp, &ep), RECORD_END);
	CU_ASSERT_EQUAL(events, 3);
	CU_ASSERT_EQUAL(es.addr, 0x7f0000010000ull);
	CU_ASSERT_EQUAL(cs.state->next_offset, cp.state->next_offset);
	slot_decoders_free(&ds);
	slot_decoders_free(&dp);
}

/* A record of an unknown core kind, or one cut off, is left out with all
 * after it (no reader could decode past it); a damaged split payload does
 * not join, nor one whose P (with an address granule) is not what its
 * fields come to. */
static void test_split_leaves_out_non_records_and_join_refuses_damage(void)
{
	enum { CAP = 64 * RECORD_MAX_BYTES + 256 };
	static uint8_t plain[CAP], split[CAP + TRACE_SPLIT_EXTRA_BYTES], scratch[CAP];
	static uint8_t joined[2 * CAP];
	/* an odd address: no granule, 8 bytes of part counts */
	size_t n = make_events_payload(plain, 64, 7, 1), m;
	unsigned shift;

	/* an unknown core kind and a record after it */
	memcpy(split, plain, n);
	split[n] = 0x06;
	split[n + 1] = TRACE_REC_PAD;
	m = trace_split_records(split, n + 2, scratch, &shift);
	CU_ASSERT_EQUAL_FATAL(m, n + 8);
	CU_ASSERT_EQUAL(shift, 0);
	CU_ASSERT_EQUAL(trace_join_records(split, m, 0, joined, n), (long)n);
	CU_ASSERT_EQUAL(memcmp(joined, plain, n), 0);
	/* the last record cut off: the records before it */
	memcpy(split, plain, n);
	m = trace_split_records(split, n - 1, scratch, &shift);
	CU_ASSERT_FATAL(m > 8 && m < n + 8);
	CU_ASSERT_EQUAL(trace_join_records(split, m, 0, joined, n), (long)(m - 8));
	CU_ASSERT_EQUAL(memcmp(joined, plain, m - 8), 0);
	/* no header: nothing split, buf as it was */
	split[0] = 0x80;
	CU_ASSERT_EQUAL(trace_split_records(split, 1, scratch, &shift), 0);
	CU_ASSERT_EQUAL(split[0], 0x80);

	memcpy(split, plain, n);
	m = trace_split_records(split, n, scratch, &shift);
	CU_ASSERT_FATAL(m == n + 8);
	CU_ASSERT_EQUAL(trace_join_records(split, m, 0, joined, n), (long)n);
	/* a column one byte short, or one byte too long */
	CU_ASSERT_EQUAL(trace_join_records(split, m - 1, 0, joined, n), -1);
	split[m] = 0x01;
	CU_ASSERT_EQUAL(trace_join_records(split, m + 1, 0, joined, n + 1), -1);
	/* part counts beyond the payload */
	trace_put_le32(split + 3, (uint32_t)m);
	CU_ASSERT_EQUAL(trace_join_records(split, m, 0, joined, n), -1);
	/* too small an output buffer is refused, not overrun */
	memcpy(split, plain, n);
	m = trace_split_records(split, n, scratch, &shift);
	CU_ASSERT_EQUAL(trace_join_records(split, m, 0, joined, n - 1), -1);
	/* a granule the payload was not split with: P is not there, or the
	 * fields do not come to it */
	CU_ASSERT_EQUAL(trace_join_records(split, m, 4, joined, sizeof(joined)), -1);

	/* with a granule */
	n = make_events_payload(plain, 64, 7, 0);
	memcpy(split, plain, n);
	m = trace_split_records(split, n, scratch, &shift);
	CU_ASSERT_EQUAL_FATAL(shift, 4);
	CU_ASSERT_EQUAL(trace_join_records(split, m, 4, joined, sizeof(joined)), (long)n);
	CU_ASSERT_EQUAL(memcmp(joined, plain, n), 0);
	/* read with another granule, the fields do not come to P */
	CU_ASSERT_EQUAL(trace_join_records(split, m, 3, joined, sizeof(joined)), -1);
	/* P one too many or too few */
	trace_put_le32(split + 11, trace_get_le32(split + 11) + 1);
	CU_ASSERT_EQUAL(trace_join_records(split, m, 4, joined, sizeof(joined)), -1);
	trace_put_le32(split + 11, trace_get_le32(split + 11) - 2);
	CU_ASSERT_EQUAL(trace_join_records(split, m, 4, joined, sizeof(joined)), -1);
	trace_put_le32(split + 11, trace_get_le32(split + 11) + 1);
	/* room for the plain payload but not for every field growing a byte:
	 * refused, not overrun */
	CU_ASSERT_EQUAL(trace_join_records(split, m, 4, joined, n), -1);
	CU_ASSERT_EQUAL(trace_join_records(split, m, 4, joined, trace_join_bytes(m)), (long)n);
	/* a granule outside the flags' 3 bits */
	CU_ASSERT_EQUAL(trace_join_records(split, m, 8, joined, sizeof(joined)), -1);
}

/* The report's in-place decoder holds a granule payload to its P as the
 * join does: with P one off, or read with another granule than it was
 * split with, its events decode but its end says RECORD_COLUMNS. */
static void test_in_place_decoder_checks_p(void)
{
	enum { CAP = 300 * RECORD_MAX_BYTES + 256 };
	static uint8_t plain[CAP], split[CAP + TRACE_SPLIT_EXTRA_BYTES], scratch[CAP];
	size_t n = make_events_payload(plain, 300, 5, 0), m;
	struct slot_decoders d;
	struct chunk_cursor cur;
	struct trace_event ev;
	unsigned shift, events;
	int rc;

	memcpy(split, plain, n);
	m = trace_split_records(split, n, scratch, &shift);
	CU_ASSERT_EQUAL_FATAL(shift, 4);
	slot_decoders_init(&d);
	/* as written: a clean end */
	CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&d, split, m, true, 4, &cur), 0);
	for (events = 0; (rc = chunk_cursor_next(&cur, &ev)) == RECORD_OK; events++)
		;
	CU_ASSERT_EQUAL(rc, RECORD_END);
	CU_ASSERT(events > 300);
	/* P one too many, then one too few */
	for (int off = 1; off >= -1; off -= 2) {
		trace_put_le32(split + 11, (uint32_t)(trace_get_le32(split + 11) + off));
		slot_decoders_free(&d);
		slot_decoders_init(&d);
		CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&d, split, m, true, 4, &cur), 0);
		while ((rc = chunk_cursor_next(&cur, &ev)) == RECORD_OK)
			;
		CU_ASSERT_EQUAL(rc, RECORD_COLUMNS);
		trace_put_le32(split + 11, (uint32_t)(trace_get_le32(split + 11) - off));
	}
	/* a granule of 2^5 claimed for fields divided by 2^4 */
	slot_decoders_free(&d);
	slot_decoders_init(&d);
	CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&d, split, m, true, 5, &cur), 0);
	while ((rc = chunk_cursor_next(&cur, &ev)) == RECORD_OK)
		;
	CU_ASSERT_EQUAL(rc, RECORD_COLUMNS);
	slot_decoders_free(&d);
}

/* An addr~ field written longer than it need be (which decoders accept)
 * would not multiply back to its own length: its chunk gets no granule,
 * and joins back byte for byte. */
static void test_overlong_address_field_gets_no_granule(void)
{
	uint8_t plain[64], split[64 + TRACE_SPLIT_EXTRA_BYTES], scratch[64], joined[128];
	uint8_t *p = plain;
	unsigned shift = 99;
	size_t n, m;

	p = varint_put_u64(p, 1);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, 0);
	*p++ = TRACE_REC_ALLOC | TRACE_FN_MALLOC;
	p = varint_put_u64(p, 1);                     /* seq+ */
	p = varint_put_u64(p, RECORD_AREF_EXPLICIT);
	*p++ = 0x80 | (uint8_t)(varint_zigzag(0x1000) & 0x7f); /* 0x2000 in 3 bytes */
	*p++ = 0x80 | (uint8_t)((varint_zigzag(0x1000) >> 7) & 0x7f);
	*p++ = 0x00;
	p = varint_put_u64(p, 24);                    /* size */
	p = varint_put_s64(p, 1);                     /* stack~ */
	n = (size_t)(p - plain);
	memcpy(split, plain, n);
	m = trace_split_records(split, n, scratch, &shift);
	CU_ASSERT_EQUAL(shift, 0);
	CU_ASSERT_EQUAL_FATAL(m, n + 8);
	CU_ASSERT_EQUAL(trace_join_records(split, m, 0, joined, sizeof(joined)), (long)n);
	CU_ASSERT_EQUAL(memcmp(joined, plain, n), 0);
}

/* A compressing writer splits EVENTS payloads (flags zlib + split, and the
 * address granule); a reader joins them back, or with keep_split hands them
 * over for the slot decoder, which reads the same events from them as from
 * the plain payload, and expects the next chunk at the same lap offset.
 * trace_writer_chunk_stream does not split, nor does a storing writer, nor
 * trace_writer_events_chunk without room for the split form.  skew and
 * shift: as for make_events_payload. */
static void check_split_chunks_read_joined_or_in_place(uint64_t skew, unsigned shift)
{
	enum { EVENTS = 3000, CAP = EVENTS * RECORD_MAX_BYTES + 256 };
	static uint8_t plain[CAP], buf[CAP + TRACE_SPLIT_EXTRA_BYTES];
	size_t n = make_events_payload(plain, EVENTS, 99, skew);
	int fd = make_scratch();
	struct trace_writer w;
	struct trace_reader r;
	struct trace_chunk c;
	uint8_t h[TRACE_CHUNK_HEADER_BYTES];
	uint32_t split_bytes;
	off_t at[4];

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(trace_writer_start(&w, fd, 0), 0);
	at[0] = (off_t)w.offset_bytes;
	memcpy(buf, plain, n);
	CU_ASSERT_EQUAL(trace_writer_events_chunk(&w, 3, buf, n, sizeof(buf)), 0);
	at[1] = (off_t)w.offset_bytes;
	CU_ASSERT_EQUAL(trace_writer_chunk_stream(&w, TRACE_CHUNK_EVENTS, 3, plain, n), 0);
	at[2] = (off_t)w.offset_bytes;
	memcpy(buf, plain, n);
	CU_ASSERT_EQUAL(trace_writer_events_chunk(&w, 3, buf, n, n + 7), 0);
	at[3] = (off_t)w.offset_bytes;
	w.level = 0;
	memcpy(buf, plain, n);
	CU_ASSERT_EQUAL(trace_writer_events_chunk(&w, 3, buf, n, sizeof(buf)), 0);
	trace_writer_finish(&w);
	CU_ASSERT_EQUAL(pread(fd, h, sizeof(h), at[0]), (ssize_t)sizeof(h));
	CU_ASSERT_EQUAL(h[5], TRACE_CHUNK_ZLIB | TRACE_CHUNK_SPLIT | TRACE_CHUNK_ADDR_SHIFT_FLAGS(shift));
	split_bytes = trace_get_le32(h + 12);
	if (shift) {
		CU_ASSERT(split_bytes < n + 8);
	} else {
		CU_ASSERT_EQUAL(split_bytes, n + 8);
	}
	CU_ASSERT_EQUAL(pread(fd, h, sizeof(h), at[1]), (ssize_t)sizeof(h));
	CU_ASSERT_EQUAL(h[5], TRACE_CHUNK_ZLIB);
	CU_ASSERT_EQUAL(pread(fd, h, sizeof(h), at[2]), (ssize_t)sizeof(h));
	CU_ASSERT_EQUAL(h[5], TRACE_CHUNK_ZLIB);
	CU_ASSERT_EQUAL(pread(fd, h, sizeof(h), at[3]), (ssize_t)sizeof(h));
	CU_ASSERT_EQUAL(h[5], 0);
	close(fd);

	/* joined: all four read back as the plain payload */
	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	CU_ASSERT_EQUAL(r.version_major, TRACE_VERSION_MAJOR);
	for (int k = 0; k < 4; k++) {
		CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
		CU_ASSERT_FALSE(c.split);
		CU_ASSERT_EQUAL_FATAL(c.bytes, n);
		CU_ASSERT_EQUAL(memcmp(c.data, plain, n), 0);
	}
	trace_reader_close(&r);

	/* in place: the split chunk decodes to the plain chunk's events */
	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	r.keep_split = true;
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
	CU_ASSERT_TRUE(c.split);
	CU_ASSERT_EQUAL(c.addr_shift, shift);
	CU_ASSERT_EQUAL_FATAL(c.bytes, split_bytes);
	{
		struct slot_decoders ds, dp;
		struct chunk_cursor cs, cp;
		struct trace_event es, ep;
		unsigned events = 0;
		int rs, rp;

		slot_decoders_init(&ds);
		slot_decoders_init(&dp);
		CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&ds, c.data, c.bytes, true, c.addr_shift, &cs), 0);
		CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&dp, plain, n, false, 0, &cp), 0);
		do {
			rs = chunk_cursor_next(&cs, &es);
			rp = chunk_cursor_next(&cp, &ep);
			CU_ASSERT_EQUAL_FATAL(rs, rp);
			if (rs != RECORD_OK)
				break;
			events++;
			CU_ASSERT_EQUAL_FATAL(es.type, ep.type);
			CU_ASSERT_EQUAL(es.kind, ep.kind);
			if (es.type == TRACE_EV_ALLOC || es.type == TRACE_EV_FREE ||
			    es.type == TRACE_EV_REALLOC) {
				CU_ASSERT_EQUAL(es.seq, ep.seq);
				CU_ASSERT_EQUAL(es.seq2, ep.seq2);
				CU_ASSERT_EQUAL(es.addr, ep.addr);
			}
			if (es.type == TRACE_EV_ALLOC || es.type == TRACE_EV_REALLOC) {
				CU_ASSERT_EQUAL(es.addr2 * (es.type == TRACE_EV_REALLOC),
						ep.addr2 * (ep.type == TRACE_EV_REALLOC));
				CU_ASSERT_EQUAL(es.size_bytes, ep.size_bytes);
				CU_ASSERT_EQUAL(es.stack_id, ep.stack_id);
				CU_ASSERT_EQUAL(es.weight, ep.weight);
			}
		} while (1);
		CU_ASSERT_EQUAL(rs, RECORD_END);
		CU_ASSERT(events > EVENTS);
		/* the next chunk continues where the plain one would */
		CU_ASSERT_EQUAL(cs.state->next_offset, cp.state->next_offset);

		/* the same chunk again is a repeat, and leaves the state alone */
		{
			struct slot_state *st = cs.state;
			uint64_t next = st->next_offset;

			CU_ASSERT_EQUAL(slot_decoders_begin(&ds, c.data, c.bytes, true, shift, &cs),
					-EEXIST);
			CU_ASSERT_EQUAL(st->next_offset, next);
			CU_ASSERT(st->valid);
			slot_decoders_free(&ds);
			slot_decoders_init(&ds);
		}

		/* a seq column with a byte left over is corrupt at the end */
		{
			uint8_t *bad = malloc(c.bytes + 1);

			CU_ASSERT_FATAL(bad != NULL);
			memcpy(bad, c.data, c.bytes);
			trace_put_le32(bad + 7, trace_get_le32(bad + 7) + 1);
			bad[c.bytes] = 0x00;
			CU_ASSERT_EQUAL_FATAL(slot_decoders_begin(&ds, bad, c.bytes + 1, true, shift, &cs), 0);
			while ((rs = chunk_cursor_next(&cs, &es)) == RECORD_OK)
				;
			CU_ASSERT_EQUAL(rs, RECORD_COLUMNS);
			/* part counts beyond the payload: a malformed header */
			trace_put_le32(bad + 3, (uint32_t)c.bytes);
			CU_ASSERT_EQUAL(slot_decoders_begin(&ds, bad, c.bytes + 1, true, shift, &cs),
					-EPROTO);
			free(bad);
		}
		slot_decoders_free(&ds);
		slot_decoders_free(&dp);
	}
	trace_reader_close(&r);
	unlink(scratch_path);
}

static void test_split_chunks_read_joined_or_in_place(void)
{
	check_split_chunks_read_joined_or_in_place(0, 4);
	check_split_chunks_read_joined_or_in_place(1, 0);
}

/* The scratch trace's first chunk is refused as corrupt, and the reader's
 * error says why (contains why). */
static void check_first_chunk_refused(const char *why)
{
	struct trace_reader r;
	struct trace_chunk c;

	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), -EBADMSG);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.error, why));
	trace_reader_close(&r);
}

/* Writes the scratch trace with one EVENTS chunk (slot 1) of one malloc(24)
 * at addr, through a compressing writer, and reads back that chunk's
 * header into h.  Returns the plain payload's length (in plain, 64 bytes)
 * and leaves the trace open on *fd. */
static size_t write_one_alloc_chunk(uint64_t addr, uint8_t *plain, uint8_t *h, int *fd)
{
	uint8_t buf[64 + TRACE_SPLIT_EXTRA_BYTES], *p = plain;
	struct record_state enc = { 0 };
	struct trace_writer w;
	size_t n;

	p = varint_put_u64(p, 1);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, 0);
	p = record_put_alloc(p, &enc, TRACE_FN_MALLOC, 1, addr, 24, 1, 1);
	n = (size_t)(p - plain);
	memcpy(buf, plain, n);
	*fd = make_scratch();
	CU_ASSERT_FATAL(*fd >= 0);
	CU_ASSERT_EQUAL(trace_writer_start(&w, *fd, 0), 0);
	CU_ASSERT_EQUAL(trace_writer_events_chunk(&w, 2, buf, n, sizeof(buf)), 0);
	trace_writer_finish(&w);
	CU_ASSERT_EQUAL(pread(*fd, h, TRACE_CHUNK_HEADER_BYTES, TRACE_FILE_HEADER_BYTES),
			TRACE_CHUNK_HEADER_BYTES);
	return n;
}

/* A split payload deflate cannot shrink is stored split, and reads back
 * plain; a split payload in a trace whose header says major 2 is
 * corrupt. */
static void test_stored_split_payload_and_split_needs_major_3(void)
{
	uint8_t plain[64], h[TRACE_CHUNK_HEADER_BYTES];
	size_t n;
	int fd;
	struct trace_reader r;
	struct trace_chunk c;

	n = write_one_alloc_chunk(0x1001, plain, h, &fd); /* odd: no granule */
	CU_ASSERT_EQUAL(h[5], TRACE_CHUNK_SPLIT);
	CU_ASSERT_EQUAL(trace_get_le32(h + 8), n + 8);

	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
	CU_ASSERT_EQUAL_FATAL(c.bytes, n);
	CU_ASSERT_EQUAL(memcmp(c.data, plain, n), 0);
	trace_reader_close(&r);

	CU_ASSERT_EQUAL(pwrite(fd, "\x02", 1, 8), 1); /* the header's major */
	close(fd);
	check_first_chunk_refused("major 1 or 2");
	unlink(scratch_path);
}

/* An address granule is read only from split chunks of major 4 traces:
 * on a plain chunk, or in a trace whose header says major 3, the chunk is
 * corrupt.  (Fixes the chunk header's flags and its checksum by hand.) */
static void test_address_granule_needs_split_and_major_4(void)
{
	uint8_t plain[64], h[TRACE_CHUNK_HEADER_BYTES];
	size_t n;
	int fd;
	struct trace_reader r;
	struct trace_chunk c;

	n = write_one_alloc_chunk(0x1010, plain, h, &fd);
	CU_ASSERT_EQUAL(TRACE_CHUNK_ADDR_SHIFT(h[5]), 4);
	CU_ASSERT_EQUAL_FATAL(trace_reader_open(&r, scratch_path), 0);
	CU_ASSERT_EQUAL(trace_reader_next(&r, &c), 1);
	CU_ASSERT_EQUAL_FATAL(c.bytes, n);
	CU_ASSERT_EQUAL(memcmp(c.data, plain, n), 0);
	trace_reader_close(&r);

	/* the same chunk as major 3 */
	CU_ASSERT_EQUAL(pwrite(fd, "\x03", 1, 8), 1);
	check_first_chunk_refused("major 1 to 3");
	CU_ASSERT_EQUAL(pwrite(fd, "\x04", 1, 8), 1);

	/* the granule without the split flag */
	h[5] &= (uint8_t)~TRACE_CHUNK_SPLIT;
	trace_put_le32(h + 20, (uint32_t)crc32(0, h, 20));
	CU_ASSERT_EQUAL(pwrite(fd, h, TRACE_CHUNK_HEADER_BYTES, TRACE_FILE_HEADER_BYTES),
			TRACE_CHUNK_HEADER_BYTES);
	close(fd);
	check_first_chunk_refused("not split");
	unlink(scratch_path);
}

/* The split flag belongs to EVENTS chunks: on another type it is corrupt. */
static void test_split_flag_on_other_chunk_is_corrupt(void)
{
	int fd = make_scratch();
	struct trace_writer w;
	uint8_t h[TRACE_CHUNK_HEADER_BYTES];

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(trace_writer_start(&w, fd, 0), 0);
	w.level = 0;
	CU_ASSERT_EQUAL(trace_writer_chunk(&w, TRACE_CHUNK_META, "a=1\n", 4), 0);
	trace_writer_finish(&w);
	CU_ASSERT_EQUAL(pread(fd, h, sizeof(h), TRACE_FILE_HEADER_BYTES), (ssize_t)sizeof(h));
	h[5] = TRACE_CHUNK_SPLIT;
	trace_put_le32(h + 20, (uint32_t)crc32(0, h, 20));
	CU_ASSERT_EQUAL(pwrite(fd, h, sizeof(h), TRACE_FILE_HEADER_BYTES), (ssize_t)sizeof(h));
	close(fd);
	check_first_chunk_refused("split");
	unlink(scratch_path);
}

/* ---- re-encoding the shim's explicit records (trace/recode.h) ---- */

/* One event of the recode tests' program. */
struct rc_event {
	int type;             /* TRACE_EV_* */
	unsigned fn;
	uint64_t seq, seq2, addr, addr2, size, stack, weight, value;
	int size_class;       /* frees: the class the shim reads, or -1 */
};

/* The span of the program's events (record_span, for the chunk index):
 * smallest and largest sequence number, first and largest TIME stamp. */
static void rc_check_span(const struct rc_event *ev, size_t n, const struct record_span *sp)
{
	uint64_t lo = UINT64_MAX, hi = 0, t_first = 0, t_hi = 0;
	bool timed = false;

	for (size_t i = 0; i < n; i++) {
		switch (ev[i].type) {
		case TRACE_EV_REALLOC:
			hi = ev[i].seq2 > hi ? ev[i].seq2 : hi;
			/* fall through */
		case TRACE_EV_ALLOC:
		case TRACE_EV_FREE:
		case TRACE_EV_SEQ_SKIP:
			lo = ev[i].seq < lo ? ev[i].seq : lo;
			hi = ev[i].seq > hi ? ev[i].seq : hi;
			break;
		case TRACE_EV_TIME:
			if (!timed)
				t_first = ev[i].value;
			timed = true;
			t_hi = ev[i].value > t_hi ? ev[i].value : t_hi;
			break;
		}
	}
	CU_ASSERT_TRUE(sp->has_seq);
	CU_ASSERT_EQUAL(sp->seq_first, lo);
	CU_ASSERT_EQUAL(sp->seq_last, hi);
	CU_ASSERT_TRUE(timed && sp->has_time);
	CU_ASSERT_EQUAL(sp->time_first, t_first);
	CU_ASSERT_EQUAL(sp->time_last, t_hi);
	CU_ASSERT_TRUE(sp->other); /* stack nodes and an extended record */
	CU_ASSERT_FALSE(sp->unknown);
}

/* A stream of events as a program with glibc's per-thread cache makes
 * them: allocations reuse the last freed block of their size class or
 * carve new ones, frees release recent blocks (most) or old ones, with a
 * realloc, a failed realloc, stack nodes, time stamps, an extended record
 * and a second thread taking the slot now and then.  Deterministic. */
static size_t rc_program(struct rc_event *ev, size_t cap)
{
	uint64_t live[512], live_size[512], freed[64][4], carve = 0x5000000, seq = 0, x = 12345;
	size_t nlive = 0, n = 0;
	int nfreed[64] = { 0 };

	while (n + 2 < cap) {
		struct rc_event *e = &ev[n];

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		memset(e, 0, sizeof(*e));
		e->weight = 1;
		e->size_class = -1;
		if ((x >> 60) == 0 && n % 7 == 0) {
			e->type = TRACE_EV_TIME;
			e->value = 1000000 + n * 10;
		} else if ((x >> 58) == 1) {
			e->type = TRACE_EV_STACK;
			e->seq = n + 1;          /* node id */
			e->seq2 = n / 2;         /* parent */
			e->addr = 0x400000 + (x >> 40);
		} else if ((x >> 57) == 2) {
			e->type = TRACE_EV_SEQ_SKIP;
			e->seq = ++seq;
		} else if ((x >> 56) == 3) {
			e->type = TRACE_EV_THREAD;
			e->value = 100 + n;
			nlive = 0; /* the new owner's blocks start afresh */
			memset(nfreed, 0, sizeof(nfreed));
		} else if ((x >> 56) == 4) {
			e->type = TRACE_EV_EXT;
		} else if (nlive > 0 && ((x >> 32) & 3) < (nlive > 300 ? 3u : 1u)) {
			/* a free: mostly a recent block, sometimes an old one */
			size_t k = ((x >> 20) & 7) ? nlive - 1 - ((x >> 24) % (nlive < 8 ? nlive : 8))
						   : (size_t)((x >> 24) % nlive);
			int c = record_size_class(live_size[k]);

			e->type = ((x >> 40) & 15) == 0 ? TRACE_EV_REALLOC : TRACE_EV_FREE;
			e->seq = ++seq;
			e->addr = live[k];
			e->size_class = ((x >> 44) & 7) ? c : -1;
			if (c >= 0 && nfreed[c] < 4)
				freed[c][nfreed[c]++] = live[k];
			live[k] = live[--nlive];
			live_size[k] = live_size[nlive];
			if (e->type == TRACE_EV_REALLOC) {
				e->fn = TRACE_FN_REALLOC;
				e->seq2 = ++seq;
				e->size = 24 + (x >> 50) % 300;
				e->addr2 = carve;
				carve += record_chunk_bytes(e->size);
				e->stack = 1 + (x >> 56) % 5;
				live[nlive] = e->addr2;
				live_size[nlive++] = e->size;
			}
		} else if (nlive < 512) {
			uint64_t size = 8 + (x >> 48) % 600;
			int c = record_size_class(size);

			e->type = TRACE_EV_ALLOC;
			e->fn = (x >> 30) & 1 ? TRACE_FN_MALLOC : TRACE_FN_CALLOC;
			e->seq = ++seq;
			e->size = size;
			e->stack = 1 + (x >> 56) % 9;
			e->weight = ((x >> 36) & 63) == 0 ? 7 : 1;
			if (c >= 0 && nfreed[c] > 0 && ((x >> 28) & 3) != 0) {
				e->addr = freed[c][--nfreed[c]];
			} else {
				e->addr = carve;
				carve += record_chunk_bytes(size);
			}
			live[nlive] = e->addr;
			live_size[nlive++] = size;
		} else {
			continue;
		}
		n++;
	}
	return n;
}

/* Writes ev as the shim (explicit) or as the compact encoder would. */
static uint8_t *rc_write(uint8_t *p, struct record_state *st, const struct rc_event *e,
			 bool explicit)
{
	static const uint8_t ext_payload[3] = { 1, 2, 3 };
	struct record_free_ref ref;
	uint8_t *rec;

	switch (e->type) {
	case TRACE_EV_ALLOC:
		return explicit ? record_put_alloc_explicit(p, st, e->fn, e->seq, e->addr, e->size,
							    e->stack, e->weight)
				: record_put_alloc(p, st, e->fn, e->seq, e->addr, e->size, e->stack,
						   e->weight);
	case TRACE_EV_FREE:
		if (explicit)
			return record_put_free_explicit(p, st, TRACE_FREE_FREE, e->seq, e->addr,
							e->size_class);
		ref = record_free_lookup(st, e->addr);
		ref.size_class = e->size_class;
		return record_put_free(p, st, TRACE_FREE_FREE, e->seq, e->addr, &ref);
	case TRACE_EV_REALLOC:
		if (explicit)
			return record_put_realloc_explicit(p, st, e->fn, e->seq, e->addr,
							   e->size_class, e->seq2, e->addr2, e->size,
							   e->stack, e->weight);
		ref = record_free_lookup(st, e->addr);
		ref.size_class = e->size_class;
		return record_put_realloc(p, st, e->fn, e->seq, e->addr, &ref, e->seq2, e->addr2,
					  e->size, e->stack, e->weight);
	case TRACE_EV_SEQ_SKIP:
		return record_put_seq_skip(p, st, e->seq);
	case TRACE_EV_THREAD:
		return record_put_thread(p, st, e->value);
	case TRACE_EV_TIME:
		return record_put_time(p, e->value);
	case TRACE_EV_STACK:
		return record_put_stack(p, st, e->seq, e->seq2, e->addr);
	default:
		rec = p;
		p = record_ext_begin(p, TRACE_REC_EXT_DIAG);
		p = record_put_bytes(p, ext_payload, sizeof(ext_payload));
		record_ext_end(rec, p);
		return p;
	}
}

#define RC_EVENTS 20000

/*
 * The launcher's re-encoding of the shim's explicit records must give
 * exactly the bytes the compact encoder gives for the same events (what
 * the shim wrote before it kept no history), whether the lap comes in one
 * stretch or in several, and decode to the same events.
 */
static void test_recode_gives_the_compact_records(void)
{
	static struct rc_event ev[RC_EVENTS];
	static uint8_t expl[RC_EVENTS * RECORD_MAX_BYTES], compact[RC_EVENTS * RECORD_MAX_BYTES],
		out[3 * RC_EVENTS * RECORD_MAX_BYTES];
	static struct record_recoder rc;
	struct record_state se = { 0 }, sc = { 0 }, sd = { 0 };
	size_t n = rc_program(ev, RC_EVENTS), kinds[8] = { 0 };
	uint8_t *pe = expl, *pc = compact;
	size_t cut[2] = { 0, 0 };

	for (size_t i = 0; i < n; i++) {
		if (i == n / 3)
			cut[0] = (size_t)(pe - expl);
		if (i == n / 2)
			cut[1] = (size_t)(pe - expl);
		pe = rc_write(pe, &se, &ev[i], true);
		pc = rc_write(pc, &sc, &ev[i], false);
		kinds[ev[i].type]++;
	}
	CU_ASSERT(kinds[TRACE_EV_FREE] > 1000 && kinds[TRACE_EV_REALLOC] > 50 &&
		  kinds[TRACE_EV_THREAD] > 2 && kinds[TRACE_EV_STACK] > 50);
	/* frees of blocks beyond the 16 newest, whose class the shim passes on */
	{
		size_t classed = 0;

		for (const uint8_t *p = compact; p < pc;) {
			struct trace_event te;
			const uint8_t *rec = p;

			if (record_decode(&p, pc, &sd, &te) != RECORD_OK)
				break;
			if (te.type == TRACE_EV_FREE && rec[2] >= RECORD_FREF_CLASSED)
				classed++;
		}
		CU_ASSERT(classed > 100);
		record_state_reset(&sd);
	}
	CU_ASSERT((size_t)(pc - compact) < (size_t)(pe - expl) * 9 / 10); /* references pay */

	/* in one stretch */
	{
		uint64_t off = 99;
		size_t m, used = 0;

		memset(&rc, 0, sizeof(rc));
		m = record_recode(&rc, 5, 0, false, expl, (size_t)(pe - expl), out, &off, &used);
		CU_ASSERT_EQUAL(off, 0);
		CU_ASSERT_EQUAL(used, (size_t)(pe - expl));
		CU_ASSERT_EQUAL_FATAL(m, (size_t)(pc - compact));
		CU_ASSERT_EQUAL(memcmp(out, compact, m), 0);
		CU_ASSERT(rc.valid);
		rc_check_span(ev, n, &rc.span);
		/* every allocation record counted once, and by its weight (some
		 * of the program's weigh more than 1) */
		CU_ASSERT_EQUAL(rc.counts.records, kinds[TRACE_EV_ALLOC] + kinds[TRACE_EV_REALLOC]);
		CU_ASSERT(rc.counts.allocations > rc.counts.records);
	}
	/* the same span from the records passed through as they are (a lap
	 * stored while the program keeps every processor busy), and from a
	 * scan of them */
	{
		static struct record_recoder pass;
		struct record_span sp = { 0 };
		struct record_counts scanned = {0}, counted = {0};
		uint64_t off = 0, base = 0;
		size_t used = 0;

		record_recode(&pass, 5, 0, true, expl, (size_t)(pe - expl), out, &off, &used);
		CU_ASSERT_FALSE(pass.span.unknown);
		rc_check_span(ev, n, &pass.span);
		CU_ASSERT_EQUAL(record_scan(expl, (size_t)(pe - expl), &base, &sp, &scanned), 0);
		rc_check_span(ev, n, &sp);
		record_count_allocations(expl, (size_t)(pe - expl), &counted);
		CU_ASSERT_EQUAL(scanned.allocations, counted.allocations);
		CU_ASSERT_EQUAL(scanned.records, counted.records);
		CU_ASSERT_EQUAL(pass.counts.allocations, counted.allocations);
		CU_ASSERT_EQUAL(pass.counts.records, counted.records);
		/* a range that does not continue the one before: not followed */
		record_recode(&pass, 5, (size_t)(pe - expl) + 8, true, expl, 16, out, &off, &used);
		CU_ASSERT_TRUE(pass.span.unknown);
	}
	/* in three stretches at record boundaries: offsets count compact bytes */
	{
		size_t at[4] = { 0, cut[0], cut[1], (size_t)(pe - expl) }, total = 0;

		memset(&rc, 0, sizeof(rc));
		for (int k = 0; k < 3; k++) {
			uint64_t off = 0;
			size_t used = 0;
			size_t m = record_recode(&rc, 5, at[k], false, expl + at[k], at[k + 1] - at[k],
						 out + total, &off, &used);

			CU_ASSERT_EQUAL(off, total);
			total += m;
		}
		CU_ASSERT_EQUAL_FATAL(total, (size_t)(pc - compact));
		CU_ASSERT_EQUAL(memcmp(out, compact, total), 0);
	}
	/* and the compact records decode to the program's events */
	{
		const uint8_t *p = out, *end = out + (pc - compact);
		size_t i = 0, bad = 0;
		struct trace_event te;

		while (record_decode(&p, end, &sd, &te) == RECORD_OK && i < n) {
			const struct rc_event *e = &ev[i++];

			if ((int)te.type != e->type)
				bad++;
			else if (te.type == TRACE_EV_ALLOC &&
				 (te.addr != e->addr || te.size_bytes != e->size ||
				  te.stack_id != e->stack || te.weight != e->weight || te.seq != e->seq))
				bad++;
			else if ((te.type == TRACE_EV_FREE || te.type == TRACE_EV_REALLOC) &&
				 (te.addr != e->addr || te.seq != e->seq))
				bad++;
			else if (te.type == TRACE_EV_REALLOC && (te.addr2 != e->addr2 || te.seq2 != e->seq2))
				bad++;
		}
		CU_ASSERT_EQUAL(i, n);
		CU_ASSERT_EQUAL(bad, 0);
	}
}

/* A lap that starts while chunks are stored passes through as it is, at
 * its ring offsets; so does the rest of a lap whose stretches do not
 * follow on.  At a record it does not take (a reference to history, which
 * the shim never writes) re-encoding stops before it. */
static void test_recode_passes_through_what_it_cannot_take(void)
{
	static uint8_t in[256], out[3 * 256 + RECORD_MAX_BYTES];
	static struct record_recoder rc;
	struct record_state st = { 0 };
	uint8_t *p = in;
	uint64_t off = 0;
	size_t n, m, used = 0;

	p = record_put_thread(p, &st, 42);
	p = record_put_alloc_explicit(p, &st, TRACE_FN_MALLOC, 1, 0x1000, 24, 3, 1);
	p = record_put_free_explicit(p, &st, TRACE_FREE_FREE, 2, 0x1000, 2);
	n = (size_t)(p - in);

	memset(&rc, 0, sizeof(rc));
	m = record_recode(&rc, 1, 0, true, in, n, out, &off, &used);
	CU_ASSERT_EQUAL(m, n);
	CU_ASSERT_EQUAL(used, n);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_EQUAL(memcmp(out, in, n), 0);
	m = record_recode(&rc, 1, n, false, in + 1, 3, out, &off, &used); /* the lap goes on: still as it is */
	CU_ASSERT_EQUAL(off, n);
	CU_ASSERT_FALSE(rc.valid);

	memset(&rc, 0, sizeof(rc));
	m = record_recode(&rc, 1, 0, false, in, n, out, &off, &used);
	CU_ASSERT(rc.valid);
	CU_ASSERT(m < n); /* the free names the newest block: a one-byte reference */
	m = record_recode(&rc, 1, n + 8, false, in, n, out, &off, &used); /* a gap */
	CU_ASSERT_EQUAL(off, n + 8);
	CU_ASSERT_EQUAL(m, n);
	CU_ASSERT_FALSE(rc.valid);

	/* a reference to history in the input: re-encoding stops before it */
	{
		struct record_state sc = { 0 };
		uint8_t *q = in, *second;

		q = record_put_alloc(q, &sc, TRACE_FN_MALLOC, 1, 0x2000, 40, 1, 1);
		second = q;
		q = record_put_free(q, &sc, TRACE_FREE_FREE, 2, 0x2000, NULL); /* fref 1 */
		memset(&rc, 0, sizeof(rc));
		m = record_recode(&rc, 1, 0, false, in, (size_t)(q - in), out, &off, &used);
		CU_ASSERT_FALSE(rc.valid);
		CU_ASSERT_EQUAL(used, (size_t)(second - in));
		CU_ASSERT(m > 0 && m <= used + 2);
		/* the rest, written apart, passes through at its ring offset */
		m = record_recode(&rc, 1, used, false, second, (size_t)(q - second), out, &off, &used);
		CU_ASSERT_EQUAL(off, (uint64_t)(second - in));
		CU_ASSERT_EQUAL(m, (size_t)(q - second));
		CU_ASSERT_EQUAL(memcmp(out, second, m), 0);
	}
	/* damage at a lap's first record (a program wrote over its ring):
	 * the whole range passes through, so the caller gets on (it took
	 * nothing before, and read the same range again for ever) */
	memset(in, 0xff, 64);
	memset(&rc, 0, sizeof(rc));
	m = record_recode(&rc, 1, 0, false, in, 64, out, &off, &used);
	CU_ASSERT_EQUAL(used, 64);
	CU_ASSERT_EQUAL(m, 64);
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT_FALSE(rc.valid);
	CU_ASSERT(rc.span.unknown);
	CU_ASSERT_EQUAL(memcmp(out, in, 64), 0);
}

/* What record_recoder.ext_fn was given, "KIND:CODE:TEXT|..." for DIAG
 * records, "KIND|" for others. */
static void ext_seen_add(void *arg, unsigned kind, const uint8_t *body, size_t len)
{
	struct diag_seen *seen = arg;
	size_t used = strlen(seen->s), text_len;
	const char *text;
	uint64_t code;

	if (kind == TRACE_REC_EXT_DIAG && record_diag_decode(body, len, &code, &text, &text_len) == 0)
		snprintf(seen->s + used, sizeof(seen->s) - used, "%u:%" PRIu64 ":%.*s|", kind, code,
			 (int)text_len, text);
	else
		snprintf(seen->s + used, sizeof(seen->s) - used, "%u|", kind);
}

/* The re-encoding gives each extended record it takes to ext_fn, in order,
 * so that the launcher walks a meta stream once (it walked it again for
 * the DIAG records); a range passed through gives none, and says so. */
static void test_recode_gives_extended_records_to_ext_fn(void)
{
	static uint8_t in[256], out[3 * 256 + RECORD_MAX_BYTES];
	static struct record_recoder rc;
	struct record_state st = { 0 };
	struct diag_seen seen = { "" };
	uint8_t *p = in;
	uint64_t off = 0;
	size_t n, used = 0;
	char want[64];

	p = record_put_thread(p, &st, 42);
	p = put_diag(p, 3, "a ring");
	p = record_put_alloc_explicit(p, &st, TRACE_FN_MALLOC, 1, 0x1000, 24, 3, 1);
	p = put_diag(p, 0, "during");
	n = (size_t)(p - in);
	memset(&rc, 0, sizeof(rc));
	rc.ext_fn = ext_seen_add;
	rc.ext_arg = &seen;
	record_recode(&rc, 1, 0, false, in, n, out, &off, &used);
	CU_ASSERT(rc.recoded);
	snprintf(want, sizeof(want), "%u:3:a ring|%u:0:during|", TRACE_REC_EXT_DIAG,
		 TRACE_REC_EXT_DIAG);
	CU_ASSERT_STRING_EQUAL(seen.s, want);
	seen.s[0] = '\0';
	record_recode(&rc, 1, n + 8, false, in, n, out, &off, &used); /* a gap: as it is */
	CU_ASSERT_FALSE(rc.recoded);
	CU_ASSERT_STRING_EQUAL(seen.s, "");
}

/* A command line keeps its quoting: plain words as they are, others in
 * single quotes, a quote inside as '\'' , an empty argument as ''. */
/* A MODULES_DELTA head round-trips: its size is what modules_delta_put_head
 * writes, the ids come back ascending as given (gap-coded: 0, 1 and
 * neighbours take a byte each), and the added modules start after it. */
static void test_modules_delta_head_round_trip(void)
{
	const uint64_t removed[] = { 0, 1, 2, 300, 301, UINT64_MAX - 1, UINT64_MAX };
	const size_t nr = sizeof(removed) / sizeof(removed[0]);
	uint8_t buf[256], *end;
	struct modules_delta_head h;
	uint64_t ids[8];

	end = modules_delta_put_head(buf, 7, 6, removed, nr, 2);
	CU_ASSERT_EQUAL((size_t)(end - buf), modules_delta_head_bytes(7, 6, removed, nr, 2));
	memset(end, 0, 8); /* two modules' worth of bytes after the head */
	CU_ASSERT_EQUAL_FATAL(modules_delta_get_head(buf, (size_t)(end - buf) + 8, &h), 0);
	CU_ASSERT_EQUAL(h.epoch, 7);
	CU_ASSERT_EQUAL(h.base_epoch, 6);
	CU_ASSERT_EQUAL(h.removed_count, nr);
	CU_ASSERT_EQUAL(h.added_count, 2);
	CU_ASSERT_PTR_EQUAL(h.modules, end);
	CU_ASSERT_PTR_EQUAL(h.end, end + 8);
	modules_delta_get_removed(&h, ids);
	for (size_t i = 0; i < nr; i++)
		CU_ASSERT_EQUAL(ids[i], removed[i]);
	/* 0, 1, 2: one byte each after the three one-byte fields */
	CU_ASSERT_EQUAL(buf[3], 0);
	CU_ASSERT_EQUAL(buf[4], 0);
	CU_ASSERT_EQUAL(buf[5], 0);
	/* nothing removed, nothing added: four bytes */
	end = modules_delta_put_head(buf, 2, 1, NULL, 0, 0);
	CU_ASSERT_EQUAL(end - buf, 4);
	CU_ASSERT_EQUAL(modules_delta_get_head(buf, 4, &h), 0);
	CU_ASSERT_EQUAL(h.removed_count + h.added_count, 0);
}

/* A head cut anywhere, ids that wrap past 2^64, a removed count beyond the
 * bytes and an added count beyond a quarter of the bytes left are
 * refused. */
static void test_modules_delta_head_refusals(void)
{
	const uint64_t removed[] = { 5, 9 };
	uint8_t buf[64], *p, *end;
	struct modules_delta_head h;

	end = modules_delta_put_head(buf, 3, 2, removed, 2, 1);
	memset(end, 0, 4);
	CU_ASSERT_EQUAL(modules_delta_get_head(buf, (size_t)(end - buf) + 4, &h), 0);
	for (size_t cut = 0; cut < (size_t)(end - buf); cut++)
		CU_ASSERT_EQUAL(modules_delta_get_head(buf, cut, &h), -EBADMSG);
	/* one module needs 4 bytes after the head */
	CU_ASSERT_EQUAL(modules_delta_get_head(buf, (size_t)(end - buf) + 3, &h), -EBADMSG);
	CU_ASSERT_EQUAL(modules_delta_get_head(NULL, 0, &h), -EBADMSG);
	/* ids UINT64_MAX then one more: the gap wraps */
	p = buf;
	p = varint_put_u64(p, 3);
	p = varint_put_u64(p, 2);
	p = varint_put_u64(p, 2);
	p = varint_put_u64(p, UINT64_MAX);
	p = varint_put_u64(p, 0);
	p = varint_put_u64(p, 0);
	CU_ASSERT_EQUAL(modules_delta_get_head(buf, (size_t)(p - buf), &h), -EBADMSG);
	/* a removed count larger than the bytes */
	p = buf;
	p = varint_put_u64(p, 3);
	p = varint_put_u64(p, 2);
	p = varint_put_u64(p, 1000);
	CU_ASSERT_EQUAL(modules_delta_get_head(buf, (size_t)(p - buf), &h), -EBADMSG);
}

static void test_command_line_keeps_quoting(void)
{
	static const char raw[] = "sh\0-c\0echo \"a b\" $0\0it's\0\0x=1,y@2\0";
	char out[128], tiny[8];

	CU_ASSERT_EQUAL(argv_quote_cmdline(out, sizeof(out), raw, sizeof(raw) - 1), strlen(out));
	CU_ASSERT_STRING_EQUAL(out, "sh -c 'echo \"a b\" $0' 'it'\\''s' '' x=1,y@2");
	/* cut where it is full, still terminated */
	argv_quote_cmdline(tiny, sizeof(tiny), raw, sizeof(raw) - 1);
	CU_ASSERT_STRING_EQUAL(tiny, "sh -c '");
	CU_ASSERT_EQUAL(argv_quote_cmdline(out, sizeof(out), "\0\0", 2), 0);
	CU_ASSERT_STRING_EQUAL(out, "");
}

/* The chunk index's entries round-trip; a payload cut anywhere, with a
 * byte more, of another format, with unknown flags, a stream 0, a span
 * past 2^64 or more entries than the caller allows is refused. */
static void test_chunk_index_round_trip_and_refusals(void)
{
	const struct chunk_index_entry in[] = {
		{ 2, CHUNK_INDEX_HAS_SEQ | CHUNK_INDEX_HAS_TIME, 0, 0, 1, 4000, 1000, 2000 },
		{ 1, CHUNK_INDEX_OTHER | CHUNK_INDEX_HAS_TIME, 0, 0, 0, 0, 900, 900 },
		{ 3, CHUNK_INDEX_HAS_SEQ, 7, 123456, 5000, 5000, 0, 0 },
		{ 65535, CHUNK_INDEX_UNKNOWN, UINT64_MAX, UINT64_MAX, 0, 0, 0, 0 },
		{ 2, CHUNK_INDEX_HAS_SEQ | CHUNK_INDEX_HAS_TIME, 1, 0, UINT64_MAX - 1, UINT64_MAX,
		  UINT64_MAX, UINT64_MAX },
	};
	const size_t n = sizeof(in) / sizeof(in[0]);
	struct chunk_index_writer w = { 0 };
	struct chunk_index_entry *out;
	uint8_t *p, bad[64];
	size_t bytes, count;

	for (size_t i = 0; i < n; i++)
		chunk_index_add(&w, &in[i]);
	p = chunk_index_payload(&w, &bytes);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL_FATAL(chunk_index_decode(p, bytes, n, &out, &count), 0);
	CU_ASSERT_EQUAL_FATAL(count, n);
	CU_ASSERT_EQUAL(memcmp(out, in, sizeof(in)), 0);
	free(out);
	/* cut anywhere */
	for (size_t k = 0; k < bytes; k++) {
		CU_ASSERT_EQUAL(chunk_index_decode(p, k, n, &out, &count), -EPROTO);
		CU_ASSERT_PTR_NULL(out);
	}
	/* more entries than allowed */
	CU_ASSERT_EQUAL(chunk_index_decode(p, bytes, n - 1, &out, &count), -EPROTO);
	/* a byte more */
	{
		uint8_t *q = malloc(bytes + 1);

		memcpy(q, p, bytes);
		q[bytes] = 0;
		CU_ASSERT_EQUAL(chunk_index_decode(q, bytes + 1, n, &out, &count), -EPROTO);
		free(q);
	}
	/* another format; unknown flags; stream 0; a span past 2^64 */
	{
		static const uint8_t format2[] = { 2, 0 };
		static const uint8_t flags[] = { 1, 1, 2, 16, 0, 0 };
		static const uint8_t stream0[] = { 1, 1, 0, 0, 0, 0 };
		uint8_t *q = bad;

		CU_ASSERT_EQUAL(chunk_index_decode(format2, sizeof(format2), 9, &out, &count),
				-EPROTO);
		CU_ASSERT_EQUAL(chunk_index_decode(flags, sizeof(flags), 9, &out, &count), -EPROTO);
		CU_ASSERT_EQUAL(chunk_index_decode(stream0, sizeof(stream0), 9, &out, &count),
				-EPROTO);
		q = varint_put_u64(q, CHUNK_INDEX_FORMAT);
		q = varint_put_u64(q, 1);
		q = varint_put_u64(q, 2);
		q = varint_put_u64(q, CHUNK_INDEX_HAS_SEQ);
		q = varint_put_u64(q, 0);
		q = varint_put_u64(q, 0);
		q = varint_put_u64(q, 10);
		q = varint_put_u64(q, UINT64_MAX - 9);
		CU_ASSERT_EQUAL(chunk_index_decode(bad, (size_t)(q - bad), 9, &out, &count),
				-EPROTO);
	}
	/* an empty index */
	{
		static const uint8_t empty[] = { 1, 0 };

		CU_ASSERT_EQUAL(chunk_index_decode(empty, sizeof(empty), 9, &out, &count), 0);
		CU_ASSERT_EQUAL(count, 0);
		free(out);
	}
	free(p);
	chunk_index_writer_free(&w);
}

/* The symbolize step's request: traces and kept images' descriptors go
 * through; a request whose strings do not add up, or a closed socket,
 * does not. */
static void test_symbolize_request_round_trip(void)
{
	char *traces[] = { "a.trace", "dir/b.trace.123" }, *exes[] = { "/bin/prog" }, **got, *kept;
	int sv[2], fd = open("/dev/null", O_RDONLY), n, kept_fd = -1;
	struct stat a, b;
	char want[64];

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CU_ASSERT_EQUAL(symbolize_request_send(sv[0], traces, 2, &fd, exes, 1), 0);
	n = symbolize_request_receive(sv[1], &got, &kept);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(got[0], "a.trace");
	CU_ASSERT_STRING_EQUAL(got[1], "dir/b.trace.123");
	CU_ASSERT_PTR_NULL(got[2]);
	CU_ASSERT_FATAL(kept != NULL && sscanf(kept, "/proc/self/fd/%d\t", &kept_fd) == 1);
	snprintf(want, sizeof(want), "/proc/self/fd/%d\t/bin/prog\n", kept_fd);
	CU_ASSERT_STRING_EQUAL(kept, want);
	/* the descriptor received is a new one on the same file */
	CU_ASSERT(kept_fd != fd && fstat(kept_fd, &a) == 0 && fstat(fd, &b) == 0 &&
		  a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	free(got);
	free(kept);
	close(kept_fd);
	/* no images: no MPROF_KEPT_IMAGES value */
	CU_ASSERT_EQUAL(symbolize_request_send(sv[0], traces, 1, NULL, NULL, 0), 0);
	CU_ASSERT_EQUAL(symbolize_request_receive(sv[1], &got, &kept), 1);
	CU_ASSERT_PTR_NULL(kept);
	free(got);
	CU_ASSERT_EQUAL(symbolize_request_send(sv[0], traces, 1, NULL, NULL, 65), -EINVAL);
	CU_ASSERT_EQUAL(symbolize_request_send(sv[0], traces, 0, NULL, NULL, 0), -EINVAL);
	/* a header that promises two traces, with one string */
	{
		uint32_t h[6] = { 0x5153504du, 2, 0, 0, 8, 0 };

		CU_ASSERT_EQUAL(write(sv[0], h, sizeof(h)), (ssize_t)sizeof(h));
		CU_ASSERT_EQUAL(write(sv[0], "a.trace", 8), 8);
		CU_ASSERT_EQUAL(symbolize_request_receive(sv[1], &got, &kept), -EPROTO);
		CU_ASSERT_PTR_NULL(got);
	}
	close(sv[0]);
	CU_ASSERT_EQUAL(symbolize_request_receive(sv[1], &got, &kept), 0);
	close(sv[1]);
	close(fd);
}

/* The analyzer's answer that it holds the request reaches the launcher;
 * a socket closed without it (the analyzer killed before it took the
 * work) reads as 0, also with the request still unread in it. */
static void test_symbolize_request_ack(void)
{
	char *traces[] = { "a.trace" }, **got, *kept;
	int sv[2];

	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CU_ASSERT_EQUAL(symbolize_request_send(sv[0], traces, 1, NULL, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(symbolize_request_receive(sv[1], &got, &kept), 1);
	free(got);
	CU_ASSERT_EQUAL(symbolize_request_ack(sv[1]), 0);
	CU_ASSERT_EQUAL(symbolize_request_wait_ack(sv[0]), 1);
	close(sv[1]);
	CU_ASSERT_EQUAL(symbolize_request_wait_ack(sv[0]), 0);
	close(sv[0]);

	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CU_ASSERT_EQUAL(symbolize_request_send(sv[0], traces, 1, NULL, NULL, 0), 0);
	close(sv[1]);
	CU_ASSERT_EQUAL(symbolize_request_wait_ack(sv[0]), 0);
	close(sv[0]);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("trace codec", NULL, NULL);
	CU_add_test(s, "varint round trip at the extremes", test_varint_round_trip_extremes);
	CU_add_test(s, "recode gives the compact records", test_recode_gives_the_compact_records);
	CU_add_test(s, "recode gives extended records to ext_fn",
		    test_recode_gives_extended_records_to_ext_fn);
	CU_add_test(s, "recode passes through what it cannot take",
		    test_recode_passes_through_what_it_cannot_take);
	CU_add_test(s, "every record kind round trips", test_every_record_kind_round_trips);
	CU_add_test(s, "recent blocks are named by reference",
		    test_recent_blocks_are_named_by_reference);
	CU_add_test(s, "stack nodes are written as deltas", test_stack_nodes_are_written_as_deltas);
	CU_add_test(s, "far MRU and deep LIFO references decode",
		    test_far_mru_and_deep_lifo_references_decode);
	CU_add_test(s, "older block freed with its class is reused by reference",
		    test_older_block_freed_with_its_class_is_reused_by_reference);
	CU_add_test(s, "allocation after last fresh block is named by reference",
		    test_allocation_after_last_fresh_block_is_named_by_reference);
	CU_add_test(s, "reference to a missing block is corrupt",
		    test_reference_to_missing_block_is_corrupt);
	CU_add_test(s, "unknown extended record is skipped", test_unknown_extended_record_is_skipped);
	CU_add_test(s, "unknown core record is an error", test_unknown_core_record_is_an_error);
	CU_add_test(s, "record cut short is truncated", test_record_cut_short_is_truncated);
	CU_add_test(s, "chunks round trip, unknown chunk type skipped",
		    test_chunks_round_trip_and_unknown_type_is_skipped);
	CU_add_test(s, "chunk stream is kept, filtered chunks are skipped",
		    test_chunk_stream_is_kept_and_filtered_chunks_are_skipped);
	CU_add_test(s, "stored (level 0) chunk round trips between zlib chunks",
		    test_stored_chunk_round_trips_between_zlib_chunks);
	CU_add_test(s, "incompressible chunk stored; zlib-made chunks read",
		    test_incompressible_chunk_is_stored_and_zlib_chunks_read);
	CU_add_test(s, "truncated file reads to last whole chunk",
		    test_truncated_file_reads_to_last_whole_chunk);
	CU_add_test(s, "corrupt chunk reported with its offset",
		    test_corrupt_chunk_is_reported_with_its_offset);
	CU_add_test(s, "a file that is not a trace is refused", test_not_a_trace_is_refused);
	CU_add_test(s, "older majors are read, a newer major is refused",
		    test_older_major_is_read_and_newer_refused);
	CU_add_test(s, "split payload joins back byte for byte",
		    test_split_payload_joins_back_byte_for_byte);
	CU_add_test(s, "split leaves out non-records, join refuses damage",
		    test_split_leaves_out_non_records_and_join_refuses_damage);
	CU_add_test(s, "split chunks read joined or in place",
		    test_split_chunks_read_joined_or_in_place);
	CU_add_test(s, "in-place decoder checks P", test_in_place_decoder_checks_p);
	CU_add_test(s, "overlong address field gets no granule",
		    test_overlong_address_field_gets_no_granule);
	CU_add_test(s, "address granule is capped at 2^7",
		    test_split_address_granule_is_capped);
	CU_add_test(s, "address granule needs split and major 4",
		    test_address_granule_needs_split_and_major_4);
	CU_add_test(s, "stored split payload; split needs major 3",
		    test_stored_split_payload_and_split_needs_major_3);
	CU_add_test(s, "split flag on a chunk that is not EVENTS is corrupt",
		    test_split_flag_on_other_chunk_is_corrupt);
	CU_add_test(s, "slot decoder refuses continuation of a lost lap",
		    test_slot_decoder_refuses_continuation_of_lost_lap);
	CU_add_test(s, "reset of the used class lists equals a full reset",
		    test_reset_of_used_lists_equals_a_full_reset);
	CU_add_test(s, "decoder's THREAD and restarted slot decoders start from zero",
		    test_decoder_thread_and_restart_start_from_zero);
	CU_add_test(s, "command line keeps its quoting", test_command_line_keeps_quoting);
	CU_add_test(s, "modules delta head round-trips", test_modules_delta_head_round_trip);
	CU_add_test(s, "modules delta head refuses what does not decode",
		    test_modules_delta_head_refusals);
	CU_add_test(s, "DIAG records each, in order", test_diag_records_each);
	CU_add_test(s, "chunk index round-trips, refuses what does not decode",
		    test_chunk_index_round_trip_and_refusals);
	CU_add_test(s, "symbolize request round-trips, refuses what does not add up",
		    test_symbolize_request_round_trip);
	CU_add_test(s, "symbolize request: the analyzer's answer, or a socket closed without it",
		    test_symbolize_request_ack);
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
