/*
 * runtime_names.c - a program whose allocating functions carry the names of
 * the C functions of a runtime linked into its executable, as OCaml's native
 * programs and Erlang's beam.smp are (no library of the runtime's own in the
 * stacks): argv[1] "ocaml" allocates through caml_alloc_for_heap, "erlang"
 * through erts_alloc_init, anything else through plain_alloc; each makes 10
 * blocks of 1000 bytes and frees them.  Facts: tests/e2e/runtime-names.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

/* volatile: the compiler keeps each malloc/free pair */
NOINLINE void *caml_alloc_for_heap(size_t size_bytes) { void *volatile p = malloc(size_bytes); return p; }
NOINLINE void *erts_alloc_init(size_t size_bytes) { void *volatile p = malloc(size_bytes); return p; }
NOINLINE void *plain_alloc(size_t size_bytes) { void *volatile p = malloc(size_bytes); return p; }

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	void *(*alloc)(size_t) = strcmp(how, "ocaml") == 0 ? caml_alloc_for_heap :
				 strcmp(how, "erlang") == 0 ? erts_alloc_init : plain_alloc;
	void *blocks[10];

	for (int i = 0; i < 10; i++)
		blocks[i] = alloc(1000);
	for (int i = 0; i < 10; i++)
		free(blocks[i]);
	printf("blocks 10\n");
	return 0;
}
