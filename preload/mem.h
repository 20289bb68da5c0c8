/*
 * preload/mem.h - the shim's memory: anonymous private mappings.
 *
 * Everything the profiler keeps (thread states, the stack table, module
 * maps, scratch buffers) comes from here, never from malloc, so recording
 * can neither recurse into the interposed allocator nor disturb the heap it
 * measures.
 */
#ifndef MPROF_PRELOAD_MEM_H
#define MPROF_PRELOAD_MEM_H

#include <stddef.h>
#include <stdint.h>

#define PRELOAD_PAGE_BYTES 4096u

/*
 * Placement of the library's large zeroed arrays (the sampled-block bits,
 * ...; the bootstrap arena and the copied environment are mappings, as a
 * conservative collector scans this segment): after all its small
 * globals (x86-64's large-data .lbss follows .bss), so the few pages those
 * share are all a fork copies when it writes them, instead of a dozen pages
 * scattered between the arrays.  Elsewhere the arrays stay in .bss.
 */
#if defined(__x86_64__)
#define PRELOAD_LARGE_BSS __attribute__((section(".lbss.mprof")))
#else
#define PRELOAD_LARGE_BSS
#endif

/* Rounds size_bytes up to whole pages. */
static inline size_t preload_mem_round(size_t size_bytes)
{
	return (size_bytes + PRELOAD_PAGE_BYTES - 1) & ~(size_t)(PRELOAD_PAGE_BYTES - 1);
}

/*
 * Maps size_bytes (rounded up to pages) of zeroed, private, read-write
 * memory.  Returns NULL when the kernel refuses.  Release with
 * preload_mem_unmap and the same size.
 */
void *preload_mem_map(size_t size_bytes);

/* Bytes mapped by preload_mem_map and not unmapped, plus the library's
 * static data in use: an upper bound of the recorder's own memory besides
 * its rings (also kept in the process file's header). */
uint64_t preload_mem_mapped(void);

/* The most memory the recorder's own mappings (besides its rings) can
 * have had resident at once, bytes: the pages of its reservation resident
 * now (mincore), its mappings outside it and its static data whole, and
 * every byte given back so far; or, when less, the most it ever had
 * mapped.  A system call per 4 MiB of reservation
 * used: for the exit and exec notes, never the hot path. */
uint64_t preload_mem_resident_bound(void);

/* Makes no reservation (when none is made yet): mappings then come from
 * anywhere.  For an image run by a Valgrind tool, where the reservation's
 * 16 GiB made memcheck warn of a "large range" its program never asked for,
 * and where plugin addresses are the tool's business anyway. */
void preload_mem_forgo_reservation(void);

/* Counts bytes given back to the kernel (MADV_DONTNEED) by a user of a
 * preload_mem_map mapping that keeps the mapping. */
void preload_mem_count_returned(size_t bytes);

/* Counts delta_bytes more of the library's static data as in use (the
 * bootstrap arena and the copied environment, as they fill).  Takes no lock and makes no call. */
void preload_mem_count_static(int64_t delta_bytes);

/* Counts the library's writable segment (it holds no arena now: the
 * bootstrap arena and the copied environment are mappings counted with
 * preload_mem_count_static as they fill).  Called once, at start. */
void preload_mem_count_segment(void);

/*
 * Gives the reservation's unused address space back to the kernel, for a
 * program that set an RLIMIT_AS: later mappings come from anywhere, and
 * released pieces are unmapped rather than kept reserved.  Safe while other
 * threads map and unmap.  Returns the bytes of address space given back.
 */
uint64_t preload_mem_reservation_close(void);

/* Whether [start, end) lies in the reserved address range (made or not
 * handed out yet, open or closed); 0 when nothing was reserved. */
int preload_mem_reservation_holds(uintptr_t start, uintptr_t end);

/* Makes size_bytes of the reservation readable and writable at once
 * (MAP_NORESERVE: no memory until touched), for a process about to install
 * a seccomp filter that may kill mmap: later preload_mem_map calls are served
 * from it with no system call, and its pieces are never given back.  Once
 * per process; nothing without a reservation. */
void preload_mem_prepare(size_t size_bytes);

/*
 * An address for a large mapping of the recorder's (the reservation, the
 * process file) to pass to mmap as a hint: far below the shared libraries,
 * where the program's own mappings, which the kernel places top-down just
 * below them, do not reach before they have taken 64 GiB; successive calls
 * give ranges below one another.  NULL when there is no such range (a
 * bottom-up layout near the break, a seccomp filter): the kernel then
 * places the mapping as it would.  The kernel also does so when the range
 * is taken; the hint never replaces a mapping.
 */
void *preload_mem_far_hint(size_t size_bytes);

/* Unmaps what preload_mem_map returned; NULL is ignored. */
void preload_mem_unmap(void *p, size_t size_bytes);

#endif
