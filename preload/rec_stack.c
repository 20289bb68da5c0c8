/*
 * preload/rec_stack.c - switching to the recorder's own per-thread stack
 * and back (see rec_stack.h).
 *
 * Owns each thread's recorder stack (an anonymous mapping with a guard page
 * below it, made at the thread's first switch and kept with its recycled
 * state) and the switch itself, a few instructions of assembly.  Never
 * allocates; the only system calls are the mapping and the two signal-mask
 * changes around each switch.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include "preload/mem.h"
#include "preload/rec_stack.h"

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

uintptr_t rec_stack_call(struct preload_thread *t, rec_stack_fn fn, void *arg)
{
	static const int fault_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS };
	uintptr_t top, r;
	sigset_t block, saved;

	if (t->rec_stack_active)
		return fn(arg);
	top = rec_stack_top(t);
	if (!top)
		return fn(arg);
	sigfillset(&block);
	for (unsigned i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++)
		sigdelset(&block, fault_signals[i]);
	if (pthread_sigmask(SIG_BLOCK, &block, &saved) != 0)
		return fn(arg);
	t->rec_stack_active = 1;
	r = rec_stack_switch(arg, fn, (void *)top);
	t->rec_stack_active = 0;
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return r;
}
#else
uintptr_t rec_stack_call(struct preload_thread *t, rec_stack_fn fn, void *arg)
{
	(void)t;
	return fn(arg);
}
#endif
