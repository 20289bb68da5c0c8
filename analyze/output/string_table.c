/*
 * analyze/output/string_table.c - interned, densely numbered strings
 * (string_table.h): an arena of copies and an open-addressing index.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/string_table.h"
#include "analyze/util/hash_seed.h"

#define STRING_TABLE_FIRST_SLOTS 1024

void string_table_init(struct string_table *t)
{
	memset(t, 0, sizeof(*t));
}

void string_table_free(struct string_table *t)
{
	free(t->arena);
	free(t->offsets);
	free(t->slots);
	string_table_init(t);
}

/* FNV-1a over the bytes, then the seeded mix (the strings come from the
 * trace). */
static uint64_t string_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return hash_mix64(h);
}

/* The slot of s: the one holding it, or the empty one it would go in;
 * NULL when the table has no slots yet. */
static struct string_slot *string_slot_find(const struct string_table *t, const char *s,
					    size_t len, uint32_t hash)
{
	if (!t->slots)
		return NULL;
	for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
		struct string_slot *slot = &t->slots[i];
		const char *have;

		if (!slot->index_plus1)
			return slot;
		if (slot->hash != hash)
			continue;
		have = t->arena + t->offsets[slot->index_plus1 - 1];
		if (strncmp(have, s, len) == 0 && have[len] == '\0')
			return slot;
	}
}

/* Doubles the index (or makes its first one) when it is half full. */
static int string_slots_grow(struct string_table *t)
{
	size_t n = t->slots ? (t->mask + 1) * 2 : STRING_TABLE_FIRST_SLOTS;
	struct string_slot *slots, *old = t->slots;
	size_t old_n = t->slots ? t->mask + 1 : 0;

	if (t->slots && (t->count + 1) * 2 <= t->mask + 1)
		return 0;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	t->slots = slots;
	t->mask = n - 1;
	for (size_t i = 0; i < old_n; i++) {
		size_t j = old[i].hash & t->mask;

		if (!old[i].index_plus1)
			continue;
		while (slots[j].index_plus1)
			j = (j + 1) & t->mask;
		slots[j] = old[i];
	}
	free(old);
	return 0;
}

/* Room for `more` elements of elem bytes after len in *v (capacity *cap). */
static int reserve(void **v, size_t *cap, size_t len, size_t more, size_t elem)
{
	size_t n = *cap ? *cap : 256;
	void *p;

	if (more <= *cap - len)
		return 0;
	while (more > n - len) {
		if (n > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		n *= 2;
	}
	p = realloc(*v, n * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

int64_t string_table_intern(struct string_table *t, const char *s)
{
	size_t len = strlen(s);
	uint32_t hash = (uint32_t)string_hash(s, len);
	struct string_slot *slot;

	if (string_slots_grow(t) < 0)
		return -ENOMEM;
	slot = string_slot_find(t, s, len, hash);
	if (slot->index_plus1)
		return slot->index_plus1 - 1;
	if (t->count >= UINT32_MAX - 1 ||
	    reserve((void **)&t->arena, &t->arena_cap, t->arena_len, len + 1, 1) < 0 ||
	    reserve((void **)&t->offsets, &t->cap, t->count, 1, sizeof(*t->offsets)) < 0)
		return -ENOMEM;
	memcpy(t->arena + t->arena_len, s, len + 1);
	t->offsets[t->count] = t->arena_len;
	t->arena_len += len + 1;
	slot->index_plus1 = (uint32_t)++t->count;
	slot->hash = hash;
	return slot->index_plus1 - 1;
}

int64_t string_table_find(const struct string_table *t, const char *s)
{
	size_t len = strlen(s);
	const struct string_slot *slot = string_slot_find(t, s, len, (uint32_t)string_hash(s, len));

	return slot && slot->index_plus1 ? (int64_t)slot->index_plus1 - 1 : -1;
}
