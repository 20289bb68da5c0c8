/*
 * analyze/output/string_table.h - interned strings numbered densely in the
 * order they were first added, for the formats whose files hold a table of
 * strings that the rest refers to by index (pprof's string_table; also
 * fit for a frame table).  Owns copies of its strings.
 */
#ifndef MPROF_ANALYZE_OUTPUT_STRING_TABLE_H
#define MPROF_ANALYZE_OUTPUT_STRING_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct string_slot {
	uint32_t index_plus1; /* 0: empty */
	uint32_t hash;        /* low bits of the string's hash */
};

struct string_table {
	char *arena;            /* the strings, each NUL-terminated; owned */
	size_t arena_len, arena_cap;
	size_t *offsets;        /* by index: where each starts in arena; owned */
	size_t count, cap;
	struct string_slot *slots; /* open addressing; owned */
	size_t mask;
};

void string_table_init(struct string_table *t);
void string_table_free(struct string_table *t);

/* The index of s, added when new (indices count from 0 in the order of
 * first addition).  Returns the index, or -ENOMEM. */
int64_t string_table_intern(struct string_table *t, const char *s);

/* The index of s, or -1 when it was never added. */
int64_t string_table_find(const struct string_table *t, const char *s);

/* String number i (i < t->count); valid until the next intern. */
static inline const char *string_table_get(const struct string_table *t, size_t i)
{
	return t->arena + t->offsets[i];
}

#endif
