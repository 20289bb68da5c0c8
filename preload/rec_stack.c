/*
 * preload/rec_stack.c - switching to the recorder's own per-thread stack
 * and back (see rec_stack.h).
 *
 * Owns each thread's recorder stack (an anonymous mapping with a guard page
 * below it, made at the thread's first switch and kept with its recycled
 * state) and the switch itself, a few instructions of assembly.  Never
 * allocates; the only system calls are the mapping and the two signal-mask
 * changes around each switch (raw, on 8-byte sets).  Under a seccomp filter,
 * which may kill either, there is no switch: the call runs where it is.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/mem.h"
#include "preload/rec_stack.h"
#include "preload/seccomp_watch.h"

#if defined(__x86_64__)
/*
 * rec_stack_switch(arg, fn, top): calls fn(arg) with the stack pointer at
 * top (16-aligned) and returns its result on the caller's stack.  rbp keeps
 * the caller's stack pointer meanwhile; the CFI says so, so that an unwinder
 * in fn's frames finds the caller's frames above this one.
 */
uintptr_t rec_stack_switch(void *arg, rec_stack_fn fn, void *top);
__asm__(".text\n"
	".globl rec_stack_switch\n"
	".hidden rec_stack_switch\n"
	".type rec_stack_switch, @function\n"
	"rec_stack_switch:\n"
	"\t.cfi_startproc\n"
	"\tpushq %rbp\n"
	"\t.cfi_def_cfa_offset 16\n"
	"\t.cfi_offset %rbp, -16\n"
	"\tmovq %rsp, %rbp\n"
	"\t.cfi_def_cfa_register %rbp\n"
	"\tmovq %rdx, %rsp\n"
	"\tcallq *%rsi\n"
	"\tmovq %rbp, %rsp\n"
	"\tpopq %rbp\n"
	"\t.cfi_def_cfa %rsp, 8\n"
	"\tret\n"
	"\t.cfi_endproc\n"
	".size rec_stack_switch, .-rec_stack_switch\n");

/* The top of t's recorder stack, mapping it first; 0 when it cannot be. */
static uintptr_t rec_stack_top(struct preload_thread *t)
{
	uint8_t *base;

	if (t->rec_stack)
		return (uintptr_t)t->rec_stack + PRELOAD_PAGE_BYTES + REC_STACK_BYTES;
	base = preload_mem_map(PRELOAD_PAGE_BYTES + REC_STACK_BYTES);
	if (!base)
		return 0;
	/* a guard page: an overflow faults instead of writing over the state
	 * mapped below (without it, the stack is merely unguarded) */
	mprotect(base, PRELOAD_PAGE_BYTES, PROT_NONE);
	t->rec_stack = base;
	return (uintptr_t)base + PRELOAD_PAGE_BYTES + REC_STACK_BYTES;
}

/* The kernel's signal set of signal sig (1-64). */
#define REC_STACK_SIG(sig) (1ull << ((sig) - 1))

/* Every signal but those a fault raises, which the kernel would turn into a
 * kill if blocked, and the C library's two internal ones (thread
 * cancellation and set*id across threads), which pthread_sigmask never
 * blocks either. */
#define REC_STACK_BLOCKED                                                                   \
	(~0ull & ~(REC_STACK_SIG(SIGSEGV) | REC_STACK_SIG(SIGBUS) | REC_STACK_SIG(SIGILL) |  \
		   REC_STACK_SIG(SIGFPE) | REC_STACK_SIG(SIGTRAP) | REC_STACK_SIG(SIGSYS) |  \
		   REC_STACK_SIG(32) | REC_STACK_SIG(33)))

/* The kernel's sigprocmask on 8-byte sets: a sigset_t is 128 bytes, and
 * this runs on the program's stack. */
static int rec_stack_sigmask(int how, const uint64_t *set, uint64_t *old)
{
	return (int)syscall(SYS_rt_sigprocmask, how, set, old, sizeof(*set));
}

uintptr_t rec_stack_call(struct preload_thread *t, rec_stack_fn fn, void *arg)
{
	uint64_t block = REC_STACK_BLOCKED, saved;
	uintptr_t top, r;

	/* an allow-list filter may kill rt_sigprocmask: no switch then, as
	 * when the stack cannot be mapped */
	if (t->rec_stack_active || seccomp_watch_filtered())
		return fn(arg);
	top = rec_stack_top(t);
	if (!top || rec_stack_sigmask(SIG_BLOCK, &block, &saved) != 0)
		return fn(arg);
	t->rec_stack_active = 1;
	r = rec_stack_switch(arg, fn, (void *)top);
	t->rec_stack_active = 0;
	rec_stack_sigmask(SIG_SETMASK, &saved, NULL);
	return r;
}
#else
uintptr_t rec_stack_call(struct preload_thread *t, rec_stack_fn fn, void *arg)
{
	(void)t;
	return fn(arg);
}
#endif
