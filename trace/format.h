/*
 * trace/format.h - constants of the mprof trace file format, version 6.
 *
 * This header and man/mprof-trace.5 describe the same thing and change in the
 * same commit.  The trace is the only contract between recording (preload/,
 * cli/) and analysis (analyze/).
 *
 * A trace file is:
 *   file header   64 bytes, uncompressed (struct trace_file_header)
 *   chunk*        each: 24-byte chunk header + payload (zlib stream)
 * All fixed-width integers are little-endian.  A reader that meets a chunk
 * whose header or checksum is wrong reports the file offset and stops there
 * (a truncated file is read up to its last whole chunk).  A file header
 * where a chunk is due, or inside a chunk cut short, starts a copy of the
 * trace (skipped as far as read) or another trace (not read):
 * trace_reader_next.
 */
#ifndef MPROF_TRACE_FORMAT_H
#define MPROF_TRACE_FORMAT_H

#include <stdint.h>

#define TRACE_FILE_MAGIC "MPROFTRC"     /* 8 bytes, no terminator */
#define TRACE_VERSION_MAJOR 6           /* what writers write */
#define TRACE_VERSION_MAJOR_OLDEST 1    /* readers refuse majors outside
                                         * OLDEST..MAJOR; major 1 streams are
                                         * major 2 streams that never use the
                                         * block references 2 added, major 2
                                         * files are major 3 files without
                                         * split payloads, major 3 files are
                                         * major 4 files without address
                                         * granules, and major 4 files are
                                         * major 5 files that never name the
                                         * blocks past the 16 newest listed
                                         * and 8 newest freed of a class, and
                                         * major 5 files are major 6 files
                                         * without aref 18 (RECORD_AREF_FRESH) */
#define TRACE_VERSION_MINOR 6           /* readers accept any minor; 1: RSS
                                         * chunks may be present; 2: markers,
                                         * control records, pool blocks and
                                         * the chunk index; 3: FREE records
                                         * of TRACE_FREE_REALLOC_RELEASE; 4:
                                         * CUT_CALLS records; 5:
                                         * MODULES_DELTA records; 6:
                                         * UNRECORDING records */
#define TRACE_FILE_HEADER_BYTES 64
#define TRACE_CHUNK_MAGIC 0x4b43504du   /* "MPCK" read as little-endian u32 */
#define TRACE_CHUNK_HEADER_BYTES 24
#define TRACE_CHUNK_MAX_RAW_BYTES (64u << 20) /* readers refuse larger chunks */

/*
 * File header, 64 bytes:
 *   0  magic "MPROFTRC"
 *   8  u16 version major, u16 version minor
 *  12  u32 header size in bytes (64; readers skip what they do not know)
 *  16  u32 flags (TRACE_FLAG_*)
 *  20  44 bytes reserved, zero
 */
#define TRACE_FLAG_SAMPLED 1u           /* weights are sampling estimates */

/*
 * Chunk header, 24 bytes:
 *   0  u32 magic TRACE_CHUNK_MAGIC
 *   4  u8  chunk type (enum trace_chunk_type)
 *   5  u8  flags (TRACE_CHUNK_ZLIB: payload is one zlib stream;
 *          TRACE_CHUNK_SPLIT: an EVENTS payload in split form; bits 2-4:
 *          its address granule, TRACE_CHUNK_ADDR_SHIFT)
 *   6  u16 stream: for EVENTS chunks the thread slot + 1, so a reader can
 *          skip slots without inflating them; 0 = not given
 *   8  u32 stored payload bytes (what follows the header in the file)
 *  12  u32 raw payload bytes (after inflating; equals stored when not zlib)
 *  16  u32 CRC-32 (zlib's crc32) of the stored payload
 *  20  u32 CRC-32 of header bytes 0..19
 * Readers skip chunks of unknown type by their stored length.
 */
#define TRACE_CHUNK_ZLIB 1u
#define TRACE_CHUNK_SPLIT 2u /* EVENTS payload in split form (major 3,
                              * trace/split.h); joined after inflating */
/* Bits 2-4 of a split chunk's flags (major 4): k, when not 0, says that
 * every addr~ field of the payload's addr part is its address delta divided
 * by 2^k (trace/split.h, "address granules"). */
#define TRACE_CHUNK_ADDR_SHIFT(flags) (((unsigned)(flags) >> 2) & 7u)
#define TRACE_CHUNK_ADDR_SHIFT_FLAGS(k) ((unsigned)(k) << 2)
#define TRACE_CHUNK_ADDR_SHIFT_MAX 7u

enum trace_chunk_type {
	TRACE_CHUNK_META = 1,    /* text: "key=value\n" lines, UTF-8 */
	TRACE_CHUNK_EVENTS = 2,  /* records of one thread slot, see below */
	TRACE_CHUNK_SYMBOLS = 3, /* symbolization embedded at the end of a run */
	TRACE_CHUNK_END = 4,     /* text "key=value\n": how the run ended */
	TRACE_CHUNK_RSS = 5,     /* the launcher's RSS samples of the process
	                          * (minor 1): u count, then per sample u time
	                          * delta (ns, CLOCK_MONOTONIC; the first from 0),
	                          * u RSS in KiB */
	TRACE_CHUNK_INDEX = 6,   /* (minor 2) what each EVENTS chunk holds, for
	                          * seeking by time: trace/chunk_index.h */
};

/*
 * EVENTS chunk payload: varint slot, varint lap, varint offset, then records
 * (or, with TRACE_CHUNK_SPLIT, the same records with their seq+ and addr~
 * fields moved behind them: trace/split.h).
 * The recorder writes each thread slot's records into a ring, with every
 * block reference explicit; "lap" counts how often the ring wrapped.  The
 * launcher re-encodes each stretch with references (trace/recode.h), and
 * "offset" is the byte offset inside the lap's re-encoded records at which
 * this chunk's records start (for a lap it passes through as it is, while
 * the program keeps every processor busy, the offset in the ring's lap).  Decoder delta state (previous
 * sequence number, previous address, previous stack-definition ip, block
 * history) is reset to zero at offset 0 of every lap and by every THREAD
 * record; a chunk with offset > 0 continues the state of the chunk before it
 * in the same slot and lap.
 *
 * Records start with one kind byte.  Kinds below 0x80 are core records whose
 * layout every reader must know (an unknown one is an error); kinds 0x80 and
 * above are followed by a varint payload length and may be skipped.
 * "u" = unsigned varint, "s" = zigzag signed varint; "seq+" = u delta from the
 * previous sequence number of this slot (the previous seq becomes this one);
 * "addr~" = s delta from the previous explicitly written address of this
 * slot (which then becomes this one).
 *
 * Blocks are named by reference where the slot's recent history predicts
 * them (trace/record.h keeps that history, identically in writer and
 * reader: the 32 most recent allocations still listed, and per size class
 * (size + 23) / 16 < 64 the last 16 blocks freed, newest last):
 *   fref  (the block a free releases): u 0 then addr~; u k+1 = the k-th
 *         newest of the allocations still listed, k < 16 (it joins its
 *         class's freed list); u 17 + c then addr~, a block that joins
 *         class c's freed list (major 2); u 81 + k - 16, the k-th newest
 *         listed, k = 16..31 (major 5);
 *   new block (an allocation): u aref (0 = the newest freed block of its
 *         size class, 1 = the previous allocation's address + its chunk
 *         size, 2 = addr~ follows, 3 + k - 1 = the freed block k places
 *         below the newest of its class, k = 1..7 (major 2), 8..15
 *         (major 5)), u size,
 *         s stack~ (delta from the previous allocation's stack id).
 * Major 1 traces use neither of the major 2 references; they are read alike.
 */
enum trace_record_kind {
	TRACE_REC_PAD = 0x00,        /* one byte of filler: skip */
	TRACE_REC_SEQ_SKIP = 0x01,   /* seq+ : a sequence number used by no event */
	TRACE_REC_THREAD = 0x02,     /* u tid : a thread took this slot; resets deltas */
	TRACE_REC_TIME = 0x03,       /* u ns : CLOCK_MONOTONIC at the previous seq */
	TRACE_REC_STACK = 0x04,      /* u id, u parent, s ip~ (delta from previous
	                              * STACK ip of this slot): a call-stack node
	                              * (written by major 1) */
	TRACE_REC_STACK_DELTA = 0x05, /* s id~ (id - previous STACK id of this
	                               * slot - 1), s id - parent, s ip~: the same
	                               * node, in a third of the bytes (major 2) */
	TRACE_REC_ALLOC = 0x10,      /* + alloc_fn. seq+, new block (weight 1) */
	TRACE_REC_FREE = 0x20,       /* + free_fn.  seq+, fref */
	TRACE_REC_REALLOC = 0x30,    /* + alloc_fn. seq+ (free part), fref (old),
	                              * seq+ (alloc part), new block (weight 1) */
	TRACE_REC_ALLOC_WEIGHTED = 0x40,   /* as ALLOC, then u weight */
	TRACE_REC_REALLOC_WEIGHTED = 0x50, /* as REALLOC, then u weight */
	TRACE_REC_EXT_MODULES = 0x80, /* module map, see mprof-trace(5) */
	TRACE_REC_EXT_DIAG = 0x81,    /* u code, then text: a recorder diagnostic */
	TRACE_REC_EXT_PROCESS = 0x82, /* u pid, u ppid, text exe, text cmdline */
	TRACE_REC_EXT_FORK = 0x83,    /* u child pid: fork() returned here (at prev seq) */
	TRACE_REC_EXT_UNRECORDED = 0x84, /* u allocations, u frees not recorded */
	TRACE_REC_EXT_MARKER = 0x85,  /* u time ns, then the name (minor 2): a
	                               * named marker at the previous seq */
	TRACE_REC_EXT_CONTROL = 0x86, /* u time ns, u state (0 stopped, 1
	                               * started), u sample rate bytes (0: every
	                               * allocation), at the previous seq (minor 2) */
	TRACE_REC_EXT_CUT_CALLS = 0x87, /* u count, u unknown: the next count
	                               * SEQ_SKIP records of this slot are calls
	                               * the process's end cut short, and unknown
	                               * more such calls took numbers never
	                               * published (gaps of the trace); written by
	                               * the launcher (minor 4); no failed reallocs */
	TRACE_REC_EXT_MODULES_DELTA = 0x88, /* (minor 5) a module map given as
	                               * its changes from an earlier one: see
	                               * the end of this file */
	TRACE_REC_EXT_UNRECORDING = 0x89, /* u time ns (minor 6): the process
	                               * allocates without recording from here
	                               * on (a thread without a slot), at the
	                               * previous seq as MARKER */
};

/* Which entry point made an allocation; low nibble of ALLOC/REALLOC kinds. */
enum trace_alloc_fn {
	TRACE_FN_MALLOC = 0,
	TRACE_FN_CALLOC = 1,
	TRACE_FN_REALLOC = 2,
	TRACE_FN_REALLOCARRAY = 3,
	TRACE_FN_POSIX_MEMALIGN = 4,
	TRACE_FN_ALIGNED_ALLOC = 5,
	TRACE_FN_MEMALIGN = 6,
	TRACE_FN_VALLOC = 7,
	TRACE_FN_PVALLOC = 8,
	TRACE_FN_ALLOC_COUNT = 9,
	TRACE_FN_POOL = 9, /* a pool block the program reported (minor 2): its
	                    * address has bit 63 set (TRACE_POOL_ADDR_BIT) */
};

/* Set in the address of every pool block (TRACE_FN_POOL, TRACE_FREE_POOL),
 * so it never equals a malloc'd block's, such as the pool's own arena. */
#define TRACE_POOL_ADDR_BIT (UINT64_C(1) << 63)

/* Which entry point freed a block; low nibble of FREE kinds.  A realloc(p, 0)
 * that frees is a FREE with TRACE_FREE_REALLOC; a realloc whose new block is
 * not recorded (not sampled, or recording stopped) is a FREE with
 * TRACE_FREE_REALLOC_RELEASE. */
enum trace_free_fn {
	TRACE_FREE_FREE = 0,
	TRACE_FREE_SIZED = 1,
	TRACE_FREE_ALIGNED_SIZED = 2,
	TRACE_FREE_REALLOC = 3,
	TRACE_FREE_REALLOCARRAY = 4,
	TRACE_FREE_FN_COUNT = 5,
	TRACE_FREE_POOL = 5, /* a pool block's release (minor 2) */
	TRACE_FREE_REALLOC_RELEASE = 6, /* the release part of a realloc or
	                                 * reallocarray whose new block is not
	                                 * recorded (minor 3) */
};

/* DIAG codes (TRACE_REC_EXT_DIAG). */
enum trace_diag_code {
	TRACE_DIAG_INFO = 0,
	TRACE_DIAG_FOREIGN_MALLOC = 1, /* malloc resolves to another definition */
	TRACE_DIAG_NO_UNWINDER = 2,    /* libunwind missing: stacks are 1 frame */
	TRACE_DIAG_RING_FULL_WAIT = 3, /* writers waited for the collector */
	TRACE_DIAG_DISABLED = 4,       /* recording stopped; text says why */
	TRACE_DIAG_TOGGLE_TAKEN = 5,   /* the program replaced the toggle
	                                * signal's handler */
	TRACE_DIAG_FOREIGN_FORWARDS = 6, /* the malloc of code 1 calls the
	                                  * recorder's: its blocks are recorded */
	TRACE_DIAG_FOREIGN_NEW = 7,   /* C++ operator new is an allocator's own,
	                               * past the recorder: calls of it not (all)
	                               * recorded */
};

/*
 * A STACK node with parent 0 is a root: its "ip" is 2 * epoch + truncated,
 * where epoch is the module epoch in force when the stack was captured (the
 * MODULES record with that epoch maps its descendants' instruction pointers)
 * and truncated is 1 when the capture hit --max-frames.  A node's ip is the return address of
 * its frame (the leaf's is the caller of the allocator entry point); readers
 * subtract 1 before symbolizing a return address.  Stack ids are unique per
 * process, start at 1, and may be defined in any slot's stream, before or
 * after the events that use them.  Stack id 0 means "no stack".
 *
 * MODULES payload: u epoch, u count, then per module: u load bias, u path
 * length + path bytes, u build-id length + build-id bytes, u segment count,
 * then per segment: u start, u size (both relative to the load bias; only
 * PT_LOAD segments with PF_X are listed).
 *
 * Every module of a map has an id, for MODULES_DELTA records to name it:
 * those of a MODULES record are 0, 1, ... in record order, and the map's
 * next id is its count.  A MODULES_DELTA record (minor 5; its head is coded
 * by trace/modules_delta.h) makes the map of its epoch from the map of its
 * base epoch, which must be in the trace before it: u epoch, u base epoch,
 * u removed count, the removed modules' ids (ascending: the first as it
 * is, each other as its distance from the one before minus 1), u added
 * count, then the added modules laid out as in MODULES.  The new map is
 * the base's modules (keeping their ids) without the removed, plus the
 * added, whose ids are the base's next id and up; its next id is the base's
 * plus the added count.  The recorder writes one when it is smaller than
 * the whole map would be, so a process that loads N libraries one by one
 * writes O(N) bytes of maps, not O(N^2).
 */

#endif
