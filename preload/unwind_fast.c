/*
 * preload/unwind_fast.c - the hot loop of the shim's own x86_64 unwinder.
 *
 * From its own frame (registers read with inline assembly) it looks each
 * frame's lookup address up in the rule cache, computes the CFA from rsp or
 * rbp, reads the return address at CFA - 8 and the caller's rbp where the
 * rule says, and goes on until the buffer is full, the outermost frame (the
 * return address is undefined, as in _start and clone), a zero return
 * address, or a frame it shares with the previous capture (the caller then
 * takes the rest from that capture).  Every read is checked against the
 * thread's stack range first (on a stack of unknown bounds, a coroutine's or
 * a signal stack, against the pages process_vm_readv found readable), so a
 * wrong rule can only give up (return -1), never fault.
 *
 * Owns nothing: rules come from preload/cfi_cache.c, the fork guard from
 * preload/unwind.c.  Must never call malloc and never write outside the
 * caller's frame buffer.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/cfi_cache.h"
#include "preload/mem.h"
#include "preload/rec_stack.h"
#include "preload/seccomp_watch.h"
#include "preload/unwind.h"
#include "preload/unwind_fast.h"

/* unwind_fast_rule_slow's work and result. */
struct unwind_fast_fill {
	struct preload_thread *t;
	struct cfi_cache_table *tab;
	uintptr_t lookup_ip;
	cfi_packed_rule rule;
};

static uintptr_t unwind_fast_fill_here(void *arg)
{
	struct unwind_fast_fill *f = arg;

	unwind_guard_enter(f->t);
	if (!f->tab)
		f->tab = cfi_cache_table_for_now();
	if (!f->tab)
		f->tab = cfi_cache_renew();
	if (f->tab && !cfi_cache_find(f->tab, f->lookup_ip, &f->rule))
		f->rule = cfi_cache_fill(f->lookup_ip);
	f->tab = cfi_cache_table_for_now();
	unwind_guard_leave(f->t);
	return 0;
}

/*
 * A rule cache miss (or a stale table): parses the rule inside the fork
 * guard and refreshes *tab; off the thread's own stack on the recorder's
 * (the loader's dl_iterate_phdr and the parse take 1-2 KiB; the switch's
 * two system calls cost 12 us on this host, too much for cc1's misses on
 * its own stack).  Kept out of line so the hot loop stays small.
 */
static __attribute__((noinline)) cfi_packed_rule
unwind_fast_rule_slow(struct preload_thread *t, struct cfi_cache_table **tab, uintptr_t lookup_ip)
{
	struct unwind_fast_fill f = { t, *tab, lookup_ip, CFI_RULE_UNSUPPORTED };

	if (t->capture_off_stack)
		rec_stack_call(t, unwind_fast_fill_here, &f);
	else
		unwind_fast_fill_here(&f);
	*tab = f.tab;
	return f.rule;
}

/* The rule of lookup_ip: the cache, else the slow path. */
static inline cfi_packed_rule unwind_fast_rule(struct preload_thread *t,
					       struct cfi_cache_table **tab, uintptr_t lookup_ip)
{
	cfi_packed_rule rule;

	if (__builtin_expect(*tab != NULL, 1) && cfi_cache_find(*tab, lookup_ip, &rule))
		return rule;
	return unwind_fast_rule_slow(t, tab, lookup_ip);
}

struct unwind_fast_memo *unwind_fast_memo_map(uint32_t cap)
{
	size_t bytes = sizeof(struct unwind_fast_memo) + 2 * (size_t)cap * (sizeof(uintptr_t) + 8);
	struct unwind_fast_memo *m = preload_mem_map(bytes);

	if (!m)
		return NULL;
	m->cap = cap;
	m->prev_ips = (uintptr_t *)(m + 1);
	m->cur_ips = m->prev_ips + cap;
	m->prev_rules = (uint64_t *)(m->cur_ips + cap);
	m->cur_rules = m->prev_rules + cap;
	return m;
}

/* Frames either side of the expected index searched when the memo misses. */
#define UNWIND_FAST_MEMO_WINDOW 8

/*
 * The memo missed at index k: finds lookup_ip among the previous walk's
 * entries near k (the stack is deeper or shallower at the leaf side than
 * last time).  Returns 1 and updates *shift when found.
 */
static int unwind_fast_memo_resync(const struct unwind_fast_memo *memo, uint32_t count,
				   uint32_t k, uintptr_t lookup_ip, int32_t *shift)
{
	uint32_t lo = k > UNWIND_FAST_MEMO_WINDOW ? k - UNWIND_FAST_MEMO_WINDOW : 0;
	uint32_t hi = k + UNWIND_FAST_MEMO_WINDOW < count ? k + UNWIND_FAST_MEMO_WINDOW : count;

	for (uint32_t j = lo; j < hi; j++) {
		if (memo->prev_ips[j] == lookup_ip) {
			*shift = (int32_t)j - (int32_t)k;
			return 1;
		}
	}
	return 0;
}

/*
 * Frame-pointer mode past the shim: from the frame of ip whose rbp is bp,
 * [bp] is the caller's rbp and [bp + 8] its return address.  Stops (without
 * failing) at a chain that leaves the stack or does not grow upwards.
 * Returns the new frame count.
 */
static uint32_t unwind_fast_fp_chain(void **frames, uint32_t n, uint32_t cap, uintptr_t sp,
				     uintptr_t bp, uintptr_t limit)
{
	while (n < cap) {
		uintptr_t ra;

		if (bp < sp || bp > limit - 16 || (bp & 7))
			break;
		ra = ((const uintptr_t *)bp)[1];
		if (!ra)
			break;
		frames[n++] = (void *)ra;
		sp = bp + 16;
		bp = ((const uintptr_t *)bp)[0];
	}
	return n;
}

/* Pages unwind_fast_readable checks in one call, at most (its iovecs are
 * on the program's stack, which may be short). */
#define UNWIND_FAST_CHECK_PAGES 4u
#define UNWIND_FAST_PAGE_BYTES ((uintptr_t)4096)

/*
 * A walk on a stack of unknown bounds needs [*limit, need) readable: checks
 * the pages from *limit (page-aligned) up to the one holding need - 1, and a
 * few more, with one process_vm_readv(2) that reads a byte of each in order
 * and stops at the first it cannot read, without a fault; raises *limit to
 * the end of the readable run, never above ceiling.  Returns 1 when need <=
 * *limit then.  (msync would take a PROT_NONE guard page for readable.)
 */
static __attribute__((noinline)) int unwind_fast_readable(const struct preload_thread *t,
							   uintptr_t *limit, uintptr_t need,
							   uintptr_t ceiling)
{
	struct iovec remote[UNWIND_FAST_CHECK_PAGES], local;
	uint8_t sink[UNWIND_FAST_CHECK_PAGES];
	uintptr_t from = *limit;
	uint32_t pages = 0;
	long n;

	/* an allow-list filter may kill process_vm_readv: nothing more is
	 * known readable then, and the walk ends here */
	if (need > ceiling || need <= from || seccomp_watch_filtered())
		return need <= from;
	while (pages < UNWIND_FAST_CHECK_PAGES && from + pages * UNWIND_FAST_PAGE_BYTES < ceiling &&
	       (pages < 2 || from + pages * UNWIND_FAST_PAGE_BYTES < need)) {
		remote[pages].iov_base = (void *)(from + pages * UNWIND_FAST_PAGE_BYTES);
		remote[pages].iov_len = 1;
		pages++;
	}
	local.iov_base = sink;
	local.iov_len = sizeof(sink);
	/* (a thread id names the process too, with no getpid call) */
	n = syscall(SYS_process_vm_readv, t->tid, &local, 1UL, remote, (unsigned long)pages, 0UL);
	if (n > 0)
		*limit = from + (uintptr_t)n * UNWIND_FAST_PAGE_BYTES;
	return need <= *limit;
}

/* How far above sp libunwind trusts rbp in a frame without CFI. */
#define UNWIND_FAST_GUESS_SPAN_BYTES ((uintptr_t)0x4000)

/*
 * A frame without CFI (Go's assembly such as runtime.asmcgocall, JIT code):
 * libunwind (x86_64 Gstep.c) then takes it for a frame-pointer frame when
 * rbp is at most 16 KiB above sp, and ends the stack there otherwise.  Doing
 * the same gives the same frames without a call into libunwind, which cost
 * 10 times a C program's capture in a cgo program whose every malloc came
 * through asmcgocall (2.9 s against 0.27 s for 10^6 pairs on 8 threads).
 * Returns 1 when the walk goes on through the rbp rule in the packed rule.
 */
static inline int unwind_fast_guess_fits(uintptr_t sp, uintptr_t bp)
{
	return bp >= sp && bp - sp <= UNWIND_FAST_GUESS_SPAN_BYTES;
}

/*
 * The walk from frame (ip, sp, bp): ip exact (a return address when
 * ip_is_return), bp unknown when !bp_known until a frame restores it (a
 * frame whose CFA needs it then makes the walk give up).  cfas[0] gets sp.
 * Inlined into both entry points, so the register-reading one stays a
 * single frame.
 */
static inline __attribute__((always_inline)) int
unwind_fast_walk_from(struct preload_thread *t, void **frames, uintptr_t *cfas, uint64_t *bps,
		      uintptr_t *bp_srcs, uint32_t cap, uintptr_t stack_lo, uintptr_t stack_hi,
		      int mode, uintptr_t shim_lo, uintptr_t shim_hi, struct unwind_fast_tail *tail,
		      uintptr_t ip, uintptr_t sp, uintptr_t bp, int bp_known, int ip_is_return,
		      int foreign)
{
	struct cfi_cache_table *tab = cfi_cache_table_for_now(), *tab_start = tab;
	struct unwind_fast_memo *memo = t->unwind_memo;
	struct unwind_fast_tail *meet;
	int32_t rbp_frame = -1;
	uintptr_t start_sp, limit, lookup_ip;
	uintptr_t bp_slot = 0; /* where bp was last restored from; 0: a register */
	uint32_t n = 0, memo_count = 0, memo_valid = 0;
	int32_t shift = 0;

	start_sp = sp;
	if (sp < stack_lo || sp >= stack_hi)
		return -1;
	cfas[0] = sp;
	/* a stack of unknown bounds: the page holding sp is readable (the
	 * walk's own frames are there), the others are checked as needed */
	limit = foreign ? (sp | (UNWIND_FAST_PAGE_BYTES - 1)) + 1
	       : stack_hi - start_sp > UNWIND_FAST_SPAN_BYTES ? start_sp + UNWIND_FAST_SPAN_BYTES
							      : stack_hi;
	if (memo && memo->cap < cap)
		memo = NULL;
	if (tail && mode != UNWIND_FAST_CFI)
		tail = NULL;
	meet = tail && tail->count ? tail : NULL;
	if (memo && memo->table == tab)
		memo_count = memo->prev_count;
	/* the first frame is exact unless it is a caller's; the others are
	 * return addresses */
	lookup_ip = ip_is_return ? ip - 1 : ip;
	for (;;) {
		cfi_packed_rule rule;
		uintptr_t cfa;
		uint32_t k = n;

		frames[n++] = (void *)ip;
		if (n == cap)
			break;
		if (mode == UNWIND_FAST_FP && n > 1 && ip - shim_lo >= shim_hi - shim_lo) {
			n = unwind_fast_fp_chain(frames, n, cap, sp, bp, limit);
			break;
		}
		/* The memo first (see struct unwind_fast_memo): with the rule
		 * known before the return address is loaded, the CFA chain
		 * needs no load to wait for.  Measured on a 1e6 malloc+free loop
		 * at depth ~20: 139 ns per pair without the memo, 91 ns with it
		 * (libunwind: 175 ns); on sqlite3 the rule-cache probe was 21%
		 * of the walk before the shifted re-sync. */
		if (memo) {
			uint32_t j = k + (uint32_t)shift;
			int hit = j < memo_count && memo->prev_ips[j] == lookup_ip;

			if (!hit && unwind_fast_memo_resync(memo, memo_count, k, lookup_ip, &shift)) {
				j = k + (uint32_t)shift;
				hit = 1;
			}
			rule = hit ? memo->prev_rules[j] : unwind_fast_rule(t, &tab, lookup_ip);
			memo->cur_ips[k] = lookup_ip;
			memo->cur_rules[k] = rule;
			memo_valid = k + 1;
		} else {
			rule = unwind_fast_rule(t, &tab, lookup_ip);
		}
		if (CFI_PACKED_KIND(rule) != CFI_RULE_FRAME) {
			if (CFI_PACKED_KIND(rule) == CFI_RULE_OUTERMOST)
				break;
			if (CFI_PACKED_KIND(rule) != CFI_RULE_NO_CFI || !bp_known) {
				n = 0;
				break;
			}
			if (!unwind_fast_guess_fits(sp, bp))
				break;
		}
		bps[k] = bp_known ? bp : 0;
		if (CFI_PACKED_CFA_IS_RBP(rule)) {
			if (!bp_known) {
				n = 0;
				break;
			}
			cfa = bp + CFI_PACKED_CFA_OFFSET(rule);
			rbp_frame = (int32_t)k;
			bp_srcs[k] = bp_slot | UNWIND_BP_CFA;
		} else {
			cfa = sp + CFI_PACKED_CFA_OFFSET(rule);
			bp_srcs[k] = bp_slot;
		}
		if (cfa <= sp || (cfa > limit && (!foreign || !unwind_fast_readable(t, &limit, cfa,
									      stack_hi)))) {
			n = 0;
			break;
		}
		if (CFI_PACKED_RBP_SAVED(rule)) {
			uintptr_t at = cfa + (uintptr_t)CFI_PACKED_RBP_OFFSET(rule);

			/* (8-aligned, so that UNWIND_BP_CFA fits beside it) */
			if (at < start_sp || (at > limit - 8 &&
					      (!foreign || !unwind_fast_readable(t, &limit, at + 8,
										 stack_hi))) ||
			    (at & 7)) {
				n = 0;
				break;
			}
			bp = *(const uintptr_t *)at;
			bp_slot = at;
			bp_known = 1;
		} else {
			bp_slot = 0;
		}
		ip = ((const uintptr_t *)cfa)[-1];
		sp = cfa;
		if (!ip)
			break;
		if (meet && unwind_fast_tail_meets(meet, cfa, ip, bp, bp_known, limit)) {
			meet->hit_bp_src = bp_slot;
			break;
		}
		cfas[n] = cfa;
		lookup_ip = ip - 1;
	}
	if (tail)
		tail->rbp_frame = rbp_frame;
	/* The entries written now hold rules of tab's epoch, unless the table
	 * changed during the walk (then they may mix two); they become the
	 * previous walk. */
	if (!n)
		t->unwind_fail_ip = lookup_ip;
	if (memo) {
		uintptr_t *ips = memo->prev_ips;
		uint64_t *rules = memo->prev_rules;

		memo->prev_ips = memo->cur_ips;
		memo->prev_rules = memo->cur_rules;
		memo->cur_ips = ips;
		memo->cur_rules = rules;
		memo->prev_count = tab_start == tab ? memo_valid : 0;
		memo->table = tab;
	}
	return n ? (int)n : -1;
}

int unwind_fast_walk(struct preload_thread *t, void **frames, uintptr_t *cfas, uint64_t *bps,
		     uintptr_t *bp_srcs, uint32_t cap, uintptr_t stack_lo, uintptr_t stack_hi,
		     int mode, uintptr_t shim_lo, uintptr_t shim_hi, struct unwind_fast_tail *tail)
{
	uintptr_t ip, sp, bp;

	/*
	 * The starting registers, read in this order because the compiler may
	 * have given rbp to one of the outputs: rbp first, then rsp, and the
	 * address after the lea last.  That address is in this function, with
	 * rsp unchanged since it was read, so its CFI row describes this rsp
	 * (x86_64 code carries asynchronous unwind tables).
	 */
	__asm__ volatile("movq %%rbp, %2\n\t"
			 "movq %%rsp, %1\n\t"
			 "leaq 0(%%rip), %0"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	return unwind_fast_walk_from(t, frames, cfas, bps, bp_srcs, cap, stack_lo, stack_hi, mode,
				     shim_lo, shim_hi, tail, ip, sp, bp, 1, 0, 0);
}

int unwind_fast_walk_caller(struct preload_thread *t, void **frames, uintptr_t *cfas,
			    uint64_t *bps, uintptr_t *bp_srcs, uint32_t cap, uintptr_t stack_lo,
			    uintptr_t stack_hi, uintptr_t caller_ip, uintptr_t caller_cfa,
			    struct unwind_fast_tail *tail)
{
	return unwind_fast_walk_from(t, frames, cfas, bps, bp_srcs, cap, stack_lo, stack_hi,
				     UNWIND_FAST_CFI, 0, 0, tail, caller_ip, caller_cfa, 0, 0, 1, 0);
}

int unwind_fast_walk_foreign(struct preload_thread *t, void **frames, uintptr_t *cfas,
			     uint64_t *bps, uintptr_t *bp_srcs, uint32_t cap)
{
	uintptr_t ip, sp, bp, ceiling;

	/* (as in unwind_fast_walk) */
	__asm__ volatile("movq %%rbp, %2\n\t"
			 "movq %%rsp, %1\n\t"
			 "leaq 0(%%rip), %0"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	ceiling = sp + UNWIND_FAST_FOREIGN_BYTES > sp ? sp + UNWIND_FAST_FOREIGN_BYTES : UINTPTR_MAX;
	return unwind_fast_walk_from(t, frames, cfas, bps, bp_srcs, cap, sp, ceiling,
				     UNWIND_FAST_CFI, 0, 0, NULL, ip, sp, bp, 1, 0, 1);
}

int unwind_fast_walk_context(struct preload_thread *t, void **frames, uintptr_t *cfas,
			     uint64_t *bps, uintptr_t *bp_srcs, uint32_t cap, uintptr_t stack_lo,
			     uintptr_t stack_hi, uintptr_t ip, uintptr_t sp, uintptr_t bp)
{
	int foreign = sp < stack_lo || sp >= stack_hi;

	if (foreign) {
		stack_lo = sp;
		stack_hi = sp + UNWIND_FAST_FOREIGN_BYTES > sp ? sp + UNWIND_FAST_FOREIGN_BYTES
							       : UINTPTR_MAX;
	}
	return unwind_fast_walk_from(t, frames, cfas, bps, bp_srcs, cap, stack_lo, stack_hi,
				     UNWIND_FAST_CFI, 0, 0, NULL, ip, sp, bp, 1, 0, foreign);
}
