/*
 * analyze/sites.c - from call stacks (ids) to allocation sites: walk each
 * stack, symbolize every instruction pointer (inline frames expanded,
 * innermost first), drop the allocator wrappers in front, and merge the
 * stacks whose remaining frames are identical (same function, file, line,
 * module and inlining, in the same order) by summing their statistics.
 *
 * Owns the site array, the distinct-frame table and the per-site frame id
 * sequences.  Must never copy symbol strings (they belong to the
 * symbolizer) nor look at events; it runs once, after the event pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/sites.h"

/*
 * Allocator wrappers: functions whose only job is to call the allocator.
 * Leading frames that match are dropped so a site names the code that wanted
 * the memory.  Names are matched up to a parameter list, so "strdup" matches
 * "strdup" and "xmalloc(unsigned long)".
 */
static const char *const wrapper_names[] = {
	"strdup", "strndup", "__strdup", "__strndup", "wcsdup", "__wcsdup",
	"xmalloc", "xcalloc", "xrealloc", "xstrdup", "xzalloc",
	"g_malloc", "g_malloc0", "g_realloc", "g_try_malloc", "g_try_malloc0",
	"g_try_realloc", "g_malloc_n", "g_malloc0_n", "g_realloc_n", "g_strdup",
	"g_strndup", "g_memdup", "g_memdup2",
};

/* C++ wrappers matched by prefix: every overload of operator new and
 * new[], and the standard allocator layers. */
static const char *const wrapper_prefixes[] = {
	"operator new",
	"std::allocator<", "std::allocator_traits<", "std::__new_allocator<",
	"__gnu_cxx::new_allocator<", "__gnu_cxx::__alloc_traits<",
};

/* name matches function when equal, or equal up to a '(' that follows. */
static bool name_matches(const char *function, const char *name)
{
	size_t n = strlen(name);

	if (n > 0 && name[n - 1] == '*')
		return strncmp(function, name, n - 1) == 0;
	return strncmp(function, name, n) == 0 && (function[n] == '\0' || function[n] == '(');
}

bool site_is_alloc_wrapper(const char *function, const struct site_options *opt)
{
	if (!function)
		return false;
	for (size_t i = 0; i < sizeof(wrapper_prefixes) / sizeof(wrapper_prefixes[0]); i++)
		if (strncmp(function, wrapper_prefixes[i], strlen(wrapper_prefixes[i])) == 0)
			return true;
	for (size_t i = 0; i < sizeof(wrapper_names) / sizeof(wrapper_names[0]); i++)
		if (name_matches(function, wrapper_names[i]))
			return true;
	for (size_t i = 0; opt && i < opt->alloc_fn_count; i++)
		if (name_matches(function, opt->alloc_fns[i]))
			return true;
	return false;
}

/* The profiler's own frames never belong to a site. */
static bool is_profiler_frame(const struct sym_frame *f)
{
	const char *base = f->module ? strrchr(f->module, '/') : NULL;

	base = base ? base + 1 : f->module;
	return base && strncmp(base, "libmprof", 8) == 0;
}

/* ---- hashing ---- */

static inline uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		return mix64(h ^ 0x5bd1e995u);
	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return mix64(h);
}

static bool str_eq(const char *a, const char *b)
{
	if (a == b)
		return true;
	return a && b && strcmp(a, b) == 0;
}

/* Frames without a function name are told apart by their offset. */
static uint64_t frame_hash(const struct site_frame *f)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = hash_str(h, f->function);
	h = hash_str(h, f->file);
	h = hash_str(h, f->module);
	h = mix64(h ^ ((uint64_t)f->line << 1 | f->inlined));
	if (!f->function)
		h = mix64(h ^ f->module_offset);
	return h;
}

static bool frame_eq(const struct site_frame *a, const struct site_frame *b)
{
	return a->line == b->line && a->inlined == b->inlined && str_eq(a->function, b->function) &&
	       str_eq(a->file, b->file) && str_eq(a->module, b->module) &&
	       (a->function || a->module_offset == b->module_offset);
}

bool site_frame_equal(const struct site_frame *a, const struct site_frame *b)
{
	return frame_eq(a, b);
}

uint64_t site_frame_hash(const struct site_frame *f)
{
	return frame_hash(f);
}

static int grow_array(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	p = realloc(*v, n * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

/* Rebuilds an index-hash table (values are indices + 1) at twice the size. */
static int rehash(uint32_t **table, size_t *mask, size_t count,
		  uint64_t (*hash_of)(const struct site_table *, uint32_t), const struct site_table *t)
{
	size_t n = (*mask + 1) * 2;
	uint32_t *v = calloc(n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < count; k++) {
		size_t i = hash_of(t, (uint32_t)k) & (n - 1);

		while (v[i])
			i = (i + 1) & (n - 1);
		v[i] = (uint32_t)(k + 1);
	}
	free(*table);
	*table = v;
	*mask = n - 1;
	return 0;
}

static uint64_t frame_hash_of(const struct site_table *t, uint32_t k)
{
	return frame_hash(&t->frames[k]);
}

static uint64_t ids_hash(const uint32_t *ids, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;

	for (size_t i = 0; i < n; i++)
		h = mix64(h ^ ids[i]) + i;
	return h;
}

static uint64_t site_hash_of(const struct site_table *t, uint32_t k)
{
	const struct site *s = &t->sites[k];

	return ids_hash(site_frame_ids(t, s), s->frame_count) ^ (s->unknown_stack ? 1 : 0) ^
	       (s->inherited ? 2 : 0);
}

/* Interns f; returns its index or -1 on ENOMEM. */
static long frame_intern(struct site_table *t, const struct site_frame *f)
{
	uint64_t h = frame_hash(f);
	size_t i = h & t->frame_hash_mask;

	while (t->frame_hash[i]) {
		uint32_t k = t->frame_hash[i] - 1;

		if (frame_eq(&t->frames[k], f))
			return k;
		i = (i + 1) & t->frame_hash_mask;
	}
	if (grow_array((void **)&t->frames, &t->frame_cap, t->frame_count + 1, sizeof(*f)) < 0)
		return -1;
	t->frames[t->frame_count] = *f;
	t->frame_hash[i] = (uint32_t)(t->frame_count + 1);
	t->frame_count++;
	if (t->frame_count * 2 > t->frame_hash_mask + 1 &&
	    rehash(&t->frame_hash, &t->frame_hash_mask, t->frame_count, frame_hash_of, t) < 0)
		return -1;
	return (long)(t->frame_count - 1);
}

/* Records (epoch, ip) as looked up: returns its entry (valid until the next
 * call), with *first true the first time, or NULL when memory ran out. */
static struct site_ip *ip_set_add(struct site_table *t, uint64_t epoch, uint64_t ip,
				  bool *first)
{
	struct site_ip *e;
	size_t i;

	if ((t->ip_set_count + 1) * 2 > t->ip_set_mask + 1) {
		size_t n = (t->ip_set_mask + 1) * 2;
		struct site_ip *v = calloc(n, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t k = 0; k <= t->ip_set_mask; k++) {
			if (!t->ip_set[k].ip_plus1)
				continue;
			i = mix64(t->ip_set[k].epoch * 31 + t->ip_set[k].ip_plus1) & (n - 1);
			while (v[i].ip_plus1)
				i = (i + 1) & (n - 1);
			v[i] = t->ip_set[k];
		}
		free(t->ip_set);
		t->ip_set = v;
		t->ip_set_mask = n - 1;
	}
	/* ip 0 cannot be a return address worth telling apart: store ip + 1 */
	ip++;
	i = mix64(epoch * 31 + ip) & t->ip_set_mask;
	for (e = &t->ip_set[i]; e->ip_plus1; e = &t->ip_set[i]) {
		if (e->epoch == epoch && e->ip_plus1 == ip) {
			*first = false;
			return e;
		}
		i = (i + 1) & t->ip_set_mask;
	}
	*e = (struct site_ip){ .epoch = epoch, .ip_plus1 = ip };
	t->ip_set_count++;
	*first = true;
	return e;
}

#define FRAME_NOT_INTERNED UINT32_MAX

/* memo_wrapper values */
enum { WRAPPER_NOT_ASKED = 0, WRAPPER_YES = 1, WRAPPER_NO = 2 };

/* Where in memo_ids (and memo_wrapper) the frame ids of e's frames (count of
 * them) are kept, reserved on first use, all FRAME_NOT_INTERNED (and
 * WRAPPER_NOT_ASKED); -ENOMEM. */
static long ip_memo(struct site_table *t, struct site_ip *e, size_t count)
{
	if (e->memo_plus1)
		return (long)(e->memo_plus1 - 1);
	if (grow_array((void **)&t->memo_ids, &t->memo_cap, t->memo_count + count,
		       sizeof(*t->memo_ids)) < 0 ||
	    grow_array((void **)&t->memo_wrapper, &t->memo_wrapper_cap, t->memo_count + count,
		       sizeof(*t->memo_wrapper)) < 0)
		return -ENOMEM;
	for (size_t j = 0; j < count; j++) {
		t->memo_ids[t->memo_count + j] = FRAME_NOT_INTERNED;
		t->memo_wrapper[t->memo_count + j] = WRAPPER_NOT_ASKED;
	}
	e->memo_plus1 = t->memo_count + 1;
	t->memo_count += count;
	return (long)(e->memo_plus1 - 1);
}

/* The symbolizer's answer for e, asked once (an out-of-memory answer is not
 * kept: symbolize_stack gives up on it). */
static const struct sym_location *ip_location(struct symbolizer *sym, struct site_ip *e,
					      uint64_t ip)
{
	const struct sym_location *loc;

	if (e->loc)
		return e->loc;
	loc = symbolizer_lookup(sym, e->epoch, ip);
	if (!symbolizer_failed(sym, loc))
		e->loc = loc;
	return loc;
}

/* Work buffers for one stack. */
struct stack_work {
	uint64_t ips[SITES_MAX_DEPTH];
	struct site_frame *frames;
	size_t frame_count, frame_cap;
	uint32_t *memo;         /* per frame: its place in t->memo_ids */
	size_t memo_cap;
	uint32_t *ids;
	size_t ids_cap;
};

static int work_add_frame(struct stack_work *w, const struct sym_frame *sf, uint32_t memo)
{
	struct site_frame *f;

	if (grow_array((void **)&w->frames, &w->frame_cap, w->frame_count + 1, sizeof(*f)) < 0 ||
	    grow_array((void **)&w->memo, &w->memo_cap, w->frame_count + 1, sizeof(*w->memo)) < 0)
		return -ENOMEM;
	w->memo[w->frame_count] = memo;
	f = &w->frames[w->frame_count++];
	f->function = sf->function;
	f->file = sf->file;
	f->module = sf->module ? sf->module : "?";
	f->line = sf->line;
	f->module_offset = sf->module_offset;
	f->inlined = sf->inlined;
	return 0;
}

/* Symbolizes stack_id into w->frames (wrappers and profiler frames already
 * dropped from the front).  Sets *unknown when there is no usable stack. */
static int symbolize_stack(struct site_table *t, struct stack_work *w,
			   const struct stack_nodes *nodes, struct symbolizer *sym,
			   uint64_t stack_id, bool *truncated, bool *unknown)
{
	size_t depth = 0;
	uint64_t epoch = 0;

	w->frame_count = 0;
	*truncated = false;
	*unknown = stack_id == 0 || stack_nodes_walk(nodes, stack_id, w->ips, SITES_MAX_DEPTH,
						     &depth, &epoch, truncated) < 0;
	if (*unknown)
		return 0;
	for (size_t i = 0; i < depth; i++) {
		const struct sym_location *loc;
		bool first;
		struct site_ip *e = ip_set_add(t, epoch, w->ips[i], &first);
		long memo;

		if (!e)
			return -ENOMEM;
		loc = ip_location(sym, e, w->ips[i]);
		/* (the symbolizer out of memory: a report of "??" frames would
		 * be wrong, and the memo counts on one answer per address) */
		if (symbolizer_failed(sym, loc))
			return -ENOMEM;
		memo = ip_memo(t, e, loc->count);
		if (memo < 0)
			return -ENOMEM;
		if (first) {
			t->frames_total++;
			if (!loc->has_debug_info)
				t->frames_no_debug_info++;
			if (!loc->has_symbol)
				t->frames_no_symbol++;
		}
		for (size_t j = 0; j < loc->count; j++) {
			const struct sym_frame *sf = &loc->frames[j];

			/* leading profiler frames go, whatever else they are */
			if (w->frame_count == 0 && is_profiler_frame(sf))
				continue;
			if (work_add_frame(w, sf, (uint32_t)(memo + (long)j)) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* Whether frame i of w is an allocator wrapper, asked once per address and
 * frame (the answer depends on the function name and opt only). */
static bool work_frame_is_wrapper(struct site_table *t, const struct stack_work *w, size_t i,
				  const struct site_options *opt)
{
	uint8_t *known = &t->memo_wrapper[w->memo[i]];

	if (*known == WRAPPER_NOT_ASKED)
		*known = site_is_alloc_wrapper(w->frames[i].function, opt) ? WRAPPER_YES
									 : WRAPPER_NO;
	return *known == WRAPPER_YES;
}

/* Number of leading frames that are allocator wrappers (never all). */
static size_t wrapper_prefix_len(struct site_table *t, const struct stack_work *w,
				 const struct site_options *opt)
{
	size_t n = 0;

	while (n < w->frame_count && work_frame_is_wrapper(t, w, n, opt))
		n++;
	return n == w->frame_count && n > 0 ? n - 1 : n;
}

/* Finds or adds the site with frame ids ids[0..n); returns its index or -1. */
static long site_intern(struct site_table *t, const uint32_t *ids, size_t n, bool unknown,
			bool inherited)
{
	uint64_t h = ids_hash(ids, n) ^ (unknown ? 1 : 0) ^ (inherited ? 2 : 0);
	size_t i = h & t->site_hash_mask;
	struct site *s;

	while (t->site_hash[i]) {
		uint32_t k = t->site_hash[i] - 1;

		s = &t->sites[k];
		if (s->frame_count == n && s->unknown_stack == unknown && s->inherited == inherited &&
		    (n == 0 || memcmp(t->frame_ids + s->frame_start, ids, n * sizeof(*ids)) == 0))
			return k;
		i = (i + 1) & t->site_hash_mask;
	}
	if (t->ids_count + n > UINT32_MAX ||
	    grow_array((void **)&t->frame_ids, &t->ids_cap, t->ids_count + n, sizeof(*ids)) < 0 ||
	    grow_array((void **)&t->sites, &t->cap, t->count + 1, sizeof(*s)) < 0)
		return -1;
	if (n)
		memcpy(t->frame_ids + t->ids_count, ids, n * sizeof(*ids));
	s = &t->sites[t->count];
	memset(s, 0, sizeof(*s));
	s->s.lifetime_events_min = UINT64_MAX;
	s->s.lifetime_ns_min = UINT64_MAX;
	s->frame_start = (uint32_t)t->ids_count;
	s->frame_count = (uint32_t)n;
	s->unknown_stack = unknown;
	s->inherited = inherited;
	t->ids_count += n;
	t->site_hash[i] = (uint32_t)(t->count + 1);
	t->count++;
	if (t->count * 2 > t->site_hash_mask + 1 &&
	    rehash(&t->site_hash, &t->site_hash_mask, t->count, site_hash_of, t) < 0)
		return -1;
	return (long)(t->count - 1);
}

static int add_stack(struct site_table *t, struct stack_work *w, const struct stack_stats *st,
		     const struct stack_nodes *nodes, struct symbolizer *sym,
		     const struct site_options *opt)
{
	bool truncated = false, unknown = false, inherited = st->stack_id == AGG_STACK_INHERITED;
	size_t skip, n;
	long k;

	if (inherited)
		w->frame_count = 0;
	else if (symbolize_stack(t, w, nodes, sym, st->stack_id, &truncated, &unknown) < 0)
		return -ENOMEM;
	if (!inherited) {
		t->stacks++;
		t->truncated_stacks += truncated;
		t->unknown_stacks += unknown;
	}
	skip = wrapper_prefix_len(t, w, opt);
	n = w->frame_count - skip;
	if (grow_array((void **)&w->ids, &w->ids_cap, n ? n : 1, sizeof(*w->ids)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t *memo = &t->memo_ids[w->memo[skip + i]];

		if (*memo == FRAME_NOT_INTERNED) {
			/* first seen in a site: what frame_intern says of the
			 * same frame of the same address never changes */
			long f = frame_intern(t, &w->frames[skip + i]);

			if (f < 0)
				return -ENOMEM;
			*memo = (uint32_t)f;
		}
		w->ids[i] = *memo;
	}
	k = site_intern(t, w->ids, n, unknown, inherited);
	if (k < 0)
		return -ENOMEM;
	alloc_stats_merge(&t->sites[k].s, &st->s);
	t->sites[k].stack_count++;
	t->sites[k].truncated |= truncated;
	return 0;
}

static int site_cmp_allocated(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;

	if (a->s.allocated_bytes != b->s.allocated_bytes)
		return a->s.allocated_bytes > b->s.allocated_bytes ? -1 : 1;
	if (a->s.allocations != b->s.allocations)
		return a->s.allocations > b->s.allocations ? -1 : 1;
	if (a->s.live_bytes != b->s.live_bytes)
		return a->s.live_bytes > b->s.live_bytes ? -1 : 1;
	/* creation order (stable output for equal numbers) */
	return a->id < b->id ? -1 : a->id > b->id;
}

int site_table_build(struct site_table *t, const struct aggregate *agg,
		     const struct stack_nodes *nodes, struct symbolizer *sym,
		     const struct site_options *opt)
{
	struct stack_work *w;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->frame_hash = calloc(256, sizeof(*t->frame_hash));
	t->frame_hash_mask = 255;
	t->site_hash = calloc(256, sizeof(*t->site_hash));
	t->site_hash_mask = 255;
	t->ip_set = calloc(256, sizeof(*t->ip_set));
	t->ip_set_mask = 255;
	w = calloc(1, sizeof(*w));
	if (!t->frame_hash || !t->site_hash || !t->ip_set || !w) {
		free(w);
		return -ENOMEM;
	}
	for (size_t k = 0; k < agg->stat_count && rc == 0; k++)
		rc = add_stack(t, w, &agg->stats[k], nodes, sym, opt);
	free(w->frames);
	free(w->memo);
	free(w->ids);
	free(w);
	if (rc < 0)
		return rc;
	for (size_t k = 0; k < t->count; k++)
		t->sites[k].id = (uint32_t)k; /* creation order, for the sort's tie-break */
	if (t->count > 1)
		qsort(t->sites, t->count, sizeof(*t->sites), site_cmp_allocated);
	for (size_t k = 0; k < t->count; k++)
		t->sites[k].id = (uint32_t)(k + 1);
	/* the hash of sites is stale after sorting; nothing looks it up again */
	free(t->site_hash);
	t->site_hash = NULL;
	return 0;
}

void site_table_free(struct site_table *t)
{
	free(t->sites);
	free(t->frames);
	free(t->frame_ids);
	free(t->frame_hash);
	free(t->site_hash);
	free(t->ip_set);
	free(t->memo_ids);
	free(t->memo_wrapper);
	memset(t, 0, sizeof(*t));
}
