// cxx_new_delete.cpp - every C++ allocation form, each from its own noinline
// function (libstdc++ implements them on top of malloc / aligned_alloc /
// free).  The report must show the function that used new, never a frame
// named "operator new..." (allocator wrappers are not sites).
//
// Expected facts (tests/e2e/cxx-new-delete.sh; "N / B" = allocations /
// bytes, "leak" = blocks / bytes live at exit):
//   use_new             5 x new Obj (40 bytes), 3 deleted   5 / 200   leak 2 / 80
//   use_new_array       3 x new int[25] (100 bytes, no cookie: trivial
//                       destructor), 2 delete[]d            3 / 300   leak 1 / 100
//   use_sized_delete    4 x new Big (72 bytes), deleted with the sized
//                       operator delete(void *, size_t)     4 / 288   leak 0 / 0
//   use_aligned_new     3 x new Aligned (alignas(64), 192 bytes), 2 deleted
//                       (operator new(size_t, align_val_t)) 3 / 576   leak 1 / 192
//   use_nothrow_new     2 x new (std::nothrow) char[333]    2 / 666   leak 2 / 666
// stdout: "cxx forms done\n"
#include <cstdio>
#include <new>

#define NOINLINE __attribute__((noinline))

struct Obj {
	long v[5];
};
struct Big {
	long v[9];
	~Big() {}
};
struct alignas(64) Aligned {
	char c[192];
};

static void *volatile keep[32];
static int nkeep;

NOINLINE static void use_new()
{
	Obj *p[5];
	for (int i = 0; i < 5; i++) {
		p[i] = new Obj();
		keep[20] = p[i];
	}
	for (int i = 0; i < 3; i++)
		delete p[i];
	keep[nkeep++] = p[3];
	keep[nkeep++] = p[4];
}

NOINLINE static void use_new_array()
{
	for (int i = 0; i < 3; i++) {
		int *a = new int[25];
		keep[21] = a;
		if (i < 2)
			delete[] a;
		else
			keep[nkeep++] = a;
	}
}

NOINLINE static void use_sized_delete()
{
	for (int i = 0; i < 4; i++) {
		Big *b = new Big();
		keep[22] = b;
		delete b; // -fsized-deallocation (default since C++14): operator delete(void *, size_t)
	}
}

NOINLINE static void use_aligned_new()
{
	for (int i = 0; i < 3; i++) {
		Aligned *a = new Aligned();
		keep[23] = a;
		if (i < 2)
			delete a;
		else
			keep[nkeep++] = a;
	}
}

NOINLINE static void use_nothrow_new()
{
	for (int i = 0; i < 2; i++)
		keep[nkeep++] = new (std::nothrow) char[333];
}

int main()
{
	use_new();
	use_new_array();
	use_sized_delete();
	use_aligned_new();
	use_nothrow_new();
	std::printf("cxx forms done\n");
	return 0;
}
