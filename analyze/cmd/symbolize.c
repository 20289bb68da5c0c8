/*
 * analyze/cmd/symbolize.c - the `symbolize` subcommand, run by `mprof run`
 * when the program has exited: reads each trace's call-stack nodes and
 * module maps (only the stream META's stack_stream names, when it names
 * one: the other EVENTS chunks are skipped without being inflated),
 * symbolizes every frame while the binaries are still there and appends the
 * answers as one SYMBOLS chunk.  Answers of modules with a build-id are
 * taken from, and added to, the on-disk cache (analyze/symbol_cache.h).
 *
 * One symbolizer serves all the traces given (a run's processes share
 * their modules: each module's debug info is read once, not once per
 * trace).  Owns the per-trace scan state; prints its own messages (it is a
 * subcommand), to stderr only.  Must never touch a trace that already has a
 * SYMBOLS chunk, and never cut a trace anywhere but at the end of its last
 * whole chunk.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/cmd/symbolize.h"
#include "analyze/symbolize/dw_loader.h"
#include "analyze/read/modules.h"
#include "analyze/read/slot_decoder.h"
#include "analyze/read/stack_nodes.h"
#include "trace/symbolize_request.h"
#include "analyze/symbolize/symbolize.h"
#include "trace/chunk.h"

#define EPOCH_UNKNOWN UINT64_MAX       /* not resolved yet */
#define EPOCH_BROKEN (UINT64_MAX - 1)  /* chain to the root is broken */
#define CHAIN_LIMIT 4096               /* longer chains are cycles */

/* Stack ids are dense from 1, one STACK record each, but other streams'
 * records may come later: an id beyond this plus 4x the records read is
 * corrupt (and would make the node table, indexed by id, gigabytes). */
#define STACK_ID_SLACK ((uint64_t)1 << 20)

struct trace_scan {
	struct stack_nodes nodes;
	struct module_maps maps;
	bool has_symbols;       /* a SYMBOLS chunk is already there */
	bool damaged;           /* reading stopped at a bad chunk */
	uint64_t good_end_bytes; /* end of the last whole chunk */
	char damage[320];       /* the reader's message when damaged */
	uint64_t other_trace_offset; /* a second trace's file header (0: none) */
	uint64_t stack_records; /* STACK records read */
};

/* Collects STACK and MODULES records of one EVENTS chunk.  Undecodable
 * parts are skipped (they hold events, which symbolize does not need).
 * Returns 0 or -ENOMEM. */
static int scan_events(struct trace_scan *t, struct slot_decoders *d,
		       const struct trace_chunk *c)
{
	struct chunk_cursor cur;
	struct trace_event ev;
	int rc = slot_decoders_begin(d, c->data, c->bytes, c->split, c->addr_shift, &cur);

	if (rc < 0)
		return rc == -ENOMEM ? rc : 0;
	while (chunk_cursor_next(&cur, &ev) == RECORD_OK) {
		if (ev.type == TRACE_EV_STACK &&
		    ev.stack_id <= STACK_ID_SLACK + 4 * ++t->stack_records)
			rc = stack_nodes_add(&t->nodes, ev.stack_id, ev.parent, ev.ip);
		else if (ev.type == TRACE_EV_EXT)
			rc = module_maps_add_ext(&t->maps, ev.kind, ev.ext, ev.ext_len);
		if (rc == -ENOMEM)
			return rc;
		rc = 0; /* a bad node or map is left out */
	}
	return 0;
}

/*
 * The stream that holds every STACK and MODULES record, from a META
 * chunk's "stack_stream=N" line (mprof-trace(5)); 0 when the key is absent
 * or malformed (then every EVENTS chunk is read).
 */
static unsigned meta_stack_stream(const uint8_t *data, size_t bytes)
{
	static const char key[] = "stack_stream=";
	const uint8_t *p = data, *end = data + bytes;

	while (p < end) {
		const uint8_t *eol = memchr(p, '\n', (size_t)(end - p));
		const uint8_t *line_end = eol ? eol : end;
		unsigned long v = 0;

		if ((size_t)(line_end - p) > sizeof(key) - 1 &&
		    memcmp(p, key, sizeof(key) - 1) == 0) {
			const uint8_t *q = p + sizeof(key) - 1;

			for (; q < line_end && *q >= '0' && *q <= '9' && v <= UINT16_MAX; q++)
				v = v * 10 + (unsigned long)(*q - '0');
			return q == line_end && v <= UINT16_MAX ? (unsigned)v : 0;
		}
		p = line_end + 1;
	}
	return 0;
}

/* trace_reader_next_filtered's test: an EVENTS chunk of another stream
 * than *stack_stream (when set) is skipped without being inflated. */
static int scan_wants(unsigned type, unsigned stream, void *arg)
{
	const unsigned *stack_stream = arg;

	return type != TRACE_CHUNK_EVENTS || *stack_stream == 0 || stream == *stack_stream;
}

/* The state one trace after another is read with: one decompressor and one
 * set of slot decoders (slot_decoders_restart) for all, so that a small
 * trace costs what it holds (bench/HISTORY.md, session 62). */
struct scan_shared {
	struct trace_inflater inflater;
	struct slot_decoders decoders;
};

/* Reads the whole trace (only its meta stream when META names one) with
 * sh.  Returns 0, or a negative errno when it cannot be read at all
 * (message printed). */
static int scan_trace(const char *path, struct trace_scan *t, struct scan_shared *sh)
{
	struct trace_reader r;
	struct slot_decoders *d = &sh->decoders;
	struct trace_chunk c;
	unsigned stack_stream = 0;
	int rc = trace_reader_open(&r, path);

	if (rc < 0) {
		fprintf(stderr, "mprof-analyze: %s\n", r.error);
		trace_reader_close(&r);
		return rc;
	}
	r.inflater = &sh->inflater;
	slot_decoders_restart(d);
	/* split payloads decoded in place, as by the report: one that does not
	 * fit together is skipped like a plain chunk with a bad record, not
	 * taken for damage to the file */
	r.keep_split = true;
	t->good_end_bytes = r.offset_bytes;
	while ((rc = trace_reader_next_filtered(&r, &c, scan_wants, &stack_stream)) > 0) {
		t->good_end_bytes = r.offset_bytes;
		if (c.type == TRACE_CHUNK_META && !stack_stream) {
			stack_stream = meta_stack_stream(c.data, c.bytes);
		} else if (c.type == TRACE_CHUNK_SYMBOLS) {
			t->has_symbols = true;
		} else if (c.type == TRACE_CHUNK_EVENTS && c.data && !t->has_symbols) {
			rc = scan_events(t, d, &c);
			if (rc < 0)
				break;
		}
	}
	t->other_trace_offset = r.other_trace_offset;
	if (rc == -ENOMEM) {
		fprintf(stderr, "mprof-analyze: %s: out of memory\n", path);
	} else if (rc < 0) {
		t->damaged = true;
		snprintf(t->damage, sizeof(t->damage), "%s", r.error);
		rc = 0;
	}
	trace_reader_close(&r);
	return rc;
}

/* The module epoch of node id's root, memoized in epochs[] (indexed by id). */
static uint64_t node_epoch(const struct stack_nodes *t, uint64_t *epochs, uint64_t id)
{
	uint64_t path[64];
	size_t n = 0;
	uint64_t epoch = EPOCH_BROKEN;

	for (int steps = 0; steps < CHAIN_LIMIT; steps++) {
		struct stack_node node;

		if (!stack_nodes_get(t, id, &node))
			break;
		if (epochs[id] != EPOCH_UNKNOWN) {
			epoch = epochs[id];
			break;
		}
		if (node.parent == 0) {
			epoch = node.ip >> 1;
			break;
		}
		/* Memoize the nearest 64 nodes of the walk; deeper ones get
		 * theirs when they are visited themselves. */
		if (n < 64)
			path[n++] = id;
		id = node.parent;
	}
	while (n > 0)
		epochs[path[--n]] = epoch;
	return epoch;
}

/* Symbolizes every frame of every stack node. Returns 0 or -ENOMEM. */
static int symbolize_nodes(const struct trace_scan *t, struct symbolizer *s)
{
	uint64_t *epochs = malloc((t->nodes.capacity ? t->nodes.capacity : 1) * sizeof(*epochs));

	if (!epochs)
		return -ENOMEM;
	for (size_t i = 0; i < t->nodes.capacity; i++)
		epochs[i] = EPOCH_UNKNOWN;
	for (size_t id = 1; id < t->nodes.capacity; id++) {
		struct stack_node node;
		uint64_t epoch;

		if (!stack_nodes_get(&t->nodes, id, &node) || node.parent == 0)
			continue;
		epoch = node_epoch(&t->nodes, epochs, id);
		if (epoch != EPOCH_BROKEN)
			symbolizer_lookup(s, epoch, node.ip);
	}
	free(epochs);
	return 0;
}

/* Appends the SYMBOLS chunk with deflater (lent: one for all the traces),
 * first cutting a damaged tail.  A chunk that could not be written whole
 * (a full disk) is cut off again: the trace stays as it was, not truncated
 * inside a chunk. */
static int append_symbols(const char *path, const struct trace_scan *t, const uint8_t *data,
			  size_t bytes, struct trace_deflater *deflater)
{
	struct trace_writer w;
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (t->damaged && ftruncate(fd, (off_t)t->good_end_bytes) < 0)
		rc = -errno;
	if (rc == 0)
		rc = trace_writer_append(&w, fd);
	if (rc == 0) {
		off_t start = (off_t)w.offset_bytes;

		w.deflater = deflater;
		rc = trace_writer_chunk(&w, TRACE_CHUNK_SYMBOLS, data, bytes);
		trace_writer_finish(&w);
		if (rc < 0 && ftruncate(fd, start) < 0)
			rc = -errno;
	}
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* The symbolizer of the traces given, made for the first one to need it
 * (*s NULL), then pointed at the maps of each next one. */
static struct symbolizer *symbolizer_for(struct symbolizer **s, const struct module_maps *maps)
{
	if (*s) {
		symbolizer_set_maps(*s, maps);
		return *s;
	}
	*s = symbolizer_new(maps);
	if (*s)
		symbolizer_use_cache(*s); /* -ENOENT: caching is off */
	return *s;
}

/* Symbolizes one trace with *shared (see symbolizer_for), reading it with
 * scan and compressing its chunk with deflater.  Returns 0, 1 (message
 * printed) or 2 when libdw was needed and cannot be loaded (message
 * printed, the trace left as it was). */
static int symbolize_trace(const char *path, struct symbolizer **shared,
			   struct scan_shared *scan, struct trace_deflater *deflater)
{
	struct trace_scan t;
	struct symbolizer *s = NULL;
	uint8_t *data = NULL;
	size_t bytes = 0;
	int rc;

	memset(&t, 0, sizeof(t));
	stack_nodes_init(&t.nodes);
	module_maps_init(&t.maps);
	rc = scan_trace(path, &t, scan);
	if (rc == 0 && !t.has_symbols && t.other_trace_offset) {
		/* symbols appended after the second trace would never be read,
		 * and cutting it off would destroy it: the file stays as it is */
		fprintf(stderr, "mprof-analyze: %s: holds a second trace from offset %" PRIu64
			" (another file header); not symbolized\n", path, t.other_trace_offset);
		rc = -EINVAL;
	}
	if (rc == 0 && !t.has_symbols) {
		s = symbolizer_for(shared, &t.maps);
		rc = s ? symbolize_nodes(&t, s) : -ENOMEM;
		if (rc == 0 && dw_load_failed())
			rc = -ELIBACC; /* a module file had to be read: nothing embedded */
		if (rc == 0)
			rc = symbolizer_export(s, &data, &bytes);
		if (rc == 0)
			rc = append_symbols(path, &t, data, bytes, deflater);
		if (rc == 0)
			symbolizer_cache_save(s); /* failures only cost time later */
		if (rc == 0 && t.damaged)
			fprintf(stderr,
				"mprof-analyze: warning: %s: %s; symbolized what was readable "
				"and cut the trace there (%" PRIu64 " bytes kept)\n",
				path, t.damage, t.good_end_bytes);
		else if (rc == -ELIBACC)
			fprintf(stderr, "mprof-analyze: symbolize: cannot load libdw (%s); no "
				"symbols embedded\n", dw_load_error());
		else if (rc < 0)
			fprintf(stderr, "mprof-analyze: %s: cannot add symbols: %s\n", path,
				strerror(-rc));
	}
	free(data);
	if (s)
		symbolizer_set_maps(s, NULL); /* t.maps goes now */
	stack_nodes_free(&t.nodes);
	module_maps_free(&t.maps);
	return rc == -ELIBACC ? 2 : rc < 0 ? 1 : 0;
}

int cmd_symbolize(int argc, char **argv)
{
	struct symbolizer *s = NULL; /* one for all the traces */
	/* and one compressor: making one is ~30 us, and a build system's run
	 * gives hundreds of traces (bench/HISTORY.md, session 61); their
	 * reading likewise (struct scan_shared) */
	struct trace_deflater deflater;
	struct scan_shared scan = { { NULL }, { NULL, 0, 0 } };
	int status = 0;

	if (argc < 1) {
		fprintf(stderr, "mprof-analyze: symbolize: no trace given\n"
				"usage: mprof-analyze symbolize TRACE...\n");
		return 1;
	}
	/* libdw would ask debuginfod servers (network, possibly minutes) for
	 * every stripped module; stay offline unless asked to. */
	if (!getenv("MPROF_DEBUGINFOD"))
		unsetenv("DEBUGINFOD_URLS");
	memset(&deflater, 0, sizeof(deflater));
	/* libdw is loaded when a module file must be read, not before (a warm
	 * symbol cache may answer everything: dlopen of libdw and its libraries
	 * is ~0.3 ms).  Without it no module file can be read: the answers
	 * embedded then would be module and offset for good, and win over what
	 * a report could read later.  That trace and the next get nothing:
	 * `mprof run` warns and reports read the binaries. */
	for (int i = 0; i < argc; i++) {
		int rc = symbolize_trace(argv[i], &s, &scan, &deflater);

		if (rc != 0)
			status = 1;
		if (rc == 2)
			break;
	}
	symbolizer_free(s);
	trace_deflater_free(&deflater);
	trace_inflater_free(&scan.inflater);
	slot_decoders_free(&scan.decoders);
	return status;
}

int cmd_symbolize_request(int fd)
{
	char **traces, *kept;
	int n, status;

	/* The termination signals come blocked (mprof run starts every
	 * analyzer so).  While it waits, the launcher's death ends it even
	 * when it is stopped (a process group stopped, then the launcher
	 * killed), where the socket's end would wait for a SIGCONT that may
	 * never come; a launcher already gone has closed the socket. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	n = symbolize_request_receive(fd, &traces, &kept);
	prctl(PR_SET_PDEATHSIG, 0);
	if (n > 0)
		symbolize_request_ack(fd); /* a launcher gone by now wants the symbols too */
	close(fd);
	if (n == 0)
		return 0;
	if (n < 0) {
		fprintf(stderr, "mprof-analyze: symbolize: bad request from mprof run: %s\n",
			strerror(-n));
		return 1;
	}
	if (kept)
		setenv("MPROF_KEPT_IMAGES", kept, 1);
	status = cmd_symbolize(n, traces);
	free(traces);
	free(kept);
	return status;
}
