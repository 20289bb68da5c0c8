/*
 * exec_as_user.c - a program that gives up root and then executes another
 * program, as su(1) and daemons that drop root do: the program it executes
 * runs as uid 65534, whose recorder cannot write in mprof's session
 * directory (root's, mode 0700), so it runs unrecorded and mprof says why.
 *
 * Facts: 3 allocations of 48 B before setuid, none freed (live at exec),
 * then execl of /bin/true, which exits 0.  Exit 77 when it cannot change
 * its user (not root); 126 when the exec fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *volatile keep[3];

int main(void)
{
	for (int i = 0; i < 3; i++)
		keep[i] = malloc(48);
	if (setgid(65534) != 0 || setuid(65534) != 0)
		return 77;
	execl("/bin/true", "true", (char *)NULL);
	perror("exec_as_user: execl");
	return 126;
}
