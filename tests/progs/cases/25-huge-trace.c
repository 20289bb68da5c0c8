/*
 * 25-huge-trace.c - three million short-lived allocations from 500 distinct
 * functions (hard case 25).
 *
 * The hard situation: a big capture.  Natively the program takes a fraction
 * of a second, yet it makes 3 001 000 allocations from 501 call sites.
 * Profilers have stalled the program while compressing their data
 * (bytehound #66), failed to read back a large capture (memray #802) or shown
 * an empty summary for one (memray #555).  The profiler must keep up, keep the
 * trace compact, and the report must still be exact for every single site.
 *
 * What it does: 500 functions point_100 ... point_599 (made by an X-macro
 * over the digits); point_N allocates N + 8 bytes and frees the block at once.
 * Each of the 6000 rounds calls every point once, in the order
 * (k * 7) mod 500, k = 0..499 (7 is prime to 500, so each round is a
 * permutation).  Halfway through, hold_many() keeps 1000 blocks of 1000
 * bytes alive together and drop_many() frees them: that is the heap peak.
 *
 * Expected facts (tests/cases/25-huge-trace.sh):
 *   1. exit status 0; stdout exactly "allocations: 3001000";
 *   2. `mprof run` within 60 s, `mprof report` within 60 s;
 *   3. point_*: 3 000 000 allocations in all; point_N: 6000 allocations,
 *      6000 * (N + 8) bytes (point_100: 648 000, point_599: 3 642 000),
 *      0 bytes live at exit;
 *   4. hold_many: 1000 allocations, 1 000 000 bytes, 0 live at exit,
 *      1 000 000 bytes live at the heap peak; the heap peak is between
 *      1 000 000 and 1 100 000 bytes; `mprof diff` of the trace with itself
 *      finds no difference;
 *   5. the trace file is at most 100 MiB.
 */
#include <stdio.h>
#include <stdlib.h>

#define POINTS 500
#define ROUNDS 6000
#define STRIDE 7
#define HELD 1000
#define HELD_BYTES 1000

static void *volatile last_block;

/* DIGITS(X, p) applies X to p0 ... p9 (token pasting). */
#define DIGITS(X, p) X(p##0) X(p##1) X(p##2) X(p##3) X(p##4) \
		     X(p##5) X(p##6) X(p##7) X(p##8) X(p##9)
#define TENS(X, p) DIGITS(X, p##0) DIGITS(X, p##1) DIGITS(X, p##2) \
		   DIGITS(X, p##3) DIGITS(X, p##4) DIGITS(X, p##5) \
		   DIGITS(X, p##6) DIGITS(X, p##7) DIGITS(X, p##8) \
		   DIGITS(X, p##9)
/* Numbers 100 ... 599: no leading zero, so no octal surprise in N + 8. */
#define EVERY_POINT(X) TENS(X, 1) TENS(X, 2) TENS(X, 3) TENS(X, 4) TENS(X, 5)

#define DEFINE_POINT(n)						\
	__attribute__((noinline)) static void point_##n(void)	\
	{							\
		void *block = malloc((n) + 8);			\
		last_block = block;				\
		free(block);					\
	}
EVERY_POINT(DEFINE_POINT)

#define LIST_POINT(n) point_##n,
static void (*const points[POINTS])(void) = { EVERY_POINT(LIST_POINT) };

static void *held[HELD];

__attribute__((noinline)) static void hold_many(void)
{
	for (int i = 0; i < HELD; i++)
		held[i] = malloc(HELD_BYTES);
}

__attribute__((noinline)) static void drop_many(void)
{
	for (int i = 0; i < HELD; i++)
		free(held[i]);
}

int main(void)
{
	long made = 0;

	for (int round = 0; round < ROUNDS; round++) {
		for (int k = 0; k < POINTS; k++)
			points[k * STRIDE % POINTS]();
		made += POINTS;
		if (round == ROUNDS / 2) {
			hold_many();
			drop_many();
			made += HELD;
		}
	}
	printf("allocations: %ld\n", made);
	return 0;
}
