/*
 * symbol_probe.c - what a program finds when it looks an allocator name
 * up: dlsym(RTLD_DEFAULT, NAME) for each NAME on the command line, and the
 * weak references of C23's sized frees, which glibc 2.36 lacks (a program
 * that calls them where they exist and free elsewhere).  Under mprof it must
 * find exactly what it finds natively.
 *
 * Usage: symbol_probe NAME...
 * stdout: "NAME found" or "NAME missing", one line per NAME, then "weak
 * free_sized: found|missing" and "weak free_aligned_sized: found|missing".
 * Allocations: one malloc(64), freed by free_sized when the weak reference
 * is found, else by free; dlsym's own for a name it lacks (its error text).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

extern void free_sized(void *p, size_t size_bytes) __attribute__((weak));
extern void free_aligned_sized(void *p, size_t align_bytes, size_t size_bytes)
	__attribute__((weak));

int main(int argc, char **argv)
{
	void *p = malloc(64);

	for (int i = 1; i < argc; i++)
		printf("%s %s\n", argv[i], dlsym(RTLD_DEFAULT, argv[i]) ? "found" : "missing");
	printf("weak free_sized: %s\n", free_sized ? "found" : "missing");
	printf("weak free_aligned_sized: %s\n", free_aligned_sized ? "found" : "missing");
	if (free_sized)
		free_sized(p, 64);
	else
		free(p);
	return 0;
}
