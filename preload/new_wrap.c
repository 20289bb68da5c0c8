/*
 * preload/new_wrap.c - hidden wrappers of the 20 C++ operator new and
 * delete forms, for an allocator behind the shim that defines them and
 * serves them from its own heap (jemalloc, tcmalloc, mimalloc), so that
 * they never reach malloc and free.  Nothing here is exported: a program
 * whose new is the C++ library's (which calls malloc) pays nothing; only
 * the GOT slots that preload/new_bind.c rewrites lead here.
 *
 * A new wrapper calls the allocator's new first, holding nothing of the
 * recorder's (it may throw bad_alloc, or loop on the new_handler: the
 * exception unwinds through the wrapper's frame, which has unwind tables
 * and no cleanup), then records the block as malloc records one (memalign
 * for the aligned forms), at its caller.  A delete wrapper records the
 * free as free does (before the call, its sequence number taken first),
 * then calls the allocator's delete.  Never allocates.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>

#include "preload/exported.h"
#include "preload/new_wrap.h"
#include "preload/process.h"
#include "preload/record_path.h"

const char *const new_wrap_names[NEW_WRAP_FORMS] = {
	"_Znwm",
	"_Znam",
	"_ZnwmRKSt9nothrow_t",
	"_ZnamRKSt9nothrow_t",
	"_ZnwmSt11align_val_t",
	"_ZnamSt11align_val_t",
	"_ZnwmSt11align_val_tRKSt9nothrow_t",
	"_ZnamSt11align_val_tRKSt9nothrow_t",
	"_ZdlPv",
	"_ZdaPv",
	"_ZdlPvm",
	"_ZdaPvm",
	"_ZdlPvRKSt9nothrow_t",
	"_ZdaPvRKSt9nothrow_t",
	"_ZdlPvSt11align_val_t",
	"_ZdaPvSt11align_val_t",
	"_ZdlPvmSt11align_val_t",
	"_ZdaPvmSt11align_val_t",
	"_ZdlPvSt11align_val_tRKSt9nothrow_t",
	"_ZdaPvSt11align_val_tRKSt9nothrow_t",
};

void *new_wrap_foreign[NEW_WRAP_FORMS];

/* 1 where the wrappers read their caller's rbp (their stubs, below). */
#if defined(__x86_64__)
#define NEW_WRAP_BP_KNOWN 1
#else
#define NEW_WRAP_BP_KNOWN 0
#endif

/* Records p (NULL: a nothrow new that failed, nothing to record), an
 * allocation of size_bytes by entry point fn at caller_ip/caller_cfa (on
 * x86_64 with the caller's rbp, caller_bp, for the call-site cache);
 * returns p.  Called after the allocator's new returned. */
static __attribute__((noinline)) void *new_wrap_record(void *p, size_t size_bytes, unsigned fn,
						       void *caller_ip, void *caller_cfa,
						       uint64_t caller_bp)
{
	if (p)
		record_path_alloc_after(fn, p, size_bytes, caller_ip, caller_cfa, caller_bp,
					NEW_WRAP_BP_KNOWN);
	return p;
}

/*
 * On x86_64 a new wrapper is a stub that hands its caller's rbp to the C
 * body name_entry as the argument after its own (register bp_reg), as the
 * exported malloc does (preload/interpose.c): stacks whose function that
 * calls new has an rbp-based CFA (code built with frame pointers) are then
 * found in the call-site cache instead of captured at every call.
 */
#if defined(__x86_64__)
#ifdef __CET__
#define NEW_WRAP_ENDBR "\tendbr64\n"
#else
#define NEW_WRAP_ENDBR ""
#endif
#define NEW_WRAP_HEADER(name, bp_reg, PARAMS)                                 \
	__asm__(".text\n"                                                     \
		".globl " #name "\n"                                          \
		".hidden " #name "\n"                                         \
		".type " #name ", @function\n"                                \
		#name ":\n"                                                   \
		"\t.cfi_startproc\n"                                          \
		NEW_WRAP_ENDBR                                                \
		"\tmovq %rbp, %" bp_reg "\n"                                  \
		"\tjmp " #name "_entry\n"                                     \
		"\t.cfi_endproc\n"                                            \
		".size " #name ", .-" #name "\n");                            \
	void *name PARAMS __attribute__((visibility("hidden")));             \
	void *name##_entry(NEW_WRAP_UNPAREN PARAMS, uint64_t caller_bp);      \
	void *name##_entry(NEW_WRAP_UNPAREN PARAMS, uint64_t caller_bp)
#define NEW_WRAP_UNPAREN(...) __VA_ARGS__
#define NEW_WRAP_BP_DECL
#else
#define NEW_WRAP_HEADER(name, bp_reg, PARAMS)                                 \
	static void *name PARAMS
#define NEW_WRAP_BP_DECL const uint64_t caller_bp = 0; /* not read */
#endif

/* The free of p (not null) that may have been recorded: as free's
 * interpose_free_recorded_via, without the call of the allocator's free. */
static __attribute__((noinline)) void new_wrap_free_recorded(void *p)
{
	struct preload_thread *t = preload_thread_enter();
	uint64_t seq;
	int size_class;

	if (!t) {
		/* a signal handler inside the recorder: a sampled block leaves
		 * the set; a thread without a slot: the meta stream */
		if (control_uses_set && preload_thread_nested() && sample_set_remove_nested(p) == 0)
			return;
		if (!thread_free_slotless(TRACE_FREE_FREE, p))
			preload_count_unrecorded(1);
		return;
	}
	if (control_uses_set && !sample_set_remove(p)) {
		preload_thread_leave(t);
		return;
	}
	seq = event_seq_next(t);
	size_class = event_free_class(p);
	event_free(t, TRACE_FREE_FREE, seq, p, size_class);
	preload_thread_leave(t);
}

/* Records the delete of p, if it is to be: the fast paths of free (NULL,
 * and in set mode a block whose bucket of the set is empty). */
static inline void new_wrap_free(void *p)
{
	if (!p || (control_uses_set && !sample_set_may_hold(p)))
		return;
	new_wrap_free_recorded(p);
}

/* A new form of parameters PARAMS (size_bytes first) and arguments ARGS,
 * recorded as entry point FN; bp_reg: the register after PARAMS. */
#define NEW_WRAP_NEW(name, form, fn, bp_reg, PARAMS, ARGS)                          \
	NEW_WRAP_HEADER(name, bp_reg, PARAMS)                                       \
	{                                                                           \
		void *(*real_new) PARAMS = (void *(*) PARAMS)new_wrap_foreign[form]; \
		NEW_WRAP_BP_DECL                                                    \
                                                                                    \
		if (interpose_fast(preload_tls, size_bytes))                        \
			return real_new ARGS;                                       \
		return new_wrap_record(real_new ARGS, size_bytes, fn, CALLER_IP,    \
				       CALLER_CFA, caller_bp);                      \
	}

/* A delete form of parameters PARAMS (p first) and arguments ARGS. */
#define NEW_WRAP_DELETE(name, form, PARAMS, ARGS)                                  \
	static void name PARAMS                                                    \
	{                                                                          \
		void (*real_delete) PARAMS = (void (*) PARAMS)new_wrap_foreign[form]; \
                                                                                   \
		new_wrap_free(p);                                                  \
		real_delete ARGS;                                                  \
	}

NEW_WRAP_NEW(new_wrap_nw, NEW_WRAP_NW, TRACE_FN_MALLOC, "rsi", (size_t size_bytes), (size_bytes))
NEW_WRAP_NEW(new_wrap_na, NEW_WRAP_NA, TRACE_FN_MALLOC, "rsi", (size_t size_bytes), (size_bytes))
NEW_WRAP_NEW(new_wrap_nw_nothrow, NEW_WRAP_NW_NOTHROW, TRACE_FN_MALLOC, "rdx",
	     (size_t size_bytes, const void *nothrow), (size_bytes, nothrow))
NEW_WRAP_NEW(new_wrap_na_nothrow, NEW_WRAP_NA_NOTHROW, TRACE_FN_MALLOC, "rdx",
	     (size_t size_bytes, const void *nothrow), (size_bytes, nothrow))
NEW_WRAP_NEW(new_wrap_nw_align, NEW_WRAP_NW_ALIGN, TRACE_FN_MEMALIGN, "rdx",
	     (size_t size_bytes, size_t align_bytes), (size_bytes, align_bytes))
NEW_WRAP_NEW(new_wrap_na_align, NEW_WRAP_NA_ALIGN, TRACE_FN_MEMALIGN, "rdx",
	     (size_t size_bytes, size_t align_bytes), (size_bytes, align_bytes))
NEW_WRAP_NEW(new_wrap_nw_align_nothrow, NEW_WRAP_NW_ALIGN_NOTHROW, TRACE_FN_MEMALIGN, "rcx",
	     (size_t size_bytes, size_t align_bytes, const void *nothrow),
	     (size_bytes, align_bytes, nothrow))
NEW_WRAP_NEW(new_wrap_na_align_nothrow, NEW_WRAP_NA_ALIGN_NOTHROW, TRACE_FN_MEMALIGN, "rcx",
	     (size_t size_bytes, size_t align_bytes, const void *nothrow),
	     (size_bytes, align_bytes, nothrow))

NEW_WRAP_DELETE(new_wrap_dl, NEW_WRAP_DL, (void *p), (p))
NEW_WRAP_DELETE(new_wrap_da, NEW_WRAP_DA, (void *p), (p))
NEW_WRAP_DELETE(new_wrap_dl_sized, NEW_WRAP_DL_SIZED, (void *p, size_t size_bytes),
		(p, size_bytes))
NEW_WRAP_DELETE(new_wrap_da_sized, NEW_WRAP_DA_SIZED, (void *p, size_t size_bytes),
		(p, size_bytes))
NEW_WRAP_DELETE(new_wrap_dl_nothrow, NEW_WRAP_DL_NOTHROW, (void *p, const void *nothrow),
		(p, nothrow))
NEW_WRAP_DELETE(new_wrap_da_nothrow, NEW_WRAP_DA_NOTHROW, (void *p, const void *nothrow),
		(p, nothrow))
NEW_WRAP_DELETE(new_wrap_dl_align, NEW_WRAP_DL_ALIGN, (void *p, size_t align_bytes),
		(p, align_bytes))
NEW_WRAP_DELETE(new_wrap_da_align, NEW_WRAP_DA_ALIGN, (void *p, size_t align_bytes),
		(p, align_bytes))
NEW_WRAP_DELETE(new_wrap_dl_sized_align, NEW_WRAP_DL_SIZED_ALIGN,
		(void *p, size_t size_bytes, size_t align_bytes), (p, size_bytes, align_bytes))
NEW_WRAP_DELETE(new_wrap_da_sized_align, NEW_WRAP_DA_SIZED_ALIGN,
		(void *p, size_t size_bytes, size_t align_bytes), (p, size_bytes, align_bytes))
NEW_WRAP_DELETE(new_wrap_dl_align_nothrow, NEW_WRAP_DL_ALIGN_NOTHROW,
		(void *p, size_t align_bytes, const void *nothrow), (p, align_bytes, nothrow))
NEW_WRAP_DELETE(new_wrap_da_align_nothrow, NEW_WRAP_DA_ALIGN_NOTHROW,
		(void *p, size_t align_bytes, const void *nothrow), (p, align_bytes, nothrow))

void *new_wrap_entry(enum new_wrap_form form)
{
	static void *const entries[NEW_WRAP_FORMS] = {
		(void *)new_wrap_nw,
		(void *)new_wrap_na,
		(void *)new_wrap_nw_nothrow,
		(void *)new_wrap_na_nothrow,
		(void *)new_wrap_nw_align,
		(void *)new_wrap_na_align,
		(void *)new_wrap_nw_align_nothrow,
		(void *)new_wrap_na_align_nothrow,
		(void *)new_wrap_dl,
		(void *)new_wrap_da,
		(void *)new_wrap_dl_sized,
		(void *)new_wrap_da_sized,
		(void *)new_wrap_dl_nothrow,
		(void *)new_wrap_da_nothrow,
		(void *)new_wrap_dl_align,
		(void *)new_wrap_da_align,
		(void *)new_wrap_dl_sized_align,
		(void *)new_wrap_da_sized_align,
		(void *)new_wrap_dl_align_nothrow,
		(void *)new_wrap_da_align_nothrow,
	};

	return entries[form];
}
