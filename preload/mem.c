/*
 * preload/mem.c - anonymous mappings for the shim's own data, carved out of
 * one address range reserved up front.
 *
 * Why a reservation: every mapping the shim made on demand took the lowest
 * free hole the kernel found, which after a dlclose is the hole the closed
 * library left; the next dlopen'ed library then landed elsewhere, so
 * profiling changed where programs load their plugins (shared case 11 saw
 * "same base address: no" in 8 of 10 runs).  Now the shim reserves
 * MEM_RESERVE_BYTES of address space once (PROT_NONE, MAP_NORESERVE: no
 * memory, no commit charge) and hands out pieces of it with a bump pointer;
 * released pieces go back to PROT_NONE (their memory is returned, their
 * addresses are not reused).  Only when the reservation is used up, or
 * cannot be made, do mappings come from anywhere.  Under an RLIMIT_AS the
 * shim reserves nothing: reserved address space counts against that limit,
 * and the program's own mappings must not fail because of ours.  When the
 * program sets one later (preload/rlimit.c), the reservation is closed: its
 * unused tail is unmapped, and pieces released afterwards are unmapped too.
 * Pieces are made accessible with mprotect, not mapped over: mprotect
 * keeps the reservation's flags, so after a program's mlockall(MCL_FUTURE)
 * they are neither locked (faulted in whole) nor counted against its
 * RLIMIT_MEMLOCK (preload/mlock_watch.c), and released pieces are made
 * inaccessible again with their pages dropped (MADV_DONTNEED).
 * Before the program installs a seccomp filter (which may kill mmap), a
 * window of the reservation is made writable in one call and later pieces
 * come from it with no system call (preload_mem_prepare).  Likewise the
 * reservation's first MEM_START_BYTES are made writable with it, so the
 * recorder's start (about 14 pieces) makes one mmap instead of one each;
 * small pieces get their pages at once (MEM_POPULATE_MAX_BYTES).
 *
 * Owns the reservation.  Callers own what they map.  Must never call malloc
 * (the shim interposes it) and never touches a file descriptor.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "preload/mem.h"
#include "preload/phdr.h"
#include "preload/populate.h"
#include "preload/process.h"
#include "preload/seccomp_watch.h"

#define MEM_RESERVE_BYTES (16ull << 30)

/* How far below this library the recorder's large mappings (the
 * reservation, the process file) go when that range is free.  The kernel
 * puts a program's mappings top-down just below the shared libraries; ours
 * there left 19 GiB between the program's mappings made in holes above them
 * and those made below: Boehm's collector, with heap sections on both
 * sides, took every word pointing between them for a possible pointer,
 * blacklisted pages and grew its heap (1 run in 40). */
#define MEM_FAR_GAP_BYTES ((uintptr_t)64 << 30)

/* The far range is used only this far above the program's break, so that
 * a heap grown with brk keeps its room (a bottom-up layout, as under
 * `ulimit -s unlimited` on older kernels, puts the libraries low). */
#define MEM_FAR_BRK_ROOM_BYTES ((uintptr_t)1 << 40)

/* The far range's next free end (mappings go downwards from it); 0: not
 * set yet; 1: no far range in this process. */
static _Atomic uintptr_t mem_far_next;

/* Sets mem_far_next below this library, unless that range would be near
 * the break or a seccomp filter may kill brk. */
static void mem_far_start(void)
{
	uintptr_t top = (uintptr_t)&mem_far_next & ~((uintptr_t)PRELOAD_PAGE_BYTES - 1);
	uintptr_t first = 1, expected = 0, brk_now;

	if (!seccomp_watch_filtered() && top > MEM_FAR_GAP_BYTES) {
		brk_now = (uintptr_t)sbrk(0);
		if (brk_now != (uintptr_t)-1 && top - MEM_FAR_GAP_BYTES > brk_now &&
		    top - MEM_FAR_GAP_BYTES - brk_now >= MEM_FAR_BRK_ROOM_BYTES)
			first = top - MEM_FAR_GAP_BYTES;
	}
	atomic_compare_exchange_strong(&mem_far_next, &expected, first);
}

void *preload_mem_far_hint(size_t size_bytes)
{
	size_t size = preload_mem_round(size_bytes);
	uintptr_t next, want;

	if (atomic_load_explicit(&mem_far_next, memory_order_acquire) == 0)
		mem_far_start();
	next = atomic_load_explicit(&mem_far_next, memory_order_acquire);
	do {
		if (next <= 1 || next < size + MEM_FAR_BRK_ROOM_BYTES)
			return NULL;
		want = next - size;
	} while (!atomic_compare_exchange_weak_explicit(&mem_far_next, &next, want,
							memory_order_acq_rel, memory_order_acquire));
	return (void *)want;
}

/* The reservation's head mapped writable when it is made: what the start of
 * a recorded process takes (168 KiB for a small C program, before its first
 * thread's 545 KiB of site tables, which is mapped apart).  An mmap costs
 * 5-10 us on the VMs measured (bench/HISTORY.md, session 54). */
#define MEM_START_BYTES ((uintptr_t)256 << 10)

/* Pieces of at most this many bytes get their pages when handed out: such a
 * piece (a thread's or a table's head, a module list) is nearly always
 * written at once, and a page filled by the kernel in the call costs a third
 * to a half of a first-touch fault there (session 54). */
#define MEM_POPULATE_MAX_BYTES (3 * (size_t)PRELOAD_PAGE_BYTES)

static _Atomic uintptr_t mem_base;  /* 0: not reserved yet; 1: cannot */
static _Atomic uintptr_t mem_used;  /* bytes handed out (bump pointer) */
static _Atomic int mem_closed;      /* 1: the unused tail was given back */
static _Atomic uintptr_t mem_start_bytes; /* the writable head: 0 or MEM_START_BYTES */

/* The reservation, made on first use; 0 when it cannot be had. */
static uintptr_t mem_reservation(void)
{
	uintptr_t base = atomic_load_explicit(&mem_base, memory_order_acquire), expected = 0;
	struct rlimit as;
	void *p;

	if (base > 1)
		return base;
	if (base == 1)
		return 0;
	if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur != RLIM_INFINITY)
		p = MAP_FAILED;
	else
		p = mmap(preload_mem_far_hint(MEM_RESERVE_BYTES), MEM_RESERVE_BYTES, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	base = p == MAP_FAILED ? 1 : (uintptr_t)p;
	/* the head is writable before anyone can see the base; without it,
	 * pieces there are mapped one by one as elsewhere */
	int head = base > 1 && mprotect(p, MEM_START_BYTES, PROT_READ | PROT_WRITE) == 0;
	if (!atomic_compare_exchange_strong(&mem_base, &expected, base)) {
		/* another thread reserved first: keep its range */
		if (base > 1)
			munmap(p, MEM_RESERVE_BYTES);
		base = expected;
	} else if (head) {
		atomic_store_explicit(&mem_start_bytes, MEM_START_BYTES, memory_order_release);
	}
	return base > 1 ? base : 0;
}

void preload_mem_forgo_reservation(void)
{
	uintptr_t expected = 0;

	atomic_compare_exchange_strong(&mem_base, &expected, 1);
}

/* Bytes mapped and not unmapped (pages given back with MADV_DONTNEED still
 * count): an upper bound of the recorder's own memory, for the process
 * file's header once there is one. */
static _Atomic uint64_t mem_mapped_bytes;

/* Of mem_mapped_bytes, those inside the reservation (their resident pages
 * can be counted, preload_mem_resident_bound); and the bytes given back so
 * far (unmapped, or MADV_DONTNEED), each of which may have been resident. */
static _Atomic uint64_t mem_reserved_mapped_bytes, mem_returned_bytes;

/* The most mem_mapped_bytes has been: another bound of the most resident
 * at once, the tighter one for threads that come and go. */
static _Atomic uint64_t mem_mapped_high_bytes;

static void mem_mapped_note(int64_t delta)
{
	uint64_t now = atomic_fetch_add_explicit(&mem_mapped_bytes, (uint64_t)delta,
						 memory_order_relaxed) + (uint64_t)delta;
	uint64_t high = atomic_load_explicit(&mem_mapped_high_bytes, memory_order_relaxed);

	while (now > high && !atomic_compare_exchange_weak_explicit(&mem_mapped_high_bytes, &high,
								    now, memory_order_relaxed,
								    memory_order_relaxed))
		;
	if (preload_proc.hdr)
		atomic_store_explicit(&preload_proc.hdr->recorder_map_bytes, now,
				      memory_order_relaxed);
}

uint64_t preload_mem_mapped(void)
{
	return atomic_load_explicit(&mem_mapped_bytes, memory_order_relaxed);
}

void preload_mem_count_static(int64_t delta_bytes)
{
	mem_mapped_note(delta_bytes);
}

/* dl_iterate_phdr callback: the size of the writable segment that holds
 * mem_mapped_bytes (this library's data and bss), into *data. */
static int mem_segment_find(struct dl_phdr_info *info, size_t size, void *data)
{
	const ElfW(Phdr) *ph = phdr_load_holding(info, (uintptr_t)&mem_mapped_bytes, 1);

	(void)size;
	if (!ph || !(ph->p_flags & PF_W))
		return 0;
	*(size_t *)data = ph->p_memsz;
	return 1;
}

void preload_mem_count_segment(void)
{
	size_t bytes = 0;

	dl_iterate_phdr(mem_segment_find, &bytes);
	if (bytes)
		mem_mapped_note((int64_t)preload_mem_round(bytes));
}

/* A window of the reservation made readable and writable in one call
 * (preload_mem_prepare): its pieces are handed out by a bump pointer of their
 * own with no system call, and never given back. */
static _Atomic uintptr_t mem_ready_start; /* offset in the reservation; 0: none */
static _Atomic uintptr_t mem_ready_used, mem_ready_bytes;

void preload_mem_prepare(size_t size_bytes)
{
	size_t size = preload_mem_round(size_bytes);
	uintptr_t base = mem_reservation(), off;

	if (!base || atomic_load_explicit(&mem_closed, memory_order_relaxed) ||
	    atomic_load_explicit(&mem_ready_start, memory_order_acquire))
		return;
	off = atomic_fetch_add_explicit(&mem_used, size, memory_order_relaxed);
	if (off == 0 || off + size > MEM_RESERVE_BYTES)
		return; /* offset 0 stands for "no window"; past the end: none */
	if (mprotect((void *)(base + off), size, PROT_READ | PROT_WRITE) != 0)
		return;
	atomic_store_explicit(&mem_ready_bytes, size, memory_order_relaxed);
	atomic_store_explicit(&mem_ready_start, off, memory_order_release);
}

/* A piece of the ready window, or NULL when there is none or it is full. */
static void *mem_ready_take(uintptr_t base, size_t size)
{
	uintptr_t start = atomic_load_explicit(&mem_ready_start, memory_order_acquire), off;

	if (!start || !base)
		return NULL;
	off = atomic_fetch_add_explicit(&mem_ready_used, size, memory_order_relaxed);
	if (off + size > atomic_load_explicit(&mem_ready_bytes, memory_order_relaxed))
		return NULL;
	return (void *)(base + start + off);
}

/* Whether p lies in the ready window. */
static int mem_ready_holds(uintptr_t base, const void *p)
{
	uintptr_t start = atomic_load_explicit(&mem_ready_start, memory_order_acquire);

	return start && base > 1 && (uintptr_t)p >= base + start &&
	       (uintptr_t)p - (base + start) < atomic_load_explicit(&mem_ready_bytes,
								     memory_order_relaxed);
}

void *preload_mem_map(size_t size_bytes)
{
	size_t size = preload_mem_round(size_bytes);
	uintptr_t base = mem_reservation();
	int populate = size <= MEM_POPULATE_MAX_BYTES ? MAP_POPULATE : 0;
	void *p;

	mem_mapped_note((int64_t)size);
	p = mem_ready_take(base, size);
	if (p) {
		atomic_fetch_add_explicit(&mem_reserved_mapped_bytes, size, memory_order_relaxed);
		return p;
	}

	if (base) {
		uintptr_t off = atomic_fetch_add_explicit(&mem_used, size, memory_order_relaxed);

		if (off + size <= atomic_load_explicit(&mem_start_bytes, memory_order_acquire)) {
			/* in the writable head, and no one else's: no mmap */
			p = (void *)(base + off);
			if (populate)
				populate_pages(p, size);
			atomic_fetch_add_explicit(&mem_reserved_mapped_bytes, size,
						  memory_order_relaxed);
			return p;
		}
		if (off + size <= MEM_RESERVE_BYTES) {
			/* a piece that straddles the head's end is made writable
			 * whole: its part of the head is its own and untouched */
			p = (void *)(base + off);
			if (mprotect(p, size, PROT_READ | PROT_WRITE) == 0) {
				if (populate)
					populate_pages(p, size);
				atomic_fetch_add_explicit(&mem_reserved_mapped_bytes, size,
							  memory_order_relaxed);
				return p;
			}
		}
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | populate, -1, 0);
	if (p == MAP_FAILED) {
		mem_mapped_note(-(int64_t)size);
		return NULL;
	}
	return p;
}

void preload_mem_unmap(void *p, size_t size_bytes)
{
	uintptr_t base = atomic_load_explicit(&mem_base, memory_order_acquire);
	size_t size = preload_mem_round(size_bytes);

	if (!p || mem_ready_holds(base, p))
		return; /* kept: giving it back is a system call a filter may kill */
	mem_mapped_note(-(int64_t)size);
	atomic_fetch_add_explicit(&mem_returned_bytes, size, memory_order_relaxed);
	if (base > 1 && (uintptr_t)p >= base && (uintptr_t)p - base < MEM_RESERVE_BYTES)
		atomic_fetch_sub_explicit(&mem_reserved_mapped_bytes, size, memory_order_relaxed);
	if (base > 1 && !atomic_load_explicit(&mem_closed, memory_order_relaxed) &&
	    (uintptr_t)p >= base && (uintptr_t)p - base < MEM_RESERVE_BYTES) {
		/* back to reserved-only: the memory is returned, the range kept */
		madvise(p, size, MADV_DONTNEED);
		mprotect(p, size, PROT_NONE);
		return;
	}
	munmap(p, size);
}

int preload_mem_reservation_holds(uintptr_t start, uintptr_t end)
{
	uintptr_t base = atomic_load_explicit(&mem_base, memory_order_acquire);

	return base > 1 && start >= base && end <= base + MEM_RESERVE_BYTES;
}

uint64_t preload_mem_reservation_close(void)
{
	uintptr_t base = atomic_load_explicit(&mem_base, memory_order_acquire), expected = 0;
	uintptr_t used;

	if (atomic_load_explicit(&mem_closed, memory_order_relaxed))
		return 0;
	/* not reserved yet: never reserve now */
	if (base == 0 && atomic_compare_exchange_strong(&mem_base, &expected, 1))
		return 0;
	base = atomic_load_explicit(&mem_base, memory_order_acquire);
	if (base <= 1)
		return 0;
	/* Every claim after this add lands past the end and maps elsewhere;
	 * every claim before it lies below used, which stays mapped. */
	used = atomic_fetch_add_explicit(&mem_used, MEM_RESERVE_BYTES, memory_order_relaxed);
	if (used >= MEM_RESERVE_BYTES)
		return 0; /* used up, or closed before */
	atomic_store_explicit(&mem_closed, 1, memory_order_relaxed);
	munmap((void *)(base + used), MEM_RESERVE_BYTES - used);
	return MEM_RESERVE_BYTES - used;
}

void preload_mem_count_returned(size_t bytes)
{
	atomic_fetch_add_explicit(&mem_returned_bytes, bytes, memory_order_relaxed);
}

/* Resident pages of [start, end) in bytes (mincore), or -1 when mincore
 * fails.  The vector is on the stack: no allocation. */
static int64_t mem_resident_in(uintptr_t start, uintptr_t end)
{
	unsigned char vec[1024];
	uintptr_t page = (uintptr_t)getpagesize();
	int64_t resident = 0;

	while (start < end) {
		size_t pages = (end - start + page - 1) / page;

		if (pages > sizeof(vec))
			pages = sizeof(vec);
		if (mincore((void *)start, pages * page, vec) != 0)
			return -1;
		for (size_t i = 0; i < pages; i++)
			resident += (vec[i] & 1) ? (int64_t)page : 0;
		start += pages * page;
	}
	return resident;
}

uint64_t preload_mem_resident_bound(void)
{
	uintptr_t base = atomic_load_explicit(&mem_base, memory_order_acquire);
	uint64_t mapped = atomic_load_explicit(&mem_mapped_bytes, memory_order_relaxed);
	uint64_t inside = atomic_load_explicit(&mem_reserved_mapped_bytes, memory_order_relaxed);
	uint64_t returned = atomic_load_explicit(&mem_returned_bytes, memory_order_relaxed);
	uint64_t used = atomic_load_explicit(&mem_used, memory_order_relaxed);
	int64_t resident = 0;

	/* a filter may refuse mincore (allow-list sandboxes do): then every
	 * page of the reservation mapped counts, as when mincore fails */
	if (base > 1 && seccomp_watch_filtered()) {
		resident = -1;
	} else if (base > 1) {
		used = used < MEM_RESERVE_BYTES ? used : MEM_RESERVE_BYTES;
		resident = mem_resident_in(base, base + used);
	}
	/* no count of the reservation's pages: every piece counts whole */
	if (resident < 0 || (uint64_t)resident > inside)
		resident = (int64_t)inside;
	uint64_t high = atomic_load_explicit(&mem_mapped_high_bytes, memory_order_relaxed);
	uint64_t bound = mapped - inside + (uint64_t)resident + returned;

	return bound < high ? bound : high;
}
