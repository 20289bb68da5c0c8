/*
 * one_each.c - a program whose every count is 1, for the words after a
 * count ("1 block", not "1 blocks") in the report's pages.
 *
 * Expected facts: churn: malloc(30) and its free (1 free); then grow:
 * malloc(10), realloc to 20 (1 realloc of a live block), live at exit: 1
 * leaked block of 20 B; the heap peak is 1 block (30 B, churn's).  stdout
 * "one_each\n" through write(2), so no stdio buffer is allocated.
 */
#include <stdlib.h>
#include <unistd.h>

static void *volatile keep;

__attribute__((noinline)) static void churn(void)
{
	void *volatile p = malloc(30);

	free(p);
}

__attribute__((noinline)) static void grow(void)
{
	char *p = malloc(10);

	keep = realloc(p, 20);
}

int main(void)
{
	churn();
	grow();
	return write(1, "one_each\n", 9) == 9 ? 0 : 1;
}
