// tests/progs/boost_fibers.cpp - a generator on a boost.coroutine2 stack of
// a given size (boost.context's fixedsize_stack, no guard page) that
// allocates 8 frames down (tests/e2e/boost-fibers.sh).
//
// Usage: boost_fibers BYTES
// The generator yields 0..199; before each value gen_leaf() makes a
// std::string of 100 + i % 7 characters with new (two allocations: the
// object, 32 bytes, and its buffer, one byte more than its length), kept
// until main() deletes them all.  Prints "sum 19900 kept 200".
#include <boost/coroutine2/all.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

typedef boost::coroutines2::coroutine<int> coro_t;
static std::vector<std::string *> kept;

__attribute__((noinline)) static std::string *gen_leaf(int i)
{
	return new std::string(100 + i % 7, 'x');
}

__attribute__((noinline)) static void gen_descend(coro_t::push_type &sink, int n, int i)
{
	if (n) {
		gen_descend(sink, n - 1, i);
		__asm__ volatile("" ::: "memory");
		return;
	}
	kept.push_back(gen_leaf(i));
}

static void gen_body(coro_t::push_type &sink)
{
	for (int i = 0; i < 200; i++) {
		gen_descend(sink, 6, i);
		sink(i);
	}
}

int main(int argc, char **argv)
{
	size_t bytes = argc > 1 ? (size_t)atol(argv[1]) : 8192;
	long sum = 0;
	coro_t::pull_type source(boost::coroutines2::fixedsize_stack(bytes), gen_body);

	for (int v : source)
		sum += v;
	printf("sum %ld kept %zu\n", sum, kept.size());
	for (auto *s : kept)
		delete s;
	return 0;
}
