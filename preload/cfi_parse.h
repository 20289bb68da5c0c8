/*
 * preload/cfi_parse.h - reducing the DWARF call-frame information (.eh_frame)
 * of one instruction address to the compact unwind rule the fast unwinder
 * follows (x86_64 only).
 */
#ifndef MPROF_PRELOAD_CFI_PARSE_H
#define MPROF_PRELOAD_CFI_PARSE_H

#include <stdint.h>

/* What kind of frame an instruction address belongs to. */
enum cfi_rule_kind {
	CFI_RULE_UNSUPPORTED = 0, /* no FDE, or CFI the fast unwinder does not follow */
	CFI_RULE_FRAME = 1,       /* CFA = (rsp|rbp) + offset, RA at CFA - 8 */
	CFI_RULE_OUTERMOST = 2,   /* the return address is undefined: the last frame */
	CFI_RULE_NO_CFI = 3,      /* no FDE covers the address: libunwind's frame-pointer guess */
};

/*
 * The unwind rule of one instruction address.  A CFI_RULE_FRAME frame's
 * caller has sp = CFA, ip = the word at CFA - 8, and rbp = the word at
 * CFA + rbp_offset_bytes when rbp_saved, else the current rbp.
 */
struct cfi_rule {
	uint8_t kind;             /* enum cfi_rule_kind */
	uint8_t cfa_is_rbp;       /* 1: CFA is based on rbp, 0: on rsp */
	uint8_t rbp_saved;        /* 1: the caller's rbp is saved at CFA + rbp_offset_bytes */
	int32_t cfa_offset_bytes; /* added to the base register */
	int32_t rbp_offset_bytes; /* from the CFA, usually negative */
};

/*
 * Finds the FDE covering lookup_ip in the loaded modules (dl_iterate_phdr,
 * .eh_frame_hdr binary-search table), runs its CIE and FDE programs up to
 * lookup_ip and reduces the row to *rule.  Takes the loader's lock through
 * dl_iterate_phdr and parses while holding it, so the module cannot be
 * unloaded meanwhile; the caller must hold none of the shim's locks that a
 * thread inside the loader could wait for.  Never allocates.  Returns the
 * kind it stored: CFI_RULE_NO_CFI when the address lies in no module, in
 * one with neither .eh_frame_hdr nor .eh_frame in its file (mono's AOT
 * images; the file is read once a load, by a child process with a
 * descriptor table of its own), or in one whose table (or .eh_frame,
 * without .eh_frame_hdr) has
 * no FDE covering it (Go's assembly, JIT code), CFI_RULE_UNSUPPORTED for
 * anything else not handled.
 */
int cfi_parse_rule(uintptr_t lookup_ip, struct cfi_rule *rule);

#endif
