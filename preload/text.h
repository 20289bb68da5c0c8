/*
 * preload/text.h - building short diagnostic sentences without stdio (which
 * may allocate) inside the shim.
 */
#ifndef MPROF_PRELOAD_TEXT_H
#define MPROF_PRELOAD_TEXT_H

#include <string.h>

/* Appends s to the NUL-terminated text in buf (cap bytes), truncating. */
static inline void preload_text_append(char *buf, size_t cap, const char *s)
{
	size_t len = strlen(buf), n = strlen(s);

	if (len + 1 >= cap)
		return;
	if (n > cap - 1 - len)
		n = cap - 1 - len;
	memcpy(buf + len, s, n);
	buf[len + n] = '\0';
}

#endif
