// long_name.cpp - an allocation in a function whose demangled name is long:
// a template instantiated with a type nested four levels deep, each level
// naming the one below four times (over 1000 characters), as C++ libraries'
// names often are.  Writers must keep such names whole.
//
// Expected facts (tests/e2e/report-pprof.sh): keep_one<...>: 3 allocations of
// 48 bytes, all live at exit; its name starts with "void* keep_one<Node<Node<"
// and is longer than 1000 characters.
// stdout: "kept 3\n"
#include <cstdio>
#include <cstdlib>

template <class A, class B, class C, class D> struct Node {};
typedef Node<int, long, short, char> L1;
typedef Node<L1, L1, L1, L1> L2;
typedef Node<L2, L2, L2, L2> L3;
typedef Node<L3, L3, L3, L3> L4;

static void *volatile kept[3];

template <class T> __attribute__((noinline)) void *keep_one(int i)
{
	kept[i] = malloc(48);
	return kept[i];
}

int main()
{
	int n = 0;

	for (int i = 0; i < 3; i++)
		n += keep_one<Node<L4, int, int, int> >(i) != nullptr;
	printf("kept %d\n", n);
	return 0;
}
