// 22-cxx-exceptions.cpp - C++ exceptions unwinding through frames around
// heap activity (hard case 22).
//
// The hard situation: the C++ runtime allocates every exception object on
// the heap (__cxa_allocate_exception -> malloc) and frees it when the catch
// block ends; std::runtime_error / std::logic_error also allocate their
// message; when a constructor called by `new T(...)` throws, the compiler's
// cleanup code hands the fresh storage back to operator delete; and a `new`
// of an impossible size makes malloc fail and operator new throw
// std::bad_alloc.  Profilers that keep their own shadow stack or patch
// return addresses broke here: the unwinder skips their bookkeeping (a crash
// on the first throw, bytehound #17), or the frees done by the runtime during
// unwinding were missed and every caught exception showed up as a leak
// (bytehound #119).  A failed malloc must not be counted as an allocation.
//
// What it does:
//   - 4 threads, 500 throws each: parse_field() descends through
//     descend() (PARSE_DEPTH nested frames) and throws a runtime_error with a
//     built message; the catch is in parse_record(), several frames up;
//   - build_gadget(), 1000 times: `new Gadget(...)` (256 bytes); the
//     constructor (not inlined, its decision hidden behind a volatile) throws
//     a logic_error, so the 256-byte storage is freed by the runtime;
//   - ask_for_too_much(): `new char[1 << 62]`, caught std::bad_alloc;
//   - leak_on_purpose(): `new int[100]` kept forever.
//
// Expected facts (tests/cases/22-cxx-exceptions.sh):
//   1. exit status 0; stdout exactly
//      "runtime_error caught: 2000, gadget failures: 1000, bad_alloc caught: 1"
//   2. 0 bytes live at exit in parse_record, parse_field, build_gadget,
//      Gadget::Gadget, ask_for_too_much; 2000 exception objects
//      (__cxa_allocate_exception under parse_field, one per throw);
//   3. build_gadget: 1000 allocations of exactly 256 bytes (new Gadget, the
//      only ones outside the constructor), 1000 exception objects under
//      Gadget::Gadget, 0 blocks live at exit;
//   4. no site with 2^40 bytes or more: the failed new is not an allocation,
//      the one allocation under ask_for_too_much is the bad_alloc object;
//   5. leak_on_purpose: 1 allocation of 400 bytes, 1 block / 400 bytes live
//      at exit; no frame named "operator new..." in any site.
#include <cstddef>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#define NOINLINE __attribute__((noinline))

enum {
	THROWERS = 4,
	THROWS_PER_THREAD = 500,
	GADGETS = 1000,
	PARSE_DEPTH = 6,
};

// ---- runtime_error thrown several frames below its handler -------------

// Always true; volatile so that the compiler cannot treat the throwing
// functions as never returning (and drop the frames between them).
static volatile bool fields_refuse = true;
static volatile unsigned frames_left;

NOINLINE static void parse_field(int record)
{
	if (fields_refuse)
		throw std::runtime_error("record " + std::to_string(record) +
					 ": field cannot be parsed (by design)");
}

NOINLINE static void descend(int record, int depth)
{
	if (depth == 0)
		parse_field(record);
	else
		descend(record, depth - 1);
	frames_left = frames_left + 1; // no tail call: every frame stays
}

NOINLINE static int parse_record(int record)
{
	try {
		descend(record, PARSE_DEPTH);
	} catch (const std::runtime_error &err) {
		return err.what()[0] == 'r';
	}
	return 0;
}

static void parse_many(int first, int *caught)
{
	for (int k = 0; k < THROWS_PER_THREAD; k++)
		*caught += parse_record(first + k);
}

// ---- a constructor that throws after `new` got the storage -------------

static volatile bool gadgets_refuse = true; // always true, see fields_refuse

struct Gadget {
	unsigned char body[256];

	NOINLINE explicit Gadget(int serial)
	{
		if (gadgets_refuse)
			throw std::logic_error("gadget " + std::to_string(serial) +
					       " refused to be built");
		body[0] = (unsigned char)serial;
	}
};

static Gadget *volatile last_gadget;

NOINLINE static int build_gadget(int serial)
{
	try {
		// When the constructor throws, the compiler frees this storage
		// with operator delete before the handler runs.
		last_gadget = new Gadget(serial);
	} catch (const std::logic_error &) {
		return 1;
	}
	delete last_gadget;
	return 0;
}

// ---- operator new whose malloc fails ----------------------------------

static char *volatile far_too_much;

NOINLINE static int ask_for_too_much(void)
{
	volatile std::size_t bytes = std::size_t(1) << 62;

	try {
		far_too_much = new char[bytes];
	} catch (const std::bad_alloc &) {
		return 1;
	}
	delete[] far_too_much;
	return 0;
}

// ---- the only leak -----------------------------------------------------

static int *volatile forgotten;

NOINLINE static void leak_on_purpose(void)
{
	forgotten = new int[100];
}

int main()
{
	int caught[THROWERS] = {};
	std::vector<std::thread> workers;

	for (int t = 1; t < THROWERS; t++)
		workers.emplace_back(parse_many, t * THROWS_PER_THREAD, &caught[t]);
	parse_many(0, &caught[0]);
	for (auto &w : workers)
		w.join();

	int failures = 0;
	for (int s = 0; s < GADGETS; s++)
		failures += build_gadget(s);
	int bad_alloc = ask_for_too_much();
	leak_on_purpose();

	int runtime_errors = 0;
	for (int c : caught)
		runtime_errors += c;
	std::printf("runtime_error caught: %d, gadget failures: %d, bad_alloc caught: %d\n",
		    runtime_errors, failures, bad_alloc);
	return runtime_errors == THROWERS * THROWS_PER_THREAD && failures == GADGETS &&
			       bad_alloc == 1
		       ? 0
		       : 1;
}
