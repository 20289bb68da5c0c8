/*
 * analyze/profile/filter.h - narrowing a profile to the sites asked for
 * (--filter-function, --exclude-function) and taking known leaks out of its
 * leak figures (--suppressions).
 *
 * Filters act on sites: a site left out is gone from every ranking and
 * format, while the totals (summary) stay the whole program's; the profile
 * says how much was left out (struct profile_filtered).  Suppressed sites
 * stay, but their blocks live at the end are no longer leaks: their leaked
 * bytes and blocks are taken out of the site and of the leak total, as
 * LeakSanitizer leaves suppressed leaks out of its report.
 */
#ifndef MPROF_ANALYZE_FILTER_H
#define MPROF_ANALYZE_FILTER_H

#include <stddef.h>

#include "analyze/profile/profile.h"
#include "analyze/profile/suppressions.h"

struct profile_filter {
	const char *const *functions;   /* keep sites with a frame whose function
	                                 * matches one of these globs (fnmatch) */
	size_t function_count;          /* 0: every site */
	const char *const *excluded;    /* then drop sites with a frame whose
	                                 * function matches one of these */
	size_t excluded_count;
	const struct suppressions *suppressions; /* NULL: none */
	const char *suppressions_path;  /* for the report */
};

/* Whether f does anything. */
static inline bool profile_filter_given(const struct profile_filter *f)
{
	return f->function_count || f->excluded_count || f->suppressions;
}

/* Applies f to p (loaded): sites left out of p->sites (the others keep
 * their ids and order), suppressed leaks taken out, p->filtered filled.
 * Cannot fail. */
void profile_filter_apply(struct profile *p, const struct profile_filter *f);

#endif
