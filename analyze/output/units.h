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

#endif
