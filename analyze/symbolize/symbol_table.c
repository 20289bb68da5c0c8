/*
 * analyze/symbolize/symbol_table.c - encoding and decoding of the SYMBOLS chunk, the
 * symbolization that `mprof-analyze symbolize` embeds in a trace so reports
 * stay the same after the binaries are gone.  Pure codec: owns only its
 * scratch buffers, never opens files or looks at ELF/DWARF.  The payload is
 * untrusted on decode: every count and length is bounded by the bytes left.
 *
 * SYMBOLS chunk payload (chunk type 3), version 1.  "u" is an unsigned
 * LEB128 varint (trace/varint.h); "str" is a u length followed by that many
 * bytes (UTF-8, no terminator).
 *
 *   u    version: 1 (readers refuse other versions)
 *   u    string count S, then S str   the string table; fields below
 *                                      refer to strings by index
 *   u    module count M, then per module file:
 *          u    path: string index
 *          u    build-id length in bytes (0: none), then the build-id bytes
 *   u    answer count A, then per answer (one symbolized address):
 *          u    module: index into the module list above
 *          u    module offset: return address - load bias, in bytes
 *          u    flags: 1 = file:line came from DWARF debug info,
 *                      2 = a function name was found
 *          u    frame count F, 1..1024, then F frames, innermost
 *               (inlined callee) first:
 *                 u    function: string index + 1 (0: unknown), demangled
 *                 u    source file: string index + 1 (0: unknown)
 *                 u    line, 1-based (0: unknown)
 *                 u    flags: 1 = this frame was inlined into the next one
 *   (nothing may follow)
 *
 * An answer is keyed by (module path, build-id, module offset); a reader
 * keeps the first answer of a key.  Readers look up a recorded return
 * address ip of a module with load bias b under the offset ip - b.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/symbolize/symbol_table.h"
#include "trace/varint.h"

#define FLAG_DEBUG_INFO 1u
#define FLAG_SYMBOL 2u
#define FRAME_INLINED 1u

/* ---- encoding ---- */

struct out_buf {
	uint8_t *data;
	size_t len, cap;
	bool failed;
};

static uint8_t *out_reserve(struct out_buf *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *nd;

		while (cap - b->len < n)
			cap *= 2;
		nd = realloc(b->data, cap);
		if (!nd) {
			b->failed = true;
			return NULL;
		}
		b->data = nd;
		b->cap = cap;
	}
	return b->data + b->len;
}

static void out_u64(struct out_buf *b, uint64_t v)
{
	uint8_t *p = out_reserve(b, VARINT_MAX_BYTES);

	if (p)
		b->len = (size_t)(varint_put_u64(p, v) - b->data);
}

static void out_bytes(struct out_buf *b, const void *data, size_t len)
{
	uint8_t *p;

	out_u64(b, len);
	p = out_reserve(b, len);
	if (p && len > 0) {
		memcpy(p, data, len);
		b->len += len;
	}
}

/* String table under construction: open addressing on string content. */
struct string_index {
	const char **strings;   /* by index, borrowed from the answers */
	size_t count, cap;
	uint32_t *slots;        /* index + 1, 0 = empty */
	size_t slot_count;      /* power of two */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static int string_index_grow(struct string_index *t)
{
	size_t n = t->slot_count ? t->slot_count * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->count; i++) {
		size_t k = (size_t)hash_str(t->strings[i]) & (n - 1);

		while (slots[k])
			k = (k + 1) & (n - 1);
		slots[k] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = slots;
	t->slot_count = n;
	return 0;
}

/* Index + 1 of s in the table (added when new); 0 for NULL; -1 on ENOMEM. */
static int64_t string_index_ref(struct string_index *t, const char *s)
{
	size_t k;

	if (!s)
		return 0;
	if ((t->count + 1) * 2 > t->slot_count && string_index_grow(t) < 0)
		return -1;
	k = (size_t)hash_str(s) & (t->slot_count - 1);
	while (t->slots[k]) {
		uint32_t i = t->slots[k] - 1;

		if (strcmp(t->strings[i], s) == 0)
			return (int64_t)i + 1;
		k = (k + 1) & (t->slot_count - 1);
	}
	if (t->count == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		const char **v = realloc(t->strings, cap * sizeof(*v));

		if (!v)
			return -1;
		t->strings = v;
		t->cap = cap;
	}
	t->strings[t->count] = s;
	t->slots[k] = (uint32_t)(t->count + 1);
	return (int64_t)++t->count;
}

static void string_index_free(struct string_index *t)
{
	free(t->strings);
	free(t->slots);
}

static bool same_module(const struct symbol_table_answer *a, const struct symbol_table_answer *b)
{
	return (a->module_path == b->module_path || strcmp(a->module_path, b->module_path) == 0) &&
	       a->build_id_len == b->build_id_len &&
	       (a->build_id_len == 0 || memcmp(a->build_id, b->build_id, a->build_id_len) == 0);
}

/* Module list: mod_of[i] = module index of answer i; firsts = answer that
 * introduced each module. */
static void index_modules(const struct symbol_table_answer *answers, size_t count,
			  size_t *mod_of, size_t *firsts, size_t *nmod)
{
	*nmod = 0;
	for (size_t i = 0; i < count; i++) {
		size_t m = *nmod;

		if (i > 0 && same_module(&answers[i], &answers[i - 1])) {
			mod_of[i] = mod_of[i - 1];
			continue;
		}
		for (size_t k = 0; k < *nmod; k++) {
			if (same_module(&answers[i], &answers[firsts[k]])) {
				m = k;
				break;
			}
		}
		if (m == *nmod)
			firsts[(*nmod)++] = i;
		mod_of[i] = m;
	}
}

/* Writes the string table, then modules and answers (refs are index + 1). */
static int encode_body(const struct symbol_table_answer *answers, size_t count,
		       struct string_index *strs, const size_t *mod_of, const size_t *firsts,
		       size_t nmod, struct out_buf *b)
{
	/* Collect every string first: the table precedes its uses. */
	for (size_t k = 0; k < nmod; k++) {
		if (string_index_ref(strs, answers[firsts[k]].module_path) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < count; i++) {
		const struct sym_location *loc = answers[i].loc;

		for (size_t f = 0; f < loc->count; f++) {
			if (string_index_ref(strs, loc->frames[f].function) < 0 ||
			    string_index_ref(strs, loc->frames[f].file) < 0)
				return -ENOMEM;
		}
	}
	out_u64(b, SYMBOL_TABLE_VERSION);
	out_u64(b, strs->count);
	for (size_t i = 0; i < strs->count; i++)
		out_bytes(b, strs->strings[i], strlen(strs->strings[i]));
	out_u64(b, nmod);
	for (size_t k = 0; k < nmod; k++) {
		const struct symbol_table_answer *a = &answers[firsts[k]];

		out_u64(b, (uint64_t)string_index_ref(strs, a->module_path) - 1);
		out_bytes(b, a->build_id, a->build_id_len);
	}
	out_u64(b, count);
	for (size_t i = 0; i < count; i++) {
		const struct sym_location *loc = answers[i].loc;
		size_t nf = loc->count < SYMBOL_TABLE_MAX_FRAMES ? loc->count
								 : SYMBOL_TABLE_MAX_FRAMES;

		out_u64(b, mod_of[i]);
		out_u64(b, answers[i].module_offset);
		out_u64(b, (loc->has_debug_info ? FLAG_DEBUG_INFO : 0) |
			   (loc->has_symbol ? FLAG_SYMBOL : 0));
		out_u64(b, nf);
		for (size_t f = 0; f < nf; f++) {
			const struct sym_frame *fr = &loc->frames[f];

			out_u64(b, (uint64_t)string_index_ref(strs, fr->function));
			out_u64(b, (uint64_t)string_index_ref(strs, fr->file));
			out_u64(b, fr->line);
			out_u64(b, fr->inlined ? FRAME_INLINED : 0);
		}
	}
	return b->failed ? -ENOMEM : 0;
}

int symbol_table_encode(const struct symbol_table_answer *answers, size_t count,
			uint8_t **data, size_t *bytes)
{
	struct string_index strs = { 0 };
	struct out_buf b = { 0 };
	size_t *mod_of = malloc((count ? count : 1) * sizeof(*mod_of));
	size_t *firsts = malloc((count ? count : 1) * sizeof(*firsts));
	size_t nmod = 0;
	int rc = -ENOMEM;

	if (mod_of && firsts) {
		index_modules(answers, count, mod_of, firsts, &nmod);
		rc = encode_body(answers, count, &strs, mod_of, firsts, nmod, &b);
	}
	free(mod_of);
	free(firsts);
	string_index_free(&strs);
	if (rc < 0) {
		free(b.data);
		return rc;
	}
	*data = b.data;
	*bytes = b.len;
	return 0;
}

/* ---- decoding ---- */

struct table_in {
	const uint8_t *p, *end;
	char **strings;         /* NUL-terminated copies */
	size_t string_count;
	char *string_store;
	size_t module_count;
};

static int in_u64(struct table_in *in, uint64_t *v)
{
	return varint_get_u64(&in->p, in->end, v) < 0 ? -EBADMSG : 0;
}

/* u count, checked against the bytes left at min_bytes per element. */
static int in_count(struct table_in *in, size_t min_bytes, uint64_t *n)
{
	if (in_u64(in, n) < 0 || *n > (uint64_t)(in->end - in->p) / min_bytes)
		return -EBADMSG;
	return 0;
}

static int in_bytes(struct table_in *in, const uint8_t **data, size_t *len)
{
	uint64_t n;

	if (in_u64(in, &n) < 0 || n > (uint64_t)(in->end - in->p))
		return -EBADMSG;
	*data = in->p;
	*len = (size_t)n;
	in->p += n;
	return 0;
}

/* Reads the string table into NUL-terminated copies. */
static int read_strings(struct table_in *in)
{
	const uint8_t *start;
	uint64_t n;
	size_t total = 0;

	if (in_count(in, 1, &n) < 0)
		return -EBADMSG;
	start = in->p;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *s;
		size_t len;

		if (in_bytes(in, &s, &len) < 0)
			return -EBADMSG;
		total += len + 1;
	}
	in->strings = malloc((n ? n : 1) * sizeof(*in->strings));
	in->string_store = malloc(total ? total : 1);
	if (!in->strings || !in->string_store)
		return -ENOMEM;
	in->string_count = (size_t)n;
	in->p = start;
	total = 0;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *s;
		size_t len;

		if (in_bytes(in, &s, &len) < 0) /* checked above */
			return -EBADMSG;
		in->strings[i] = in->string_store + total;
		memcpy(in->strings[i], s, len);
		in->strings[i][len] = '\0';
		total += len + 1;
	}
	return 0;
}

static int read_string_ref(struct table_in *in, bool optional, const char **s)
{
	uint64_t v;

	if (in_u64(in, &v) < 0)
		return -EBADMSG;
	if (optional) {
		if (v == 0) {
			*s = NULL;
			return 0;
		}
		v--;
	}
	if (v >= in->string_count)
		return -EBADMSG;
	*s = in->strings[v];
	return 0;
}

/* Reads the module list into a malloc'd array *mods. */
static int read_modules(struct table_in *in, struct symbol_table_answer **mods)
{
	uint64_t n;

	if (in_count(in, 2, &n) < 0)
		return -EBADMSG;
	*mods = calloc(n ? (size_t)n : 1, sizeof(**mods));
	if (!*mods)
		return -ENOMEM;
	in->module_count = (size_t)n;
	for (uint64_t i = 0; i < n; i++) {
		struct symbol_table_answer *m = &(*mods)[i];

		if (read_string_ref(in, false, &m->module_path) < 0 ||
		    in_bytes(in, &m->build_id, &m->build_id_len) < 0)
			return -EBADMSG;
		if (m->build_id_len == 0)
			m->build_id = NULL;
	}
	return 0;
}

/* Reads one answer's frames into frames[]; fn (may be NULL) gets it. */
static int read_answer(struct table_in *in, struct sym_frame *frames,
		       const struct symbol_table_answer *mods,
		       int (*fn)(void *ctx, const struct symbol_table_answer *answer), void *ctx)
{
	struct symbol_table_answer a;
	struct sym_location loc = { .frames = frames };
	uint64_t mod, flags, nf;

	if (in_u64(in, &mod) < 0 || mod >= in->module_count || in_u64(in, &a.module_offset) < 0 ||
	    in_u64(in, &flags) < 0 || in_count(in, 4, &nf) < 0 || nf == 0 ||
	    nf > SYMBOL_TABLE_MAX_FRAMES)
		return -EBADMSG;
	a.module_path = mods[mod].module_path;
	a.build_id = mods[mod].build_id;
	a.build_id_len = mods[mod].build_id_len;
	for (uint64_t f = 0; f < nf; f++) {
		uint64_t line, fflags;

		if (read_string_ref(in, true, &frames[f].function) < 0 ||
		    read_string_ref(in, true, &frames[f].file) < 0 || in_u64(in, &line) < 0 ||
		    line > UINT32_MAX || in_u64(in, &fflags) < 0)
			return -EBADMSG;
		frames[f].line = (uint32_t)line;
		frames[f].inlined = (fflags & FRAME_INLINED) != 0;
		frames[f].module = a.module_path;
		frames[f].module_offset = a.module_offset;
	}
	loc.count = (size_t)nf;
	loc.has_debug_info = (flags & FLAG_DEBUG_INFO) != 0;
	loc.has_symbol = (flags & FLAG_SYMBOL) != 0;
	a.loc = &loc;
	return fn ? fn(ctx, &a) : 0;
}

/* One pass over the answers; fn NULL = only check. */
static int read_answers(struct table_in *in, const struct symbol_table_answer *mods,
			int (*fn)(void *ctx, const struct symbol_table_answer *answer), void *ctx)
{
	struct sym_frame *frames = malloc(SYMBOL_TABLE_MAX_FRAMES * sizeof(*frames));
	uint64_t n;
	int rc;

	if (!frames)
		return -ENOMEM;
	rc = in_count(in, 5, &n);
	for (uint64_t i = 0; i < n && rc == 0; i++)
		rc = read_answer(in, frames, mods, fn, ctx);
	if (rc == 0 && in->p != in->end)
		rc = -EBADMSG;
	free(frames);
	return rc;
}

static int decode(struct table_in *in, struct symbol_table_answer **mods,
		  int (*fn)(void *ctx, const struct symbol_table_answer *answer), void *ctx)
{
	const uint8_t *answers;
	uint64_t version;
	int rc;

	if (in_u64(in, &version) < 0 || version != SYMBOL_TABLE_VERSION)
		return -EBADMSG;
	rc = read_strings(in);
	if (rc == 0)
		rc = read_modules(in, mods);
	if (rc < 0)
		return rc;
	answers = in->p;
	rc = read_answers(in, *mods, NULL, NULL);
	if (rc < 0 || !fn)
		return rc;
	in->p = answers;
	return read_answers(in, *mods, fn, ctx);
}

int symbol_table_decode(const uint8_t *data, size_t bytes,
			int (*fn)(void *ctx, const struct symbol_table_answer *answer), void *ctx)
{
	struct table_in in = { .p = data, .end = data + bytes };
	struct symbol_table_answer *mods = NULL;
	int rc;

	if (!data)
		return -EBADMSG;
	rc = decode(&in, &mods, fn, ctx);
	free(mods);
	free(in.strings);
	free(in.string_store);
	return rc;
}
