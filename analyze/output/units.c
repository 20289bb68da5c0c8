/*
 * analyze/output/units.c - numbers as the human-readable formats write them
 * (units.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/output/units.h"
#include "trace/plural.h"

const char *output_fmt_ns(char *buf, size_t n, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, n, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, n, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, n, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.3f s", (double)ns / 1e9);
	return buf;
}

/* Drops the trailing zeros of the fraction in "4.00 ms" ("4 ms"). */
static void units_trim_zeros(char *s)
{
	char *dot = strchr(s, '.');
	char *unit, *end;

	if (!dot)
		return;
	unit = strchr(dot, ' ');
	if (!unit)
		return;
	end = unit;
	while (end > dot + 1 && end[-1] == '0')
		end--;
	if (end == dot + 1)
		end = dot;
	memmove(end, unit, strlen(unit) + 1);
}

const char *output_fmt_grain_ns(char *buf, size_t n, uint64_t grain_ns)
{
	output_fmt_ns(buf, n, grain_ns);
	units_trim_zeros(buf);
	return buf;
}

const char *output_fmt_time_ns(char *buf, size_t n, uint64_t ns, uint64_t resolution_ns)
{
	char res[32];

	if (!resolution_ns || ns >= resolution_ns)
		return output_fmt_ns(buf, n, ns);
	snprintf(buf, n, "< %s", output_fmt_grain_ns(res, sizeof(res), resolution_ns));
	return buf;
}

/* sqrt(x) for x >= 0 by Newton's iteration from a power of two above it
 * (the analyzer links no libm for one root). */
static double units_sqrt(double x)
{
	double r = 1.0;

	if (!(x > 0.0))
		return 0.0;
	while (r * r < x)
		r *= 2.0;
	for (int i = 0; i < 200; i++) {
		double next = 0.5 * (r + x / r);

		if (next >= r)
			break;
		r = next;
	}
	return r;
}

uint64_t output_ci95(double var)
{
	double h = 1.96 * units_sqrt(var);

	if (h >= 18446744073709549568.0)
		return UINT64_MAX;
	return (uint64_t)h + ((double)(uint64_t)h < h);
}

const char *output_fmt_margin(char *buf, size_t n, uint64_t est, double var)
{
	double pct;

	if (!est) {
		snprintf(buf, n, "%s", "");
		return buf;
	}
	pct = 100.0 * (double)output_ci95(var) / (double)est;
	if (pct < 1.0)
		snprintf(buf, n, " \u00b1<1%%");
	else
		snprintf(buf, n, " \u00b1%.0f%%", pct);
	return buf;
}

const char *output_fmt_samples(char *buf, size_t n, uint64_t samples)
{
	snprintf(buf, n, "%" PRIu64 " %s", samples, plural(samples, "sample", "samples"));
	return buf;
}

uint64_t output_zero_sample_bound(uint64_t rate_bytes)
{
	/* ln 20 = 2.9957...; 3 is above it */
	return rate_bytes > UINT64_MAX / 3 ? UINT64_MAX : rate_bytes * 3;
}
