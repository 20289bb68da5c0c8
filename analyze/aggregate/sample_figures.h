/*
 * analyze/aggregate/sample_figures.h - what a sampled trace's estimates rest
 * on: how many samples, and an unbiased estimate of each estimate's variance.
 *
 * A sample of s bytes with weight c (the allocations it stands for, 1/p
 * rounded at random to an integer of that mean; preload/sample.h) adds
 * c * s to the byte estimate.  Horvitz-Thompson: the sum over the samples
 * of c (c - 1) s^2 (written w (w - s) with w = c * s) is an unbiased
 * estimate of the byte estimate's variance, the random rounding included,
 * and c (c - 1) of the count's.  In exact mode every weight is 1: the
 * variances stay 0 and the samples are the allocations.
 */
#ifndef MPROF_ANALYZE_SAMPLE_FIGURES_H
#define MPROF_ANALYZE_SAMPLE_FIGURES_H

#include <stdint.h>

/* Samples and variance estimates of the allocated figures (every sample)
 * and of the live ones (the samples still live; at the end: leaked).  The
 * variances are sums of integers in a double, exact below 2^53. */
struct sample_figures {
	uint64_t allocs;               /* allocation records (samples) */
	uint64_t live;                 /* of them, live */
	double alloc_var_bytes, alloc_var_count;
	double live_var_bytes, live_var_count;
};

/* c (c - 1) s^2 of a sample of size_bytes and weight w, into *var_bytes
 * and c (c - 1) into *var_count. */
static inline void sample_var_terms(uint64_t size_bytes, uint64_t w, double *var_bytes,
				    double *var_count)
{
	double c = (double)w, s = (double)size_bytes;

	*var_count = c * (c - 1.0);
	*var_bytes = *var_count * s * s;
}

/* A sample made live (allocated when allocated is nonzero, else a block
 * inherited at fork, live only). */
static inline void sample_figures_add(struct sample_figures *f, uint64_t size_bytes,
				      uint64_t w, int allocated)
{
	double vb, vc;

	sample_var_terms(size_bytes, w, &vb, &vc);
	if (allocated) {
		f->allocs++;
		f->alloc_var_bytes += vb;
		f->alloc_var_count += vc;
	}
	f->live++;
	f->live_var_bytes += vb;
	f->live_var_count += vc;
}

/* A live sample freed (or replaced at its address). */
static inline void sample_figures_free(struct sample_figures *f, uint64_t size_bytes, uint64_t w)
{
	double vb, vc;

	if (!f->live)
		return;
	sample_var_terms(size_bytes, w, &vb, &vc);
	if (--f->live == 0) {
		/* no rounding left behind once nothing is live */
		f->live_var_bytes = f->live_var_count = 0.0;
		return;
	}
	f->live_var_bytes = f->live_var_bytes > vb ? f->live_var_bytes - vb : 0.0;
	f->live_var_count = f->live_var_count > vc ? f->live_var_count - vc : 0.0;
}

/* Sums src into dst. */
static inline void sample_figures_merge(struct sample_figures *dst, const struct sample_figures *src)
{
	dst->allocs += src->allocs;
	dst->live += src->live;
	dst->alloc_var_bytes += src->alloc_var_bytes;
	dst->alloc_var_count += src->alloc_var_count;
	dst->live_var_bytes += src->live_var_bytes;
	dst->live_var_count += src->live_var_count;
}

#endif
