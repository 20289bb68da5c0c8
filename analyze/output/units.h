/*
 * analyze/output/units.h - numbers as the human-readable formats write
 * them (text report, dhat, diff text), so that they read alike.
 */
#ifndef MPROF_ANALYZE_OUTPUT_UNITS_H
#define MPROF_ANALYZE_OUTPUT_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* A duration into buf (n bytes): "850 ns", "12.3 us", "4.56 ms", "1.234 s".
 * Returns buf. */
const char *output_fmt_ns(char *buf, size_t n, uint64_t ns);

/* A measured duration into buf (n bytes): as output_fmt_ns, or "< 4 ms"
 * when resolution_ns (the clock's, 0: exact to the ns) is above it, since
 * the clock cannot tell it from 0 (the resolution without trailing zeros:
 * "< 4 ms", "< 3.33 ms").  Returns buf. */
const char *output_fmt_time_ns(char *buf, size_t n, uint64_t ns, uint64_t resolution_ns);

/* The event clock's grain (profile_time_resolution_ns) into buf (n bytes)
 * as output_fmt_time_ns writes it after "<": "2 ms", "3.33 ms".  Returns
 * buf. */
const char *output_fmt_grain_ns(char *buf, size_t n, uint64_t grain_ns);

/* The half-width of the 95% interval of an estimate whose variance
 * estimate is var (sample_figures.h): 1.96 standard deviations, the normal
 * approximation, rounded up. */
uint64_t output_ci95(double var);

/* The 95% margin of estimate est (variance estimate var) relative to it,
 * into buf (n bytes): " ±70%", " ±<1%" below 1%, "" when est is 0 (no
 * relative figure).  Returns buf. */
const char *output_fmt_margin(char *buf, size_t n, uint64_t est, double var);

/* The samples of a sampled estimate into buf (n bytes): "1 sample",
 * "4 samples".  Returns buf. */
const char *output_fmt_samples(char *buf, size_t n, uint64_t samples);

/* 3 * rate_bytes (saturating): with no sample in it, the bytes a figure of
 * a trace sampled at rate_bytes stands for are below this at 95% (a Poisson
 * count of mean B / rate is 0 with probability e^(-B/rate), under 5% once
 * B > ln 20 * rate, 2.996 * rate). */
uint64_t output_zero_sample_bound(uint64_t rate_bytes);

#endif
