/*
 * trace/recode.h - re-encoding a thread slot's records from the shim's form
 * (every block reference explicit, trace/record.h) into the compact form
 * (references predicted from the slot's history), as the launcher does
 * before it compresses a chunk (mprof-trace(5), "Block references").
 *
 * The shim keeps no block history, which made every allocation and free
 * cheaper (a fifth to a quarter of its cost per event on python3 and a C++
 * container program); the launcher, on its own processor, parses each
 * drained range (keeping only the shim's delta bases) and encodes it again
 * with the full record state, at about 9 ns per event (python3's records:
 * 1.45 ns per ring byte).  The compact stream of a lap is numbered by its
 * own byte offsets, which the chunk headers carry, so that a reader's
 * continuity check (a chunk continues where the one before in its slot and
 * lap ended) holds as before.
 *
 * Allocation-free; the caller owns the state and the buffers.
 */
#ifndef MPROF_TRACE_RECODE_H
#define MPROF_TRACE_RECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/record.h"

/* What the records of one range hold, for the chunk index
 * (trace/chunk_index.h): their sequence numbers and TIME stamps. */
struct record_span {
	uint64_t seq_first, seq_last;   /* has_seq: smallest and largest */
	uint64_t time_first, time_last; /* has_time: first and largest TIME */
	bool has_seq, has_time;
	bool other;    /* records other than events, THREAD, TIME, PAD */
	bool unknown;  /* records not followed (damage, or a range that does
	                * not continue the one before): nothing above holds */
};

/* One slot's re-encoding state; zero it before first use. */
/* What the allocation records of a stretch of the shim's records add up to
 * (ALLOC and REALLOC records; failed calls are not recorded). */
struct record_counts {
	uint64_t allocations;     /* weighted, as a report counts them: in a
	                           * sampled stretch, estimates */
	uint64_t records;         /* the records themselves (in a sampled
	                           * stretch, the samples): the count with the
	                           * least noise */
};

struct record_recoder {
	struct record_state in;   /* the shim's delta bases (seq, addr, stack,
	                           * stack node and ip; the rest unused) */
	struct record_state out;  /* encoder state of the compact records */
	uint64_t lap;             /* the ring lap being re-encoded */
	uint64_t in_next;         /* ring lap offset the next range must start at */
	uint64_t out_offset;      /* compact bytes of this lap written so far */
	bool valid;               /* in step with the lap (else: passed through) */
	struct record_counts counts; /* of the records taken so far,
	                           * re-encoded or passed through, for the
	                           * launcher's table of processes; the caller
	                           * may reset it */
	bool scan_ok;             /* in.seq follows the lap (for the span of
	                           * ranges passed through) */
	struct record_span span;  /* of the last range given to record_recode */
	bool recoded;             /* record_recode re-encoded the last range,
	                           * so ext_fn saw its extended records */
	bool damaged;             /* a range held a record this reader does not
	                           * take, which the shim never writes (the
	                           * program wrote over its ring); set here,
	                           * cleared by the caller */
	/* Called, when set, for each extended record re-encoded: its kind and
	 * body (len bytes, pointing into the input), so that a caller needing
	 * some (DIAG, PROCESS) walks the records once. */
	void (*ext_fn)(void *arg, unsigned kind, const uint8_t *body, size_t len);
	void *ext_arg;
};

/* Output room record_recode needs for n input bytes (in bytes): a compact
 * record is at most the explicit one plus a longer address delta. */
static inline size_t record_recode_bound(size_t n)
{
	return 3 * n + RECORD_MAX_BYTES;
}

/*
 * Re-encodes the whole records in[0..n), which start at byte in_offset of
 * ring lap `lap`, into out (room: record_recode_bound(n) bytes).  Returns
 * the bytes written, sets *out_offset to the compact stream's offset of the
 * first of them (what the chunk header says) and *used to the input bytes
 * they stand for.
 * - A range that starts a lap (in_offset 0) resets both record states, or,
 *   with pass_lap, makes the whole lap pass through as it is (the shim's
 *   records are valid ones: the launcher stores them so while the program
 *   keeps every processor busy).
 * - A range that does not continue the one before passes through as it is,
 *   at its ring offset, and so does the rest of its lap.
 * - rc->span tells what the range's records hold.
 * - At a record this reader does not take (damage in the ring: the shim
 *   writes none), re-encoding stops: *used ends before it, and the caller
 *   writes the rest separately, which then passes through at its ring
 *   offset, where a reader finds a gap and counts the rest of the lap lost
 *   (appended to the compact records, its address deltas would be read
 *   against the wrong base).  Damage at the range's first record makes
 *   the whole range pass through as it is (*used is n), so that the
 *   caller always gets on.
 */
size_t record_recode(struct record_recoder *rc, uint64_t lap, uint64_t in_offset, bool pass_lap,
		     const uint8_t *in, size_t n, uint8_t *out, uint64_t *out_offset,
		     size_t *used);

/*
 * Adds the allocation records of the shim's records in[0..n) (every
 * reference explicit) to *counts.  Stateless: it only skips fields, so it
 * serves ranges that pass through without their delta bases; it stops at a
 * record it does not take.  About 3 ns per event (python3's 5.4 M events:
 * 17 ms, against 163 ms of launcher CPU for the run), paid only where
 * records pass through; re-encoded ones are counted for two additions each.
 */
void record_count_allocations(const uint8_t *in, size_t n, struct record_counts *counts);

/*
 * Follows the shim's records in[0..n) as record_count_allocations does,
 * adding their allocation records to *counts and what they hold to *sp; the
 * seq+ fields are added to *seq_base (the slot's previous sequence number,
 * which a THREAD record resets).  Returns 0, or -1 at a record this reader
 * does not take (then *sp and *seq_base hold up to there only).
 */
int record_scan(const uint8_t *in, size_t n, uint64_t *seq_base, struct record_span *sp,
		struct record_counts *counts);

/* The command line of the first PROCESS record in the shim's records
 * in[0..n) (quoted as trace/argv_quote.h does, not NUL-terminated): 0 with
 * *command pointing into in, or -1 when there is none. */
int record_process_command(const uint8_t *in, size_t n, const char **command, size_t *len);

/* The code and text (pointing into body, not NUL-terminated) of a DIAG
 * record's body of len bytes; 0, or -1 when it is cut off. */
int record_diag_decode(const uint8_t *body, size_t len, uint64_t *code, const char **text,
		       size_t *text_len);

/* The command line of a PROCESS record's body of len bytes (as
 * record_process_command gives it); 0, or -1 when it is cut off. */
int record_process_decode(const uint8_t *body, size_t len, const char **command,
			  size_t *command_len);

/* Calls fn(arg, code, text, len) for each DIAG record in the shim's records
 * in[0..n), in order (code: enum trace_diag_code; text pointing into in,
 * not NUL-terminated).  Returns 0, or -1 at a record it cannot read (the
 * records before it were given). */
int record_diag_each(const uint8_t *in, size_t n,
		     void (*fn)(void *arg, uint64_t code, const char *text, size_t len), void *arg);

#endif
