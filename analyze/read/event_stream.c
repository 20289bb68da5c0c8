/*
 * analyze/read/event_stream.c - one trace file in, a stream of allocator events
 * in exact sequence order out (to the aggregation), with everything else the
 * report needs collected on the way (see event_stream.h).
 *
 * Owns, for the duration of one read, the trace reader (read ahead on a
 * second thread, chunk_prefetch.h), the slot decoders,
 * the merge (reorder.c) and a copy of each EVENTS chunk until its records
 * have been merged: a slot's chunks are decoded lazily, a few dozen events
 * ahead of the merge (to pair allocations with frees that come soon after,
 * STREAM_AHEAD), so events waiting for another thread's data stay mostly in
 * their compact encoded form.  Memory grows with stacks, modules, live
 * blocks and the chunks waiting to merge, never with the number of events.
 * Bad input is counted and reported, never fatal: a chunk that fails is
 * skipped (the reader resynchronizes on the next valid chunk header), a
 * truncated file is read up to its last whole chunk.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/read/chunk_prefetch.h"
#include "analyze/read/event_stream.h"
#include "analyze/read/index_plan.h"
#include "analyze/util/grow.h"
#include "analyze/util/saturate.h"
#include "analyze/read/reorder.h"
#include "analyze/read/slot_decoder.h"
#include "analyze/read/slot_index.h"
#include "trace/chunk.h"
#include "trace/record.h"
#include "trace/varint.h"

_Static_assert(SLOT_INDEX_MAX == SLOT_DECODER_MAX_SLOTS && SLOT_INDEX_MAX <= REORDER_MAX_SOURCES,
	       "the slots the decoder takes are indexed and merged");


/* ---- key=value lists ---- */

const char *kv_list_get(const struct kv_list *l, const char *key)
{
	for (size_t i = l->count; i-- > 0;)
		if (strcmp(l->pairs[i].key, key) == 0)
			return l->pairs[i].value;
	return NULL;
}

void kv_list_free(struct kv_list *l)
{
	for (size_t i = 0; i < l->count; i++) {
		free(l->pairs[i].key);
		free(l->pairs[i].value);
	}
	free(l->pairs);
	memset(l, 0, sizeof(*l));
}

static char *strndup_checked(const void *data, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		return NULL;
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

static int kv_list_add(struct kv_list *l, const char *key, size_t key_len, const char *value,
		       size_t value_len)
{
	struct kv_pair *p;

	if (l->count == l->cap) {
		size_t n = l->cap ? l->cap * 2 : 16;

		p = realloc(l->pairs, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->pairs = p;
		l->cap = n;
	}
	p = &l->pairs[l->count];
	p->key = strndup_checked(key, key_len);
	p->value = strndup_checked(value, value_len);
	if (!p->key || !p->value) {
		free(p->key);
		free(p->value);
		return -ENOMEM;
	}
	l->count++;
	return 0;
}

/* Lines of a META or END chunk read at most: mprof writes some 20.  A
 * fuzzed trace of 47 KB whose META inflated to millions of short lines
 * took 1.3 GB as separate strings. */
#define KV_LIST_MAX_LINES 4096

int kv_list_parse(struct kv_list *l, const uint8_t *data, size_t bytes)
{
	const char *p = (const char *)data, *end = p + bytes;
	size_t lines = 0;

	for (const char *q = p; q < end; q++) {
		q = memchr(q, '\n', (size_t)(end - q));
		/* a last line without its newline counts too */
		if (++lines > KV_LIST_MAX_LINES)
			return -E2BIG;
		if (!q)
			break;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(line_end - p));

		if (eq && eq > p &&
		    kv_list_add(l, p, (size_t)(eq - p), eq + 1, (size_t)(line_end - eq - 1)) < 0)
			return -ENOMEM;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* ---- trace_info ---- */

void trace_info_init(struct trace_info *info)
{
	memset(info, 0, sizeof(*info));
	info->first_seq = 1;
}

void trace_info_free(struct trace_info *info)
{
	free(info->path);
	kv_list_free(&info->meta);
	kv_list_free(&info->end);
	free(info->exe);
	free(info->cmdline);
	for (size_t i = 0; i < info->diag_count; i++)
		free(info->diags[i].text);
	for (size_t i = 0; i < info->symbols_count; i++)
		free(info->symbols[i]);
	free(info->symbols);
	free(info->symbols_bytes);
	rss_series_free(&info->rss);
	for (size_t i = 0; i < info->marker_count; i++)
		free(info->markers[i].name);
	free(info->markers);
	free(info->controls);
	memset(info, 0, sizeof(*info));
}

static void info_lost_chunk(struct trace_info *info, uint64_t offset, const char *reason)
{
	size_t i = info->lost_offset_count;

	info->chunks_lost++;
	if (i < TRACE_INFO_MAX_LOST_OFFSETS) {
		info->lost_offsets[i] = offset;
		size_t n = strlen(reason);

		if (n >= sizeof(info->lost_reasons[i]))
			n = sizeof(info->lost_reasons[i]) - 1;
		memcpy(info->lost_reasons[i], reason, n);
		info->lost_reasons[i][n] = '\0';
		info->lost_offset_count++;
	}
}

/* Copies len bytes of text (a marker's name, every byte kept), making NULs
 * spaces; NULL when out of memory. */
static char *text_copy_all(const uint8_t *data, size_t len)
{
	char *s = strndup_checked(data, len);

	if (!s)
		return NULL;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	return s;
}

/* Copies text, dropping trailing newlines and NULs and making the other NULs
 * spaces. */
static char *text_copy(const uint8_t *data, size_t len)
{
	while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\0'))
		len--;
	return text_copy_all(data, len);
}

/* Reads a text field of an extended payload: a length-prefixed string when
 * that fits, the raw rest of the payload otherwise. */
static void ext_get_text(const uint8_t **p, const uint8_t *end, const uint8_t **text,
			 size_t *len)
{
	const uint8_t *q = *p;

	if (record_get_bytes(&q, end, text, len) == 0) {
		*p = q;
		return;
	}
	*text = *p;
	*len = (size_t)(end - *p);
	*p = end;
}

static int info_add_diag(struct trace_info *info, uint64_t code, const uint8_t *text, size_t len)
{
	char *s = text_copy(text, len);

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < info->diag_count; i++) {
		if (info->diags[i].code == code && strcmp(info->diags[i].text, s) == 0) {
			info->diags[i].count++;
			free(s);
			return 0;
		}
	}
	if (info->diag_count == TRACE_INFO_MAX_DIAGS) {
		info->diags_dropped++;
		free(s);
		return 0;
	}
	info->diags[info->diag_count].code = code;
	info->diags[info->diag_count].text = s;
	info->diags[info->diag_count].count = 1;
	info->diag_count++;
	return 0;
}

static int marker_cmp(const void *a, const void *b)
{
	const struct trace_marker *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq ? 1
	       : x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

static int control_cmp(const void *a, const void *b)
{
	const struct trace_control *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq ? 1
	       : x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

void trace_info_order_stamps(struct trace_info *info)
{
	if (info->marker_count > 1)
		qsort(info->markers, info->marker_count, sizeof(*info->markers), marker_cmp);
	if (info->control_count > 1)
		qsort(info->controls, info->control_count, sizeof(*info->controls), control_cmp);
	/* A toggle is timed when it was asked, which can precede the record
	 * before it (a handler that read the clock as another thread wrote
	 * one): taken at that record's time, no stretch runs backwards. */
	for (size_t i = 1; i < info->control_count; i++)
		if (info->controls[i].time_ns < info->controls[i - 1].time_ns)
			info->controls[i].time_ns = info->controls[i - 1].time_ns;
}

/* ---- one read ---- */

/* Stop waiting for missing sequence numbers when this much decompressed
 * event data waits to be merged (a chunk lost in the middle of a trace). */
#define STREAM_MAX_BUFFERED_BYTES ((size_t)256 << 20)

/* Stack ids may run ahead of the STACK records read so far (other slots'
 * records come later), but not by more than this plus 4x the records. */
#define STREAM_STACK_ID_SLACK ((uint64_t)1 << 20)

/* No run numbers 2^62 events; a larger sequence number is corrupt data (and
 * would overflow the merge's order keys and its expected counter). */
#define STREAM_MAX_SEQ ((uint64_t)1 << 62)

/* A copy of one EVENTS chunk payload waiting to be decoded. */
struct pending_chunk {
	uint8_t *data;          /* owned */
	size_t bytes;
	size_t cap;             /* bytes allocated at data */
	uint64_t offset_bytes;  /* file offset, for the report of a lost chunk */
	bool split;             /* data is a split payload (trace/split.h) */
	unsigned addr_shift;    /* its address granule (trace_chunk.addr_shift) */
};

/*
 * Events a slot decodes ahead of the merge, in a ring of STREAM_AHEAD (a
 * power of two).  A free decoded while its block's allocation still waits
 * there marks the pair ALLOC_EV_PAIRED (alloc_event.h), so that the
 * aggregation keeps that block out of its large table.  The slot decodes
 * in batches, when STREAM_AHEAD_LOW or fewer wait, up to STREAM_AHEAD - 2
 * or more (a REALLOC adds two), leaving the one the merge holds in place:
 * 32 to 62 events ahead.  That pairs 67% of the blocks of bench/bench.py's
 * python3 trace (62% when it read about 30 ahead), 91% of sqlite3's, 75% of cc1's,
 * 34% of the C++ program's and almost none of mallocbench's (which frees
 * its blocks at random, long after making them).
 */
#define STREAM_AHEAD 64u
#define STREAM_AHEAD_LOW 32u

/* Traces smaller than this are read on the caller's thread, with no
 * chunk_prefetch thread: a report of a few hundred thousand events is no
 * faster with it, and on a busy host each hand-over waits for a processor
 * (measured in bench/HISTORY.md, "many small traces"). */
#define STREAM_PREFETCH_MIN_BYTES ((uint64_t)1 << 20)

/* The undecoded chunks of one thread slot, decoded lazily as the merge
 * needs the slot's next events: waiting events stay in their compact
 * encoded form, but for the few decoded ahead. */
struct slot_stream {
	struct pending_chunk *fifo; /* ring of pending chunks, owned */
	size_t head, count, cap;
	bool active;                /* cur walks current */
	struct pending_chunk current;
	struct chunk_cursor cur;
	struct alloc_event *ahead;  /* ring of STREAM_AHEAD decoded events,
	                             * owned, made when the slot has data */
	uint64_t ahead_pushed;      /* events ever put there; event i is at
	                             * i % STREAM_AHEAD */
	unsigned ahead_count;       /* events waiting there: the last ones put */
	size_t held_bytes;          /* payload bytes of chunks decoded to their
	                             * end whose events may still wait there ... */
	uint64_t held_until;        /* ... as events before this index; still
	                             * counted in stream.buffered_bytes */
	uint64_t time_ns;           /* windowed: the slot's newest TIME stamp */
	uint64_t last_seq;          /* ... its last event's sequence number */
	bool time_pending;          /* a TIME stamp waits for the slot's next
	                             * event, to stand right before it
	                             * (slot_put_stamp) */
	struct alloc_event pending_time;
	uint64_t cut_pending;       /* SEQ_SKIPs to come that are cut calls
	                             * (TRACE_REC_EXT_CUT_CALLS) */
};

struct stream {
	struct trace_info *info;
	struct stack_nodes *nodes;
	struct module_maps *maps;
	const struct event_sink *sink;
	struct reorder reorder;
	struct slot_decoders decoders;
	struct slot_index slot_index; /* slot numbers to indexes in slots */
	struct slot_stream *slots;  /* indexed by slot_index's index, owned */
	size_t slot_count;
	size_t buffered_bytes;      /* decompressed event data waiting */
	uint64_t slot_limit;        /* slot numbers must be below (META slots) */
	bool pulled;                /* an event went into the merge */
	bool meta_seen;             /* the META chunk was read */
	uint8_t *meta_bytes, *end_bytes; /* copies of the first META and END
	                             * payloads, owned, to tell a repeat from a
	                             * conflicting chunk */
	size_t meta_len, end_len;
	bool events_done;           /* the sink wants no more events (done) */
	unsigned stack_stream;      /* then: the only EVENTS stream still read
	                             * (META stack_stream), 0: all of them */
	int error;                  /* -ENOMEM met while decoding lazily */
	struct chunk_prefetch *prefetch; /* the chunks' source, whose payload
	                                  * buffers EVENTS chunks take */
	/* a report's time range (trace_info.window_range) */
	bool windowed;
	bool t0_known;              /* the start of the recording is known */
	uint64_t from_abs, to_abs;  /* the range in CLOCK_MONOTONIC ns (0,
	                             * UINT64_MAX: open) */
	uint64_t cut_seq;           /* events below it are left out (the
	                             * chunk index's plan), 0: none */
	uint32_t *held;             /* slots with chunks queued before the
	                             * start was known, to wake then; owned */
	size_t held_count, held_cap;
	bool finishing;             /* no more chunks: TIME stamps still
	                             * waiting for an event go out */
};

/* A MARKER or CONTROL record of type that did not decode: counted, and a
 * stamp in *ae that names none of info's (addr UINT64_MAX, no time), so
 * that the sequence number it took is not a failed realloc.  Returns 1. */
static int stamp_malformed(struct trace_info *info, const struct trace_event *ev, uint32_t tid,
			   enum alloc_event_type type, struct alloc_event *ae)
{
	info->ext_errors++;
	*ae = (struct alloc_event){.seq = ev->seq, .addr = UINT64_MAX, .tid = tid, .type = type};
	return 1;
}

/* MARKER: u time_ns, then the name.  Keeps it in info and describes it in
 * *ae (a stamp at the slot's previous seq, ev->seq); returns 1 (also for
 * a malformed one, stamp_malformed), or -ENOMEM. */
static int handle_marker(struct trace_info *info, const struct trace_event *ev, uint32_t tid,
			 struct alloc_event *ae)
{
	const uint8_t *p = ev->ext, *end = ev->ext + ev->ext_len;
	struct trace_marker *m;
	uint64_t time_ns;
	size_t len;

	if (record_get_u64(&p, end, &time_ns) < 0)
		return stamp_malformed(info, ev, tid, ALLOC_EV_MARKER, ae);
	if (info->marker_count == info->marker_cap) {
		size_t n = info->marker_cap ? 2 * info->marker_cap : 16;

		m = realloc(info->markers, n * sizeof(*m));
		if (!m)
			return -ENOMEM;
		info->markers = m;
		info->marker_cap = n;
	}
	len = (size_t)(end - p);
	m = &info->markers[info->marker_count];
	m->name = text_copy_all(p, len > TRACE_MARKER_NAME_MAX ? TRACE_MARKER_NAME_MAX : len);
	if (!m->name)
		return -ENOMEM;
	m->time_ns = time_ns;
	m->seq = ev->seq;
	m->tid = tid;
	*ae = (struct alloc_event){.seq = ev->seq, .addr = info->marker_count, .value = time_ns,
				   .tid = tid, .type = ALLOC_EV_MARKER};
	info->marker_count++;
	return 1;
}

/* CONTROL: u time_ns, u state, u sample rate; as handle_marker. */
static int handle_control(struct trace_info *info, const struct trace_event *ev, uint32_t tid,
			  struct alloc_event *ae)
{
	const uint8_t *p = ev->ext, *end = ev->ext + ev->ext_len;
	uint64_t time_ns, state, rate;

	if (record_get_u64(&p, end, &time_ns) < 0 || record_get_u64(&p, end, &state) < 0 ||
	    record_get_u64(&p, end, &rate) < 0 || state > 1)
		return stamp_malformed(info, ev, tid, ALLOC_EV_CONTROL, ae);
	if (info->control_count == info->control_cap) {
		size_t n = info->control_cap ? 2 * info->control_cap : 16;
		struct trace_control *v = realloc(info->controls, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		info->controls = v;
		info->control_cap = n;
	}
	info->controls[info->control_count] = (struct trace_control){
		.time_ns = time_ns, .seq = ev->seq, .started = state == 1,
		.sample_rate_bytes = state == 1 ? rate : 0,
	};
	*ae = (struct alloc_event){.seq = ev->seq, .addr = info->control_count, .value = time_ns,
				   .tid = tid, .type = ALLOC_EV_CONTROL,
				   .flags = state == 0 || rate ? ALLOC_EV_UNRECORDING : 0};
	info->control_count++;
	return 1;
}

/* An extended record: taken into info; MARKER, CONTROL and UNRECORDING
 * records also become stamps in *ae (returns 1).  Returns 0, 1 or -ENOMEM. */
static int handle_ext(struct stream *s, const struct trace_event *ev, uint32_t tid,
		      struct alloc_event *ae)
{
	struct trace_info *info = s->info;
	const uint8_t *p = ev->ext, *end = ev->ext + ev->ext_len;
	const uint8_t *t1, *t2;
	size_t l1, l2;
	uint64_t a, b;

	switch (ev->kind) {
	case TRACE_REC_EXT_MODULES:
	case TRACE_REC_EXT_MODULES_DELTA:
		if (module_maps_add_ext(s->maps, ev->kind, ev->ext, ev->ext_len) < 0)
			info->module_errors++;
		return 0;
	case TRACE_REC_EXT_DIAG:
		if (record_get_u64(&p, end, &a) < 0)
			return 0;
		ext_get_text(&p, end, &t1, &l1);
		return info_add_diag(info, a, t1, l1);
	case TRACE_REC_EXT_PROCESS:
		if (record_get_u64(&p, end, &a) < 0 || record_get_u64(&p, end, &b) < 0)
			return 0;
		ext_get_text(&p, end, &t1, &l1);
		ext_get_text(&p, end, &t2, &l2);
		free(info->exe);
		free(info->cmdline);
		info->exe = text_copy(t1, l1);
		info->cmdline = text_copy(t2, l2);
		if (!info->exe || !info->cmdline)
			return -ENOMEM;
		info->has_process = true;
		info->pid = a;
		info->ppid = b;
		return 0;
	case TRACE_REC_EXT_FORK:
		info->forks++;
		return 0;
	case TRACE_REC_EXT_UNRECORDED:
		if (record_get_u64(&p, end, &a) < 0 || record_get_u64(&p, end, &b) < 0)
			return 0;
		info->unrecorded_allocs = sat_add(info->unrecorded_allocs, a,
						  &info->unrecorded_saturated);
		info->unrecorded_frees = sat_add(info->unrecorded_frees, b,
						 &info->unrecorded_saturated);
		info->has_unrecorded = true;
		return 0;
	case TRACE_REC_EXT_MARKER:
		return handle_marker(info, ev, tid, ae);
	case TRACE_REC_EXT_CONTROL:
		return handle_control(info, ev, tid, ae);
	case TRACE_REC_EXT_UNRECORDING:
		if (record_get_u64(&p, end, &a) < 0)
			return stamp_malformed(info, ev, tid, ALLOC_EV_UNRECORDED, ae);
		*ae = (struct alloc_event){.seq = ev->seq, .value = a, .tid = tid,
					   .type = ALLOC_EV_UNRECORDED};
		return 1;
	}
	return 0; /* unknown extended records are skipped */
}


/* Stack ids above the table's limit cannot be resolved: treat as "no stack". */
static inline uint32_t stack_id32(uint64_t id)
{
	return id > STACK_NODES_MAX_ID ? 0 : (uint32_t)id;
}

/* A size or weight no successful call can have: glibc refuses sizes above
 * PTRDIFF_MAX, and the shim's weights stop at UINT32_MAX (preload/sample.c). */
static inline bool alloc_record_impossible(const struct trace_event *ev)
{
	return ev->size_bytes > (uint64_t)PTRDIFF_MAX || ev->weight > UINT32_MAX;
}

/* An ALLOC or REALLOC record refused (alloc_record_impossible): counted, and
 * its sequence numbers taken as used by no event, so the merge finds no gap.
 * Returns the events in *ae (and *second for a REALLOC): 1 or 2. */
static __attribute__((noinline)) int alloc_record_refuse(struct trace_info *info,
							 const struct trace_event *ev,
							 uint32_t tid, struct alloc_event *ae,
							 struct alloc_event *second)
{
	info->alloc_errors++;
	*ae = (struct alloc_event){.seq = ev->seq, .tid = tid, .type = ALLOC_EV_SEQ_SKIP,
				   .flags = ALLOC_EV_REFUSED};
	if (ev->type != TRACE_EV_REALLOC)
		return 1;
	*second = *ae;
	second->seq = ev->seq2;
	return 2;
}

/* The event of an ALLOC record (fields in the order of struct alloc_event:
 * written whole, without clearing the struct first). */
static inline void alloc_event_of_alloc(struct alloc_event *ae, const struct trace_event *ev,
					uint32_t tid)
{
	*ae = (struct alloc_event){
		.seq = ev->seq, .addr = ev->addr, .value = ev->size_bytes,
		.weight = (uint32_t)ev->weight, .stack_id = stack_id32(ev->stack_id), .tid = tid,
		.type = ALLOC_EV_ALLOC, .fn = (uint8_t)ev->fn,
	};
}

/* The event of a FREE record. */
static inline void alloc_event_of_free(struct alloc_event *ae, const struct trace_event *ev,
				       uint32_t tid)
{
	*ae = (struct alloc_event){
		.seq = ev->seq, .addr = ev->addr, .tid = tid, .type = ALLOC_EV_FREE,
		.fn = (uint8_t)ev->fn,
	};
}

/*
 * Handles one decoded record.  Allocator events and TIME stamps go to *ae
 * and return 1, a REALLOC's two parts to *ae and *second and return 2;
 * other records are taken in (stack nodes, module maps, ...) and return 0.
 * Returns -ENOMEM on failure.
 */
static inline __attribute__((always_inline)) int
handle_record(struct stream *s, const struct trace_event *ev, uint32_t tid,
	      struct alloc_event *ae, struct alloc_event *second)
{
	struct trace_info *info = s->info;

	memset(ae, 0, sizeof(*ae));
	ae->tid = tid;
	ae->fn = (uint8_t)ev->fn;
	switch (ev->type) {
	case TRACE_EV_ALLOC:
		info->alloc_records++;
		if (__builtin_expect(alloc_record_impossible(ev), 0))
			return alloc_record_refuse(info, ev, tid, ae, second);
		alloc_event_of_alloc(ae, ev, tid);
		return 1;
	case TRACE_EV_FREE:
		info->free_records++;
		alloc_event_of_free(ae, ev, tid);
		return 1;
	case TRACE_EV_REALLOC:
		info->realloc_records++;
		if (__builtin_expect(alloc_record_impossible(ev), 0))
			return alloc_record_refuse(info, ev, tid, ae, second);
		ae->type = ALLOC_EV_REALLOC_FREE;
		ae->seq = ev->seq;
		ae->addr = ev->addr;
		*second = *ae;
		second->type = ALLOC_EV_REALLOC_ALLOC;
		second->seq = ev->seq2;
		second->addr = ev->addr2;
		second->value = ev->size_bytes;
		second->weight = (uint32_t)ev->weight;
		second->stack_id = stack_id32(ev->stack_id);
		return 2;
	case TRACE_EV_SEQ_SKIP:
		info->skip_records++;
		ae->type = ALLOC_EV_SEQ_SKIP;
		ae->seq = ev->seq;
		return 1;
	case TRACE_EV_TIME:
		info->time_records++;
		ae->type = ALLOC_EV_TIME;
		ae->seq = ev->seq;
		ae->value = ev->time_ns;
		return 1;
	case TRACE_EV_THREAD:
		info->thread_records++;
		return 0;
	case TRACE_EV_STACK:
		info->stack_records++;
		/* Ids are dense from 1, one record each: an id far beyond the
		 * records seen is corrupt (and would make the table huge). */
		if (ev->stack_id > STREAM_STACK_ID_SLACK + 4 * info->stack_records ||
		    stack_nodes_add(s->nodes, ev->stack_id, ev->parent, ev->ip) < 0)
			info->stack_errors++;
		return 0;
	case TRACE_EV_EXT:
		return handle_ext(s, ev, tid, ae);
	}
	return 0;
}

/* A windowed read's marks for the slot's next event (ALLOC_EV_EARLY,
 * ALLOC_EV_LATE), by the slot's clock. */
static inline uint8_t slot_window_flags(const struct stream *s, const struct slot_stream *ss)
{
	return (uint8_t)((ss->time_ns < s->from_abs ? ALLOC_EV_EARLY : 0) |
			 (ss->time_ns >= s->to_abs ? ALLOC_EV_LATE : 0));
}

/*
 * A windowed read: marks the n events just decoded into ae (and second,
 * a REALLOC's alloc part) and leaves out those below the cut.  A TIME
 * stamp moves the slot's clock and waits for the slot's next event
 * (slot_fill_window): where a stamp stands among the other slots' events
 * then depends on sequence numbers only, not on when its chunk was read,
 * which the chunk index changes.  Returns the events kept, ae first (ev's
 * pairing hint dropped when a REALLOC keeps only its alloc part).
 */
static int slot_window_mark(struct stream *s, struct slot_stream *ss, struct trace_event *ev,
			    struct alloc_event *ae, struct alloc_event *second, int n)
{
	uint8_t flags;

	if (ae->type == ALLOC_EV_TIME) {
		if (ae->value > ss->time_ns)
			ss->time_ns = ae->value;
		ss->pending_time = *ae;
		ss->time_pending = true;
		return 0;
	}
	flags = slot_window_flags(s, ss);
	ss->last_seq = n == 2 ? second->seq : ae->seq;
	if (n == 2) {
		if (second->seq < s->cut_seq) {
			ss->time_pending = false; /* before an event left out */
			return 0;
		}
		second->flags |= flags;
		if (ae->seq < s->cut_seq) {
			*ae = *second;
			ev->freed_recent = false;
			return 1;
		}
	}
	if (ae->seq < s->cut_seq) {
		ss->time_pending = false;
		return 0;
	}
	ae->flags |= flags;
	return n;
}

/* The slot's current chunk is decoded (or lost): its buffer goes back.  Its
 * bytes stay counted as waiting until its last events have left the ring
 * (slot_release_held), as they were while the merge needed them. */
static void slot_chunk_done(struct stream *s, struct slot_stream *ss)
{
	ss->held_bytes += ss->current.bytes;
	ss->held_until = ss->ahead_pushed;
	chunk_prefetch_give(s->prefetch, ss->current.data, ss->current.cap);
	ss->current.data = NULL;
	ss->active = false;
}

/* Starts decoding the slot's next pending chunk; false when none is left. */
static bool slot_chunk_next(struct stream *s, struct slot_stream *ss)
{
	while (ss->count > 0) {
		int rc;

		ss->current = ss->fifo[ss->head];
		ss->head = (ss->head + 1) % ss->cap;
		ss->count--;
		ss->active = true;
		rc = slot_decoders_begin(&s->decoders, ss->current.data, ss->current.bytes,
					 ss->current.split, ss->current.addr_shift, &ss->cur);
		if (rc == 0)
			return true;
		if (rc == -ENOMEM)
			s->error = rc;
		else if (rc == -EEXIST)
			s->info->repeated_chunks++; /* read already: dropped */
		else
			info_lost_chunk(s->info, ss->current.offset_bytes,
					rc == -EPROTO ? "events chunk with a malformed header"
						      : "events chunk continues data that was lost");
		slot_chunk_done(s, ss);
	}
	return false;
}

/* slot_fill's way on from a record that is not a plain allocation or free
 * (rc and ev: what the cursor gave; rc = RECORD_END also when the slot had no
 * chunk open).  Out of line, so that slot_fill's loop over the usual
 * records stays small. */
static __attribute__((noinline)) int slot_decode_on(struct stream *s, struct slot_stream *ss,
						      int rc, struct trace_event *ev,
						      struct alloc_event *ae,
						      struct alloc_event *second)
{
	for (;;) {
		if (rc == RECORD_END) {
			if (ss->active)
				slot_chunk_done(s, ss);
		} else if (rc == RECORD_UNKNOWN && s->info->version_minor > TRACE_VERSION_MINOR) {
			/* a record of a later minor (FREE of fn 6 read by a
			 * reader of minor 2): the reader is too old, not the
			 * trace broken */
			char why[96];

			snprintf(why, sizeof(why),
				 "unknown record kind in events chunk (trace format minor %u, "
				 "newer than this mprof's %u)",
				 (unsigned)s->info->version_minor, (unsigned)TRACE_VERSION_MINOR);
			info_lost_chunk(s->info, ss->current.offset_bytes, why);
			slot_chunk_done(s, ss);
		} else if (rc < 0) {
			info_lost_chunk(s->info, ss->current.offset_bytes,
					rc == RECORD_UNKNOWN   ? "unknown record kind in events chunk"
					: rc == RECORD_CORRUPT ? "events chunk refers to a block it never named"
					: rc == RECORD_COLUMNS
						? "events chunk's split fields do not match its records"
						: "events chunk ends inside a record");
			slot_chunk_done(s, ss);
		} else if (ev->seq > STREAM_MAX_SEQ || ev->seq2 > STREAM_MAX_SEQ) {
			/* the rest of the lap continues from this bad number */
			ss->cur.state->valid = false;
			info_lost_chunk(s->info, ss->current.offset_bytes,
					"events chunk with an impossible sequence number");
			slot_chunk_done(s, ss);
		} else {
			if (ev->type == TRACE_EV_EXT) /* a MARKER, CONTROL or UNRECORDING stands here */
				ev->seq = ss->cur.state->st.seq;
			if (ev->type == TRACE_EV_EXT && ev->kind == TRACE_REC_EXT_CUT_CALLS) {
				const uint8_t *p = ev->ext, *end = ev->ext + ev->ext_len;
				uint64_t unknown = 0;

				/* a slot has two calls at most, and one unpublished */
				if (record_get_u64(&p, end, &ss->cut_pending) < 0 ||
				    ss->cut_pending > 2)
					ss->cut_pending = 0;
				if (record_get_u64(&p, end, &unknown) == 0 && unknown == 1)
					s->info->cut_unknown++;
			}
			rc = handle_record(s, ev, (uint32_t)ss->cur.state->tid, ae, second);
			if (rc == 1 && ae->type == ALLOC_EV_SEQ_SKIP && ss->cut_pending) {
				ae->flags |= ALLOC_EV_CUT;
				ss->cut_pending--;
			}
			if (rc > 0 && s->windowed)
				rc = slot_window_mark(s, ss, ev, ae, second, rc);
			if (rc > 0)
				return rc; /* slot_fill sets s->pulled */
			if (rc < 0) {
				s->error = rc;
				return 0;
			}
		}
		if (!ss->active && !slot_chunk_next(s, ss))
			return 0;
		rc = chunk_cursor_next(&ss->cur, ev);
	}
}

/* fr, just decoded, frees the block whose allocation was the slot's event
 * number tag (slot_fill): if that allocation still waits among the events
 * decoded ahead (ring holds events first .. end - 1), marks both
 * ALLOC_EV_PAIRED. */
static inline void pair_with_alloc(struct alloc_event *ring, uint64_t first, uint64_t end,
				   struct alloc_event *fr, uint64_t tag)
{
	struct alloc_event *e;

	if (tag >= end || tag < first)
		return; /* merged already */
	e = &ring[tag & (STREAM_AHEAD - 1)];
	/* a corrupt trace's tag may point elsewhere: a hint must still hold */
	if (e->addr == fr->addr && (e->type == ALLOC_EV_ALLOC || e->type == ALLOC_EV_REALLOC_ALLOC) &&
	    !(e->flags & ALLOC_EV_PAIRED)) {
		e->flags |= ALLOC_EV_PAIRED;
		fr->flags |= ALLOC_EV_PAIRED;
	}
}

/* ae, at ring index i, was just decoded from ev (first: the index of the
 * ring's oldest waiting event): an allocation's block, the newest in the
 * slot's MRU list st, is tagged with i; a free that named its block by its
 * place there is paired (pair_with_alloc).  (ev->freed_recent is set for
 * every FREE and REALLOC record.) */
static inline void slot_note(struct alloc_event *ring, struct record_state *st, uint64_t first,
			     uint64_t i, struct alloc_event *ae, const struct trace_event *ev)
{
	if (ae->type == ALLOC_EV_ALLOC)
		record_mru_at(st, 0)->tag = i;
	else if ((ev->type == TRACE_EV_FREE || ev->type == TRACE_EV_REALLOC) && ev->freed_recent)
		pair_with_alloc(ring, first, i, ae, ev->freed_tag);
}

/*
 * slot_fill's way for a TIME record: the stamp waits for the slot's next
 * event (slot_stamp_before), as handle_record would have made it.
 */
static inline void slot_hold_stamp(struct stream *s, struct slot_stream *ss,
				   const struct trace_event *ev)
{
	s->info->time_records++;
	ss->pending_time = (struct alloc_event){.seq = ev->seq, .value = ev->time_ns,
						.tid = (uint32_t)ss->cur.state->tid,
						.type = ALLOC_EV_TIME, .fn = (uint8_t)ev->fn};
	ss->time_pending = true;
}

/*
 * slot_put_stamp for an event not decoded yet, of sequence number seq: the
 * waiting stamp goes to ring index *i, and the event's place is returned
 * (*i advanced to it).  Decoding the event there instead of moving it, with
 * slot_hold_stamp, saves two copies a stamp that each read an event just
 * written field by field (no store forwarding): 6% of the instructions of
 * a report of a trace with a stamp before nearly every event.
 */
static inline struct alloc_event *slot_stamp_before(struct slot_stream *ss,
						    struct alloc_event *ring, uint64_t *i,
						    uint64_t seq)
{
	struct alloc_event *stamp = &ring[*i & (STREAM_AHEAD - 1)];

	*stamp = ss->pending_time;
	stamp->seq = seq ? seq - 1 : 0;
	ss->time_pending = false;
	++*i;
	return &ring[*i & (STREAM_AHEAD - 1)];
}

/*
 * Puts the slot's waiting TIME stamp right before its next event (ae,
 * just decoded at ring index *i), keyed to the number before the event's.
 * Returns where the event now is (*i + 1, and *i is advanced to it).  Every
 * stamp waits so, in every read: the recorder reads its clock at the
 * slot's next event, which may come long after the event before it (a
 * wait for ring room, a preemption, a sleep), so keyed to that earlier
 * event it moved the clock past other threads' events in between; the
 * stamp after a THREAD record has no sequence number at all (0).
 */
static inline struct alloc_event *slot_put_stamp(struct slot_stream *ss, struct alloc_event *ring,
						 uint64_t *i, struct alloc_event *ae)
{
	struct alloc_event event = *ae, *moved = slot_stamp_before(ss, ring, i, event.seq);

	*moved = event;
	return moved;
}

/*
 * slot_fill for a windowed read, from ring index i (first: the oldest
 * waiting); returns the index after the last event put.  A TIME stamp
 * goes into the ring right before the slot's next event, keyed to the
 * sequence number before it and with its marks (ALLOC_EV_EARLY), or at
 * the end of the input after the slot's last event, marked by its own
 * time.  Room for three: a stamp and a REALLOC's two parts.
 */
static uint64_t slot_fill_window(struct stream *s, struct slot_stream *ss, struct alloc_event *ring,
				 uint64_t i, uint64_t first)
{
	uint64_t start = i;

	while (i - first < STREAM_AHEAD - 3) {
		struct alloc_event *ae = &ring[i & (STREAM_AHEAD - 1)], second;
		struct trace_event ev;
		int rc = ss->active ? chunk_cursor_next(&ss->cur, &ev) : RECORD_END;

		ss->ahead_pushed = i; /* where a chunk that ends here ends */
		rc = slot_decode_on(s, ss, rc, &ev, ae, &second);
		if (rc <= 0) {
			if (s->finishing && ss->time_pending && !s->error) {
				*ae = ss->pending_time;
				ae->seq = ss->last_seq;
				ae->flags = ae->value < s->from_abs ? ALLOC_EV_EARLY : 0;
				ss->time_pending = false;
				i++;
			}
			break;
		}
		if (ss->time_pending) {
			struct alloc_event *stamp = ae;

			ae = slot_put_stamp(ss, ring, &i, ae);
			stamp->flags = ae->flags & (ALLOC_EV_EARLY | ALLOC_EV_LATE);
		}
		slot_note(ring, &ss->cur.state->st, first, i, ae, &ev);
		if (rc == 2) { /* a REALLOC: the free part in ae, the alloc part */
			ring[(i + 1) & (STREAM_AHEAD - 1)] = second;
			record_mru_at(&ss->cur.state->st, 0)->tag = i + 1;
		}
		i += (unsigned)rc;
	}
	if (i != start)
		s->pulled = true;
	return i;
}

/*
 * Decodes the slot's next events into its ring until STREAM_AHEAD - 3 or
 * more wait or its data runs out.  Each allocation's MRU entry is tagged
 * with the allocation's index in the ring, which a free naming the block by
 * its place hands back (trace_event.freed_tag): that finds the allocation
 * among the waiting events without a search.
 */
static void slot_fill(struct stream *s, struct slot_stream *ss)
{
	struct alloc_event *ring;
	uint64_t i, first, allocs = 0, frees = 0;
	struct slot_state *state;

	if (!ss->ahead) {
		ss->ahead = malloc(STREAM_AHEAD * sizeof(*ss->ahead));
		if (!ss->ahead) {
			s->error = -ENOMEM;
			return;
		}
	}
	/* in locals, as are the slot's state and the counts of the usual
	 * records: stores through ae might alias the fields (reloaded each
	 * event, they were ~10 of its ~200 instructions) */
	ring = ss->ahead;
	i = ss->ahead_pushed;
	first = i - ss->ahead_count;
	if (s->windowed) {
		i = slot_fill_window(s, ss, ring, i, first);
		goto out;
	}
	state = ss->cur.state;
	while (i - first < STREAM_AHEAD - 3) {
		struct alloc_event *ae = &ring[i & (STREAM_AHEAD - 1)], second;
		struct trace_event ev;
		int rc = RECORD_END;

		if (ss->active) {
			/* the usual records: a plain allocation or free */
			rc = chunk_cursor_next_hot(&ss->cur, &ev);
			if (rc == RECORD_OK && ev.seq <= STREAM_MAX_SEQ &&
			    (ev.type == TRACE_EV_FREE ||
			     (ev.type == TRACE_EV_ALLOC && !alloc_record_impossible(&ev)))) {
				if (__builtin_expect(ss->time_pending, 0))
					ae = slot_stamp_before(ss, ring, &i, ev.seq);
				if (ev.type == TRACE_EV_ALLOC) {
					allocs++;
					alloc_event_of_alloc(ae, &ev, (uint32_t)state->tid);
				} else {
					frees++;
					alloc_event_of_free(ae, &ev, (uint32_t)state->tid);
				}
				slot_note(ring, &state->st, first, i++, ae, &ev);
				continue;
			}
			if (rc == RECORD_OK && ev.seq <= STREAM_MAX_SEQ && ev.type == TRACE_EV_TIME) {
				slot_hold_stamp(s, ss, &ev);
				continue;
			}
		}
		ss->ahead_pushed = i; /* where a chunk that ends here ends (slot_chunk_done) */
		rc = slot_decode_on(s, ss, rc, &ev, ae, &second);
		state = ss->cur.state; /* a THREAD record, or the next chunk */
		if (rc <= 0) {
			if (s->finishing && ss->time_pending && !s->error) {
				/* no event followed: the stamp only moves the clock on */
				*ae = ss->pending_time;
				ss->time_pending = false;
				i++;
			}
			break;
		}
		if (ae->type == ALLOC_EV_TIME) {
			ss->pending_time = *ae;
			ss->time_pending = true;
			continue;
		}
		if (ss->time_pending)
			ae = slot_put_stamp(ss, ring, &i, ae);
		slot_note(ring, &state->st, first, i, ae, &ev);
		if (rc == 2) { /* a REALLOC: the free part in ae, the alloc part */
			ring[(i + 1) & (STREAM_AHEAD - 1)] = second;
			record_mru_at(&state->st, 0)->tag = i + 1;
		}
		i += (unsigned)rc;
	}
	s->info->alloc_records += allocs;
	s->info->free_records += frees;
out:
	if (i != ss->ahead_pushed)
		s->pulled = true;
	ss->ahead_pushed = i;
	ss->ahead_count = (unsigned)(i - first);
}

/* The oldest event waiting in the slot's ring, taken out of it (it stays
 * in place: the ring is written again only at the slot's next pull). */
static inline const struct alloc_event *slot_take(struct slot_stream *ss)
{
	return &ss->ahead[(ss->ahead_pushed - ss->ahead_count--) & (STREAM_AHEAD - 1)];
}

/* Stops counting the bytes of decoded chunks whose events have all left the
 * slot's ring. */
static inline void slot_release_held(struct stream *s, struct slot_stream *ss)
{
	if (ss->held_bytes && ss->ahead_pushed - ss->ahead_count >= ss->held_until) {
		s->buffered_bytes -= ss->held_bytes;
		ss->held_bytes = 0;
	}
}

/* stream_pull when few events wait: decodes more first (out of line, so
 * that stream_pull, called for every event, saves no registers). */
static __attribute__((noinline)) const struct alloc_event *stream_pull_fill(struct stream *s,
									    struct slot_stream *ss)
{
	slot_release_held(s, ss);
	slot_fill(s, ss);
	slot_release_held(s, ss);
	if (!ss->ahead_count) {
		/* dry until its next chunk comes: with thousands of threads, idle
		 * slots keep no ring (the merge holds none of its events now) */
		free(ss->ahead);
		ss->ahead = NULL;
		return NULL;
	}
	return slot_take(ss);
}

/* The merge's pull callback: the next allocator event or TIME stamp of a
 * slot, from those decoded ahead. */
static const struct alloc_event *stream_pull(void *ctx, uint32_t slot)
{
	struct stream *s = ctx;
	struct slot_stream *ss = &s->slots[slot];

	if (ss->ahead_count <= STREAM_AHEAD_LOW)
		return stream_pull_fill(s, ss);
	return slot_take(ss);
}

/* The merge's peek callback (reorder_set_runs): the events waiting in the
 * slot's ring right after the one its last pull took, up to the ring's
 * end, that stream_pull would take without decoding more: each leaves
 * more than STREAM_AHEAD_LOW behind it, so that frees decoded later pair
 * them exactly as they would one pull at a time. */
static size_t stream_peek(void *ctx, uint32_t slot)
{
	const struct slot_stream *ss = &((const struct stream *)ctx)->slots[slot];
	uint64_t taken = (ss->ahead_pushed - ss->ahead_count - 1) & (STREAM_AHEAD - 1);
	size_t to_end = STREAM_AHEAD - 1 - (size_t)taken, n;

	if (ss->ahead_count <= STREAM_AHEAD_LOW)
		return 0;
	n = ss->ahead_count - STREAM_AHEAD_LOW;
	return n < to_end ? n : to_end;
}

/* The merge's take callback: n of the events stream_peek counted leave the
 * ring (in place, as slot_take's). */
static void stream_take(void *ctx, uint32_t slot, size_t n)
{
	((struct stream *)ctx)->slots[slot].ahead_count -= (unsigned)n;
}

/* The first TIME stamp in the EVENTS chunk c, in *ns; false when it has
 * none (or does not decode from its start). */
static bool chunk_first_time(const struct trace_chunk *c, uint64_t *ns)
{
	struct slot_decoders d;
	struct chunk_cursor cur;
	struct trace_event ev;
	bool found = false;

	slot_decoders_init(&d);
	if (slot_decoders_begin(&d, c->data, c->bytes, c->split, c->addr_shift, &cur) == 0) {
		while (chunk_cursor_next(&cur, &ev) == RECORD_OK) {
			if (ev.type == TRACE_EV_TIME) {
				*ns = ev.time_ns;
				found = true;
				break;
			}
		}
	}
	slot_decoders_free(&d);
	return found;
}

/* slots_start_ns's filter: an EVENTS chunk of a stream whose first chunk
 * was not read yet (a chunk whose header names no stream, of an old
 * trace, is read to find out). */
struct first_chunks {
	uint8_t *seen;  /* by stream: 1 once its first chunk was read; owned */
	size_t count;
};

static int first_chunk_wanted(unsigned type, unsigned stream, void *arg)
{
	const struct first_chunks *f = arg;

	return type == TRACE_CHUNK_EVENTS && (stream == 0 || stream >= f->count || !f->seen[stream]);
}

/*
 * The start of the recording in a trace without a usable chunk index: the
 * earliest of the slots' first TIME stamps.  Each slot's stamps rise, and
 * its first chunk starts with one (a lap starts with THREAD and TIME), so
 * only each slot's first chunk is inflated; a chunk's headers tell its
 * slot.  Returns 1 with *t0_ns set, 0 when no chunk has a stamp, -ENOMEM.
 * (The first chunk in the file, which a windowed read took before, can be
 * a slot that started later: windows then started late, by 1 ms in a
 * 15 ms run.)
 */
static int slots_start_ns(const char *path, uint64_t *t0_ns)
{
	struct trace_reader r;
	struct trace_chunk c;
	struct first_chunks f = {0};
	int found = 0, n;

	if (trace_reader_open(&r, path) < 0) {
		trace_reader_close(&r);
		return 0;
	}
	r.keep_split = true;
	while ((n = trace_reader_next_filtered(&r, &c, first_chunk_wanted, &f)) != 0) {
		const uint8_t *p = c.data;
		uint64_t slot, ns;

		if (n == -EIO || n == -ENOMEM)
			break;
		if (n < 0 || c.type != TRACE_CHUNK_EVENTS || !c.data ||
		    varint_get_u64(&p, c.data + c.bytes, &slot) < 0 || slot >= SLOT_INDEX_MAX)
			continue;
		if (slot + 1 >= f.count) {
			uint8_t *v = grow_zeroed(f.seen, &f.count, (size_t)slot + 1, 1, 64);

			if (!v) {
				n = -ENOMEM;
				break;
			}
			f.seen = v;
		}
		if (f.seen[slot + 1])
			continue;
		f.seen[slot + 1] = 1;
		if (chunk_first_time(&c, &ns) && (!found || ns < *t0_ns)) {
			*t0_ns = ns;
			found = 1;
		}
	}
	free(f.seen);
	trace_reader_close(&r);
	return n == -ENOMEM ? n : found;
}

/* A windowed read before its start is known: slot's chunks wait unmerged
 * (undecoded) until it is. */
static int stream_hold(struct stream *s, uint32_t slot)
{
	if (s->held_count == s->held_cap) {
		uint32_t *v = grow_zeroed(s->held, &s->held_cap, s->held_count, sizeof(*v), 16);

		if (!v)
			return -ENOMEM;
		s->held = v;
	}
	s->held[s->held_count++] = slot;
	return 0;
}

/*
 * A windowed read, or one up to a moment (its range stays open): the
 * recording started at t0_ns (known: a TIME stamp).  Sets the range in the
 * clock's ns, hands the sink a TIME event of the start first (when known),
 * and lets the held slots go on.
 */
static int stream_start(struct stream *s, uint64_t t0_ns, bool known)
{
	const struct trace_info *info = s->info;

	s->t0_known = true;
	s->from_abs = !info->window_from_ns			 ? 0
		      : t0_ns + info->window_from_ns >= t0_ns ? t0_ns + info->window_from_ns
							     : UINT64_MAX;
	s->to_abs = info->window_to_ns && t0_ns + info->window_to_ns >= t0_ns
			    ? t0_ns + info->window_to_ns
			    : UINT64_MAX;
	if (known) {
		struct alloc_event ev = {.type = ALLOC_EV_TIME, .value = t0_ns};

		s->sink->emit(s->sink->ctx, &ev);
	}
	for (size_t i = 0; i < s->held_count; i++)
		if (reorder_wake(&s->reorder, s->held[i]) < 0)
			return -ENOMEM;
	s->held_count = 0;
	return 0;
}

/* Queues an EVENTS chunk for its slot and lets the merge go on.  Its
 * payload buffer is taken from the prefetcher (a copy only without one):
 * every payload was copied twice on its way here (python3's trace: 125
 * chunks of 30-190 KB), most of the decoding thread's memmove time. */
static int handle_events_chunk(struct stream *s, const struct trace_chunk *c)
{
	const uint8_t *p = c->data;
	struct slot_stream *ss;
	uint64_t slot, t0 = 0;
	uint32_t index;
	uint8_t *copy;
	size_t cap;
	bool t0_found = false;

	/* the start of the recording: the first TIME stamp of the first
	 * EVENTS chunk (that has one), as the index gives it */
	if (s->windowed && !s->t0_known)
		t0_found = chunk_first_time(c, &t0);
	if (varint_get_u64(&p, c->data + c->bytes, &slot) < 0 || slot >= s->slot_limit) {
		info_lost_chunk(s->info, c->offset_bytes, "events chunk with a bad header");
		return 0;
	}
	/* from here on slot is the slot's dense index (slot_index.h) */
	if (slot_index_get(&s->slot_index, slot, &index) < 0)
		return -ENOMEM;
	slot = index;
	if (slot >= s->slot_count) {
		struct slot_stream *v = grow_zeroed(s->slots, &s->slot_count, (size_t)slot,
						    sizeof(*v), 16);

		if (!v)
			return -ENOMEM;
		s->slots = v;
	}
	ss = &s->slots[slot];
	if (ss->count == ss->cap) {
		size_t n = ss->cap ? ss->cap * 2 : 4;
		struct pending_chunk *v = malloc(n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < ss->count; i++)
			v[i] = ss->fifo[(ss->head + i) % ss->cap];
		free(ss->fifo);
		ss->fifo = v;
		ss->head = 0;
		ss->cap = n;
	}
	copy = s->prefetch && c->bytes ? chunk_prefetch_take(s->prefetch, c->data, &cap) : NULL;
	if (!copy) {
		cap = c->bytes ? c->bytes : 1;
		copy = malloc(cap);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, c->data, c->bytes);
	}
	ss->fifo[(ss->head + ss->count) % ss->cap] =
		(struct pending_chunk){copy, c->bytes, cap, c->offset_bytes, c->split,
				       c->addr_shift};
	ss->count++;
	s->buffered_bytes += c->bytes;
	if (s->windowed && !s->t0_known) {
		if (!t0_found)
			return stream_hold(s, (uint32_t)slot);
		if (stream_start(s, t0, true) < 0)
			return -ENOMEM;
	}
	if (reorder_wake(&s->reorder, (uint32_t)slot) < 0)
		return -ENOMEM;
	while (s->buffered_bytes > STREAM_MAX_BUFFERED_BYTES && reorder_waiting_sources(&s->reorder))
		reorder_skip_gap(&s->reorder);
	return s->error;
}

static void stream_free(struct stream *s)
{
	for (size_t i = 0; i < s->slot_count; i++) {
		struct slot_stream *ss = &s->slots[i];

		if (ss->active)
			free(ss->current.data);
		for (size_t k = 0; k < ss->count; k++)
			free(ss->fifo[(ss->head + k) % ss->cap].data);
		free(ss->fifo);
		free(ss->ahead);
	}
	free(s->slots);
	s->slots = NULL;
	s->slot_count = 0;
	free(s->held);
	s->held = NULL;
	free(s->meta_bytes);
	s->meta_bytes = NULL;
	free(s->end_bytes);
	s->end_bytes = NULL;
	slot_index_free(&s->slot_index);
	reorder_free(&s->reorder);
	slot_decoders_free(&s->decoders);
}

static int keep_symbols(struct trace_info *info, const struct trace_chunk *c)
{
	size_t n = info->symbols_count + 1;
	uint8_t **v = realloc(info->symbols, n * sizeof(*v));
	size_t *b;

	if (!v)
		return -ENOMEM;
	info->symbols = v;
	b = realloc(info->symbols_bytes, n * sizeof(*b));
	if (!b)
		return -ENOMEM;
	info->symbols_bytes = b;
	v[n - 1] = malloc(c->bytes ? c->bytes : 1);
	if (!v[n - 1])
		return -ENOMEM;
	memcpy(v[n - 1], c->data, c->bytes);
	b[n - 1] = c->bytes;
	info->symbols_count = n;
	return 0;
}


/* A second META, END or SYMBOLS chunk (mprof writes one of each, and
 * only the first is read): a byte-for-byte repeat of first (first_len
 * bytes, NULL when it was not kept) is dropped as harmless, another is
 * counted as conflicting.  Neither holds events, so neither is lost data. */
static void second_info_chunk(struct trace_info *info, const struct trace_chunk *c,
			      const uint8_t *first, size_t first_len, const char *kind)
{
	if (first && c->bytes == first_len && (!first_len || memcmp(c->data, first, first_len) == 0)) {
		info->repeated_info_chunks++;
		return;
	}
	if (!info->conflicting_chunks++) {
		info->conflicting_offset = c->offset_bytes;
		info->conflicting_kind = kind;
	}
}

/* A copy of the len bytes at data (1 byte allocated when len is 0), or
 * NULL when out of memory. */
static uint8_t *bytes_copy(const uint8_t *data, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (p && len)
		memcpy(p, data, len);
	return p;
}

static int handle_meta(struct stream *s, const struct trace_chunk *c)
{
	const char *fork_seq;
	int rc;

	/* mprof writes one: a second would only add keys to look through
	 * (a fuzzed trace of thousands took 85 s) */
	if (s->meta_seen) {
		second_info_chunk(s->info, c, s->meta_bytes, s->meta_len, "META");
		return 0;
	}
	s->meta_seen = true;
	s->meta_bytes = bytes_copy(c->data, c->bytes);
	if (!s->meta_bytes)
		return -ENOMEM;
	s->meta_len = c->bytes;
	rc = kv_list_parse(&s->info->meta, c->data, c->bytes);
	if (rc == -E2BIG) {
		info_lost_chunk(s->info, c->offset_bytes, "META chunk of too many lines");
		return 0;
	}
	if (rc < 0)
		return rc;
	/* The recorder's slot count bounds the slot numbers of EVENTS chunks. */
	{
		const char *slots = kv_list_get(&s->info->meta, "slots");
		char *e;
		unsigned long long v = slots ? strtoull(slots, &e, 10) : 0;

		if (slots && e != slots && *e == '\0' && v > 0 && v <= SLOT_INDEX_MAX)
			s->slot_limit = v;
	}
	/* A fork child's first sequence number follows its parent's at the fork. */
	fork_seq = kv_list_get(&s->info->meta, "fork_seq");
	if (fork_seq && !s->pulled) {
		char *e;
		unsigned long long v = strtoull(fork_seq, &e, 10);

		if (e != fork_seq && *e == '\0' && v < STREAM_MAX_SEQ) {
			s->info->first_seq = (uint64_t)v + 1;
			reorder_set_first_seq(&s->reorder, (uint64_t)v + 1 > s->cut_seq
								   ? (uint64_t)v + 1
								   : s->cut_seq);
		}
	}
	return 0;
}

static int handle_chunk(struct stream *s, const struct trace_chunk *c)
{
	switch (c->type) {
	case TRACE_CHUNK_META:
		return handle_meta(s, c);
	case TRACE_CHUNK_EVENTS:
		if (s->events_done &&
		    (!c->data || (s->stack_stream && c->stream && c->stream != s->stack_stream)))
			return 0; /* events the sink does not want */
		if (!c->data && s->info->window_range)
			s->info->index_chunks_skipped++; /* before the window */
		if (!c->data)
			return 0;
		return handle_events_chunk(s, c);
	case TRACE_CHUNK_SYMBOLS:
		/* symbolize appends one, to a trace without one: more are
		 * not mprof's, and each could hold 64 MiB */
		if (s->info->symbols_count) {
			second_info_chunk(s->info, c, s->info->symbols[0],
					  s->info->symbols_bytes[0], "SYMBOLS");
			return 0;
		}
		return keep_symbols(s->info, c);
	case TRACE_CHUNK_END: {
		int rc;

		if (s->info->has_end) {
			second_info_chunk(s->info, c, s->end_bytes, s->end_len, "END");
			return 0;
		}
		s->info->has_end = true;
		s->end_bytes = bytes_copy(c->data, c->bytes);
		if (!s->end_bytes)
			return -ENOMEM;
		s->end_len = c->bytes;
		rc = kv_list_parse(&s->info->end, c->data, c->bytes);
		if (rc == -E2BIG) {
			info_lost_chunk(s->info, c->offset_bytes, "END chunk of too many lines");
			return 0;
		}
		return rc;
	}
	case TRACE_CHUNK_RSS: {
		/* samples are an extra: a bad chunk is counted, not fatal */
		int rc = rss_series_decode(&s->info->rss, c->data, c->bytes);

		if (rc == -EINVAL)
			s->info->rss_chunks_bad++;
		return rc == -ENOMEM ? rc : 0;
	}
	case TRACE_CHUNK_INDEX:
		return 0; /* read before, by index_plan */
	}
	/* a newer writer's: skipped by its length, and said so */
	if (!s->info->unknown_chunks++)
		s->info->unknown_chunk_type = c->type;
	return 0;
}

int event_stream_read_meta(const char *path, struct kv_list *meta)
{
	struct trace_reader reader;
	struct trace_chunk chunk;
	int rc = trace_reader_open(&reader, path);

	/* the launcher writes META first; look no further than a few chunks */
	for (int i = 0; rc == 0 && i < 8; i++) {
		int n = trace_reader_next(&reader, &chunk);

		if (n <= 0) {
			rc = n == -ENOMEM ? n : 0;
			break;
		}
		if (chunk.type == TRACE_CHUNK_META) {
			rc = kv_list_parse(meta, chunk.data, chunk.bytes);
			if (rc == -E2BIG)
				rc = 0; /* as if there were none */
			break;
		}
	}
	trace_reader_close(&reader);
	return rc;
}

static int end_wanted(unsigned type, unsigned stream, void *arg)
{
	(void)stream;
	(void)arg;
	return type == TRACE_CHUNK_END;
}

int event_stream_read_end(const char *path, struct kv_list *end)
{
	struct trace_reader reader;
	struct trace_chunk chunk;
	int rc = trace_reader_open(&reader, path), n = 0;

	/* every other chunk is skipped by its header, unread */
	while (rc == 0 && (n = trace_reader_next_filtered(&reader, &chunk, end_wanted, NULL)) > 0) {
		if (chunk.type == TRACE_CHUNK_END && chunk.data) {
			rc = kv_list_parse(end, chunk.data, chunk.bytes);
			if (rc == -E2BIG)
				rc = 0;
			break;
		}
	}
	if (rc == 0 && n == -ENOMEM)
		rc = n;
	trace_reader_close(&reader);
	return rc;
}

unsigned meta_stack_stream(const struct kv_list *meta)
{
	const char *v = kv_list_get(meta, "stack_stream");
	char *end;
	unsigned long n = v ? strtoul(v, &end, 10) : 0;

	return v && end != v && *end == '\0' && n > 0 && n <= REORDER_MAX_SOURCES ? (unsigned)n
										   : 0;
}

/*
 * The sink wants no more events: from now on only the EVENTS chunks of the
 * stream that holds the stack nodes and module maps are read (all of them
 * when META names none), the others skipped unread.  The merge's gap
 * counts so far are kept in *gaps (its counts field only).
 */
static void stream_events_done(struct stream *s, struct reorder *gaps)
{
	unsigned n = meta_stack_stream(&s->info->meta);

	s->events_done = true;
	memset(gaps, 0, sizeof(*gaps));
	gaps->gaps = s->reorder.gaps;
	gaps->missing_seqs = s->reorder.missing_seqs;
	gaps->late_events = s->reorder.late_events;
	gaps->repeated_events = s->reorder.repeated_events;
	if (n) {
		s->stack_stream = n;
		chunk_prefetch_events_only(s->prefetch, s->stack_stream);
	}
}

/*
 * The clock reading that a read stopping now would still hand the sink:
 * the newest of the TIME stamps that wait for their slot's next event
 * (the finishing read hands each over with sequence number 0 after the
 * slot's waiting events, and drops it while its slot's last event was a
 * repeat, reorder.h), or 0 when none waits.
 */
static uint64_t stream_waiting_time(const struct stream *s)
{
	uint64_t t = 0;

	for (size_t k = 0; k < s->slot_count; k++) {
		const struct slot_stream *ss = &s->slots[k];
		const struct reorder_source *src =
			k < s->reorder.source_count ? &s->reorder.sources[k] : NULL;

		if (!ss->time_pending || ss->pending_time.value <= t)
			continue;
		if (src && !src->heap_pos && src->dropping)
			continue; /* no event of its own to come first */
		t = ss->pending_time.value;
	}
	return t;
}

/* The merge is past limit: the sink's next limit (0: stop), asked again
 * while the merge is past that one too. */
static uint64_t stream_limit_reached(struct stream *s, uint64_t limit)
{
	const struct event_sink *sink = s->sink;

	while (limit && s->reorder.expected > limit)
		limit = sink->limit_reached ? sink->limit_reached(sink->ctx, stream_waiting_time(s))
					    : 0;
	return limit;
}

int event_stream_read(const char *path, struct trace_info *info, struct stack_nodes *nodes,
		      struct module_maps *maps, const struct event_sink *sink, char *errbuf,
		      size_t errbuf_bytes)
{
	struct trace_reader reader;
	struct chunk_prefetch *prefetch;
	struct stream s;
	struct reorder done_gaps = {0}; /* only its counts */
	struct index_plan plan = {0};
	uint64_t file_bytes, seq_limit = sink->seq_limit;
	int rc;

	info->path = strdup(path);
	if (!info->path) {
		snprintf(errbuf, errbuf_bytes, "%s: out of memory", path);
		return -ENOMEM;
	}
	rc = trace_reader_open(&reader, path);
	if (rc < 0) {
		snprintf(errbuf, errbuf_bytes, "%s", reader.error);
		trace_reader_close(&reader);
		return rc;
	}
	info->flags = reader.flags;
	info->version_minor = reader.version_minor;
	info->sampled = (reader.flags & TRACE_FLAG_SAMPLED) != 0;
	file_bytes = reader.file_bytes;
	/* split payloads are decoded in place (record_decode_split): joining
	 * them on the reader thread first made reports 6-18% slower */
	reader.keep_split = true;

	memset(&s, 0, sizeof(s));
	s.info = info;
	s.nodes = nodes;
	s.maps = maps;
	s.sink = sink;
	s.slot_limit = SLOT_INDEX_MAX;
	slot_index_init(&s.slot_index);
	slot_decoders_init(&s.decoders);

	/* inflating on a second thread when the trace is large (chunk_prefetch.h) */
	reorder_init(&s.reorder, info->first_seq, stream_pull, &s, sink->emit, sink->ctx);
	if (sink->emit_run)
		reorder_set_runs(&s.reorder, stream_peek, stream_take, sink->emit_run);
	s.windowed = info->window_range;
	if (s.windowed && info->window_from_ns && !info->no_index)
		rc = index_plan_make(path, info->window_from_ns, &plan, info->index_note,
				     sizeof(info->index_note));
	if (rc == 0 && plan.used) {
		info->index_used = true;
		s.cut_seq = plan.cut_seq;
		if (s.cut_seq > info->first_seq)
			reorder_set_first_seq(&s.reorder, s.cut_seq);
		rc = stream_start(&s, plan.t0_ns, true);
	} else if (rc == 0 && (s.windowed || info->window_at)) {
		/* the start of the recording: the index's earliest stamp, where a
		 * whole read's clock starts too (no_index only keeps chunks from
		 * being left out); without an index, the earliest of the
		 * slots' first stamps (slots_start_ns) */
		uint64_t t0 = plan.t0_ns;
		int found = plan.t0_known ? 1 : index_start_ns(path, &t0);

		if (found == 0)
			found = slots_start_ns(path, &t0);

		if (found < 0)
			rc = found;
		else if (found)
			rc = stream_start(&s, t0, true);
	}
	prefetch = rc < 0 ? NULL
		 : chunk_prefetch_start_skipping(&reader, plan.skip_offsets, plan.skip_count,
						 file_bytes >= STREAM_PREFETCH_MIN_BYTES);
	if (!prefetch)
		rc = -ENOMEM;
	s.prefetch = prefetch;
	while (prefetch) {
		const struct prefetched_chunk *pc = chunk_prefetch_next(prefetch);

		rc = pc->rc;
		if (rc == 0)
			break;
		if (rc == 1) {
			info->chunks++;
			rc = handle_chunk(&s, &pc->chunk);
			if (rc < 0)
				break;
			if (s.buffered_bytes > info->buffered_bytes_max)
				info->buffered_bytes_max = s.buffered_bytes;
			if (info->progress)
				info->progress(info->progress_ctx, pc->offset_bytes, file_bytes);
			if (sink->failed && sink->failed(sink->ctx)) {
				rc = -ENOMEM; /* a sink's only error */
				break;
			}
			/* reading a parent only up to a fork: stop once past it,
			 * or read on to the next fork the sink names */
			if (seq_limit && s.reorder.expected > seq_limit)
				seq_limit = stream_limit_reached(&s, seq_limit);
			if (seq_limit == 0 && sink->seq_limit)
				break;
			if (!s.events_done && sink->done && sink->done(sink->ctx))
				stream_events_done(&s, &done_gaps);
			continue;
		}
		if (rc == -ENOMEM)
			break;
		if (rc == -EIO) {
			info->truncated = true;
			info->truncated_offset = pc->offset_bytes;
			rc = 0;
			break;
		}
		/* a lost chunk: the thread goes on at the next good chunk header */
		info_lost_chunk(info, pc->offset_bytes, pc->error);
		rc = 0;
	}
	/* a windowed read of a trace without a TIME stamp: its events go on */
	if (rc == 0 && s.windowed && !s.t0_known)
		rc = stream_start(&s, 0, false);
	chunk_prefetch_stop(prefetch);
	s.prefetch = NULL; /* payloads consumed from here on are freed */
	info->trace_copies = reader.copies;
	info->other_trace_offset = reader.other_trace_offset;
	info->cut_copy_offset = reader.cut_copy_offset;
	if (rc == 0 && prefetch) {
		/* the slots' last TIME stamps, waiting for an event */
		s.finishing = true;
		for (size_t k = 0; k < s.slot_count && rc == 0; k++)
			if (s.slots[k].time_pending)
				rc = reorder_wake(&s.reorder, (uint32_t)k);
	}
	if (rc == 0 && prefetch)
		reorder_finish(&s.reorder);
	if (rc == 0)
		rc = s.error;
	info->seq_gaps = s.reorder.gaps;
	info->seq_missing = s.reorder.missing_seqs;
	info->late_events = s.reorder.late_events;
	info->repeated_events = s.reorder.repeated_events;
	if (s.events_done) { /* the events left unread are no gap */
		info->seq_gaps = done_gaps.gaps;
		info->seq_missing = done_gaps.missing_seqs;
		info->late_events = done_gaps.late_events;
		info->repeated_events = done_gaps.repeated_events;
	}
	/* each gap holds a missing number at least (a range a late event could
	 * not split keeps one that came, reorder.h) */
	if (info->seq_gaps > info->seq_missing)
		info->seq_gaps = info->seq_missing;
	/* numbers taken by calls the end cut short before they were published
	 * (the launcher's CUT_CALLS unknown): so many missing numbers are no
	 * loss; each is a gap of its own unless two are neighbours */
	if (info->cut_unknown) {
		uint64_t explained = info->cut_unknown < info->seq_missing ? info->cut_unknown
									     : info->seq_missing;

		info->cut_unknown = explained;
		info->seq_missing -= explained;
		info->seq_gaps -= explained < info->seq_gaps ? explained : info->seq_gaps;
		if (info->seq_missing && !info->seq_gaps)
			info->seq_gaps = 1;
	}
	stream_free(&s);
	index_plan_free(&plan);
	trace_reader_close(&reader);
	{
		/* META, whose chunk has a checksum, says the mode where the
		 * file header's flag (which has none) may have been damaged */
		const char *mode = kv_list_get(&info->meta, "mode");

		if (mode && strcmp(mode, "exact") == 0)
			info->sampled = false;
		else if (mode && strcmp(mode, "sampled") == 0)
			info->sampled = true;
	}
	for (size_t i = 0; i < info->control_count; i++)
		if (info->controls[i].sample_rate_bytes)
			info->sampled = true; /* the weights of that stretch are estimates */
	if (rc == -ENOMEM)
		snprintf(errbuf, errbuf_bytes, "%s: out of memory", path);
	else if (rc < 0)
		snprintf(errbuf, errbuf_bytes, "%s: %s", path, strerror(-rc));
	return rc;
}
