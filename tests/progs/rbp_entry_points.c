/*
 * rbp_entry_points.c - every allocating entry point but malloc, calloc
 * and realloc (tests/progs/rbp_callers.c) called straight from a function
 * whose CFA is rbp-based (a variable-length array), as code built with
 * -fno-omit-frame-pointer calls them: the entry points read the caller's
 * rbp for the call-site cache (preload/interpose.c), so these stacks are
 * found again instead of captured at every call.
 *
 * Expected facts (tests/e2e/rbp-entry-points.sh), run with
 * MPROF_UNWIND=check: no capture differs from libunwind's, no reused stack
 * from a full walk, and at least 25000 of the 26000 stacks come from the
 * call-site cache.  Each function below makes CALLS (2000) allocations,
 * none live at exit:
 *   vla_reallocarray, vla_libc_reallocarray: one block, realloc'ed to
 *     2 x 8 bytes then 4 x 8, 2 x 8, ... (48000 bytes);
 *   vla_libc_realloc: one block, 16 bytes then 32, 16, ... (48000);
 *   vla_posix_memalign, vla_aligned_alloc, vla_memalign,
 *   vla_libc_memalign: 64 bytes aligned to 64 (128000);
 *   vla_valloc, vla_pvalloc, vla_libc_valloc, vla_libc_pvalloc: 100 bytes
 *     (200000; pvalloc is recorded at the size asked for);
 *   vla_libc_malloc: 40 bytes (80000); vla_libc_calloc: 5 x 8 (80000).
 * stdout: "rbp entry points: done\n".
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "libc_entry.h"

#define CALLS 2000

static volatile char sink;
static void *volatile grown;
static void *volatile libc_grown;
static void *volatile libc_array;

/* Each has a variable-length array: the CFA is rbp-based.  The block it
 * makes is freed by the caller, in a frame that is not rbp-based. */
#define VLA_FN(name, stmt)                                    \
	__attribute__((noinline)) static void *name(int len, int i) \
	{                                                     \
		volatile char buf[len];                       \
		void *p;                                      \
                                                              \
		buf[0] = (char)i;                             \
		buf[len - 1] = (char)i;                       \
		stmt;                                         \
		sink = buf[len / 2];                          \
		return p;                                     \
	}

VLA_FN(vla_reallocarray, p = grown = reallocarray(grown, 2 + 2 * (size_t)(i & 1), 8))
VLA_FN(vla_posix_memalign, if (posix_memalign(&p, 64, 64)) p = NULL)
VLA_FN(vla_aligned_alloc, p = aligned_alloc(64, 64))
VLA_FN(vla_memalign, p = memalign(64, 64))
VLA_FN(vla_valloc, p = valloc(100))
VLA_FN(vla_pvalloc, p = pvalloc(100))
VLA_FN(vla_libc_malloc, p = __libc_malloc(40))
VLA_FN(vla_libc_calloc, p = __libc_calloc(5, 8))
VLA_FN(vla_libc_realloc, p = libc_grown = __libc_realloc(libc_grown, 16 + 16 * (size_t)(i & 1)))
VLA_FN(vla_libc_reallocarray,
       p = libc_array = __libc_reallocarray(libc_array, 2 + 2 * (size_t)(i & 1), 8))
VLA_FN(vla_libc_memalign, p = __libc_memalign(64, 64))
VLA_FN(vla_libc_valloc, p = __libc_valloc(100))
VLA_FN(vla_libc_pvalloc, p = __libc_pvalloc(100))

/* The functions whose blocks are freed at once (the realloc'ed ones live
 * on until the end). */
static void *(*const fresh[])(int, int) = {
	vla_posix_memalign, vla_aligned_alloc, vla_memalign, vla_valloc, vla_pvalloc,
	vla_libc_malloc, vla_libc_calloc, vla_libc_memalign, vla_libc_valloc, vla_libc_pvalloc,
};

int main(void)
{
	for (size_t f = 0; f < sizeof(fresh) / sizeof(fresh[0]); f++)
		for (int i = 0; i < CALLS; i++) {
			void *p = fresh[f](8 + (i % 5) * 40, i);

			if (!p)
				return 1;
			free(p);
		}
	for (int i = 0; i < CALLS; i++) {
		if (!vla_reallocarray(8 + (i % 5) * 40, i) ||
		    !vla_libc_realloc(8 + (i % 5) * 40, i) ||
		    !vla_libc_reallocarray(8 + (i % 5) * 40, i))
			return 1;
	}
	free(grown);
	free(libc_grown);
	free(libc_array);
	puts("rbp entry points: done");
	return 0;
}
