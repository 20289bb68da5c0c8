/*
 * tests/progs/exec_it.c - keeps one block of 55 B, then executes its
 * arguments (tests/e2e/env-drop.sh: the image is then in state "exec",
 * its block live at exec).  Exit status 127 when the exec fails.
 */
#include <stdlib.h>
#include <unistd.h>

static void *volatile kept;

int main(int argc, char **argv)
{
	(void)argc;
	kept = malloc(55);
	execv(argv[1], argv + 1);
	return 127;
}
