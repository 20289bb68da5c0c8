/*
 * fake_python_main.c - runs fake_python.c's allocation paths: `pymalloc`
 * or `malloc` as its argument.  Expected facts: 40 allocations of 48 B
 * from gc_alloc (20 freed, 20 live at exit), and with pymalloc one realloc
 * of 128 B from new_arena; stdout "fake_python MODE" (its buffer one more
 * block).
 */
#include <stdio.h>
#include <string.h>

void fake_py_run(int pymalloc, int n);

int main(int argc, char **argv)
{
	int pymalloc = argc > 1 && strcmp(argv[1], "pymalloc") == 0;

	fake_py_run(pymalloc, 40);
	printf("fake_python %s\n", pymalloc ? "pymalloc" : "malloc");
	return 0;
}
