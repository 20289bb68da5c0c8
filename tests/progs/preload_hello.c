/*
 * preload_hello.c - a tiny LD_PRELOAD library of the user's own: its
 * constructor prints one line on stderr naming the executable it runs in,
 * and leaks one block.  mprof must keep it preloaded (append to, not
 * replace, an existing LD_PRELOAD).
 *
 * Expected facts (tests/e2e/transparency.sh): the program's stderr has the
 * line "hello from preload_hello in transparency" exactly once;
 * hello_ctor_leak: 1 block / 4321 bytes live at exit.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep;

__attribute__((noinline)) static void hello_ctor_leak(void) { keep = malloc(4321); }

__attribute__((constructor)) static void hello_ctor(void)
{
	char exe[4096], line[4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	size_t len = strlen(base);
	memcpy(line, "hello from preload_hello in ", 28);
	memcpy(line + 28, base, len);
	line[28 + len] = '\n';
	(void)!write(2, line, 29 + len);
	hello_ctor_leak();
}
