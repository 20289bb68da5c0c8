/*
 * fake_python.c - a stand-in for CPython's allocation paths, built as
 * libpython3.99.so so that the report takes its program for Python: its
 * static gc_alloc allocates "objects" with malloc, as CPython does under
 * PYTHONMALLOC=malloc, and with pymalloc set its static new_arena first
 * grows an arena table with realloc, as pymalloc's first arena does.
 * (tests/e2e/python-allocator.sh; the program: fake_python_main.c.)
 */
#include <stdlib.h>

static void *volatile keep[64];
static void *volatile arenas;

static __attribute__((noinline)) void *gc_alloc(size_t size_bytes)
{
	return malloc(size_bytes);
}

static __attribute__((noinline)) void new_arena(void)
{
	arenas = realloc(arenas, 16 * sizeof(void *));
}

/* n objects of 48 bytes, half freed; with pymalloc, after an arena. */
void fake_py_run(int pymalloc, int n)
{
	if (pymalloc)
		new_arena();
	for (int i = 0; i < n && i < 64; i++) {
		keep[i] = gc_alloc(48);
		if (i % 2)
			free(keep[i]);
	}
}
