/*
 * tests/fuzz/fuzz_trace.c - libFuzzer target: mprof-analyze's report, diff
 * and symbolize on trace files made from the fuzzer's input, in process.
 *
 * Every chunk of a trace carries two CRC-32s and most are deflated, so bytes
 * flipped in a trace file mostly stop at the first checksum.  The input is
 * therefore a description of chunks whose payloads are given uncompressed;
 * this target deflates them where asked and writes lengths and checksums
 * that hold (man/mprof-trace.5), so the mutations reach the decoders.
 *
 * Input:
 *   byte 0, the mode:
 *     bits 0-1  0 report, 1 report --format json, 2 diff, 3 symbolize then
 *               report (symbolize rewrites the file: it is this target's own)
 *     bits 2-3  major version - 1 of the first trace
 *     bit 4     the header's "sampled" flag
 *     bit 5     a time window: report --from 1ms --to 50% (mode 0),
 *               report --format json --at 1ms (mode 1)
 *     bit 6     raw: the rest of the input is the first trace file as it is
 *               (to fuzz headers and framing; any mprof trace prefixed with
 *               the byte 0x40 is a seed)
 *     bit 7     the next byte * 8 is the header size written (else 64)
 *   then chunks, each: u8 type, u8 flags (bit 0: deflate the payload), u16
 *   stream, u24 payload bytes (all little-endian), the payload.  Type 0xff
 *   starts a second trace (flags: its major - 1), the parent of a fork child
 *   or diff's first; type 0xfe writes an EVENTS chunk whose header claims a
 *   byte more than follows (a file cut inside a chunk); type 0xfd writes no
 *   chunk but sets the major of the trace being written to its flags (bits
 *   2-3 reach majors 1 to 4 only: trace_to_seed.py uses it for the others).
 *
 * The traces go to $TMPDIR (or /tmp)/mprof-fuzz.PID/{c,p}.trace.  Messages
 * are dropped unless MPROF_FUZZ_VERBOSE is set; reports go to /dev/null.
 * Build and run: README.md, "Fuzzing the trace reader".  The design is that
 * of the fuzzing campaign of 2026-12-02, whose findings are in the history
 * of analyze/ and trace/ (hash seeds, chunk limits, module maps, sites).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

#include "analyze/cmd/diff.h"
#include "analyze/cmd/symbolize.h"
#include "analyze/cmd/report.h"
#include "analyze/util/hash_seed.h"
#include "trace/format.h"

/* A growing byte buffer (aborts when memory runs out: a fuzz target). */
struct bytes {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct bytes *b, const void *data, size_t n)
{
	if (!n)
		return;
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The file header: magic, major, minor 0, header bytes, flags, zeros. */
static void put_file_header(struct bytes *b, unsigned major, uint32_t flags, uint32_t bytes)
{
	uint8_t h[4096] = {0};

	memcpy(h, TRACE_FILE_MAGIC, 8);
	h[8] = (uint8_t)major;
	le32(h + 12, bytes);
	le32(h + 16, flags);
	put(b, h, bytes > TRACE_FILE_HEADER_BYTES && bytes <= sizeof(h) ? bytes
									: TRACE_FILE_HEADER_BYTES);
}

/* One chunk of payload raw (raw_bytes), deflated when flags say so; cut:
 * its header claims one byte more than is written. */
static void put_chunk(struct bytes *b, unsigned type, unsigned flags, unsigned stream,
		      const uint8_t *raw, size_t raw_bytes, int cut)
{
	static struct libdeflate_compressor *deflater;
	static uint8_t deflated[1 << 21];
	const uint8_t *payload = raw;
	size_t stored = raw_bytes;
	uint8_t h[24];

	if (flags & TRACE_CHUNK_ZLIB) {
		if (!deflater && !(deflater = libdeflate_alloc_compressor(1)))
			abort();
		stored = libdeflate_zlib_compress(deflater, raw, raw_bytes, deflated,
						  sizeof(deflated));
		payload = deflated;
	}
	le32(h, TRACE_CHUNK_MAGIC);
	h[4] = (uint8_t)type;
	h[5] = (uint8_t)flags;
	h[6] = (uint8_t)stream;
	h[7] = (uint8_t)(stream >> 8);
	le32(h + 8, (uint32_t)(stored + (cut ? 1 : 0)));
	le32(h + 12, (uint32_t)(raw_bytes + (cut && !(flags & TRACE_CHUNK_ZLIB) ? 1 : 0)));
	le32(h + 16, libdeflate_crc32(0, payload, stored));
	le32(h + 20, libdeflate_crc32(0, h, 20));
	put(b, h, sizeof(h));
	put(b, payload, stored);
}

/* Makes the trace files of the input (format above) into first and, when
 * *two is set, second.  Returns the mode byte. */
static unsigned frame_traces(const uint8_t *in, size_t size, struct bytes *first,
			     struct bytes *second, int *two)
{
	struct bytes *cur = first;
	uint32_t header_bytes = TRACE_FILE_HEADER_BYTES;
	unsigned mode = in[0];
	size_t i = 1;

	*two = 0;
	if (mode & 0x40) {
		put(first, in + 1, size - 1);
		return mode;
	}
	if ((mode & 0x80) && size > 1)
		header_bytes = (uint32_t)in[i++] * 8;
	put_file_header(first, ((mode >> 2) & 3) + 1, (mode >> 4) & 1, header_bytes);
	while (i + 7 <= size) {
		unsigned type = in[i], flags = in[i + 1], stream = in[i + 2] | in[i + 3] << 8;
		size_t len = in[i + 4] | in[i + 5] << 8 | (size_t)in[i + 6] << 16;

		i += 7;
		if (len > size - i)
			len = size - i;
		if (type == 0xfd) {
			if (cur->n > 8)
				cur->p[8] = (uint8_t)flags;
			i += len;
			continue;
		}
		if (type == 0xff) {
			if (*two)
				break;
			*two = 1;
			cur = second;
			put_file_header(second, (flags & 3) + 1, (mode >> 4) & 1,
					TRACE_FILE_HEADER_BYTES);
			continue;
		}
		put_chunk(cur, type == 0xfe ? TRACE_CHUNK_EVENTS : type, flags, stream, in + i,
			  len, type == 0xfe);
		i += len;
	}
	return mode;
}

static void write_file(const char *path, const struct bytes *b)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (b->n && write(fd, b->p, b->n) != (ssize_t)b->n))
		abort();
	close(fd);
}

/* The analyzer's error printer and name, quiet unless MPROF_FUZZ_VERBOSE is set
 * (analyze/util/error.c is not linked). */
const char *analyze_name(void)
{
	return "mprof-analyze";
}

void analyze_error(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("MPROF_FUZZ_VERBOSE"))
		return;
	fprintf(stderr, "mprof-analyze: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static char child_path[4200], parent_path[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096];
	int null = open("/dev/null", O_WRONLY);

	(void)argc;
	(void)argv;
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	/* no network, no symbol cache written between runs */
	unsetenv("DEBUGINFOD_URLS");
	setenv("MPROF_SYMBOL_CACHE", "", 1);
	hash_seed_init();
	snprintf(dir, sizeof(dir), "%s/mprof-fuzz.%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	if (mkdir(dir, 0700) != 0 && access(dir, W_OK) != 0)
		abort();
	snprintf(child_path, sizeof(child_path), "%s/c.trace", dir);
	snprintf(parent_path, sizeof(parent_path), "%s/p.trace", dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bytes first = {0}, second = {0};
	char report[] = "report", diff[] = "diff", format[] = "--format", json[] = "json";
	char from[] = "--from", t1[] = "1ms", to[] = "--to", half[] = "50%", at[] = "--at";
	unsigned mode;
	int two;

	if (size < 1 || size > (1u << 20))
		return -1;
	mode = frame_traces(data, size, &first, &second, &two);
	write_file(child_path, &first);
	if (two)
		write_file(parent_path, &second);
	else
		unlink(parent_path);
	switch (mode & 3) {
	case 0: {
		char *argv[] = {report, child_path, parent_path, NULL};
		char *windowed[] = {report, from, t1, to, half, child_path, parent_path, NULL};

		if (mode & 0x20)
			cmd_report(two ? 7 : 6, windowed);
		else
			cmd_report(two ? 3 : 2, argv);
		break;
	}
	case 1: {
		char *argv[] = {report, format, json, child_path, parent_path, NULL};
		char *windowed[] = {report, format, json, at, t1, child_path, parent_path, NULL};

		if (mode & 0x20)
			cmd_report(two ? 7 : 6, windowed);
		else
			cmd_report(two ? 5 : 4, argv);
		break;
	}
	case 2: {
		char *argv[] = {diff, two ? parent_path : child_path, child_path, NULL};

		cmd_diff(3, argv);
		break;
	}
	case 3: {
		char *paths[] = {child_path, NULL};
		char *argv[] = {report, child_path, NULL};

		cmd_symbolize(1, paths);
		cmd_report(2, argv);
		break;
	}
	}
	free(first.p);
	free(second.p);
	return 0;
}
