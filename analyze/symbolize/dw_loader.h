/*
 * analyze/symbolize/dw_loader.h - elfutils' libdw, loaded with dlopen the first time
 * a module file must be read, not linked.
 *
 * Reports of traces whose frames were symbolized when they were recorded
 * (the SYMBOLS chunk, the usual case) never read a module file: linked,
 * libdw and the libraries it needs (libelf, liblzma, libbz2, libz) put 460
 * KiB of pages into every report, measured with /proc/PID/smaps at the
 * peak of python3's report (200 KiB of libdw's, 88 of liblzma's, 72 of
 * libelf's, 56 of libbz2's, 44 of libz's).
 *
 * symbolize.c calls each libdw function through dw_fn (dw_fn.dwfl_begin(...))
 * after dw_load() returned true; the list below is every function it uses.
 */
#ifndef MPROF_ANALYZE_DW_LOADER_H
#define MPROF_ANALYZE_DW_LOADER_H

#include <stdbool.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

/* The soname of elfutils' libdw (Debian: libdw1). */
#define DW_LOADER_SONAME "libdw.so.1"

#define DW_LOADER_FUNCTIONS(X)                                                                   \
	X(dwfl_begin) X(dwfl_end) X(dwfl_report_begin) X(dwfl_report_elf) X(dwfl_report_end)      \
	X(dwfl_build_id_find_elf) X(dwfl_standard_find_debuginfo) X(dwfl_offline_section_address) \
	X(dwfl_module_getelf) X(dwfl_module_build_id) X(dwfl_module_getsymtab)                    \
	X(dwfl_module_getsym_info) X(dwfl_module_getsrc) X(dwfl_module_getdwarf)                  \
	X(dwfl_module_info)                                                                       \
	X(dwfl_module_addrdie) X(dwfl_lineinfo)                                                   \
	X(dwarf_tag) X(dwarf_formstring) X(dwarf_attr_integrate) X(dwarf_siblingof)               \
	X(dwarf_ranges) X(dwarf_haspc) X(dwarf_hasattr) X(dwarf_formudata) X(dwarf_child)         \
	X(dwarf_attr) X(dwarf_linesrc) X(dwarf_lineno) X(dwarf_getsrcfiles) X(dwarf_getsrc_die)   \
	X(dwarf_get_units) X(dwarf_filesrc) X(dwarf_entrypc) X(dwarf_dieoffset)

/* libdw's functions, each with its own type; all set once dw_load() has
 * returned true, all NULL before. */
struct dw_functions {
#define DW_LOADER_POINTER(f) __typeof__(f) *f;
	DW_LOADER_FUNCTIONS(DW_LOADER_POINTER)
#undef DW_LOADER_POINTER
};

extern struct dw_functions dw_fn;

/*
 * Loads libdw the first time (thread-safe) and returns whether every
 * function of DW_LOADER_FUNCTIONS was found: when not (the library missing
 * or too old), no module file can be read and frames keep their module and
 * offset, as when the file is gone, and `mprof-analyze symbolize` embeds
 * nothing (cmd/symbolize.c).  The library stays loaded.
 */
bool dw_load(void);

/* Whether dw_load() was called and failed (false before any call: a
 * caller that never needed libdw never loads it). */
bool dw_load_failed(void);

/* Why dw_load() failed (dlerror's words, or the function missing), for a
 * message; "" before a failure. */
const char *dw_load_error(void);

#endif
