/*
 * preload/new_wrap.h - the shim's hidden wrappers of the C++ operator new
 * and delete forms that an allocator behind it serves itself (new_wrap.c
 * says how; new_bind.c points the program's calls at them).
 */
#ifndef MPROF_PRELOAD_NEW_WRAP_H
#define MPROF_PRELOAD_NEW_WRAP_H

/* The 20 forms, by their mangled names (x86-64 and AArch64: size_t is
 * unsigned long): 8 of new, 12 of delete. */
enum new_wrap_form {
	NEW_WRAP_NW,            /* _Znwm: new(size_t) */
	NEW_WRAP_NA,            /* _Znam: new[](size_t) */
	NEW_WRAP_NW_NOTHROW,    /* _ZnwmRKSt9nothrow_t */
	NEW_WRAP_NA_NOTHROW,    /* _ZnamRKSt9nothrow_t */
	NEW_WRAP_NW_ALIGN,      /* _ZnwmSt11align_val_t */
	NEW_WRAP_NA_ALIGN,      /* _ZnamSt11align_val_t */
	NEW_WRAP_NW_ALIGN_NOTHROW, /* _ZnwmSt11align_val_tRKSt9nothrow_t */
	NEW_WRAP_NA_ALIGN_NOTHROW, /* _ZnamSt11align_val_tRKSt9nothrow_t */
	NEW_WRAP_DL,            /* _ZdlPv: delete(void *) */
	NEW_WRAP_DA,            /* _ZdaPv */
	NEW_WRAP_DL_SIZED,      /* _ZdlPvm */
	NEW_WRAP_DA_SIZED,      /* _ZdaPvm */
	NEW_WRAP_DL_NOTHROW,    /* _ZdlPvRKSt9nothrow_t */
	NEW_WRAP_DA_NOTHROW,    /* _ZdaPvRKSt9nothrow_t */
	NEW_WRAP_DL_ALIGN,      /* _ZdlPvSt11align_val_t */
	NEW_WRAP_DA_ALIGN,      /* _ZdaPvSt11align_val_t */
	NEW_WRAP_DL_SIZED_ALIGN, /* _ZdlPvmSt11align_val_t */
	NEW_WRAP_DA_SIZED_ALIGN, /* _ZdaPvmSt11align_val_t */
	NEW_WRAP_DL_ALIGN_NOTHROW, /* _ZdlPvSt11align_val_tRKSt9nothrow_t */
	NEW_WRAP_DA_ALIGN_NOTHROW, /* _ZdaPvSt11align_val_tRKSt9nothrow_t */
	NEW_WRAP_FORMS
};

/* Each form's mangled name. */
extern const char *const new_wrap_names[NEW_WRAP_FORMS];

/*
 * Each form's foreign definition (the allocator's), which its wrapper
 * calls; set by new_bind.c before any slot points at a wrapper, NULL for a
 * form the allocator does not define (its slots are not rewritten).
 */
extern void *new_wrap_foreign[NEW_WRAP_FORMS];

/* The wrapper of form, which records the call and calls
 * new_wrap_foreign[form]. */
void *new_wrap_entry(enum new_wrap_form form);

#endif
