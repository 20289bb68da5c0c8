/*
 * preload/cfi_parse.c - finds the FDE of an instruction address through the
 * .eh_frame_hdr search table of its module, parses its CIE and FDE
 * (augmentations z, R, P, L; pointer encodings absptr, uleb/sleb,
 * udata/sdata 2/4/8, pcrel, datarel) and runs the call-frame program up to
 * that address, tracking only the CFA, rbp and the return-address column.
 * The row is then reduced to a struct cfi_rule; anything the fast unwinder
 * does not follow (CFA expressions as in PLT entries, expression or register
 * rules for rbp or the return address, signal frames 'S', unusual
 * encodings) is CFI_RULE_UNSUPPORTED, and the caller falls back to
 * libunwind.  A module without .eh_frame_hdr is searched record by record
 * in its .eh_frame, found in its file's section headers.  An address no FDE
 * covers, or in a module with neither .eh_frame_hdr nor .eh_frame, is
 * CFI_RULE_NO_CFI: libunwind (built without
 * .debug_frame support, as Debian's is) has no rule for it either and
 * guesses a frame-pointer frame, as the fast unwinder then does.
 *
 * Owns nothing: it reads the loaded modules' own unwind tables, bounds-checked
 * against the loaded segment that holds .eh_frame_hdr, while the loader's lock
 * (taken by dl_iterate_phdr) keeps the module mapped; for a module without
 * .eh_frame_hdr, its file's section headers, once a load (cfi_verdicts),
 * read by a child process of its own descriptor table (cfi_file_apart).
 * Must never allocate and never write anywhere but the caller's rule and
 * the verdicts.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "preload/cfi_parse.h"
#include "preload/phdr.h"
#include "preload/seccomp_watch.h"
#include "preload/sys.h"

/* DWARF register numbers of x86_64. */
#define CFI_REG_RBP 6u
#define CFI_REG_RSP 7u
#define CFI_REG_RA 16u

/* Pointer encodings (DW_EH_PE_*). */
#define CFI_PE_OMIT 0xffu
#define CFI_PE_FORMAT_MASK 0x0fu
#define CFI_PE_APPLY_MASK 0x70u
#define CFI_PE_INDIRECT 0x80u
#define CFI_PE_ABSPTR 0x00u
#define CFI_PE_ULEB128 0x01u
#define CFI_PE_UDATA2 0x02u
#define CFI_PE_UDATA4 0x03u
#define CFI_PE_UDATA8 0x04u
#define CFI_PE_SLEB128 0x09u
#define CFI_PE_SDATA2 0x0au
#define CFI_PE_SDATA4 0x0bu
#define CFI_PE_SDATA8 0x0cu
#define CFI_PE_PCREL 0x10u
#define CFI_PE_DATAREL 0x30u
#define CFI_PE_TABLE_SDATA4_DATAREL (CFI_PE_DATAREL | CFI_PE_SDATA4)

/* remember_state nesting we follow; deeper programs are unsupported. */
#define CFI_STATE_STACK_MAX 8

/* A bounds-checked cursor over unwind data in memory. */
struct cfi_reader {
	const uint8_t *p, *end;
	int bad; /* a read went past end or met something unsupported */
};

/* How the row says to recover one register. */
enum cfi_reg_how {
	CFI_HOW_SAME = 0,   /* unchanged (the default for callee-saved registers) */
	CFI_HOW_UNDEF = 1,  /* undefined */
	CFI_HOW_OFFSET = 2, /* saved at CFA + offset */
	CFI_HOW_OTHER = 3,  /* register, val_offset or expression rule: not followed */
};

struct cfi_reg_rule {
	uint8_t how;        /* enum cfi_reg_how */
	int64_t offset_bytes;
};

/* One row of the CFA table, restricted to what the fast unwinder needs. */
struct cfi_row {
	uint64_t cfa_reg;
	int64_t cfa_offset_bytes;
	int cfa_is_expression;
	struct cfi_reg_rule rbp, ra;
};

/* The parts of a CIE that its FDEs need. */
struct cfi_cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_encoding;
	int has_z;
	const uint8_t *insns, *insns_end;
};

/* The program being run and where it stops. */
struct cfi_exec {
	uintptr_t target_ip;
	uintptr_t loc;
	const struct cfi_cie *cie;
	struct cfi_row initial; /* the row after the CIE's program (DW_CFA_restore) */
	struct cfi_row stack[CFI_STATE_STACK_MAX];
	int depth;
};

static uint64_t cfi_read_bytes(struct cfi_reader *r, size_t n)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, n); /* x86_64: little-endian, unaligned loads are fine */
	r->p += n;
	return v;
}

static uint8_t cfi_u8(struct cfi_reader *r)
{
	return (uint8_t)cfi_read_bytes(r, 1);
}

static uint64_t cfi_uleb(struct cfi_reader *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; !r->bad; shift += 7) {
		uint8_t b = cfi_u8(r);

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t cfi_sleb(struct cfi_reader *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	do {
		b = cfi_u8(r);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while ((b & 0x80) && !r->bad);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/*
 * Reads a pointer in encoding enc.  pcrel is relative to the field's own
 * address, datarel to data_base (the .eh_frame_hdr start; 0 where datarel is
 * not allowed).  Indirect pointers and other bases are marked bad: the
 * values the unwinder needs never use them.
 */
static uintptr_t cfi_encoded(struct cfi_reader *r, uint8_t enc, uintptr_t data_base)
{
	uintptr_t field = (uintptr_t)r->p, base = 0;
	uint64_t v;

	switch (enc & CFI_PE_FORMAT_MASK) {
	case CFI_PE_ABSPTR:
	case CFI_PE_UDATA8:
	case CFI_PE_SDATA8:
		v = cfi_read_bytes(r, 8);
		break;
	case CFI_PE_ULEB128:
		v = cfi_uleb(r);
		break;
	case CFI_PE_SLEB128:
		v = (uint64_t)cfi_sleb(r);
		break;
	case CFI_PE_UDATA2:
		v = cfi_read_bytes(r, 2);
		break;
	case CFI_PE_SDATA2:
		v = (uint64_t)(int64_t)(int16_t)cfi_read_bytes(r, 2);
		break;
	case CFI_PE_UDATA4:
		v = cfi_read_bytes(r, 4);
		break;
	case CFI_PE_SDATA4:
		v = (uint64_t)(int64_t)(int32_t)cfi_read_bytes(r, 4);
		break;
	default:
		r->bad = 1;
		return 0;
	}
	switch (enc & CFI_PE_APPLY_MASK) {
	case 0:
		break;
	case CFI_PE_PCREL:
		base = field;
		break;
	case CFI_PE_DATAREL:
		if (!data_base)
			r->bad = 1;
		base = data_base;
		break;
	default:
		r->bad = 1;
	}
	if (enc & CFI_PE_INDIRECT)
		r->bad = 1;
	return (uintptr_t)(base + v);
}

/* Skips a pointer in encoding enc without applying or dereferencing it. */
static void cfi_skip_encoded(struct cfi_reader *r, uint8_t enc)
{
	cfi_encoded(r, (uint8_t)(enc & CFI_PE_FORMAT_MASK), 0);
}

/*
 * Parses the CIE at cie_addr (within [lo, hi)).  Returns 0, or -1 for a
 * malformed or unsupported CIE (signal frames 'S', unknown augmentations, a
 * return-address column other than 16).
 */
static int cfi_parse_cie(uintptr_t cie_addr, uintptr_t lo, uintptr_t hi, struct cfi_cie *cie)
{
	struct cfi_reader r = { (const uint8_t *)cie_addr, (const uint8_t *)hi, 0 };
	const char *aug;
	uint32_t len;
	uint8_t version;
	uint64_t ra_reg;
	size_t aug_len;

	if (cie_addr < lo || cie_addr >= hi)
		return -1;
	len = (uint32_t)cfi_read_bytes(&r, 4);
	if (r.bad || len == 0 || len == 0xffffffffu || len > (uintptr_t)(r.end - r.p))
		return -1;
	r.end = r.p + len;
	if (cfi_read_bytes(&r, 4) != 0) /* CIE id in .eh_frame */
		return -1;
	version = cfi_u8(&r);
	if (r.bad || (version != 1 && version != 3))
		return -1;
	aug = (const char *)r.p;
	aug_len = strnlen(aug, (size_t)(r.end - r.p));
	if (aug_len == (size_t)(r.end - r.p))
		return -1;
	r.p += aug_len + 1;
	cie->code_align = cfi_uleb(&r);
	cie->data_align = cfi_sleb(&r);
	ra_reg = version == 1 ? cfi_u8(&r) : cfi_uleb(&r);
	if (ra_reg != CFI_REG_RA)
		return -1;
	cie->fde_encoding = CFI_PE_ABSPTR;
	cie->has_z = aug[0] == 'z';
	if (cie->has_z) {
		uint64_t data_len = cfi_uleb(&r);
		const uint8_t *data_end;

		if (r.bad || data_len > (uint64_t)(r.end - r.p))
			return -1;
		data_end = r.p + data_len;
		for (size_t i = 1; i < aug_len; i++) {
			switch (aug[i]) {
			case 'R':
				cie->fde_encoding = cfi_u8(&r);
				break;
			case 'P':
				cfi_skip_encoded(&r, cfi_u8(&r));
				break;
			case 'L':
				cfi_u8(&r);
				break;
			default: /* 'S' (signal frame) and anything unknown */
				return -1;
			}
		}
		if (r.bad || r.p > data_end)
			return -1;
		r.p = data_end;
	} else if (aug_len != 0) {
		return -1;
	}
	if (r.bad)
		return -1;
	cie->insns = r.p;
	cie->insns_end = r.end;
	return 0;
}

/* Applies a register rule to rbp or the return-address column. */
static void cfi_set_reg(struct cfi_row *row, uint64_t reg, uint8_t how, int64_t offset_bytes)
{
	struct cfi_reg_rule *rule = reg == CFI_REG_RBP ? &row->rbp :
				    reg == CFI_REG_RA  ? &row->ra :
							 NULL;

	if (rule) {
		rule->how = how;
		rule->offset_bytes = offset_bytes;
	}
}

/* DW_CFA_restore(_extended): back to the rule after the CIE's program. */
static void cfi_restore_reg(struct cfi_exec *x, struct cfi_row *row, uint64_t reg)
{
	if (reg == CFI_REG_RBP)
		row->rbp = x->initial.rbp;
	else if (reg == CFI_REG_RA)
		row->ra = x->initial.ra;
}

/* Moves the location by delta code units; returns 1 when the row in force at
 * the target address is complete (the next row starts past it). */
static int cfi_advance(struct cfi_exec *x, uint64_t delta)
{
	x->loc += delta * x->cie->code_align;
	return x->loc > x->target_ip;
}

/*
 * Runs the call-frame instructions in r on row until the location passes the
 * target address or the program ends.  Returns 0, or -1 for an unknown
 * opcode, malformed data or too deep remember_state nesting.
 */
static int cfi_run(struct cfi_exec *x, struct cfi_reader *r, struct cfi_row *row)
{
	const struct cfi_cie *cie = x->cie;

	while (r->p < r->end && !r->bad) {
		uint8_t op = cfi_u8(r);
		uint64_t reg, len;

		switch (op >> 6) {
		case 1: /* DW_CFA_advance_loc */
			if (cfi_advance(x, op & 0x3f))
				return 0;
			continue;
		case 2: /* DW_CFA_offset */
			cfi_set_reg(row, op & 0x3f, CFI_HOW_OFFSET,
				    (int64_t)cfi_uleb(r) * cie->data_align);
			continue;
		case 3: /* DW_CFA_restore */
			cfi_restore_reg(x, row, op & 0x3f);
			continue;
		}
		switch (op) {
		case 0x00: /* DW_CFA_nop */
			break;
		case 0x01: { /* DW_CFA_set_loc */
			uintptr_t loc = cfi_encoded(r, cie->fde_encoding, 0);

			if (loc > x->target_ip)
				return r->bad ? -1 : 0;
			x->loc = loc;
			break;
		}
		case 0x02: /* DW_CFA_advance_loc1 */
			if (cfi_advance(x, cfi_read_bytes(r, 1)))
				return r->bad ? -1 : 0;
			break;
		case 0x03: /* DW_CFA_advance_loc2 */
			if (cfi_advance(x, cfi_read_bytes(r, 2)))
				return r->bad ? -1 : 0;
			break;
		case 0x04: /* DW_CFA_advance_loc4 */
			if (cfi_advance(x, cfi_read_bytes(r, 4)))
				return r->bad ? -1 : 0;
			break;
		case 0x05: /* DW_CFA_offset_extended */
			reg = cfi_uleb(r);
			cfi_set_reg(row, reg, CFI_HOW_OFFSET, (int64_t)cfi_uleb(r) * cie->data_align);
			break;
		case 0x06: /* DW_CFA_restore_extended */
			cfi_restore_reg(x, row, cfi_uleb(r));
			break;
		case 0x07: /* DW_CFA_undefined */
			cfi_set_reg(row, cfi_uleb(r), CFI_HOW_UNDEF, 0);
			break;
		case 0x08: /* DW_CFA_same_value */
			cfi_set_reg(row, cfi_uleb(r), CFI_HOW_SAME, 0);
			break;
		case 0x09: /* DW_CFA_register */
			reg = cfi_uleb(r);
			cfi_uleb(r);
			cfi_set_reg(row, reg, CFI_HOW_OTHER, 0);
			break;
		case 0x0a: /* DW_CFA_remember_state */
			if (x->depth == CFI_STATE_STACK_MAX)
				return -1;
			x->stack[x->depth++] = *row;
			break;
		case 0x0b: /* DW_CFA_restore_state */
			if (x->depth == 0)
				return -1;
			*row = x->stack[--x->depth];
			break;
		case 0x0c: /* DW_CFA_def_cfa */
			row->cfa_reg = cfi_uleb(r);
			row->cfa_offset_bytes = (int64_t)cfi_uleb(r);
			row->cfa_is_expression = 0;
			break;
		case 0x0d: /* DW_CFA_def_cfa_register */
			row->cfa_reg = cfi_uleb(r);
			break;
		case 0x0e: /* DW_CFA_def_cfa_offset */
			row->cfa_offset_bytes = (int64_t)cfi_uleb(r);
			break;
		case 0x0f: /* DW_CFA_def_cfa_expression */
			len = cfi_uleb(r);
			if (r->bad || len > (uint64_t)(r->end - r->p))
				return -1;
			r->p += len;
			row->cfa_is_expression = 1;
			break;
		case 0x10: /* DW_CFA_expression */
		case 0x16: /* DW_CFA_val_expression */
			reg = cfi_uleb(r);
			len = cfi_uleb(r);
			if (r->bad || len > (uint64_t)(r->end - r->p))
				return -1;
			r->p += len;
			cfi_set_reg(row, reg, CFI_HOW_OTHER, 0);
			break;
		case 0x11: /* DW_CFA_offset_extended_sf */
			reg = cfi_uleb(r);
			cfi_set_reg(row, reg, CFI_HOW_OFFSET, cfi_sleb(r) * cie->data_align);
			break;
		case 0x12: /* DW_CFA_def_cfa_sf */
			row->cfa_reg = cfi_uleb(r);
			row->cfa_offset_bytes = cfi_sleb(r) * cie->data_align;
			row->cfa_is_expression = 0;
			break;
		case 0x13: /* DW_CFA_def_cfa_offset_sf */
			row->cfa_offset_bytes = cfi_sleb(r) * cie->data_align;
			break;
		case 0x14: /* DW_CFA_val_offset */
			reg = cfi_uleb(r);
			cfi_uleb(r);
			cfi_set_reg(row, reg, CFI_HOW_OTHER, 0);
			break;
		case 0x15: /* DW_CFA_val_offset_sf */
			reg = cfi_uleb(r);
			cfi_sleb(r);
			cfi_set_reg(row, reg, CFI_HOW_OTHER, 0);
			break;
		case 0x2e: /* DW_CFA_GNU_args_size */
			cfi_uleb(r);
			break;
		case 0x2f: /* DW_CFA_GNU_negative_offset_extended */
			reg = cfi_uleb(r);
			cfi_set_reg(row, reg, CFI_HOW_OFFSET, -(int64_t)cfi_uleb(r) * cie->data_align);
			break;
		default:
			return -1;
		}
	}
	return r->bad ? -1 : 0;
}

/* Reduces the row in force at the target address to a compact rule. */
static int cfi_reduce(const struct cfi_row *row, struct cfi_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	if (row->ra.how == CFI_HOW_UNDEF) {
		rule->kind = CFI_RULE_OUTERMOST;
		return rule->kind;
	}
	if (row->cfa_is_expression || row->ra.how != CFI_HOW_OFFSET || row->ra.offset_bytes != -8 ||
	    (row->cfa_reg != CFI_REG_RSP && row->cfa_reg != CFI_REG_RBP) ||
	    row->cfa_offset_bytes <= 0 || row->cfa_offset_bytes > INT32_MAX)
		return CFI_RULE_UNSUPPORTED;
	if (row->rbp.how == CFI_HOW_OFFSET) {
		if (row->rbp.offset_bytes < INT32_MIN || row->rbp.offset_bytes > INT32_MAX)
			return CFI_RULE_UNSUPPORTED;
		rule->rbp_saved = 1;
		rule->rbp_offset_bytes = (int32_t)row->rbp.offset_bytes;
	} else if (row->rbp.how != CFI_HOW_SAME) {
		return CFI_RULE_UNSUPPORTED;
	}
	rule->cfa_is_rbp = row->cfa_reg == CFI_REG_RBP;
	rule->cfa_offset_bytes = (int32_t)row->cfa_offset_bytes;
	rule->kind = CFI_RULE_FRAME;
	return rule->kind;
}

static int cfi_parse_fde(uintptr_t fde, uintptr_t lo, uintptr_t hi, uintptr_t ip,
			 struct cfi_rule *rule);

/*
 * Looks ip up in the binary-search table of the .eh_frame_hdr at hdr (inside
 * the loaded segment [lo, hi)) and reduces its FDE's row.  Returns the kind.
 */
static int cfi_parse_in_module(uintptr_t hdr, uintptr_t lo, uintptr_t hi, uintptr_t ip,
			       struct cfi_rule *rule)
{
	struct cfi_reader r = { (const uint8_t *)hdr, (const uint8_t *)hi, 0 };
	uint8_t version, ptr_enc, count_enc, table_enc;
	uintptr_t fde;
	const int32_t *table;
	uint64_t count, first = 0, n;

	version = cfi_u8(&r);
	ptr_enc = cfi_u8(&r);
	count_enc = cfi_u8(&r);
	table_enc = cfi_u8(&r);
	if (r.bad || version != 1 || count_enc == CFI_PE_OMIT ||
	    table_enc != CFI_PE_TABLE_SDATA4_DATAREL)
		return CFI_RULE_UNSUPPORTED;
	cfi_encoded(&r, ptr_enc, hdr); /* .eh_frame itself: not needed with the table */
	count = cfi_encoded(&r, count_enc, hdr);
	if (r.bad || count == 0 || count > (uint64_t)(r.end - r.p) / 8)
		return CFI_RULE_UNSUPPORTED;
	table = (const int32_t *)r.p;
	/* Last entry whose initial location is <= ip. */
	if ((uintptr_t)(hdr + (intptr_t)table[0]) > ip)
		return CFI_RULE_NO_CFI;
	for (n = count; n > 1;) {
		uint64_t half = n / 2;

		if ((uintptr_t)(hdr + (intptr_t)table[2 * (first + half)]) <= ip) {
			first += half;
			n -= half;
		} else {
			n = half;
		}
	}
	fde = hdr + (intptr_t)table[2 * first + 1];
	if (fde < lo || fde >= hi)
		return CFI_RULE_UNSUPPORTED;
	return cfi_parse_fde(fde, lo, hi, ip, rule);
}

/*
 * Parses the FDE at fde (inside the loaded segment [lo, hi)) and its CIE and
 * reduces their row at ip.  Returns the kind: CFI_RULE_NO_CFI when the FDE
 * does not cover ip.
 */
static int cfi_parse_fde(uintptr_t fde, uintptr_t lo, uintptr_t hi, uintptr_t ip,
			 struct cfi_rule *rule)
{
	struct cfi_reader r = { (const uint8_t *)fde, (const uint8_t *)hi, 0 };
	uintptr_t fde_end, pc_begin, pc_range, cie_addr;
	struct cfi_cie cie;
	struct cfi_exec x;
	struct cfi_row row;
	struct cfi_reader insns;
	uint32_t len;

	len = (uint32_t)cfi_read_bytes(&r, 4);
	if (r.bad || len == 0 || len == 0xffffffffu || len > (uintptr_t)(r.end - r.p))
		return CFI_RULE_UNSUPPORTED;
	r.end = r.p + len;
	fde_end = (uintptr_t)r.end;
	cie_addr = (uintptr_t)r.p;
	len = (uint32_t)cfi_read_bytes(&r, 4);
	if (r.bad || len == 0 || len > cie_addr)
		return CFI_RULE_UNSUPPORTED;
	cie_addr -= len;
	if (cfi_parse_cie(cie_addr, lo, hi, &cie) < 0)
		return CFI_RULE_UNSUPPORTED;
	pc_begin = cfi_encoded(&r, cie.fde_encoding, 0);
	pc_range = cfi_encoded(&r, (uint8_t)(cie.fde_encoding & CFI_PE_FORMAT_MASK), 0);
	if (cie.has_z) {
		uint64_t aug_len = cfi_uleb(&r);

		if (r.bad || aug_len > (uint64_t)(r.end - r.p))
			return CFI_RULE_UNSUPPORTED;
		r.p += aug_len;
	}
	if (r.bad)
		return CFI_RULE_UNSUPPORTED;
	if (ip < pc_begin || ip - pc_begin >= pc_range)
		return CFI_RULE_NO_CFI;

	memset(&x, 0, sizeof(x));
	memset(&row, 0, sizeof(row));
	x.target_ip = ip;
	x.loc = pc_begin;
	x.cie = &cie;
	insns = (struct cfi_reader){ cie.insns, cie.insns_end, 0 };
	if (cfi_run(&x, &insns, &row) < 0)
		return CFI_RULE_UNSUPPORTED;
	x.initial = row;
	x.depth = 0;
	x.loc = pc_begin;
	insns = (struct cfi_reader){ r.p, (const uint8_t *)fde_end, 0 };
	if (cfi_run(&x, &insns, &row) < 0)
		return CFI_RULE_UNSUPPORTED;
	return cfi_reduce(&row, rule);
}

/* Reads bytes at offset of fd in full: 0, or -1. */
static int cfi_pread(int fd, void *to, size_t bytes, uint64_t offset)
{
	return syscall(SYS_pread64, fd, to, bytes, (long)offset) == (long)bytes ? 0 : -1;
}

/* What the section headers of a module's file say of its .eh_frame. */
struct cfi_file_eh {
	int state; /* CFI_FILE_UNREAD, CFI_FILE_NO_EH_FRAME or CFI_FILE_EH_FRAME */
	uint64_t vaddr, bytes; /* CFI_FILE_EH_FRAME: the section's address and size */
};
#define CFI_FILE_UNREAD 0
#define CFI_FILE_NO_EH_FRAME 1 /* none, or only a terminator (mono's AOT images) */
#define CFI_FILE_EH_FRAME 2

/*
 * Finds the .eh_frame of the file at path (a module without .eh_frame_hdr)
 * in its section headers, into *eh_out.  Reads through a descriptor opened and
 * closed here, so only in cfi_file_apart's child; CFI_FILE_UNREAD when the
 * file cannot be read or is not the ELF file it should be.
 */
static void cfi_file_find_eh_frame(const char *path, struct cfi_file_eh *eh_out)
{
	ElfW(Ehdr) eh;
	ElfW(Shdr) names, sh;
	char name[sizeof(".eh_frame")];
	int fd;

	eh_out->state = CFI_FILE_UNREAD;
	fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (cfi_pread(fd, &eh, sizeof(eh), 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_shentsize != sizeof(sh) || eh.e_shstrndx >= eh.e_shnum ||
	    cfi_pread(fd, &names, sizeof(names), eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(sh)) < 0)
		goto out;
	eh_out->state = CFI_FILE_NO_EH_FRAME;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (cfi_pread(fd, &sh, sizeof(sh), eh.e_shoff + (uint64_t)i * sizeof(sh)) < 0 ||
		    cfi_pread(fd, name, sizeof(name), names.sh_offset + sh.sh_name) < 0) {
			eh_out->state = CFI_FILE_UNREAD;
			break;
		}
		if (memcmp(name, ".eh_frame", sizeof(name)) == 0 && sh.sh_size > 4) {
			/* (4 bytes: only the terminator) */
			eh_out->state = CFI_FILE_EH_FRAME;
			eh_out->vaddr = sh.sh_addr;
			eh_out->bytes = sh.sh_size;
			break;
		}
	}
out:
	sys_close(fd);
}

/* The question and answer cfi_file_apart's child shares with its parent. */
struct cfi_file_job {
	const char *path;
	struct cfi_file_eh eh;
};

/* The child's function: it runs on the parent's memory with all signals
 * blocked, and its descriptor table is its own. */
static int cfi_file_child(void *arg)
{
	struct cfi_file_job *job = arg;

	cfi_file_find_eh_frame(job->path, &job->eh);
	return 0;
}

/* Bytes of the child's stack (in the waiting parent's frame): the child's
 * frames, the ELF and two section headers and syscall(), take under 1 KiB. */
#define CFI_CHILD_STACK_BYTES 2048

/*
 * cfi_file_find_eh_frame(path, eh), asked of a child process that shares
 * this process's memory (CLONE_VM) but not its descriptor table, while this
 * thread waits (CLONE_VFORK).  A descriptor opened here, inside malloc,
 * would take the lowest free number for a moment: a program thread's open
 * would get another number than it must, and its dup2 or close_range could
 * close or replace the read's descriptor, and the read's close then one of
 * the program's.  The child sends no SIGCHLD (exit signal 0: only waits
 * with __WCLONE or __WALL see it) and is reaped here; all signals are
 * blocked across the clone, so no handler of the program runs in the child.
 * CFI_FILE_UNREAD when the file cannot be read, a seccomp filter is on
 * (clone or the open could be what kills the process) or the child cannot
 * be made.
 */
static void cfi_file_apart(const char *path, struct cfi_file_eh *eh)
{
	_Alignas(16) unsigned char stack[CFI_CHILD_STACK_BYTES];
	struct cfi_file_job job = { path, { CFI_FILE_UNREAD, 0, 0 } };
	sigset_t all, old;
	siginfo_t si;
	int pid;

	eh->state = CFI_FILE_UNREAD;
	if (!path || !*path || seccomp_watch_filtered())
		return;
	sigfillset(&all);
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, _NSIG / 8) != 0)
		return;
	pid = clone(cfi_file_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK, &job);
	while (pid > 0 && syscall(SYS_waitid, P_PID, pid, &si, WEXITED | __WCLONE, NULL) < 0 &&
	       errno == EINTR)
		;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
	if (pid > 0)
		*eh = job.eh;
}

/* Modules without .eh_frame_hdr held in cfi_verdicts: more are decided
 * again when they come back (a round-robin slot). */
#define CFI_VERDICT_SLOTS 16

/*
 * What cfi_file_apart found in the loaded modules without .eh_frame_hdr,
 * so that each load's file is read once, not at every rule-cache miss in
 * it (mono: 9,086 reads of the section headers a run).  A module is known
 * by where its load put its program headers; any unload (the loader's
 * dlpi_subs counter moves) empties the table, as another file may now be
 * loaded there.  Read and written only by cfi_find_module, under the
 * loader's lock, which dl_iterate_phdr holds across its callbacks.
 */
static struct cfi_verdict {
	const void *phdr; /* dlpi_phdr of the load; NULL: a free slot */
	struct cfi_file_eh eh;
} cfi_verdicts[CFI_VERDICT_SLOTS];
static unsigned long long cfi_verdicts_subs;
static unsigned cfi_verdicts_next;

/* What the file of the module of info (without .eh_frame_hdr, size as its
 * callback got) says of its .eh_frame: from cfi_verdicts, or read and kept
 * there. */
static void cfi_module_eh_frame(const struct dl_phdr_info *info, size_t size,
				struct cfi_file_eh *eh)
{
	struct cfi_verdict *v;

	if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		cfi_file_apart(info->dlpi_name, eh); /* no counter: no cache */
		return;
	}
	if (info->dlpi_subs != cfi_verdicts_subs) {
		memset(cfi_verdicts, 0, sizeof(cfi_verdicts));
		cfi_verdicts_subs = info->dlpi_subs;
	}
	for (unsigned i = 0; i < CFI_VERDICT_SLOTS; i++) {
		if (cfi_verdicts[i].phdr == info->dlpi_phdr) {
			*eh = cfi_verdicts[i].eh;
			return;
		}
	}
	v = &cfi_verdicts[cfi_verdicts_next++ % CFI_VERDICT_SLOTS];
	v->phdr = NULL;
	cfi_file_apart(info->dlpi_name, &v->eh);
	v->phdr = info->dlpi_phdr;
	*eh = v->eh;
}

/*
 * Looks ip up in the .eh_frame at [start, end) of a module without
 * .eh_frame_hdr, inside the loaded segment [lo, hi), record by record (as
 * libunwind, which builds a search table of its own there, finds the same
 * FDE), and reduces its row.  Returns the kind: CFI_RULE_NO_CFI when no FDE
 * covers ip.
 */
static int cfi_parse_in_eh_frame(uintptr_t start, uintptr_t end, uintptr_t lo, uintptr_t hi,
				 uintptr_t ip, struct cfi_rule *rule)
{
	for (uintptr_t rec = start; end - rec >= 8;) {
		struct cfi_reader r = { (const uint8_t *)rec, (const uint8_t *)end, 0 };
		uint32_t len = (uint32_t)cfi_read_bytes(&r, 4), id;
		uintptr_t next, pc_begin, pc_range;
		struct cfi_cie cie;

		if (len == 0)
			break; /* the terminator */
		if (len == 0xffffffffu || len > (uintptr_t)(r.end - r.p))
			return CFI_RULE_UNSUPPORTED;
		next = (uintptr_t)r.p + len;
		id = (uint32_t)cfi_read_bytes(&r, 4); /* 0: a CIE; else back to the FDE's CIE */
		if (r.bad)
			return CFI_RULE_UNSUPPORTED;
		if (id != 0) {
			if (id > (uintptr_t)r.p - 4 - start ||
			    cfi_parse_cie((uintptr_t)r.p - 4 - id, lo, hi, &cie) < 0)
				return CFI_RULE_UNSUPPORTED;
			pc_begin = cfi_encoded(&r, cie.fde_encoding, 0);
			pc_range = cfi_encoded(&r, (uint8_t)(cie.fde_encoding & CFI_PE_FORMAT_MASK), 0);
			if (r.bad)
				return CFI_RULE_UNSUPPORTED;
			if (ip >= pc_begin && ip - pc_begin < pc_range)
				return cfi_parse_fde(rec, lo, hi, ip, rule);
		}
		rec = next;
	}
	return CFI_RULE_NO_CFI;
}

/* Parses ip in a module without .eh_frame_hdr (info): CFI_RULE_NO_CFI when
 * its file has no .eh_frame (libunwind finds no rule either and guesses),
 * else by its .eh_frame where a loaded segment holds it. */
static int cfi_parse_without_hdr(const struct dl_phdr_info *info, size_t size, uintptr_t ip,
				 struct cfi_rule *rule)
{
	struct cfi_file_eh eh;
	uintptr_t start;

	cfi_module_eh_frame(info, size, &eh);
	if (eh.state == CFI_FILE_NO_EH_FRAME)
		return CFI_RULE_NO_CFI;
	if (eh.state != CFI_FILE_EH_FRAME)
		return CFI_RULE_UNSUPPORTED;
	start = info->dlpi_addr + eh.vaddr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_filesz;

		if (ph->p_type == PT_LOAD && start - lo < ph->p_filesz)
			return cfi_parse_in_eh_frame(start, eh.bytes < hi - start ? start + eh.bytes : hi,
						     lo, hi, ip, rule);
	}
	return CFI_RULE_UNSUPPORTED;
}

/* What the dl_iterate_phdr callback looks for and found. */
struct cfi_find {
	uintptr_t ip;
	struct cfi_rule *rule;
	int kind;
	int found_module; /* a loaded segment holds ip */
};

/* dl_iterate_phdr callback: parses in the module whose segment holds ip. */
static int cfi_find_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct cfi_find *f = arg;
	const ElfW(Phdr) *eh = NULL;

	if (!phdr_load_holding(info, f->ip, 1))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			eh = &info->dlpi_phdr[i];
	f->found_module = 1;
	if (!eh) {
		/* no search table (mono's AOT images: no .eh_frame either, their
		 * rules are in .debug_frame, which libunwind does not read) */
		f->kind = cfi_parse_without_hdr(info, size, f->ip, f->rule);
		return 1;
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		uintptr_t hdr = info->dlpi_addr + eh->p_vaddr;

		if (ph->p_type == PT_LOAD && hdr - start < ph->p_filesz) {
			f->kind = cfi_parse_in_module(hdr, start, start + ph->p_filesz, f->ip,
						      f->rule);
			break;
		}
	}
	return 1;
}

int cfi_parse_rule(uintptr_t lookup_ip, struct cfi_rule *rule)
{
	struct cfi_find f = { lookup_ip, rule, CFI_RULE_UNSUPPORTED, 0 };

	memset(rule, 0, sizeof(*rule));
	dl_iterate_phdr(cfi_find_module, &f);
	if (!f.found_module)
		f.kind = CFI_RULE_NO_CFI; /* JIT code, or no code at all: libunwind guesses too */
	if (f.kind != CFI_RULE_FRAME && f.kind != CFI_RULE_OUTERMOST)
		memset(rule, 0, sizeof(*rule));
	rule->kind = (uint8_t)f.kind;
	return f.kind;
}
