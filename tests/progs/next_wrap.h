/*
 * next_wrap.h - the counting wrappers of tests/progs/next_wrap_lib.c: malloc
 * and free (and calloc and realloc with -DNEXT_WRAP_ALL) that forward to the
 * next definition, found with dlsym(RTLD_NEXT).  Compiled into the program
 * (next_wrap.c includes the .c file) or into a library it links
 * (-DNEXT_WRAP_LIB).
 */
#ifndef NEXT_WRAP_H
#define NEXT_WRAP_H

enum next_wrap_fn { NEXT_WRAP_MALLOC, NEXT_WRAP_CALLOC, NEXT_WRAP_REALLOC, NEXT_WRAP_FREE };

/* How many calls of wrapper fn were made (0 for one not defined). */
unsigned long next_wrap_count(enum next_wrap_fn fn);

#endif
