/*
 * analyze/profile/filter.c - profile_filter_apply (filter.h).
 *
 * Works in place on the profile's site table (the kept sites move down,
 * keeping their order and ids) and on the statistics its sites point to.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/profile/filter.h"
#include "analyze/profile/metric.h"
#include "analyze/util/saturate.h"

/* Whether glob matches function, or the function's name up to one of its
 * '(' (a C++ name's parameter list: "parse" matches "parse(char const*)"). */
static bool function_matches(const char *glob, const char *function)
{
	bool m = fnmatch(glob, function, 0) == 0;

	for (const char *p = strchr(function, '('); !m && p; p = strchr(p + 1, '(')) {
		char *head = strndup(function, (size_t)(p - function));

		m = head && fnmatch(glob, head, 0) == 0;
		free(head);
	}
	return m;
}

/* Whether a frame of site s has a function matching one of n globs. */
static bool site_has_function(const struct site_table *t, const struct site *s,
			      const char *const *globs, size_t n)
{
	uint32_t buf[SITES_MAX_FRAMES];
	const uint32_t *ids = site_frame_ids(t, s, buf);

	for (uint32_t i = 0; i < s->frame_count; i++) {
		const char *fn = t->frames[ids[i]].function;

		for (size_t k = 0; fn && k < n; k++)
			if (function_matches(globs[k], fn))
				return true;
	}
	return false;
}

static bool site_kept(const struct site_table *t, const struct site *s,
		      const struct profile_filter *f)
{
	if (f->function_count && !site_has_function(t, s, f->functions, f->function_count))
		return false;
	return !(f->excluded_count && site_has_function(t, s, f->excluded, f->excluded_count));
}

static void filter_sites(struct profile *p, const struct profile_filter *f)
{
	struct site_table *t = &p->sites;
	struct profile_filtered *r = &p->filtered;
	size_t kept = 0;

	r->filtered = true;
	r->sites_before = t->count;
	for (size_t i = 0; i < t->count; i++) {
		struct site *s = &t->sites[i];

		if (site_kept(t, s, f)) {
			if (t->samples)
				t->samples[kept] = t->samples[i];
			t->sites[kept++] = *s;
			continue;
		}
		r->sites++;
		r->allocations = sat_add(r->allocations, metric_site_value(s, METRIC_ALLOCATIONS),
					 &p->summary.saturated);
		r->allocated_bytes = sat_add(r->allocated_bytes,
					     metric_site_value(s, METRIC_ALLOCATED),
					     &p->summary.saturated);
	}
	t->count = kept;
}

/* Site i's live samples (statistics st) taken out of the summary's, and
 * out of the site's own. */
static void suppress_samples(struct profile *p, size_t i, const struct alloc_stats *st)
{
	struct sample_figures *sum = &p->summary.samples;
	struct sample_figures *f = p->sites.samples ? &p->sites.samples[i] : NULL;
	uint64_t live = f ? f->live : st->live_blocks;

	sum->live = live < sum->live ? sum->live - live : 0;
	if (f) {
		sum->live_var_bytes = f->live_var_bytes < sum->live_var_bytes
					      ? sum->live_var_bytes - f->live_var_bytes : 0.0;
		sum->live_var_count = f->live_var_count < sum->live_var_count
					      ? sum->live_var_count - f->live_var_count : 0.0;
		f->live = 0;
		f->live_var_bytes = f->live_var_count = 0.0;
	}
}

static void suppress_leaks(struct profile *p, const struct profile_filter *f)
{
	struct site_table *t = &p->sites;
	struct profile_filtered *r = &p->filtered;

	r->suppressions = true;
	r->suppressions_path = f->suppressions_path;
	for (size_t i = 0; i < t->count; i++) {
		struct alloc_stats buf, st;

		st = *site_stats(&t->sites[i], &buf);
		if (!st.live_bytes && !st.live_blocks)
			continue;
		if (!suppressions_match_site(f->suppressions, t, &t->sites[i]))
			continue;
		r->suppressed_sites++;
		r->suppressed_bytes = sat_add(r->suppressed_bytes, st.live_bytes,
					      &p->summary.saturated);
		r->suppressed_blocks = sat_add(r->suppressed_blocks, st.live_blocks,
					       &p->summary.saturated);
		p->summary.live_bytes = sat_sub(p->summary.live_bytes, st.live_bytes,
						&p->summary.saturated);
		p->summary.live_blocks = sat_sub(p->summary.live_blocks, st.live_blocks,
						 &p->summary.saturated);
		suppress_samples(p, i, &st);
		st.live_bytes = 0;
		st.live_blocks = 0;
		/* (cannot fail: smaller figures fit where the old ones were) */
		(void)site_stats_store(t, &t->sites[i], &st);
	}
}

void profile_filter_apply(struct profile *p, const struct profile_filter *f)
{
	memset(&p->filtered, 0, sizeof(p->filtered));
	/* first: a known leak is no leak of the program's, shown or not */
	if (f->suppressions)
		suppress_leaks(p, f);
	if (f->function_count || f->excluded_count)
		filter_sites(p, f);
}
