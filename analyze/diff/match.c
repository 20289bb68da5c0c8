/*
 * analyze/diff/match.c - diff_build (diff.h): sites of A and B matched by
 * their frames, summed per key, and the fields' names and ranks.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "analyze/output/frames.h"
#include "analyze/output/units.h"
#include "analyze/util/saturate.h"

const enum metric diff_field_metric[DF_SITE_COUNT] = {
	METRIC_PEAK, METRIC_LEAKED, METRIC_ALLOCATED, METRIC_ALLOCATIONS, METRIC_TEMPORARY,
	METRIC_PEAK_BLOCKS, METRIC_LEAKED_BLOCKS,
};

const char *diff_field_name(enum diff_field f)
{
	return f == DF_RSS ? "rss" : metric_info(diff_field_metric[f])->name;
}

const char *diff_field_key(enum diff_field f)
{
	return f == DF_RSS ? "peak_rss_bytes" : metric_info(diff_field_metric[f])->key;
}

const char *diff_field_label(enum diff_field f)
{
	return f == DF_RSS ? "peak RSS" : metric_info(diff_field_metric[f])->label;
}

bool diff_field_bytes(enum diff_field f)
{
	return f == DF_RSS || metric_info(diff_field_metric[f])->bytes;
}

int diff_field_parse(const char *name)
{
	int m;

	if (strcmp(name, "rss") == 0)
		return DF_RSS;
	m = metric_parse(name);
	for (int f = 0; m >= 0 && f < DF_SITE_COUNT; f++)
		if ((int)diff_field_metric[f] == m)
			return f;
	return -1;
}

int64_t diff_change(uint64_t a, uint64_t b)
{
	if (b >= a)
		return b - a > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(b - a);
	return a - b > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)(a - b);
}

double diff_change_real(uint64_t a, uint64_t b)
{
	return b >= a ? (double)(b - a) : -(double)(a - b);
}

double diff_field_variance(const struct sample_figures *s, int f)
{
	switch (f) {
	case DF_ALLOCATED: return s->alloc_var_bytes;
	case DF_ALLOCATIONS: return s->alloc_var_count;
	case DF_LEAKED: return s->live_var_bytes;
	case DF_LEAKED_BLOCKS: return s->live_var_count;
	default: return 0.0;
	}
}

bool diff_field_has_margin(const struct diff *d, int f)
{
	return (d->pa->info.sampled || d->pb->info.sampled) &&
	       (f == DF_ALLOCATED || f == DF_ALLOCATIONS || f == DF_LEAKED || f == DF_LEAKED_BLOCKS);
}

uint64_t diff_change_ci95(double var_a, double var_b)
{
	return output_ci95(var_a + var_b);
}

/* The bytes field whose figure over count field f gives its blocks' mean
 * size, or -1 where f is no count with an estimate. */
static int count_field_bytes(int f)
{
	return f == DF_ALLOCATIONS ? DF_ALLOCATED : f == DF_LEAKED_BLOCKS ? DF_LEAKED : -1;
}

/* x rounded up to an integer, x >= 0 (no libm). */
static double round_up(double x)
{
	double i = (double)(uint64_t)x;

	return i < x ? i + 1.0 : i;
}

/* What field f of sampled p resting on no sample may hold at 95%, against
 * the other trace's figures other[] of the same site (or totals) that are
 * not 0: its bytes under output_zero_sample_bound B = 3 T.  A count is the
 * blocks B hides at the other side's mean size s, B / (s + 1): the sampler
 * misses n blocks of s bytes with probability exp(-n (s + 1) / T)
 * (preload/sample.h), under 5% once n reaches it. */
static double zero_sample_bound(const struct profile *p, int f, const uint64_t *other)
{
	double bytes = (double)output_zero_sample_bound(p->run.sample_rate_bytes);
	int fb = count_field_bytes(f);
	double n;

	if (fb < 0)
		return bytes;
	n = (double)other[f];
	return round_up(bytes * n / ((double)other[fb] + n));
}

/* The variance that makes a 95% margin cover zero_sample_bound's, or 0
 * where p is exact, its rate unknown or f has no estimate. */
static double zero_sample_variance(const struct profile *p, int f, const uint64_t *other)
{
	double half;

	if (!p->info.sampled || !p->run.sample_rate_bytes ||
	    (f != DF_ALLOCATED && f != DF_ALLOCATIONS && f != DF_LEAKED && f != DF_LEAKED_BLOCKS))
		return 0.0;
	half = zero_sample_bound(p, f, other) / 1.96;
	return half * half;
}

double diff_total_variance(const struct profile *p, int f, const uint64_t *other)
{
	const struct sample_figures *s = &p->summary.samples;
	uint64_t samples = f == DF_LEAKED || f == DF_LEAKED_BLOCKS ? s->live : s->allocs;

	if (samples || !other[f] || diff_field_variance(s, f) != 0.0)
		return diff_field_variance(s, f);
	return zero_sample_variance(p, f, other);
}

/* A site's side with no sample of a figure the other side has (its
 * estimate 0: absent from that trace's samples, or none live) is given
 * the variance of diff_total_variance's, for the same reason. */
static void entries_zero_sample_variance(struct diff *d)
{
	for (size_t i = 0; i < d->count; i++) {
		struct diff_entry *e = &d->entries[i];

		for (int f = 0; f < DF_SITE_COUNT; f++) {
			if (!e->a.v[f] && e->b.v[f] && e->a.var[f] == 0.0)
				e->a.var[f] = zero_sample_variance(d->pa, f, e->b.v);
			if (!e->b.v[f] && e->a.v[f] && e->b.var[f] == 0.0)
				e->b.var[f] = zero_sample_variance(d->pb, f, e->a.v);
		}
	}
}

/* ---- keys ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static const char *base_or_null(const char *path)
{
	return path ? output_base_name(path) : NULL;
}

/* Whether f is code of no module ("?", sites.h) and no name (JIT-compiled,
 * as V8's and the JVM's): its address differs from run to run, so all such
 * frames match. */
static bool frame_anonymous(const struct site_frame *f)
{
	return !f->function && (!f->module || strcmp(f->module, "?") == 0);
}

uint64_t diff_frame_hash(const struct site_frame *f, enum diff_match m)
{
	uint64_t h = mix(str_hash(base_or_null(f->module)), f->inlined);

	h = mix(h, f->function       ? str_hash(f->function)
		   : frame_anonymous(f) ? 0
					: f->module_offset);
	if (m == DIFF_MATCH_LINE)
		h = mix(mix(h, str_hash(base_or_null(f->file))), f->line);
	return h;
}

bool diff_frame_equal(const struct site_frame *a, const struct site_frame *b, enum diff_match m)
{
	if (a->inlined != b->inlined || !str_same(base_or_null(a->module), base_or_null(b->module)))
		return false;
	if (!str_same(a->function, b->function) ||
	    (!a->function && !frame_anonymous(a) && a->module_offset != b->module_offset))
		return false;
	return m != DIFF_MATCH_LINE ||
	       (a->line == b->line && str_same(base_or_null(a->file), base_or_null(b->file)));
}

static uint64_t site_key_hash(const struct site_table *t, const struct site *s, enum diff_match m)
{
	uint32_t buf[SITES_MAX_FRAMES];
	const uint32_t *ids = site_frame_ids(t, s, buf);
	uint64_t h = mix(s->frame_count, (uint64_t)s->unknown_stack | (uint64_t)s->inherited << 1);

	for (uint32_t i = 0; i < s->frame_count; i++)
		h = mix(h, diff_frame_hash(&t->frames[ids[i]], m));
	return h;
}

static bool site_key_equal(const struct site_table *ta, const struct site *a,
			   const struct site_table *tb, const struct site *b, enum diff_match m)
{
	uint32_t buf_a[SITES_MAX_FRAMES], buf_b[SITES_MAX_FRAMES];
	const uint32_t *ia, *ib;

	if (a->frame_count != b->frame_count || a->unknown_stack != b->unknown_stack ||
	    a->inherited != b->inherited)
		return false;
	ia = site_frame_ids(ta, a, buf_a);
	ib = site_frame_ids(tb, b, buf_b);
	for (uint32_t i = 0; i < a->frame_count; i++)
		if (!diff_frame_equal(&ta->frames[ia[i]], &tb->frames[ib[i]], m))
			return false;
	return true;
}

/* Sums site s of table t into side, linking it after the side's last
 * site through next (per site of t). */
static void side_add(struct diff_side *side, const struct site_table *t, const struct site *s,
		     uint32_t *next, bool *saturated)
{
	struct alloc_stats stats;
	const struct alloc_stats *st = site_stats(s, &stats);
	struct sample_figures samples;

	next[s - t->sites] = UINT32_MAX;
	if (!side->site)
		side->site = s;
	else
		next[side->last - t->sites] = (uint32_t)(s - t->sites);
	side->last = s;
	side->sites++;
	side->truncated |= s->truncated;
	site_samples(t, s, st, &samples);
	for (int f = 0; f < DF_SITE_COUNT; f++) {
		side->v[f] = sat_add(side->v[f], metric_site_value(s, diff_field_metric[f]),
				     saturated);
		side->var[f] += diff_field_variance(&samples, f);
	}
	side->max_live_bytes = sat_add(side->max_live_bytes, st->max_live_bytes, saturated);
	side->freed = sat_add(side->freed, st->freed, saturated);
	side->lifetime_ns_sum = sat_add(side->lifetime_ns_sum, st->lifetime_ns_sum, saturated);
}

/* Whether a change between figures of d would not fit diff_change's int64
 * (values above INT64_MAX: only a crafted or corrupt trace has them). */
static bool diff_values_too_large(const struct diff *d)
{
	for (int f = 0; f < DF_COUNT; f++)
		if (d->total_a[f] > (uint64_t)INT64_MAX || d->total_b[f] > (uint64_t)INT64_MAX)
			return true;
	for (size_t i = 0; i < d->count; i++)
		for (int f = 0; f < DF_SITE_COUNT; f++)
			if (d->entries[i].a.v[f] > (uint64_t)INT64_MAX ||
			    d->entries[i].b.v[f] > (uint64_t)INT64_MAX)
				return true;
	return false;
}

/* The table and site that stand for entry e's key. */
static const struct site *entry_key(const struct diff *d, const struct diff_entry *e,
				    const struct site_table **t)
{
	return diff_entry_site(d, e, t);
}

bool diff_entry_not_sampled(const struct diff *d, const struct diff_entry *e)
{
	return (e->status == DS_ADDED && d->pa->info.sampled) ||
	       (e->status == DS_REMOVED && d->pb->info.sampled);
}

const struct site *diff_entry_site(const struct diff *d, const struct diff_entry *e,
				   const struct site_table **table)
{
	*table = e->a.site ? &d->pa->sites : &d->pb->sites;
	return e->a.site ? e->a.site : e->b.site;
}

/* Adds the sites of table t (side A when a) to the entries through the hash
 * (cap a power of two, indices + 1). */
static void add_side(struct diff *d, const struct site_table *t, bool a, uint32_t *hash,
		     size_t mask)
{
	uint32_t *next = a ? d->next_a : d->next_b;

	for (size_t k = 0; k < t->count; k++) {
		const struct site *s = &t->sites[k];
		size_t i = site_key_hash(t, s, d->match) & mask;
		struct diff_entry *e = NULL;

		for (; hash[i]; i = (i + 1) & mask) {
			const struct site_table *kt;
			const struct site *ks = entry_key(d, &d->entries[hash[i] - 1], &kt);

			if (site_key_equal(kt, ks, t, s, d->match)) {
				e = &d->entries[hash[i] - 1];
				break;
			}
		}
		if (!e) {
			e = &d->entries[d->count++];
			hash[i] = (uint32_t)d->count;
		}
		side_add(a ? &e->a : &e->b, t, s, next, &d->saturated);
	}
}

int diff_build(struct diff *d, const struct profile *a, const struct profile *b,
	       enum diff_match match)
{
	size_t n = a->sites.count + b->sites.count, cap = 16;
	uint32_t *hash;

	memset(d, 0, sizeof(*d));
	d->pa = a;
	d->pb = b;
	d->match = match;
	while (cap < 2 * n)
		cap *= 2;
	hash = calloc(cap, sizeof(*hash));
	d->entries = calloc(n + 1, sizeof(*d->entries));
	d->next_a = malloc((a->sites.count + 1) * sizeof(*d->next_a));
	d->next_b = malloc((b->sites.count + 1) * sizeof(*d->next_b));
	if (!hash || !d->entries || !d->next_a || !d->next_b) {
		free(hash);
		diff_free(d);
		return -ENOMEM;
	}
	add_side(d, &a->sites, true, hash, cap - 1);
	add_side(d, &b->sites, false, hash, cap - 1);
	free(hash);
	for (size_t i = 0; i < d->count; i++) {
		struct diff_entry *e = &d->entries[i];

		e->status = !e->b.site ? DS_REMOVED : !e->a.site ? DS_ADDED
			    : memcmp(e->a.v, e->b.v, sizeof(e->a.v)) == 0 ? DS_SAME : DS_CHANGED;
		d->changed += e->status == DS_CHANGED;
		d->added += e->status == DS_ADDED;
		d->removed += e->status == DS_REMOVED;
	}
	d->differ = d->changed + d->added + d->removed;
	/* those that differ first, in their order of A then B */
	for (size_t i = 0, front = 0; i < d->count; i++)
		if (d->entries[i].status != DS_SAME) {
			struct diff_entry tmp = d->entries[front];

			d->entries[front++] = d->entries[i];
			d->entries[i] = tmp;
		}
	entries_zero_sample_variance(d);
	for (int f = 0; f < DF_SITE_COUNT; f++) {
		d->total_a[f] = metric_summary_value(&a->summary, diff_field_metric[f]);
		d->total_b[f] = metric_summary_value(&b->summary, diff_field_metric[f]);
	}
	for (int f = 0; f < DF_SITE_COUNT; f++) {
		d->var_a[f] = diff_total_variance(a, f, d->total_b);
		d->var_b[f] = diff_total_variance(b, f, d->total_a);
	}
	d->has_rss_a = a->run.has_peak_rss;
	d->has_rss_b = b->run.has_peak_rss;
	d->total_a[DF_RSS] = a->run.peak_rss_kib * 1024;
	d->total_b[DF_RSS] = b->run.peak_rss_kib * 1024;
	if (a->summary.saturated || b->summary.saturated || diff_values_too_large(d))
		d->saturated = true;
	return 0;
}

void diff_free(struct diff *d)
{
	free(d->entries);
	free(d->next_a);
	free(d->next_b);
	d->entries = NULL;
	d->next_a = d->next_b = NULL;
	d->count = 0;
}

/* ---- ranking ---- */

struct rank_ctx {
	enum diff_field f;
	bool grown;
	bool at_most_a, at_most_b;
};

void diff_change_range(const struct diff_entry *e, enum diff_field f, bool at_most_a,
		       bool at_most_b, int64_t *lo, int64_t *hi)
{
	*lo = diff_change(e->a.v[f], at_most_b ? 0 : e->b.v[f]);
	*hi = diff_change(at_most_a ? 0 : e->a.v[f], e->b.v[f]);
}

/* e's move in the ranking's direction: the least the range guarantees
 * (*sure, negative when it may go the other way) and the most it allows
 * (*most). */
static void rank_move(const struct rank_ctx *c, const struct diff_entry *e, int64_t *sure,
		      int64_t *most)
{
	int64_t lo, hi;

	diff_change_range(e, c->f, c->at_most_a, c->at_most_b, &lo, &hi);
	*sure = c->grown ? lo : -hi;
	*most = c->grown ? hi : -lo;
}

static uint32_t side_id(const struct diff_side *s)
{
	return s->site ? s->site->id : UINT32_MAX;
}

static int rank_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct rank_ctx *c = ctx;
	const struct diff_entry *x = pa, *y = pb;
	int64_t sx, sy, dx, dy, ax, ay;

	rank_move(c, x, &sx, &dx);
	rank_move(c, y, &sy, &dy);
	/* what the bounds guarantee first (exact sides: sx == dx) */
	sx = sx > 0 ? sx : 0;
	sy = sy > 0 ? sy : 0;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	if ((dx > 0) != (dy > 0))
		return dx > 0 ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	ax = diff_change(x->a.v[DF_ALLOCATED], x->b.v[DF_ALLOCATED]);
	ay = diff_change(y->a.v[DF_ALLOCATED], y->b.v[DF_ALLOCATED]);
	ax = ax < 0 ? -ax : ax;
	ay = ay < 0 ? -ay : ay;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	if (side_id(&x->a) != side_id(&y->a))
		return side_id(&x->a) < side_id(&y->a) ? -1 : 1;
	return side_id(&x->b) < side_id(&y->b) ? -1 : side_id(&x->b) > side_id(&y->b);
}

struct diff_rank_count diff_rank(const struct diff *d, struct diff_entry *entries, size_t n,
				 enum diff_field f, bool grown)
{
	struct rank_ctx c = {f, grown, false, false};
	struct diff_rank_count count = {0, 0};

	diff_field_at_most(d, f, &c.at_most_a, &c.at_most_b);
	if (n > 1)
		qsort_r(entries, n, sizeof(*entries), rank_cmp, &c);
	for (size_t i = 0; i < n; i++) {
		int64_t sure, most;

		rank_move(&c, &entries[i], &sure, &most);
		count.sure += sure > 0;
		count.may += most > 0;
	}
	return count;
}

bool diff_field_known(const struct diff *d, int f, bool *a, bool *b)
{
	*a = *b = true;
	if (f == DF_RSS) {
		*a = d->has_rss_a;
		*b = d->has_rss_b;
	} else {
		*a = profile_has_metric(d->pa, diff_field_metric[f]);
		*b = profile_has_metric(d->pb, diff_field_metric[f]);
	}
	return *a && *b;
}

bool diff_field_rough(const struct diff *d, int f)
{
	return f != DF_RSS && (profile_metric_rough(d->pa, diff_field_metric[f]) ||
			       profile_metric_rough(d->pb, diff_field_metric[f]));
}

bool diff_field_at_most(const struct diff *d, int f, bool *a, bool *b)
{
	*a = f == DF_TEMPORARY && profile_temporary_at_most(d->pa);
	*b = f == DF_TEMPORARY && profile_temporary_at_most(d->pb);
	return *a || *b;
}

const char *diff_field_qualifier(const struct diff *d, int f)
{
	bool a, b;

	if (diff_field_rough(d, f))
		return "rough";
	return diff_field_at_most(d, f, &a, &b) ? "at most" : NULL;
}
