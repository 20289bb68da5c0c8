/*
 * examples/demo.c - the program `make demo` profiles: a toy log indexer with
 * one allocation pattern of each kind a heap profiler should show.
 *   parse_line     many short-lived (temporary) line buffers
 *   index_word     a growing hash index (the heap peak), freed at the end
 *   remember_error 7 blocks of 1024 bytes that are never freed (a leak)
 * Deterministic: the same run gives the same report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

struct entry {
	char *word;
	struct entry *next;
};

static struct entry *buckets[4096];
static char *errors[16];

static NOINLINE char *parse_line(unsigned i)
{
	char *line = malloc(128);

	snprintf(line, 128, "event %u word%u status=%s", i, i % 5000, i % 997 ? "ok" : "error");
	return line;
}

static NOINLINE void index_word(const char *word)
{
	unsigned h = 5381;

	for (const char *p = word; *p; p++)
		h = h * 33 + (unsigned char)*p;
	for (struct entry *e = buckets[h % 4096]; e; e = e->next)
		if (strcmp(e->word, word) == 0)
			return;
	struct entry *e = malloc(sizeof(*e));
	e->word = strdup(word);
	e->next = buckets[h % 4096];
	buckets[h % 4096] = e;
}

static NOINLINE void remember_error(unsigned n, const char *line)
{
	errors[n] = malloc(1024);
	snprintf(errors[n], 1024, "error in: %s", line);
}

static void free_index(void)
{
	for (unsigned i = 0; i < 4096; i++) {
		while (buckets[i]) {
			struct entry *e = buckets[i];

			buckets[i] = e->next;
			free(e->word);
			free(e);
		}
	}
}

int main(void)
{
	unsigned nerrors = 0;

	for (unsigned i = 0; i < 20000; i++) {
		char *line = parse_line(i);
		char word[32];

		if (sscanf(line, "event %*u %31s", word) == 1)
			index_word(word);
		if (strstr(line, "error") && nerrors < 7)
			remember_error(nerrors++, line);
		free(line);
	}
	free_index();
	printf("indexed 20000 lines, %u errors kept\n", nerrors);
	return 0;
}
