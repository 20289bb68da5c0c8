/*
 * rbp_new.cpp - C++ operator new called straight from functions whose CFA
 * is rbp-based (alloca), with an allocator linked in that serves new
 * itself (tests/progs/own_new_alloc.c, as jemalloc does): the recorder's
 * wrappers of new read the caller's rbp (preload/new_wrap.c), so these
 * stacks are found in the call-site cache instead of captured at every
 * call.
 *
 * Expected facts (tests/e2e/rbp-new.sh), run with MPROF_UNWIND=check:
 * no capture differs from libunwind's, no reused stack from a full walk,
 * at least 7900 of the 8000 stacks come from the call-site cache.  Each
 * function makes CALLS (2000) allocations, all deleted:
 *   new_array: new char[40] (80000 bytes); new_object: new of a 24-byte
 *   struct (48000); new_nothrow: new (nothrow) int[4] (32000);
 *   new_aligned: new of a 64-byte struct aligned to 64 (128000).
 * stdout: "rbp new: done\n".
 */
#include <alloca.h>
#include <cstdio>
#include <new>

#define CALLS 2000

struct Obj {
	long a, b, c;
};

struct alignas(64) Line {
	char bytes[64];
};

static volatile char sink;

/* Each has alloca in its frame: the CFA is rbp-based. */
#define ALLOCA_FN(name, type, stmt)                           \
	__attribute__((noinline)) static type name(size_t n)  \
	{                                                     \
		volatile char *scratch = (char *)alloca(n);   \
		type p;                                       \
                                                              \
		scratch[0] = 1;                               \
		stmt;                                         \
		sink = scratch[0];                            \
		return p;                                     \
	}

ALLOCA_FN(new_array, char *, p = new char[40])
ALLOCA_FN(new_object, Obj *, p = new Obj)
ALLOCA_FN(new_nothrow, int *, p = new (std::nothrow) int[4])
ALLOCA_FN(new_aligned, Line *, p = new Line)

int main()
{
	for (int i = 0; i < CALLS; i++) {
		size_t n = 8 + (size_t)(i % 5) * 40;

		delete[] new_array(n);
		delete new_object(n);
		delete[] new_nothrow(n);
		delete new_aligned(n);
	}
	std::puts("rbp new: done");
	return 0;
}
