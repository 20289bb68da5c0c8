/*
 * wording_max_live.c - one site of two call stacks that symbolize alike,
 * for the report's "max live" beside "live at heap peak"
 * (tests/e2e/wording-report.sh).  grab() calls malloc from two call
 * instructions on one line (GRAB_LINE), so its blocks have two stacks
 * and one site:
 *   1. big: one block of 1000 B (its own site); grab(100) from the first
 *      call: 100 B live with it (the heap peak, 1100 B in 2 blocks), then
 *      both freed
 *   2. grab(20) three times from the second call, 60 B live at once, then
 *      freed
 * The site: live at heap peak 100 B in 1 block; its stacks' maxima 100 B / 1
 * block and 60 B / 3 blocks sum to 160 B / 4 blocks, though it never had
 * more than 100 B or 3 blocks live.  Prints nothing; exits with status 0.
 */
#include <stdlib.h>

void *volatile wording_keep;

__attribute__((noinline)) static void *grab(size_t n)
{
	return n > 50 ? malloc(n) : malloc(n); /* GRAB_LINE */
}

int main(void)
{
	void *big = malloc(1000), *small[3];

	wording_keep = big;
	for (int round = 0; round < 2; round++) {
		size_t size = round ? 20 : 100;
		int count = round ? 3 : 1;

		for (int i = 0; i < count; i++)
			small[i] = grab(size); /* one call: one caller frame */
		for (int i = 0; i < count; i++)
			free(small[i]);
		if (round == 0)
			free(big);
	}
	return 0;
}
