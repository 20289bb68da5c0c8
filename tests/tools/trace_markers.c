/*
 * tests/tools/trace_markers.c - prints the MARKER and CONTROL records of a
 * trace in sequence order, for tests/e2e/control-race.sh, so the recording
 * side's order can be checked before and apart from the analyzer's.
 *
 * Usage: trace_markers TRACE.  One line per record, sorted by the sequence
 * number it stands at (the slot's previous one), then by slot and order:
 *   marker NAME
 *   control STATE RATE
 * Exit 0, or 1 with a one-line error when the trace cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/chunk.h"
#include "trace/format.h"
#include "trace/record.h"

#define SLOTS_MAX 4097u

struct line {
	uint64_t seq, order;
	char text[300];
};

static struct line *lines;
static size_t nlines, cap;
static struct record_state states[SLOTS_MAX];

static int line_cmp(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void line_add(uint64_t seq, const struct trace_event *ev)
{
	const uint8_t *p = ev->ext, *end = ev->ext + ev->ext_len;
	uint64_t time_ns, state, rate;
	struct line *l;

	if (nlines == cap) {
		cap = cap ? 2 * cap : 256;
		lines = realloc(lines, cap * sizeof(*lines));
		if (!lines)
			exit(1);
	}
	l = &lines[nlines];
	l->seq = seq;
	l->order = nlines++;
	if (record_get_u64(&p, end, &time_ns) < 0) {
		snprintf(l->text, sizeof(l->text), "bad record");
	} else if (ev->kind == TRACE_REC_EXT_MARKER) {
		snprintf(l->text, sizeof(l->text), "marker %.*s", (int)(end - p), (const char *)p);
	} else if (record_get_u64(&p, end, &state) < 0 || record_get_u64(&p, end, &rate) < 0) {
		snprintf(l->text, sizeof(l->text), "bad record");
	} else {
		snprintf(l->text, sizeof(l->text), "control %llu %llu", (unsigned long long)state,
			 (unsigned long long)rate);
	}
}

/* Decodes one EVENTS payload: varint slot, lap, offset, then records. */
static int events_read(const uint8_t *p, const uint8_t *end)
{
	uint64_t slot, lap, offset;
	struct record_state *st;
	struct trace_event ev;
	int rc;

	if (record_get_u64(&p, end, &slot) < 0 || record_get_u64(&p, end, &lap) < 0 ||
	    record_get_u64(&p, end, &offset) < 0 || slot >= SLOTS_MAX)
		return -1;
	st = &states[slot];
	if (offset == 0)
		record_state_reset(st);
	while ((rc = record_decode(&p, end, st, &ev)) == RECORD_OK) {
		if (ev.type == TRACE_EV_EXT &&
		    (ev.kind == TRACE_REC_EXT_MARKER || ev.kind == TRACE_REC_EXT_CONTROL))
			line_add(st->seq, &ev);
	}
	return rc == RECORD_END ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct trace_reader r;
	struct trace_chunk c;
	int rc;

	if (argc != 2 || trace_reader_open(&r, argv[1]) < 0) {
		fprintf(stderr, "trace_markers: cannot open %s\n", argc > 1 ? argv[1] : "(none)");
		return 1;
	}
	while ((rc = trace_reader_next(&r, &c)) > 0) {
		if (c.type == TRACE_CHUNK_EVENTS && events_read(c.data, c.data + c.bytes) < 0) {
			fprintf(stderr, "trace_markers: %s: an EVENTS chunk does not decode\n",
				argv[1]);
			return 1;
		}
	}
	trace_reader_close(&r);
	if (rc < 0) {
		fprintf(stderr, "trace_markers: %s\n", r.error);
		return 1;
	}
	qsort(lines, nlines, sizeof(*lines), line_cmp);
	for (size_t i = 0; i < nlines; i++)
		printf("%s\n", lines[i].text);
	free(lines);
	return 0;
}
