/*
 * hostile_names_lib.c - a library whose function names are hostile, for
 * tests/e2e/hostile-names.sh.  Built with -DNAME_A=... to -DNAME_E=...
 * placeholders of the hostile names' lengths, which the test then writes
 * over, byte for byte, in the built file (symbol tables and debug info), so
 * that the names hold bytes no C identifier can: newline, tab, ';', '<',
 * '"', ESC, invalid UTF-8.  The functions are static, so no lookup by name
 * ever needs the placeholders.
 *
 * hostile_names_run() makes, per call, one allocation in each function:
 * A 1001 B, B 1002 B, C 1003 B, D 1004 B, E 1005 B, each leaked.
 */
#include <stdlib.h>

#define HOSTILE_FN static __attribute__((noinline, noclone, used)) void *

HOSTILE_FN NAME_A(size_t bytes) { return malloc(bytes); }
HOSTILE_FN NAME_B(size_t bytes) { return malloc(bytes); }
HOSTILE_FN NAME_C(size_t bytes) { return malloc(bytes); }
HOSTILE_FN NAME_D(size_t bytes) { return malloc(bytes); }
HOSTILE_FN NAME_E(size_t bytes) { return malloc(bytes); }

/* The blocks stay reachable here, so that they are leaks by mprof's count
 * only (live at exit), not freed. */
void *hostile_names_blocks[5];

void hostile_names_run(void)
{
	hostile_names_blocks[0] = NAME_A(1001);
	hostile_names_blocks[1] = NAME_B(1002);
	hostile_names_blocks[2] = NAME_C(1003);
	hostile_names_blocks[3] = NAME_D(1004);
	hostile_names_blocks[4] = NAME_E(1005);
}
