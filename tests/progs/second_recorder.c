/*
 * second_recorder.c - loads the recorder a second time into the same
 * process, as a guest program under qemu-user does, with dlmopen() into a
 * namespace of its own: the first library of LD_PRELOAD (tests/e2e/
 * real4-second-recorder.sh).  Without LD_PRELOAD it loads nothing.  Then
 * 40 blocks of 48 bytes from make_blocks (never freed), prints "loaded"
 * or "alone" and exits with status 5.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *volatile second_recorder_sink;

__attribute__((noinline)) void make_blocks(void)
{
	for (int i = 0; i < 40; i++)
		second_recorder_sink = malloc(48);
}

int main(void)
{
	const char *preload = getenv("LD_PRELOAD");
	char lib[4096] = "";
	void *h = NULL;

	if (preload && preload[0]) {
		snprintf(lib, sizeof(lib), "%s", preload);
		lib[strcspn(lib, " :")] = '\0';
		h = dlmopen(LM_ID_NEWLM, lib, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
	}
	make_blocks();
	puts(h ? "loaded" : "alone");
	return 5;
}
