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

#endif
