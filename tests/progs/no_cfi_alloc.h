/*
 * tests/progs/no_cfi_alloc.h - no_cfi_alloc(n): malloc(n) called from a
 * frame-pointer frame with no CFI (x86-64 assembly), which only heuristics
 * unwind through; elsewhere a plain function.  Included once by each test
 * program that needs it (own_fds.c, pending_cancel.c, claimed_fds.c).
 */
#ifndef MPROF_TESTS_NO_CFI_ALLOC_H
#define MPROF_TESTS_NO_CFI_ALLOC_H

#include <stdlib.h>

void *no_cfi_alloc(size_t n);
#if defined(__x86_64__)
__asm__(".text\n.globl no_cfi_alloc\n.type no_cfi_alloc,@function\nno_cfi_alloc:\n"
	"push %rbp\nmov %rsp,%rbp\nsub $64,%rsp\ncall malloc@PLT\nleave\nret\n"
	".size no_cfi_alloc,.-no_cfi_alloc\n");
#else
void *no_cfi_alloc(size_t n)
{
	return malloc(n);
}
#endif

#endif
