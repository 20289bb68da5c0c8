/*
 * analyze/output/massif.c - the massif.out format of Valgrind's massif, as
 * ms_print and massif-visualizer read it: a snapshot per point of the heap
 * timeline (profile/profile.h, aggregate/timeline.h), the one at t-gmax
 * with the tree of allocation sites live there ("peak"), and the last one,
 * when it is another, with the tree of the blocks live at exit
 * ("detailed").
 *
 * The tree is massif's: under the top node, the innermost frames (the
 * callers of the allocator), each with its callers below it, siblings by
 * bytes; children under 1% of the snapshot's heap merge into one "in N
 * places, below massif's threshold" line.  Owns nothing; writes what the
 * profile holds, never a new number.  ms_print reads "#" as the start of a
 * comment, so names never carry one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/frames.h"
#include "analyze/output/output.h"
#include "analyze/util/saturate.h"
#include "trace/argv_quote.h"

#define MASSIF_THRESHOLD_PERCENT 1 /* massif's default --threshold */

/* Group keys beyond the frame ids: sites without a stack, and sites whose
 * stack ends above the depth grouped on. */
#define KEY_INHERITED (UINT32_MAX - 2)
#define KEY_NO_STACK (UINT32_MAX - 1)
#define KEY_END UINT32_MAX

struct keyed_site {
	uint32_t key;   /* the site's frame at the depth grouped on, or a KEY_ */
	uint32_t site;  /* index into the site table */
};

/* Sites that share a frame at one depth: one node of the tree. */
struct group {
	size_t lo, hi;  /* its range of keyed_site */
	uint64_t bytes;
	uint32_t key;
};

struct tree {
	FILE *out;
	const struct site_table *t;
	enum metric m;              /* METRIC_PEAK or METRIC_LEAKED */
	uint64_t total;             /* the snapshot's heap */
	bool saturated;             /* a group's sum stopped at UINT64_MAX (the
	                             * report's header says the trace is damaged) */
	struct keyed_site *ks;
	int error;
};

/* str without '#' (a comment to ms_print) and control characters (a space
 * each, C1 ones too), each byte that is not UTF-8 as '?': ms_print copies
 * names to the terminal as they are. */
static void put_clean(FILE *out, const char *str)
{
	size_t len;

	for (const unsigned char *c = (const unsigned char *)str; *c; c += len) {
		len = argv_quote_utf8_len(c);
		if (len == 0) {
			fputc('?', out);
			len = 1;
		} else if (len == 1) {
			fputc(*c == '#' ? '_' : *c < 0x20 || *c == 0x7f ? ' ' : *c, out);
		} else if (argv_quote_is_c1(c)) {
			fputs("  ", out);
		} else {
			fwrite(c, 1, len, out);
		}
	}
}

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed_site *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

/* The key of site i at frame depth d. */
static uint32_t site_key(const struct site_table *t, uint32_t i, size_t d)
{
	const struct site *s = &t->sites[i];

	if (s->frame_count > d)
		return site_frame_at(t, s, (uint32_t)d);
	if (d == 0)
		return s->inherited ? KEY_INHERITED : KEY_NO_STACK;
	return KEY_END;
}

/*
 * The children of the node over ks[lo, hi) at frame depth d: sorts the
 * range by the key at d and returns its groups in *out (owned by the
 * caller), significant ones first by bytes, then the insignificant ones;
 * *nsig of them significant.  Returns the number of groups or -ENOMEM.
 */
static long children(struct tree *tr, size_t lo, size_t hi, size_t d, struct group **out,
		     size_t *nsig)
{
	struct group *g;
	size_t n = 0, sig = 0;

	for (size_t i = lo; i < hi; i++)
		tr->ks[i].key = site_key(tr->t, tr->ks[i].site, d);
	qsort(tr->ks + lo, hi - lo, sizeof(*tr->ks), keyed_cmp);
	g = malloc((hi - lo + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (size_t i = lo; i < hi && tr->ks[i].key != KEY_END;) {
		size_t j = i;
		uint64_t bytes = 0;

		while (j < hi && tr->ks[j].key == tr->ks[i].key)
			bytes = sat_add(bytes, metric_site_value(&tr->t->sites[tr->ks[j++].site], tr->m),
					&tr->saturated);
		g[n++] = (struct group){ i, j, bytes, tr->ks[i].key };
		i = j;
	}
	/* significant: at least the threshold's share of the snapshot */
	for (size_t i = 0; i < n; i++)
		if ((unsigned __int128)g[i].bytes * 100 >=
		    (unsigned __int128)tr->total * MASSIF_THRESHOLD_PERCENT) {
			struct group tmp = g[sig];

			g[sig++] = g[i];
			g[i] = tmp;
		}
	qsort(g, sig, sizeof(*g), group_cmp);
	*out = g;
	*nsig = sig;
	return (long)n;
}

/* A frame as massif labels one: "0xOFFSET: FUNCTION (FILE:LINE)", or
 * "(in MODULE)" without a file. */
static void frame_label(FILE *out, const struct site_frame *f)
{
	char name[512];

	fprintf(out, "0x%" PRIx64 ": ", f->module_offset);
	put_clean(out, output_frame_name(f, name, sizeof(name)));
	if (f->file && f->line) {
		fputs(" (", out);
		put_clean(out, f->file);
		fprintf(out, ":%" PRIu32 ")", f->line);
	} else if (f->module && strcmp(f->module, "?") != 0) {
		fputs(" (in ", out);
		put_clean(out, f->module);
		fputc(')', out);
	}
}

/* Node g at depth d (d >= 1): its line, then its children. */
static void node_write(struct tree *tr, const struct group *g, size_t d);

/* Writes the node over ks[lo, hi) at depth d (self NULL: the top node):
 * its line, which needs the count of its children, so they are grouped
 * first, then the children and the line of those below the threshold. */
static void subtree_write(struct tree *tr, size_t lo, size_t hi, size_t d, uint64_t bytes,
			  const struct group *self)
{
	struct group *g = NULL;
	size_t sig = 0, k;
	long n = children(tr, lo, hi, d, &g, &sig);
	uint64_t rest = 0;

	if (n < 0) {
		tr->error = (int)n;
		return;
	}
	k = sig + ((size_t)n > sig);
	fprintf(tr->out, "%*sn%zu: %" PRIu64 " ", (int)d, "", k, bytes);
	if (!self) {
		fputs("(heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n", tr->out);
	} else if (self->key == KEY_INHERITED || self->key == KEY_NO_STACK) {
		fputs(output_site_stackless_name(&tr->t->sites[tr->ks[self->lo].site]), tr->out);
		fputc('\n', tr->out);
	} else {
		frame_label(tr->out, &tr->t->frames[self->key]);
		fputc('\n', tr->out);
	}
	for (size_t i = 0; i < sig && !tr->error; i++)
		node_write(tr, &g[i], d + 1);
	for (size_t i = sig; i < (size_t)n; i++)
		rest = sat_add(rest, g[i].bytes, &tr->saturated);
	if ((size_t)n > sig)
		fprintf(tr->out, "%*sn0: %" PRIu64 " in %zu place%s, %sbelow massif's threshold "
			"(%d.00%%)\n", (int)d + 1, "", rest, (size_t)n - sig,
			(size_t)n - sig == 1 ? "" : "s", (size_t)n - sig == 1 ? "" : "all ",
			MASSIF_THRESHOLD_PERCENT);
	free(g);
}

static void node_write(struct tree *tr, const struct group *g, size_t d)
{
	subtree_write(tr, g->lo, g->hi, d, g->bytes, g);
}

/* The tree of metric m (its value summing to total) over every site. */
static int tree_write(FILE *out, const struct profile *p, enum metric m, uint64_t total)
{
	struct tree tr = {.out = out, .t = &p->sites, .m = m, .total = total};
	size_t n = 0;

	tr.ks = malloc((p->sites.count + 1) * sizeof(*tr.ks));
	if (!tr.ks)
		return -ENOMEM;
	for (size_t i = 0; i < p->sites.count; i++)
		if (metric_site_value(&p->sites.sites[i], m))
			tr.ks[n++].site = (uint32_t)i;
	subtree_write(&tr, 0, n, 0, total, NULL);
	free(tr.ks);
	return tr.error;
}

/* ms since the first TIME stamp, with µs: "12.345". */
static void time_write(FILE *out, const struct profile *p, uint64_t time_ns)
{
	uint64_t t0 = p->summary.time_known ? p->summary.first_time_ns : 0;
	uint64_t us = time_ns > t0 ? (time_ns - t0) / 1000 : 0;

	fprintf(out, "time=%" PRIu64 ".%03" PRIu64 "\n", us / 1000, us % 1000);
}

static int massif_write(FILE *out, const struct profile *p, const struct output_options *o)
{
	const struct timeline *tl = p->timeline;
	size_t peak = timeline_peak_index(tl);
	char composed[4096];
	const char *cmd = run_facts_name(&p->run, composed, sizeof(composed));
	int rc = 0;

	(void)o; /* the heap over time: no metric to choose */
	fputs("desc: mprof: heap = bytes requested and live; a snapshot per time bucket "
	      "(its highest heap)", out);
	if (output_export_qualified(p)) {
		fputs("; ", out);
		put_clean(out, output_export_kind(p));
		if (p->info.sampled)
			fputs(", the heap rough", out);
	}
	fputs("\ncmd: ", out);
	put_clean(out, cmd && *cmd ? cmd : "(unknown)");
	fputs("\ntime_unit: ms\n", out);
	for (size_t i = 0; i < tl->count && rc == 0; i++) {
		const struct timeline_point *pt = &tl->points[i];
		bool is_peak = i == peak && p->summary.peak_bytes == pt->heap_bytes;
		bool is_end = i + 1 == tl->count && !is_peak &&
			      pt->heap_bytes == p->summary.live_bytes;

		fprintf(out, "#-----------\nsnapshot=%zu\n#-----------\n", i);
		time_write(out, p, pt->time_ns);
		fprintf(out, "mem_heap_B=%" PRIu64 "\nmem_heap_extra_B=0\nmem_stacks_B=0\n",
			pt->heap_bytes);
		if (is_peak) {
			fputs("heap_tree=peak\n", out);
			rc = tree_write(out, p, METRIC_PEAK, pt->heap_bytes);
		} else if (is_end) {
			fputs("heap_tree=detailed\n", out);
			rc = tree_write(out, p, METRIC_LEAKED, pt->heap_bytes);
		} else {
			fputs("heap_tree=empty\n", out);
		}
	}
	return rc;
}

const struct output_format output_massif = {
	.name = "massif",
	.summary = "Valgrind massif's massif.out: heap over time, tree at the peak",
	.write = massif_write,
};
