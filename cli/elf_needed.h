/*
 * cli/elf_needed.h - which sanitizer runtime a program loads, from its
 * dynamic section's DT_NEEDED entries.
 */
#ifndef MPROF_CLI_ELF_NEEDED_H
#define MPROF_CLI_ELF_NEEDED_H

#include <stddef.h>

/*
 * When the native ELF program at path names a sanitizer runtime that serves
 * malloc itself among its DT_NEEDED libraries (libasan.so..., libhwasan,
 * libtsan, liblsan: GCC links them so by default), writes that soname into
 * soname[0..size) and returns the sanitizer's name ("AddressSanitizer",
 * ...).  Returns NULL for any other file, or one that cannot be read.
 * AddressSanitizer refuses to run when a preloaded library comes before its
 * runtime ("ASan runtime does not come first in initial library list"),
 * and the others would have their malloc replaced by the recorder's.
 * Plain reads; owns no memory beyond the call.
 */
const char *elf_needed_sanitizer(const char *path, char *soname, size_t size);

#endif
