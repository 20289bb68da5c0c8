/*
 * analyze/diff/frames.c - how a frame of the diff is named (diff.h,
 * struct diff_frame): one frame of an entry's stack stands for the frames
 * at its depth in every site of A and of B summed into the entry, which
 * --match function lets differ in line, file folder and address.  Every
 * writer names it from here, showing only what all of them share, so that
 * no one site's line (A's, or the first met) names a frame whose figures
 * are the sum of several lines.  Allocates nothing.
 */
#include <string.h>

#include "analyze/diff/diff.h"
#include "analyze/output/frames.h"

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static const char *base_or_null(const char *path)
{
	return path ? output_base_name(path) : NULL;
}

/* Merges frame f into m, which holds what the frames before it share. */
static void frame_merge(struct diff_frame *m, const struct site_frame *f)
{
	if (!str_same(base_or_null(m->f.file), base_or_null(f->file)) || m->f.line != f->line)
		m->lines_differ = true;
	if (!str_same(m->f.file, f->file))
		m->f.file = m->f.file && f->file && str_same(base_or_null(m->f.file),
							  base_or_null(f->file))
				    ? output_base_name(m->f.file)
				    : NULL;
	if (!str_same(m->f.module, f->module))
		m->f.module = base_or_null(m->f.module);
	if (m->f.module_offset != f->module_offset)
		m->offsets_differ = true;
}

/* Merges the innermost n frames of every site of side (of table t, linked
 * through next) into out; first: out holds nothing yet. */
static void side_merge(struct diff_frame *out, size_t n, const struct site_table *t,
		       const struct diff_side *side, const uint32_t *next, bool *first)
{
	for (const struct site *s = side->site; s;
	     s = next[s - t->sites] == UINT32_MAX ? NULL : &t->sites[next[s - t->sites]]) {
		uint32_t x = s->frame_node;

		for (size_t i = 0; i < n; i++, x = t->frame_links[2 * x]) {
			const struct site_frame *f = &t->frames[t->frame_links[2 * x + 1]];

			if (*first)
				out[i] = (struct diff_frame){*f, false, false};
			else
				frame_merge(&out[i], f);
		}
		*first = false;
	}
}

void diff_entry_frames(const struct diff *d, const struct diff_entry *e, struct diff_frame *out,
		       size_t n)
{
	bool first = true;

	side_merge(out, n, &d->pa->sites, &e->a, d->next_a, &first);
	side_merge(out, n, &d->pb->sites, &e->b, d->next_b, &first);
	for (size_t i = 0; i < n; i++) {
		if (out[i].lines_differ)
			out[i].f.line = 0;
		if (out[i].offsets_differ)
			out[i].f.module_offset = 0;
	}
}

/* The flame graph names a frame by these (flame_data.c): its function
 * (else its module file name and offset), file, line, module file name and
 * inlining. */
bool diff_frame_shown_equal(const struct diff_frame *a, const struct diff_frame *b)
{
	if (!str_same(a->f.function, b->f.function) || a->f.inlined != b->f.inlined ||
	    !str_same(a->f.file, b->f.file) || a->f.line != b->f.line ||
	    a->lines_differ != b->lines_differ ||
	    !str_same(base_or_null(a->f.module), base_or_null(b->f.module)))
		return false;
	return a->f.function || (a->offsets_differ == b->offsets_differ &&
				 a->f.module_offset == b->f.module_offset);
}

static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;
}

uint64_t diff_frame_shown_hash(const struct diff_frame *f)
{
	uint64_t h = 1469598103934665603ull;

	h = str_hash(h, f->f.function);
	h = str_hash(h, f->f.file);
	h = str_hash(h, base_or_null(f->f.module));
	h = (h ^ ((uint64_t)f->f.line << 2 | (uint64_t)f->lines_differ << 1 | f->f.inlined)) *
	    1099511628211ull;
	if (!f->f.function)
		h = (h ^ f->f.module_offset) * 1099511628211ull;
	return h;
}
