/*
 * preload/stack_scrub.c - zeroes the stack below the caller (see
 * preload/stack_scrub.h).  Must not call malloc.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "preload/seccomp_watch.h"
#include "preload/stack_scrub.h"

/* Whether any of the 8 words at line is set: plain loads (SSE2 where there
 * is) of memory the compiler is told nothing about, as they read the stack
 * below live frames. */
static inline int stack_scrub_line_set(volatile uint64_t *line)
{
	const uint64_t *w = (const uint64_t *)line;

	__asm__("" : "+r"(w));
#ifdef __SSE2__
	__m128i a = _mm_or_si128(_mm_loadu_si128((const __m128i *)w),
				 _mm_loadu_si128((const __m128i *)w + 1));
	__m128i b = _mm_or_si128(_mm_loadu_si128((const __m128i *)w + 2),
				 _mm_loadu_si128((const __m128i *)w + 3));

	a = _mm_or_si128(a, b);
	return _mm_movemask_epi8(_mm_cmpeq_epi8(a, _mm_setzero_si128())) != 0xffff;
#else
	return (w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) != 0;
#endif
}

/* 1: scrubs store without reading (preload_stack_scrub_blind). */
static int stack_scrub_blind_stores;

void preload_stack_scrub_blind(void)
{
	stack_scrub_blind_stores = 1;
}

/* Zeroes the words of below[0..words) that are not zero: a page no word of
 * which is set is only read.  Reads 64 bytes at a time and stores only into
 * a line with a word set (the whole line): a word at a time took ~550 ns for
 * the 8 KiB of a deep scrub, made at each call site cache miss
 * (bench/HISTORY.md, session 62). */
static inline void stack_scrub_words(volatile uint64_t *below, size_t words)
{
	size_t lines = words / 8;

	if (__builtin_expect(stack_scrub_blind_stores, 0)) {
		for (size_t i = 0; i < words; i++)
			below[i] = 0;
		return;
	}
	for (size_t line = 0; line < lines; line++)
		if (stack_scrub_line_set(below + 8 * line))
			for (size_t j = 8 * line; j < 8 * line + 8; j++)
				below[j] = 0;
	for (size_t i = 8 * lines; i < words; i++)
		if (below[i])
			below[i] = 0;
}

/* Out of line, so that its array lies below the caller's frame, where the
 * returned path's frames were; volatile, as stores to a dead array may be
 * dropped by the compiler. */
__attribute__((noinline)) void preload_stack_scrub(void)
{
	volatile uint64_t below[PRELOAD_STACK_SCRUB_BYTES / sizeof(uint64_t)];

	stack_scrub_words(below, sizeof(below) / sizeof(below[0]));
}

/* Dropped or unmapped pages the program may have made since a thread
 * learnt its known run: bumped after each such call (stack_scrub_forget). */
static unsigned stack_scrub_epoch;

void stack_scrub_forget(void)
{
	__atomic_add_fetch(&stack_scrub_epoch, 1, __ATOMIC_RELEASE);
}

/* Learns into known the run of resident pages that ends with the page
 * holding last, from mincore's answer resident[] for the pages from first
 * on, learnt at epoch: joined with the run known when they meet. */
static void stack_scrub_learn(struct stack_scrub_known *known, const unsigned char *resident,
			      uintptr_t first, uintptr_t last, unsigned epoch)
{
	uintptr_t lo = last + 4096, hi = last + 4096;

	while (lo > first && (resident[(lo - 4096 - first) / 4096] & 1))
		lo -= 4096;
	if (lo == hi)
		return;
	if (known->epoch == epoch && known->lo < known->hi && lo <= known->hi && hi >= known->lo) {
		known->lo = lo < known->lo ? lo : known->lo;
		known->hi = hi > known->hi ? hi : known->hi;
		return;
	}
	known->lo = lo;
	known->hi = hi;
	known->epoch = epoch;
}

/* Only the pages of the deep scrub's range that are resident: a page the
 * thread never touched holds nothing stale, and reading it would make it
 * resident where the kernel maps no shared zero page (this PVM guest): an
 * 8 KiB memset put 10 KiB more into each of 64 threads' memory
 * (tests/e2e/thread-stacks.sh).  mincore (1.8 us here) says which, unless
 * the range lies in the thread's known run; the epoch is read before it, so
 * a page dropped while it runs is asked about again.  Under a seccomp
 * filter, which may kill mincore, the top PRELOAD_STACK_SCRUB_BYTES only. */
__attribute__((noinline)) void preload_stack_scrub_deep(struct stack_scrub_known *known)
{
	volatile uint64_t below[PRELOAD_STACK_SCRUB_DEEP_BYTES / sizeof(uint64_t)];
	const size_t words = sizeof(below) / sizeof(below[0]), page_words = 4096 / sizeof(uint64_t);
	unsigned char resident[PRELOAD_STACK_SCRUB_DEEP_BYTES / 4096 + 2];
	uintptr_t first = (uintptr_t)below & ~(uintptr_t)4095;
	uintptr_t end = (uintptr_t)(below + words), last = (end - 1) & ~(uintptr_t)4095;
	unsigned epoch = __atomic_load_n(&stack_scrub_epoch, __ATOMIC_ACQUIRE);
	size_t i = 0;

	if (known->epoch == epoch && first >= known->lo && end <= known->hi) {
		stack_scrub_words(below, words);
		return;
	}
	if (seccomp_watch_filtered() || mincore((void *)first, end - first, resident) != 0) {
		stack_scrub_words(below + words - PRELOAD_STACK_SCRUB_BYTES / sizeof(uint64_t),
				  PRELOAD_STACK_SCRUB_BYTES / sizeof(uint64_t));
		return;
	}
	stack_scrub_learn(known, resident, first, last, epoch);
	while (i < words) {
		uintptr_t at = (uintptr_t)(below + i);
		size_t n = page_words - (at & 4095) / sizeof(uint64_t);

		if (n > words - i)
			n = words - i;
		if (resident[(at - first) / 4096] & 1)
			stack_scrub_words(below + i, n);
		i += n;
	}
}
