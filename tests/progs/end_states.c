/*
 * end_states.c - keeps 7 blocks of 1024 bytes from keep_blocks, then ends as
 * its argument says: "exit" returns 0; "kill" raises SIGKILL, so the blocks
 * are live when the recording ended, not leaks; "rss" also touches 96 MiB of
 * anonymous memory that is not malloc's before returning 0.
 * Facts: keep_blocks 7 allocations, 7168 bytes, all live at the end.
 */
#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define BLOCKS 7
#define UNSEEN_BYTES (96u << 20)

static void *kept[BLOCKS];

__attribute__((noinline)) static void keep_blocks(void)
{
	for (int i = 0; i < BLOCKS; i++)
		kept[i] = malloc(1024);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";

	keep_blocks();
	/* write(2), not stdio: its buffer would be one more block */
	if (write(1, "kept 7 blocks\n", 14) != 14)
		return 1;
	if (strcmp(how, "kill") == 0)
		raise(SIGKILL);
	if (strcmp(how, "rss") == 0) {
		char *p = mmap(NULL, UNSEEN_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		memset(p, 1, UNSEEN_BYTES);
	}
	return kept[0] ? 0 : 1;
}
