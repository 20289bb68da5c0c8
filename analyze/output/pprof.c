/*
 * analyze/output/pprof.c - the heap profile as pprof reads it (`mprof
 * report --format pprof`): profile.proto (github.com/google/pprof,
 * proto/profile.proto), gzip-compressed, laid out as Go's heap profiles
 * are, so that `go tool pprof`, Pyroscope and Parca take it as a memory
 * profile.
 *
 * Owns nothing of the profile; streams the gzip to out while it encodes.
 * What the file holds:
 *  - sample types alloc_objects/count, alloc_space/bytes, inuse_objects/count,
 *    inuse_space/bytes (Go's four; "inuse" is what was live at the end:
 *    leaked, i.e. live at exit), then mprof's peak_objects/count,
 *    peak_space/bytes (live at t-gmax) and temporary/count; each is one
 *    metric of profile/metric.h, and --metric picks default_sample_type
 *    (inuse_space without it);
 *  - one sample per allocation site, its locations leaf first;
 *  - one location per return address as the site shows it: the frames
 *    inlined into a function first, that function last, at the function's
 *    address as an offset in its module (runtime address minus load bias);
 *  - one mapping per module file (with its build-id), its start and limit
 *    the module's executable segments in the same offsets, file offset 0
 *    (the trace does not record segments' file offsets);
 *  - functions by name and file (name and system_name both the name mprof
 *    shows: it keeps no mangled name), period_type space/bytes, period 1
 *    (exact counts) or a sampled trace's mean sampling interval in bytes
 *    (its values are then estimates), time_nanos and duration_nanos when the trace
 *    has them, and comments saying what the sample types mean (and that
 *    pool blocks are counted twice, when the program announced any).
 * Protobuf fields may come in any order: samples are written first, as
 * they are made, and the tables they refer to after them, so that only the
 * tables are held in memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analyze/output/frames.h"
#include "analyze/output/output.h"
#include "analyze/output/protobuf.h"
#include "analyze/output/string_table.h"
#include "analyze/util/grow.h"
#include "analyze/util/hash_seed.h"
#include "analyze/util/saturate.h"
#include "trace/argv_quote.h"

/* profile.proto's field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE, PROFILE_PERIOD, PROFILE_COMMENT,
	PROFILE_DEFAULT_SAMPLE_TYPE,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE,
	MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT, MAPPING_FILE_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS, MAPPING_HAS_FILENAMES,
	MAPPING_HAS_LINE_NUMBERS, MAPPING_HAS_INLINE_FRAMES,
	LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE,
	LINE_FUNCTION_ID = 1, LINE_LINE,
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME,
};

/* The sample types, in the file's order: Go's heap profile's four first. */
static const struct pprof_sample_type {
	const char *type, *unit;
	enum metric metric;
} pprof_types[] = {
	{"alloc_objects", "count", METRIC_ALLOCATIONS},
	{"alloc_space", "bytes", METRIC_ALLOCATED},
	{"inuse_objects", "count", METRIC_LEAKED_BLOCKS},
	{"inuse_space", "bytes", METRIC_LEAKED},
	{"peak_objects", "count", METRIC_PEAK_BLOCKS},
	{"peak_space", "bytes", METRIC_PEAK},
	{"temporary", "count", METRIC_TEMPORARY},
};
#define PPROF_TYPES (sizeof(pprof_types) / sizeof(pprof_types[0]))
#define PPROF_DEFAULT_TYPE 3 /* inuse_space, as Go's heap profiles */

/* How many of pprof_types p's file has: all but the last, temporary, when
 * p is sampled (it has no estimate there). */
static size_t pprof_type_count(const struct profile *p)
{
	return profile_has_metric(p, METRIC_TEMPORARY) ? PPROF_TYPES : PPROF_TYPES - 1;
}

/* Encoded bytes gathered before they are handed to zlib. */
#define PPROF_FLUSH_BYTES (64u << 10)

struct pprof_function {
	uint32_t name, file;    /* string indices */
};

struct pprof_location {
	uint32_t first, count;  /* its frames: loc_frames[first ...], innermost first */
	uint32_t mapping;       /* mapping id, 0: none */
	uint64_t address;       /* module offset of the outermost frame */
};

struct pprof_mapping {
	uint32_t path, build_id; /* string indices (0: no build-id) */
	uint64_t start, limit;   /* module offsets; start > limit: none yet */
	bool has_functions, has_filenames, has_line_numbers;
};

/* An index of ids (1-based) by a 32-bit hash, open addressing. */
struct id_slot {
	uint32_t id;            /* 0: empty */
	uint32_t hash;
};

struct id_index {
	struct id_slot *slots;
	size_t mask, count;
};

struct pprof_writer {
	const struct profile *p;
	FILE *out;
	struct string_table strings;
	struct pb_buf buf;        /* encoded, not yet compressed */
	z_stream z;
	bool z_open;
	int error;                /* first -errno */
	bool saturated;           /* a value stopped at INT64_MAX */

	uint32_t *frame_function; /* by frame index: function id, 0: not yet */

	struct pprof_function *functions; /* id - 1 */
	size_t function_count, function_cap;
	struct id_index function_index;

	struct pprof_location *locations; /* id - 1 */
	size_t location_count, location_cap;
	struct id_index location_index;
	uint32_t *loc_frames;
	size_t loc_frames_len, loc_frames_cap;
	uint32_t stackless[2];    /* location ids of "[no stack]", "[inherited at fork]" */
	uint32_t stackless_fn[2]; /* ... and their functions */

	struct pprof_mapping *mappings; /* id - 1 */
	size_t mapping_count, mapping_cap;
	uint32_t *mapping_by_string; /* by the path's string index: mapping id, 0: none */
	size_t mapping_by_string_count;

	uint64_t *sample_locations; /* one sample's location ids */
	size_t sample_locations_cap;
	uint8_t zout[1 << 16];
};

static void pprof_fail(struct pprof_writer *w, int err)
{
	if (!w->error)
		w->error = err;
}

/* Grows *v (elements of elem bytes, capacity *cap) to hold need. */
static bool pprof_reserve(struct pprof_writer *w, void **v, size_t *cap, size_t need,
			  size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return true;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem) {
			pprof_fail(w, -ENOMEM);
			return false;
		}
		n *= 2;
	}
	p = realloc(*v, n * elem);
	if (!p) {
		pprof_fail(w, -ENOMEM);
		return false;
	}
	*v = p;
	*cap = n;
	return true;
}

/* The index of s in the string table (0 on failure, noted in w).  A string
 * with control characters, bytes that are not UTF-8 or a backslash goes in
 * as the text report writes it (\xNN, argv_quote_printable):
 * profile.proto's strings are UTF-8, and go tool pprof copies them to the
 * terminal. */
static uint32_t pprof_string(struct pprof_writer *w, const char *s)
{
	char *printable = NULL;
	int64_t i;

	if (!argv_quote_is_plain_ascii(s)) {
		size_t cap = 4 * strlen(s) + 1;

		if (!(printable = malloc(cap))) {
			pprof_fail(w, -ENOMEM);
			return 0;
		}
		argv_quote_printable(s, printable, cap);
	}
	i = string_table_intern(&w->strings, printable ? printable : s);
	free(printable);
	if (i < 0) {
		pprof_fail(w, (int)i);
		return 0;
	}
	return (uint32_t)i;
}

/* ---- the id indices ---- */

/* Makes room for one more id (doubling at half full); false on failure. */
static bool id_index_reserve(struct pprof_writer *w, struct id_index *x)
{
	size_t n = x->slots ? (x->mask + 1) * 2 : 1024;
	struct id_slot *slots;

	if (x->slots && (x->count + 1) * 2 <= x->mask + 1)
		return true;
	slots = calloc(n, sizeof(*slots));
	if (!slots) {
		pprof_fail(w, -ENOMEM);
		return false;
	}
	for (size_t i = 0; x->slots && i <= x->mask; i++) {
		size_t j = x->slots[i].hash & (n - 1);

		if (!x->slots[i].id)
			continue;
		while (slots[j].id)
			j = (j + 1) & (n - 1);
		slots[j] = x->slots[i];
	}
	free(x->slots);
	x->slots = slots;
	x->mask = n - 1;
	return true;
}

/* ---- gzip ---- */

/* Compresses what buf holds into out (flush: Z_NO_FLUSH or Z_FINISH). */
static void pprof_deflate(struct pprof_writer *w, int flush)
{
	int rc;

	if (pb_buf_error(&w->buf))
		pprof_fail(w, pb_buf_error(&w->buf));
	if (w->error)
		return;
	w->z.next_in = w->buf.data;
	w->z.avail_in = (uInt)w->buf.len;
	do {
		w->z.next_out = w->zout;
		w->z.avail_out = sizeof(w->zout);
		rc = deflate(&w->z, flush);
		if (rc == Z_STREAM_ERROR) {
			pprof_fail(w, -EINVAL);
			return;
		}
		fwrite(w->zout, 1, sizeof(w->zout) - w->z.avail_out, w->out);
	} while (w->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	pb_buf_clear(&w->buf);
}

/* Hands buf to zlib once it holds enough. */
static void pprof_flush_some(struct pprof_writer *w)
{
	if (w->buf.len >= PPROF_FLUSH_BYTES)
		pprof_deflate(w, Z_NO_FLUSH);
}

/* ---- mappings ---- */

/* "0123abcd": the build-id's bytes in hex, into buf (2 len + 1 bytes). */
static void pprof_hex(char *buf, const uint8_t *bytes, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = digits[bytes[i] >> 4];
		buf[2 * i + 1] = digits[bytes[i] & 15];
	}
	buf[2 * len] = '\0';
}

/* Widens mapping m to hold [start, limit). */
static void pprof_mapping_cover(struct pprof_mapping *m, uint64_t start, uint64_t limit)
{
	if (m->start > m->limit) {
		m->start = start;
		m->limit = limit;
		return;
	}
	if (start < m->start)
		m->start = start;
	if (limit > m->limit)
		m->limit = limit;
}

/* The mapping id of the module file at path, 0: none. */
static uint32_t pprof_mapping_find(const struct pprof_writer *w, const char *path)
{
	int64_t i = path ? string_table_find(&w->strings, path) : -1;

	return i >= 0 && (size_t)i < w->mapping_by_string_count ? w->mapping_by_string[i] : 0;
}

/* The mapping of path, added when new (NULL on failure). */
static struct pprof_mapping *pprof_mapping_add(struct pprof_writer *w, const struct module *mod)
{
	uint32_t path = pprof_string(w, mod->path), *by_string;
	struct pprof_mapping *m;
	char hex[2 * 64 + 1];

	if (w->error)
		return NULL;
	by_string = grow_zeroed(w->mapping_by_string, &w->mapping_by_string_count, path,
				sizeof(*by_string), 64);
	if (!by_string) {
		pprof_fail(w, -ENOMEM);
		return NULL;
	}
	w->mapping_by_string = by_string;
	if (by_string[path])
		return &w->mappings[by_string[path] - 1];
	if (!pprof_reserve(w, (void **)&w->mappings, &w->mapping_cap, w->mapping_count + 1,
			   sizeof(*w->mappings)))
		return NULL;
	m = &w->mappings[w->mapping_count++];
	memset(m, 0, sizeof(*m));
	m->path = path;
	m->start = 1; /* start > limit: no segment yet */
	if (mod->build_id_len) {
		size_t len = mod->build_id_len < 64 ? mod->build_id_len : 64;

		pprof_hex(hex, mod->build_id, len);
		m->build_id = pprof_string(w, hex);
	}
	by_string[path] = (uint32_t)w->mapping_count;
	return m;
}

/* One mapping per module file, in the order the trace's maps first name
 * them (the main program first), covering its segments in every epoch. */
static void pprof_mappings_make(struct pprof_writer *w)
{
	const struct module_maps *maps = &w->p->maps;

	for (size_t i = 0; i < maps->pool_count; i++) {
		const struct module *mod = maps->pool[i];
		struct pprof_mapping *m = pprof_mapping_add(w, mod);

		if (!m)
			return;
		for (size_t k = 0; k < mod->segment_count; k++) {
			const struct module_segment *seg = &mod->segments[k];

			if (seg->size && seg->start + seg->size > seg->start)
				pprof_mapping_cover(m, seg->start, seg->start + seg->size);
		}
	}
}

/* ---- functions ---- */

/* The function id of (name, file), added when new; 0 on failure. */
static uint32_t pprof_function_intern(struct pprof_writer *w, uint32_t name, uint32_t file)
{
	uint32_t hash = (uint32_t)hash_mix64((uint64_t)name << 32 | file);
	size_t i;

	if (w->error || !id_index_reserve(w, &w->function_index))
		return 0;
	for (i = hash & w->function_index.mask;; i = (i + 1) & w->function_index.mask) {
		struct id_slot *slot = &w->function_index.slots[i];
		const struct pprof_function *f;

		if (!slot->id)
			break;
		f = &w->functions[slot->id - 1];
		if (slot->hash == hash && f->name == name && f->file == file)
			return slot->id;
	}
	if (w->function_count >= UINT32_MAX - 1 ||
	    !pprof_reserve(w, (void **)&w->functions, &w->function_cap, w->function_count + 1,
			   sizeof(*w->functions)))
		return 0;
	w->functions[w->function_count++] = (struct pprof_function){name, file};
	w->function_index.slots[i] = (struct id_slot){(uint32_t)w->function_count, hash};
	w->function_index.count++;
	return (uint32_t)w->function_count;
}

/* The function id of frame index fi (its name as output_frame_name gives
 * it, and its file); 0 on failure. */
static uint32_t pprof_frame_function(struct pprof_writer *w, uint32_t fi)
{
	const struct site_frame *f = &w->p->sites.frames[fi];
	char unnamed[512]; /* "[MODULE+0xOFFSET]": a file name and a number */
	uint32_t id;

	if (w->frame_function[fi])
		return w->frame_function[fi];
	/* a function's name whole, however long (C++ templates) */
	id = pprof_function_intern(w, pprof_string(w, f->function ? f->function
						   : output_frame_name(f, unnamed, sizeof(unnamed))),
				   pprof_string(w, f->file ? f->file : ""));
	w->frame_function[fi] = id;
	return id;
}

/* ---- locations ---- */

static uint32_t pprof_frames_hash(const uint32_t *frames, size_t n)
{
	uint64_t h = n;

	for (size_t i = 0; i < n; i++)
		h = hash_mix64(h * 0x9e3779b97f4a7c15ull + frames[i]);
	return (uint32_t)h;
}

/* Notes location l in its mapping: its address and what its frames know. */
static void pprof_location_map(struct pprof_writer *w, struct pprof_location *l)
{
	const struct site_frame *outer = &w->p->sites.frames[w->loc_frames[l->first + l->count - 1]];
	struct pprof_mapping *m;

	l->mapping = pprof_mapping_find(w, outer->module);
	l->address = outer->module_offset;
	if (!l->mapping)
		return;
	m = &w->mappings[l->mapping - 1];
	if (l->address < UINT64_MAX)
		pprof_mapping_cover(m, l->address, l->address + 1);
	for (uint32_t i = 0; i < l->count; i++) {
		const struct site_frame *f = &w->p->sites.frames[w->loc_frames[l->first + i]];

		m->has_functions |= f->function != NULL;
		m->has_filenames |= f->file != NULL;
		m->has_line_numbers |= f->line != 0;
	}
}

/* The location id of frames[0 .. n-1] (frame indices, innermost first),
 * added when new; 0 on failure. */
static uint32_t pprof_location_intern(struct pprof_writer *w, const uint32_t *frames, uint32_t n)
{
	uint32_t hash = pprof_frames_hash(frames, n);
	struct pprof_location *l;
	size_t i;

	if (w->error || !id_index_reserve(w, &w->location_index))
		return 0;
	for (i = hash & w->location_index.mask;; i = (i + 1) & w->location_index.mask) {
		struct id_slot *slot = &w->location_index.slots[i];

		if (!slot->id)
			break;
		l = &w->locations[slot->id - 1];
		if (slot->hash == hash && l->count == n &&
		    memcmp(w->loc_frames + l->first, frames, n * sizeof(*frames)) == 0)
			return slot->id;
	}
	if (w->location_count >= UINT32_MAX - 1 || w->loc_frames_len > UINT32_MAX - n ||
	    !pprof_reserve(w, (void **)&w->locations, &w->location_cap, w->location_count + 1,
			   sizeof(*w->locations)) ||
	    !pprof_reserve(w, (void **)&w->loc_frames, &w->loc_frames_cap, w->loc_frames_len + n,
			   sizeof(*w->loc_frames)))
		return 0;
	for (uint32_t k = 0; k < n; k++)
		if (!pprof_frame_function(w, frames[k]))
			return 0;
	l = &w->locations[w->location_count++];
	memset(l, 0, sizeof(*l));
	l->first = (uint32_t)w->loc_frames_len;
	l->count = n;
	memcpy(w->loc_frames + w->loc_frames_len, frames, n * sizeof(*frames));
	w->loc_frames_len += n;
	pprof_location_map(w, l);
	w->location_index.slots[i] = (struct id_slot){(uint32_t)w->location_count, hash};
	w->location_index.count++;
	return (uint32_t)w->location_count;
}

/* The location of a site without frames: one line, a function named
 * "[no stack]" or "[inherited at fork]", no mapping. */
static uint32_t pprof_stackless_location(struct pprof_writer *w, const struct site *s)
{
	uint32_t *id = &w->stackless[s->inherited ? 1 : 0];
	uint32_t fn;

	if (*id || w->error)
		return *id;
	fn = pprof_function_intern(w, pprof_string(w, output_site_stackless_name(s)), 0);
	if (!fn || !pprof_reserve(w, (void **)&w->locations, &w->location_cap,
				  w->location_count + 1, sizeof(*w->locations)))
		return 0;
	/* a location of no frames: its one line is written from stackless_fn */
	w->locations[w->location_count++] = (struct pprof_location){0, 0, 0, 0};
	*id = (uint32_t)w->location_count;
	w->stackless_fn[s->inherited ? 1 : 0] = fn;
	return *id;
}

/* ---- samples ---- */

/* Site s's location ids, leaf first, into w->sample_locations; returns how
 * many (0 on failure).  A location is a run of frames marked inlined and
 * the frame they are inlined into. */
static size_t pprof_site_locations(struct pprof_writer *w, const struct site *s)
{
	uint32_t buf[SITES_MAX_FRAMES];
	const uint32_t *ids = site_frame_ids(&w->p->sites, s, buf);
	const struct site_frame *frames = w->p->sites.frames;
	uint32_t n = s->frame_count, i = 0;
	size_t count = 0;

	if (!pprof_reserve(w, (void **)&w->sample_locations, &w->sample_locations_cap,
			   n ? n : 1, sizeof(*w->sample_locations)))
		return 0;
	if (n == 0 || !ids) {
		w->sample_locations[0] = pprof_stackless_location(w, s);
		return w->sample_locations[0] ? 1 : 0;
	}
	while (i < n) {
		uint32_t j = i, id;

		while (j + 1 < n && frames[ids[j]].inlined)
			j++;
		id = pprof_location_intern(w, ids + i, j - i + 1);
		if (!id)
			return 0;
		w->sample_locations[count++] = id;
		i = j + 1;
	}
	return count;
}

/* One Sample message per site: its locations and its value of each type. */
static void pprof_write_samples(struct pprof_writer *w)
{
	uint64_t values[PPROF_TYPES];

	for (size_t i = 0; i < w->p->sites.count && !w->error; i++) {
		const struct site *s = &w->p->sites.sites[i];
		size_t n = pprof_site_locations(w, s), mark;

		if (!n)
			break;
		/* pprof's values are int64: a larger one would read as negative */
		for (size_t t = 0; t < pprof_type_count(w->p); t++)
			values[t] = (uint64_t)sat_int64(metric_site_value(s, pprof_types[t].metric),
							&w->saturated);
		mark = pb_msg_begin(&w->buf, PROFILE_SAMPLE);
		pb_put_packed(&w->buf, SAMPLE_LOCATION_ID, w->sample_locations, n);
		pb_put_packed(&w->buf, SAMPLE_VALUE, values, pprof_type_count(w->p));
		pb_msg_end(&w->buf, mark);
		pprof_flush_some(w);
	}
}

/* ---- the tables ---- */

static void pprof_write_mappings(struct pprof_writer *w)
{
	for (size_t i = 0; i < w->mapping_count; i++) {
		const struct pprof_mapping *m = &w->mappings[i];
		size_t mark = pb_msg_begin(&w->buf, PROFILE_MAPPING);

		pb_put_uint(&w->buf, MAPPING_ID, i + 1);
		if (m->start <= m->limit) {
			pb_put_uint(&w->buf, MAPPING_MEMORY_START, m->start);
			pb_put_uint(&w->buf, MAPPING_MEMORY_LIMIT, m->limit);
		}
		pb_put_uint(&w->buf, MAPPING_FILENAME, m->path);
		if (m->build_id)
			pb_put_uint(&w->buf, MAPPING_BUILD_ID, m->build_id);
		/* any of these set keeps pprof from symbolizing the module again */
		pb_put_uint(&w->buf, MAPPING_HAS_FUNCTIONS, m->has_functions);
		pb_put_uint(&w->buf, MAPPING_HAS_FILENAMES, m->has_filenames);
		pb_put_uint(&w->buf, MAPPING_HAS_LINE_NUMBERS, m->has_line_numbers);
		pb_put_uint(&w->buf, MAPPING_HAS_INLINE_FRAMES, m->has_line_numbers);
		pb_msg_end(&w->buf, mark);
		pprof_flush_some(w);
	}
}

/* One Line message. */
static void pprof_write_line(struct pprof_writer *w, uint32_t function, uint32_t line)
{
	size_t mark = pb_msg_begin(&w->buf, LOCATION_LINE);

	pb_put_uint(&w->buf, LINE_FUNCTION_ID, function);
	if (line)
		pb_put_int(&w->buf, LINE_LINE, line);
	pb_msg_end(&w->buf, mark);
}

static void pprof_write_locations(struct pprof_writer *w)
{
	for (size_t i = 0; i < w->location_count; i++) {
		const struct pprof_location *l = &w->locations[i];
		size_t mark = pb_msg_begin(&w->buf, PROFILE_LOCATION);

		pb_put_uint(&w->buf, LOCATION_ID, i + 1);
		if (l->mapping)
			pb_put_uint(&w->buf, LOCATION_MAPPING_ID, l->mapping);
		if (l->address)
			pb_put_uint(&w->buf, LOCATION_ADDRESS, l->address);
		for (uint32_t k = 0; k < l->count; k++) {
			uint32_t fi = w->loc_frames[l->first + k];

			pprof_write_line(w, w->frame_function[fi], w->p->sites.frames[fi].line);
		}
		if (l->count == 0)
			pprof_write_line(w, w->stackless_fn[i + 1 == w->stackless[1] ? 1 : 0], 0);
		pb_msg_end(&w->buf, mark);
		pprof_flush_some(w);
	}
}

static void pprof_write_functions(struct pprof_writer *w)
{
	for (size_t i = 0; i < w->function_count; i++) {
		const struct pprof_function *f = &w->functions[i];
		size_t mark = pb_msg_begin(&w->buf, PROFILE_FUNCTION);

		pb_put_uint(&w->buf, FUNCTION_ID, i + 1);
		pb_put_uint(&w->buf, FUNCTION_NAME, f->name);
		pb_put_uint(&w->buf, FUNCTION_SYSTEM_NAME, f->name);
		if (f->file)
			pb_put_uint(&w->buf, FUNCTION_FILENAME, f->file);
		pb_msg_end(&w->buf, mark);
		pprof_flush_some(w);
	}
}

static void pprof_write_strings(struct pprof_writer *w)
{
	for (size_t i = 0; i < w->strings.count; i++) {
		pb_put_string(&w->buf, PROFILE_STRING_TABLE, string_table_get(&w->strings, i));
		pprof_flush_some(w);
	}
}

/* A ValueType message as field `field`. */
static void pprof_write_value_type(struct pprof_writer *w, uint32_t field, const char *type,
				   const char *unit)
{
	size_t mark = pb_msg_begin(&w->buf, field);

	pb_put_uint(&w->buf, VALUE_TYPE_TYPE, pprof_string(w, type));
	pb_put_uint(&w->buf, VALUE_TYPE_UNIT, pprof_string(w, unit));
	pb_msg_end(&w->buf, mark);
}

/* The comments pprof shows (-comments): what the sample types mean. */
/* Whether a figure of p stopped at its limit, or a site's value is above
 * pprof's int64 (pprof_write_samples stops it at INT64_MAX). */
static bool pprof_values_saturate(const struct profile *p)
{
	if (p->summary.saturated)
		return true;
	for (size_t i = 0; i < p->sites.count; i++)
		for (size_t t = 0; t < pprof_type_count(p); t++)
			if (metric_site_value(&p->sites.sites[i], pprof_types[t].metric) >
			    (uint64_t)INT64_MAX)
				return true;
	return false;
}

static void pprof_write_comments(struct pprof_writer *w)
{
	const struct profile *p = w->p;
	char line[512], composed[4096];
	const char *name = run_facts_name(&p->run, composed, sizeof(composed));

	snprintf(line, sizeof(line), "mprof heap profile of %s", name ? name : p->info.path);
	pb_put_int(&w->buf, PROFILE_COMMENT, pprof_string(w, line));
	if (profile_ended_early(p))
		snprintf(line, sizeof(line),
			 "inuse_objects, inuse_space: blocks live when the recording ended (%s)",
			 p->run.ended_early);
	else
		snprintf(line, sizeof(line),
			 "inuse_objects, inuse_space: blocks live at the program's exit (leaked)");
	pb_put_int(&w->buf, PROFILE_COMMENT, pprof_string(w, line));
	snprintf(line, sizeof(line),
		 "peak_objects, peak_space: blocks live at t-gmax, when the heap peaked at "
		 "%" PRIu64 " bytes in %" PRIu64 " blocks%s", p->summary.peak_bytes,
		 p->summary.peak_blocks, p->info.sampled ? " (rough: no unbiased estimate)" : "");
	pb_put_int(&w->buf, PROFILE_COMMENT, pprof_string(w, line));
	if (profile_has_metric(p, METRIC_TEMPORARY))
		pb_put_int(&w->buf, PROFILE_COMMENT,
			   pprof_string(w, profile_temporary_at_most(p)
					   ? "temporary: allocations freed by their thread's next "
					     "allocator call, at most (recording was paused part of "
					     "the run: calls it did not record may lie between)"
					   : "temporary: allocations freed by their thread's next "
					     "allocator call"));
	if (p->info.sampled)
		pb_put_int(&w->buf, PROFILE_COMMENT,
			   pprof_string(w, "sampled trace: values are estimates (the weights "
					   "of Poisson samples by bytes; period: the mean interval); "
					   "peak_* are rough and temporary allocations have no "
					   "estimate"));
	if (output_export_qualified(p))
		pb_put_int(&w->buf, PROFILE_COMMENT, pprof_string(w, output_export_kind(p)));
	if (output_pool_note(line, sizeof(line), p))
		pb_put_int(&w->buf, PROFILE_COMMENT, pprof_string(w, line));
	if (output_filter_note(line, sizeof(line), p))
		pb_put_int(&w->buf, PROFILE_COMMENT, pprof_string(w, line));
	if (pprof_values_saturate(p))
		pb_put_int(&w->buf, PROFILE_COMMENT,
			   pprof_string(w, "damaged trace: values stopped at 2^64-1 in the "
					   "report, and at 2^63-1 (pprof's int64) here, "
					   "instead of wrapping"));
}

/* The default sample type: --metric's, else inuse_space. */
static const char *pprof_default_type(const struct profile *p, const struct output_options *o)
{
	if (o->metric_given)
		for (size_t t = 0; t < pprof_type_count(p); t++)
			if (pprof_types[t].metric == o->metric)
				return pprof_types[t].type;
	return pprof_types[PPROF_DEFAULT_TYPE].type;
}

/* The profile's own fields besides the tables. */
static void pprof_write_header(struct pprof_writer *w, const struct output_options *o)
{
	const struct profile *p = w->p;
	const char *start = kv_list_get(&p->info.meta, "start_time_unix_ns");

	for (size_t t = 0; t < pprof_type_count(p); t++)
		pprof_write_value_type(w, PROFILE_SAMPLE_TYPE, pprof_types[t].type,
				       pprof_types[t].unit);
	pprof_write_value_type(w, PROFILE_PERIOD_TYPE, "space", "bytes");
	/* a sampled trace: its mean sampling interval in bytes, as Go's heap
	 * profiles give theirs */
	pb_put_int(&w->buf, PROFILE_PERIOD,
		   w->p->info.sampled && w->p->run.sample_rate_bytes ? w->p->run.sample_rate_bytes : 1);
	pb_put_int(&w->buf, PROFILE_DEFAULT_SAMPLE_TYPE, pprof_string(w, pprof_default_type(p, o)));
	if (start && *start) {
		char *end;
		unsigned long long ns = strtoull(start, &end, 10);

		if (*end == '\0' && ns <= INT64_MAX)
			pb_put_int(&w->buf, PROFILE_TIME_NANOS, (int64_t)ns);
	}
	if (p->run.has_run_time && p->run.run_time_ns <= INT64_MAX)
		pb_put_int(&w->buf, PROFILE_DURATION_NANOS, (int64_t)p->run.run_time_ns);
	pprof_write_comments(w);
}

static void pprof_writer_free(struct pprof_writer *w)
{
	if (w->z_open)
		deflateEnd(&w->z);
	string_table_free(&w->strings);
	pb_buf_free(&w->buf);
	free(w->frame_function);
	free(w->functions);
	free(w->function_index.slots);
	free(w->locations);
	free(w->location_index.slots);
	free(w->loc_frames);
	free(w->mappings);
	free(w->mapping_by_string);
	free(w->sample_locations);
	free(w);
}

static int pprof_write(FILE *out, const struct profile *p, const struct output_options *o)
{
	struct pprof_writer *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return -ENOMEM;
	w->p = p;
	w->out = out;
	string_table_init(&w->strings);
	pb_buf_init(&w->buf);
	/* gzip (16 + 15 window bits), fastest level: Go writes its profiles so */
	if (deflateInit2(&w->z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		pprof_writer_free(w);
		return -ENOMEM;
	}
	w->z_open = true;
	pprof_string(w, ""); /* string_table[0] must be "" */
	w->frame_function = calloc(p->sites.frame_count ? p->sites.frame_count : 1,
				   sizeof(*w->frame_function));
	if (!w->frame_function)
		pprof_fail(w, -ENOMEM);
	pprof_mappings_make(w);
	pprof_write_header(w, o);
	pprof_write_samples(w);
	pprof_write_mappings(w);
	pprof_write_locations(w);
	pprof_write_functions(w);
	pprof_write_strings(w);
	pprof_deflate(w, Z_FINISH);
	rc = w->error;
	pprof_writer_free(w);
	return rc;
}

const struct output_format output_pprof = {
	.name = "pprof",
	.summary = "gzipped profile.proto: go tool pprof, Pyroscope, Parca",
	.write = pprof_write,
	.takes_metric = true,
};
