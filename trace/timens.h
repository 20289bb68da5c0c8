/*
 * trace/timens.h - the monotonic clock's offset of a time namespace, read
 * from /proc/self/timens_offsets (time_namespaces(7)), which both the
 * launcher and the recorder parse.  Header only; never allocates.
 */
#ifndef MPROF_TRACE_TIMENS_H
#define MPROF_TRACE_TIMENS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The launcher's own offset in ns when it is not 0 (a launcher in a time
 * namespace of its own); unset: 0. */
#define SESSION_ENV_LAUNCHER_TIMENS "MPROF_LAUNCHER_TIMENS_NS"

/* Parses a signed decimal at *p (skipping blanks before it); advances *p. */
static inline int64_t timens_parse_i64(const char **p, const char *end)
{
	int64_t v = 0;
	int neg = 0;

	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
	if (*p < end && **p == '-') {
		neg = 1;
		(*p)++;
	}
	while (*p < end && **p >= '0' && **p <= '9')
		v = v * 10 + (**p - '0'), (*p)++;
	return neg ? -v : v;
}

/* The CLOCK_MONOTONIC offset in ns in text (n bytes of timens_offsets:
 * lines "monotonic SECONDS NANOSECONDS" and "boottime ..."); 0 without one. */
static inline int64_t timens_parse_monotonic_ns(const char *text, size_t n)
{
	const char *p = text, *end = text + n;
	static const char key[] = "monotonic";

	while (p < end) {
		if ((size_t)(end - p) > sizeof(key) - 1 && memcmp(p, key, sizeof(key) - 1) == 0) {
			int64_t s, ns;

			p += sizeof(key) - 1;
			s = timens_parse_i64(&p, end);
			ns = timens_parse_i64(&p, end);
			return s * 1000000000 + ns;
		}
		while (p < end && *p != '\n')
			p++;
		p++;
	}
	return 0;
}

#endif
