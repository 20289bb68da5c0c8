/*
 * analyze/output/units.c - output_fmt_ns (units.h).
 */
#include <inttypes.h>
#include <stdio.h>

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
