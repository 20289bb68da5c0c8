/*
 * analyze/output/units.c - output_fmt_ns and output_fmt_time_ns (units.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/output/units.h"

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
