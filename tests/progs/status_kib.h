/*
 * status_kib.h - one "Key: N kB" field of /proc/self/status, for test
 * programs (VmRSS, VmLck).  Header only.
 */
#ifndef MPROF_TESTS_STATUS_KIB_H
#define MPROF_TESTS_STATUS_KIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The field key (with its colon, "VmLck:") of this process in KiB, or -1. */
static inline long status_kib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t n = strlen(key);
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0)
			kib = strtol(line + n, NULL, 10);
	fclose(f);
	return kib;
}

#endif
