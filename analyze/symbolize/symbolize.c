/*
 * analyze/symbolize/symbolize.c - from (module epoch, instruction pointer) to the
 * frames a report shows, with libdw (loaded when the first module file is
 * opened, dw_loader.h): function names from .symtab/.dynsym
 * or DWARF (demangled), file:line from the line table, inlined frames from
 * the DWARF scope tree; module+offset when the module file is gone or is not
 * the one that ran (build-id differs).
 *
 * Owns one Dwfl per distinct module file (path + build-id), opened lazily
 * and offline (no process is attached: the program has exited), a sorted
 * index of each file's function symbols and of each compilation unit's
 * functions (libdw's own lookups are linear scans, too slow for thousands of
 * addresses), the answer cache, and every string an answer points to.
 * Answers loaded from a SYMBOLS chunk (symbol_table.c) go into the same
 * cache first, so they win over what the files on disk say now.  Must never
 * print: errors become "unknown" answers (module+offset).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "analyze/symbolize/dw_loader.h"

#include "analyze/symbolize/debug_search.h"
#include "analyze/symbolize/demangle.h"
#include "analyze/util/hash_seed.h"
#include "analyze/symbolize/symbol_cache.h"
#include "analyze/symbolize/symbol_table.h"
#include "analyze/symbolize/symbolize.h"
#include "trace/chunk.h"

#define NO_FILE 0u               /* file index of "no module holds the ip" */
#define MAX_INLINE_DEPTH 256     /* frames per address, at most */
#define MODULE_CACHE_SLOTS 64
/* Module files kept open from one trace to the next (symbolizer_set_maps);
 * each holds a file descriptor or two */
#define SYMBOLIZER_OPEN_FILES_MAX 32

/* An address range of a function (or of a compilation unit), sorted. */
struct cu_range {
	Dwarf_Addr low, high;    /* [low, high), DWARF addresses */
	Dwarf_Die die;           /* the DW_TAG_subprogram (compile_unit) */
};

struct cu_index {
	Dwarf_Off cu_offset;
	struct cu_range *ranges;
	size_t count;
};

/* A function symbol of .symtab/.dynsym, in Dwfl addresses. */
struct elf_symbol {
	GElf_Addr addr;
	GElf_Xword size_bytes;   /* 0: unknown, reaches to the next symbol */
	const char *name;        /* in the ELF string table */
	unsigned rank;           /* among aliases, lower is preferred */
	unsigned order;          /* position in the symbol table */
};

enum file_state { FILE_UNOPENED, FILE_OPEN, FILE_UNUSABLE };

/* What libdw's search for a module's separate debug file found, kept where
 * its module's userdata points (file_find_debuginfo). */
struct debug_memo {
	bool in_vain;            /* the last search found nothing */
	char *debuglink;         /* the .gnu_debuglink name it was given, or NULL */
};

/* One module file: what the answers are keyed by, and its libdw handle. */
struct sym_file {
	char *path;
	uint8_t *build_id;
	size_t build_id_len;
	enum file_state state;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr dwfl_bias;     /* Dwfl address = ELF address + dwfl_bias */
	struct cu_index *cus;
	size_t cu_count;
	struct elf_symbol *symbols; /* sorted by address, one per address */
	size_t symbol_count;
	bool symbols_indexed;
	struct cu_range *cu_spans;  /* compilation units by address, for files
				     * without .debug_aranges (clang) */
	size_t cu_span_count;
	bool cu_spans_indexed;
	Dwarf_Addr dwarf_bias;      /* Dwfl address = DWARF address + this */
	struct debug_memo *debug;   /* while open; malloc'd: libdw keeps a pointer */
	bool cache_tried;           /* the on-disk cache was looked at */
	bool dwarf_cached;          /* answers came from a DWARF cache file */
	bool cache_dirty;           /* libdw answered something new */
	bool opened_kept;           /* opened from a copy `mprof run` kept, not
				     * its path: no proof of its debug search */
};

struct sym_answer {
	uint32_t file;
	bool used;               /* returned by a lookup since the last
				  * symbolizer_set_maps (cache loads are not):
				  * in symbolizer.used */
	uint64_t module_offset;  /* return address - load bias */
	struct sym_location loc;
	struct sym_frame frames[]; /* loc.count of them */
};

struct symbolizer {
	const struct module_maps *maps;
	struct sym_file *files;  /* files[0] is "?" (NO_FILE) */
	size_t file_count, file_cap;
	uint32_t *file_slots;    /* open addressing on (path, build-id): index */
	size_t file_slot_mask;   /* slots - 1; 0: no slots yet */
	/* module -> file index, direct-mapped by the module's address */
	const struct module *cache_module[MODULE_CACHE_SLOTS];
	uint32_t cache_file[MODULE_CACHE_SLOTS];
	struct sym_answer **answers;  /* open addressing on (file, offset) */
	size_t answer_count, answer_slots;
	/* the answers marked used, so that a trace's export and the next
	 * trace's reset visit what it looked up, not every answer the run's
	 * traces and the cache gave */
	struct sym_answer **used;
	size_t used_count, used_cap;
	char **strings;          /* interned strings, open addressing */
	size_t string_count, string_slots;
	char *cache_folder;      /* answer cache (symbol_cache.h); NULL: off */
	struct sym_location failed; /* returned only when memory runs out */
	struct sym_frame failed_frame;
};

/* ---- interned strings ---- */

static uint64_t hash_bytes(const void *data, size_t len, uint64_t h)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* Slot of string str (len bytes) among mask + 1: FNV-1a, then the seeded
 * mix (hash_seed.h), since names come from the trace's SYMBOLS chunk too. */
static size_t string_slot(const char *str, size_t len, size_t mask)
{
	return (size_t)hash_mix64(hash_bytes(str, len, 1469598103934665603ull)) & mask;
}

static int strings_grow(struct symbolizer *s)
{
	size_t n = s->string_slots ? s->string_slots * 2 : 1024;
	char **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->string_slots; i++) {
		char *str = s->strings[i];
		size_t k;

		if (!str)
			continue;
		k = string_slot(str, strlen(str), n - 1);
		while (slots[k])
			k = (k + 1) & (n - 1);
		slots[k] = str;
	}
	free(s->strings);
	s->strings = slots;
	s->string_slots = n;
	return 0;
}

/* The interned copy of str (NULL for NULL or when memory runs out). */
static const char *string_intern(struct symbolizer *s, const char *str)
{
	size_t len, k;
	char *copy;

	if (!str)
		return NULL;
	if ((s->string_count + 1) * 2 > s->string_slots && strings_grow(s) < 0)
		return NULL;
	len = strlen(str);
	k = string_slot(str, len, s->string_slots - 1);
	while (s->strings[k]) {
		if (strcmp(s->strings[k], str) == 0)
			return s->strings[k];
		k = (k + 1) & (s->string_slots - 1);
	}
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, str, len + 1);
	s->strings[k] = copy;
	s->string_count++;
	return copy;
}

/* Interns a function name, demangled when it is a C++ or Rust one. */
static const char *string_intern_function(struct symbolizer *s, const char *name)
{
	char *demangled = demangle_symbol(name);
	const char *out;

	if (!demangled)
		return string_intern(s, name);
	out = string_intern(s, demangled);
	free(demangled);
	return out;
}

/* ---- module files ---- */

static bool file_matches(const struct sym_file *f, const char *path, const uint8_t *build_id,
			 size_t build_id_len)
{
	return f->build_id_len == build_id_len && strcmp(f->path, path) == 0 &&
	       (build_id_len == 0 || memcmp(f->build_id, build_id, build_id_len) == 0);
}

static size_t file_slot(const char *path, const uint8_t *build_id, size_t build_id_len,
			size_t mask)
{
	uint64_t h = hash_bytes(path, strlen(path), 1469598103934665603ull);

	return (size_t)hash_mix64(hash_bytes(build_id, build_id_len, h)) & mask;
}

/* Makes room in the file index for one more file (load at most 1/2);
 * -ENOMEM. */
static int file_slots_reserve(struct symbolizer *s)
{
	size_t n = s->file_slot_mask ? (s->file_slot_mask + 1) * 2 : 64;
	uint32_t *v;

	if (s->file_slot_mask && s->file_count * 2 < s->file_slot_mask + 1)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 1; i < s->file_count; i++) {
		const struct sym_file *f = &s->files[i];
		size_t k = file_slot(f->path, f->build_id, f->build_id_len, n - 1);

		while (v[k])
			k = (k + 1) & (n - 1);
		v[k] = (uint32_t)i;
	}
	free(s->file_slots);
	s->file_slots = v;
	s->file_slot_mask = n - 1;
	return 0;
}

/* Index of the file (path, build-id), added when new; -ENOMEM.  Found by
 * hash: a trace's SYMBOLS chunk may name any number of modules (a crafted
 * one of 40,000 took 6.6 s when every file was compared). */
static int64_t file_intern(struct symbolizer *s, const char *path, const uint8_t *build_id,
			   size_t build_id_len)
{
	struct sym_file *f;
	size_t k;

	if (s->file_count >= UINT32_MAX || file_slots_reserve(s) < 0)
		return -ENOMEM;
	k = file_slot(path, build_id, build_id_len, s->file_slot_mask);
	for (; s->file_slots[k]; k = (k + 1) & s->file_slot_mask) {
		if (file_matches(&s->files[s->file_slots[k]], path, build_id, build_id_len))
			return (int64_t)s->file_slots[k];
	}
	if (s->file_count == s->file_cap) {
		size_t cap = s->file_cap * 2;
		struct sym_file *v = realloc(s->files, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->files = v;
		s->file_cap = cap;
	}
	f = &s->files[s->file_count];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	f->build_id = build_id_len ? malloc(build_id_len) : NULL;
	if (!f->path || (build_id_len && !f->build_id)) {
		free(f->path);
		free(f->build_id);
		return -ENOMEM;
	}
	if (build_id_len)
		memcpy(f->build_id, build_id, build_id_len);
	f->build_id_len = build_id_len;
	s->file_slots[k] = (uint32_t)s->file_count;
	return (int64_t)s->file_count++;
}

/* libdw's own callbacks: set when libdw is loaded (file_open) */
static Dwfl_Callbacks offline_callbacks;

/* Whether the search for (debuglink, as given to the callback) was made. */
static bool debug_memo_matches(const struct debug_memo *m, const char *debuglink)
{
	if (!m->debuglink || !debuglink)
		return !m->debuglink && !debuglink;
	return strcmp(m->debuglink, debuglink) == 0;
}

/*
 * libdw's standard search for a separate debug file, remembering a search
 * in vain: libdw searches again for the DWARF after the symbol table (7
 * paths opened twice per stripped module), and the symbol cache needs the
 * debuglink name for its proof (debug_search.h).
 */
static int file_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			       GElf_Addr base, const char *file_name, const char *debuglink,
			       GElf_Word crc, char **debuginfo_file_name)
{
	struct debug_memo *m = *userdata;
	int fd;

	if (m && m->in_vain && debug_memo_matches(m, debuglink)) {
		errno = 0;
		return -1;
	}
	fd = dw_fn.dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink,
					       crc, debuginfo_file_name);
	if (!m)
		return fd;
	free(m->debuglink);
	m->debuglink = debuglink ? strdup(debuglink) : NULL;
	m->in_vain = fd < 0 && (!debuglink || m->debuglink);
	return fd;
}

static void file_release(struct sym_file *f);

/* Opens source, the file of f or a copy of it, with libdw; whether its
 * build-id is the recorded one (f is then open, else left released). */
static bool file_open_from(struct sym_file *f, const char *source)
{
	struct stat st;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	/* The path comes from the trace: a FIFO or a device would block the
	 * open or the reads, and no module is anything but a regular file. */
	if (stat(source, &st) != 0 || !S_ISREG(st.st_mode) || !dw_load())
		return false;
	if (!offline_callbacks.find_elf)
		offline_callbacks = (Dwfl_Callbacks){
			.find_elf = dw_fn.dwfl_build_id_find_elf,
			/* build-id paths under /usr/lib/debug and .gnu_debuglink */
			.find_debuginfo = file_find_debuginfo,
			.section_address = dw_fn.dwfl_offline_section_address,
		};
	f->dwfl = dw_fn.dwfl_begin(&offline_callbacks);
	if (!f->dwfl)
		return false;
	dw_fn.dwfl_report_begin(f->dwfl);
	/* Base 0: an ET_DYN file keeps its link-time addresses (less the first
	 * segment's); ET_EXEC files are never moved.  dwfl_bias says which. */
	f->mod = dw_fn.dwfl_report_elf(f->dwfl, f->path, source, -1, 0, false);
	dw_fn.dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod || !dw_fn.dwfl_module_getelf(f->mod, &f->dwfl_bias)) {
		file_release(f);
		return false;
	}
	f->debug = calloc(1, sizeof(*f->debug));
	if (f->debug) {
		void **userdata = NULL;

		dw_fn.dwfl_module_info(f->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		if (userdata)
			*userdata = f->debug;
	}
	len = dw_fn.dwfl_module_build_id(f->mod, &bits, &vaddr);
	if (f->build_id_len > 0 &&
	    (len != (int)f->build_id_len || memcmp(bits, f->build_id, f->build_id_len) != 0)) {
		file_release(f); /* rebuilt since the run: its symbols would lie */
		return false;
	}
	return true;
}

/*
 * Opens f with libdw and checks its build-id against the recorded one.  A
 * program gone from its path, or another build there now, is looked for
 * among the programs `mprof run` kept open while they ran
 * (MPROF_KEPT_IMAGES: lines "/proc/self/fd/N<TAB>PROGRAM"), by name, then
 * build-id.
 */
static void file_open(struct sym_file *f)
{
	const char *line = getenv("MPROF_KEPT_IMAGES");
	size_t path_len = strlen(f->path);
	char source[64];

	f->state = FILE_UNUSABLE;
	if (file_open_from(f, f->path)) {
		f->state = FILE_OPEN;
		return;
	}
	while (f->build_id_len > 0 && line && *line) {
		size_t len = strcspn(line, "\n"), source_len = strcspn(line, "\t");
		const char *exe = line + source_len + 1;

		if (source_len < sizeof(source) && source_len < len &&
		    (size_t)(line + len - exe) == path_len && memcmp(exe, f->path, path_len) == 0) {
			memcpy(source, line, source_len);
			source[source_len] = '\0';
			if (file_open_from(f, source)) {
				f->state = FILE_OPEN;
				f->opened_kept = true;
				return;
			}
		}
		line += len + (line[len] == '\n');
	}
}

/* Lets go of f's libdw handle and indexes (it opens again when asked). */
static void file_release(struct sym_file *f)
{
	free(f->symbols);
	free(f->cu_spans);
	for (size_t i = 0; i < f->cu_count; i++)
		free(f->cus[i].ranges);
	free(f->cus);
	if (f->dwfl)
		dw_fn.dwfl_end(f->dwfl);
	if (f->debug)
		free(f->debug->debuglink);
	free(f->debug);
	f->debug = NULL;
	f->symbols = NULL;
	f->symbol_count = 0;
	f->symbols_indexed = false;
	f->cu_spans = NULL;
	f->cu_span_count = 0;
	f->cu_spans_indexed = false;
	f->cus = NULL;
	f->cu_count = 0;
	f->dwfl = NULL;
	f->mod = NULL;
	if (f->state == FILE_OPEN)
		f->state = FILE_UNOPENED;
}

static void file_close(struct sym_file *f)
{
	file_release(f);
	free(f->path);
	free(f->build_id);
}

/* ---- function symbols (libdwfl's own lookup scans the whole table) ---- */

static int elf_symbol_cmp(const void *pa, const void *pb)
{
	const struct elf_symbol *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Among aliases, the public spelling wins ("strdup" over "__strdup",
 * "malloc" over "__libc_malloc"), then global over weak over local. */
static unsigned symbol_rank(const char *name, unsigned bind)
{
	unsigned underscore = name[0] != '_' || name[1] == 'Z' ? 0 : name[1] == '_' ? 2 : 1;

	return underscore * 3 + (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2);
}

/* Builds f->symbols: function symbols sorted, aliases folded into the
 * preferred name (symbol_rank, then table order). */
static void file_index_symbols(struct sym_file *f)
{
	int n = dw_fn.dwfl_module_getsymtab(f->mod);
	size_t count = 0, out = 0;

	f->symbols_indexed = true;
	if (n <= 0)
		return;
	f->symbols = malloc((size_t)n * sizeof(*f->symbols));
	if (!f->symbols)
		return;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dw_fn.dwfl_module_getsym_info(f->mod, i, &sym, &addr, &shndx, NULL,
							   NULL);
		unsigned type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || shndx == SHN_UNDEF || shndx == (GElf_Word)-1 ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		f->symbols[count++] = (struct elf_symbol){
			.addr = addr,
			.size_bytes = sym.st_size,
			.name = name,
			.rank = symbol_rank(name, GELF_ST_BIND(sym.st_info)),
			.order = (unsigned)i,
		};
	}
	qsort(f->symbols, count, sizeof(*f->symbols), elf_symbol_cmp);
	for (size_t i = 0; i < count; i++) {
		if (out > 0 && f->symbols[out - 1].addr == f->symbols[i].addr) {
			if (f->symbols[i].size_bytes > f->symbols[out - 1].size_bytes)
				f->symbols[out - 1].size_bytes = f->symbols[i].size_bytes;
			continue;
		}
		f->symbols[out++] = f->symbols[i];
	}
	f->symbol_count = out;
}

/* The function symbol holding the Dwfl address addr, or NULL. */
static const struct elf_symbol *file_symbol_at(struct sym_file *f, GElf_Addr addr)
{
	size_t lo = 0, hi;

	if (!f->symbols_indexed)
		file_index_symbols(f);
	hi = f->symbol_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->symbols[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	if (f->symbols[lo - 1].size_bytes == 0)
		return &f->symbols[lo - 1];
	/* The nearest symbol may end before addr while an enclosing one
	 * (rare: nested symbols) still holds it. */
	for (size_t i = lo, steps = 0; i > 0 && steps < 8; i--, steps++) {
		const struct elf_symbol *sym = &f->symbols[i - 1];

		if (addr - sym->addr < sym->size_bytes)
			return sym;
	}
	return NULL;
}

/* ---- the function that holds a pc, per compilation unit ---- */

static int cu_range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

static int cu_ranges_add(struct cu_index *cu, size_t *cap, Dwarf_Die *die)
{
	Dwarf_Addr base, low, high;
	ptrdiff_t off = 0;

	while ((off = dw_fn.dwarf_ranges(die, off, &base, &low, &high)) > 0) {
		if (cu->count == *cap) {
			size_t n = *cap ? *cap * 2 : 64;
			struct cu_range *v = realloc(cu->ranges, n * sizeof(*v));

			if (!v)
				return -ENOMEM;
			cu->ranges = v;
			*cap = n;
		}
		cu->ranges[cu->count].low = low;
		cu->ranges[cu->count].high = high;
		cu->ranges[cu->count].die = *die;
		cu->count++;
	}
	return 0;
}

/* Collects the subprograms with code under parent (namespaces included). */
static int cu_index_collect(struct cu_index *cu, size_t *cap, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dw_fn.dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dw_fn.dwarf_tag(&child);

		if (tag == DW_TAG_subprogram) {
			if (cu_ranges_add(cu, cap, &child) < 0)
				return -ENOMEM;
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
			if (cu_index_collect(cu, cap, &child, depth + 1) < 0)
				return -ENOMEM;
		}
	} while (dw_fn.dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static struct cu_index *cu_index_get(struct sym_file *f, Dwarf_Die *cudie)
{
	Dwarf_Off off = dw_fn.dwarf_dieoffset(cudie);
	struct cu_index *v, *cu;
	size_t cap = 0;

	for (size_t i = 0; i < f->cu_count; i++) {
		if (f->cus[i].cu_offset == off)
			return &f->cus[i];
	}
	v = realloc(f->cus, (f->cu_count + 1) * sizeof(*v));
	if (!v)
		return NULL;
	f->cus = v;
	cu = &f->cus[f->cu_count];
	memset(cu, 0, sizeof(*cu));
	cu->cu_offset = off;
	if (cu_index_collect(cu, &cap, cudie, 0) < 0) {
		free(cu->ranges);
		return NULL;
	}
	qsort(cu->ranges, cu->count, sizeof(*cu->ranges), cu_range_cmp);
	f->cu_count++;
	return cu;
}

/* The subprogram whose ranges hold pc, or NULL. */
static Dwarf_Die *cu_index_find(struct cu_index *cu, Dwarf_Addr pc)
{
	size_t lo = 0, hi = cu->count;

	/* Last range with low <= pc; ranges of distinct functions never nest. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->ranges[mid].low <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && pc < cu->ranges[lo - 1].high)
		return &cu->ranges[lo - 1].die;
	return NULL;
}

static bool die_has_pc_attrs(Dwarf_Die *die)
{
	return dw_fn.dwarf_hasattr(die, DW_AT_low_pc) || dw_fn.dwarf_hasattr(die, DW_AT_ranges);
}

/*
 * Appends to chain[] the inlined subroutines under parent that hold pc,
 * outermost first.  Lexical blocks are looked through.
 */
static size_t scope_chain_inner(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *chain, size_t n)
{
	Dwarf_Die child;

	if (n >= MAX_INLINE_DEPTH || dw_fn.dwarf_child(parent, &child) != 0)
		return n;
	do {
		switch (dw_fn.dwarf_tag(&child)) {
		case DW_TAG_inlined_subroutine:
			if (dw_fn.dwarf_haspc(&child, pc) > 0) {
				chain[n] = child;
				return scope_chain_inner(&child, pc, chain, n + 1);
			}
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (!die_has_pc_attrs(&child)) {
				size_t m = scope_chain_inner(&child, pc, chain, n);

				if (m > n)
					return m;
			} else if (dw_fn.dwarf_haspc(&child, pc) > 0) {
				return scope_chain_inner(&child, pc, chain, n);
			}
			break;
		default:
			break;
		}
	} while (dw_fn.dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* ---- answers ---- */

/* Seeded (hash_seed.h): the offsets come from the trace.  The table's
 * order reaches no file: answers_collect sorts what it gives out. */
static uint64_t answer_hash(uint32_t file, uint64_t offset)
{
	return hash_mix64(hash_mix64(offset) ^ file);
}

static struct sym_answer *answer_find(struct symbolizer *s, uint32_t file, uint64_t offset)
{
	size_t k;

	if (!s->answer_slots)
		return NULL;
	k = (size_t)answer_hash(file, offset) & (s->answer_slots - 1);
	while (s->answers[k]) {
		struct sym_answer *a = s->answers[k];

		if (a->file == file && a->module_offset == offset)
			return a;
		k = (k + 1) & (s->answer_slots - 1);
	}
	return NULL;
}

static int answers_grow(struct symbolizer *s)
{
	size_t n = s->answer_slots ? s->answer_slots * 2 : 4096;
	struct sym_answer **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < s->answer_slots; i++) {
		struct sym_answer *a = s->answers[i];
		size_t k;

		if (!a)
			continue;
		k = (size_t)answer_hash(a->file, a->module_offset) & (n - 1);
		while (slots[k])
			k = (k + 1) & (n - 1);
		slots[k] = a;
	}
	free(s->answers);
	s->answers = slots;
	s->answer_slots = n;
	return 0;
}

/* Adds a (not yet present) answer with room for nframes frames. */
static struct sym_answer *answer_add(struct symbolizer *s, uint32_t file, uint64_t offset,
				     size_t nframes)
{
	struct sym_answer *a;
	size_t k;

	if ((s->answer_count + 1) * 2 > s->answer_slots && answers_grow(s) < 0)
		return NULL;
	a = calloc(1, sizeof(*a) + nframes * sizeof(a->frames[0]));
	if (!a)
		return NULL;
	a->file = file;
	a->module_offset = offset;
	a->loc.frames = a->frames;
	a->loc.count = nframes;
	for (size_t i = 0; i < nframes; i++) {
		a->frames[i].module = s->files[file].path;
		a->frames[i].module_offset = offset;
	}
	k = (size_t)answer_hash(file, offset) & (s->answer_slots - 1);
	while (s->answers[k])
		k = (k + 1) & (s->answer_slots - 1);
	s->answers[k] = a;
	s->answer_count++;
	return a;
}

/* The ELF symbol that starts where the out-of-line function die starts. */
static const char *die_entry_symbol(struct sym_file *f, Dwarf_Die *die, Dwarf_Addr cubias)
{
	Dwarf_Addr entry, base, low, high;
	const struct elf_symbol *sym;

	if (dw_fn.dwarf_tag(die) != DW_TAG_subprogram)
		return NULL;
	if (dw_fn.dwarf_entrypc(die, &entry) != 0) {
		if (dw_fn.dwarf_ranges(die, 0, &base, &low, &high) <= 0)
			return NULL;
		entry = low;
	}
	sym = file_symbol_at(f, entry + cubias);
	return sym && sym->addr == entry + cubias ? sym->name : NULL;
}

/*
 * The name of a subprogram or inlined subroutine DIE, so that it reads the
 * same with and without debug info:
 *  - a C++ or Rust linkage name, demangled (it carries the signature, or
 *    the full path where DW_AT_name has only the last component);
 *  - else the ELF symbol at the function's entry: demangled when mangled
 *    (GCC gives C++ functions of internal linkage no linkage name), as is
 *    when it is a plain name (the public alias: "strdup", not "__strdup");
 *  - else DW_AT_name (clones such as "f.constprop.0" become "f"; glibc's
 *    asm-renamed "__GI_f" linkage names are skipped the same way).
 */
static const char *die_function_name(struct symbolizer *s, struct sym_file *f, Dwarf_Die *die,
				     Dwarf_Addr cubias)
{
	Dwarf_Attribute mem;
	const char *linkage = dw_fn.dwarf_formstring(dw_fn.dwarf_attr_integrate(die, DW_AT_linkage_name, &mem));
	const char *entry = die_entry_symbol(f, die, cubias);
	const char *name;
	char *demangled;

	if (!linkage)
		linkage = dw_fn.dwarf_formstring(dw_fn.dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &mem));
	demangled = demangle_symbol(linkage);
	if (!demangled)
		demangled = demangle_symbol(entry);
	if (demangled) {
		name = string_intern(s, demangled);
		free(demangled);
		return name;
	}
	if (entry && !strchr(entry, '.'))
		return string_intern(s, entry);
	name = dw_fn.dwarf_formstring(dw_fn.dwarf_attr_integrate(die, DW_AT_name, &mem));
	return string_intern(s, name ? name : linkage ? linkage : entry);
}

/* Where the inlined subroutine die was called from (DW_AT_call_file/line). */
static void die_call_site(struct symbolizer *s, Dwarf_Die *cudie, Dwarf_Die *die,
			  const char **file, uint32_t *line)
{
	Dwarf_Attribute mem;
	Dwarf_Files *files;
	Dwarf_Word idx, lineno;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dw_fn.dwarf_formudata(dw_fn.dwarf_attr(die, DW_AT_call_line, &mem), &lineno) == 0 &&
	    lineno <= UINT32_MAX)
		*line = (uint32_t)lineno;
	if (dw_fn.dwarf_formudata(dw_fn.dwarf_attr(die, DW_AT_call_file, &mem), &idx) == 0 &&
	    dw_fn.dwarf_getsrcfiles(cudie, &files, &nfiles) == 0 && idx < nfiles)
		*file = string_intern(s, dw_fn.dwarf_filesrc(files, idx, NULL, NULL));
}

/* Builds f->cu_spans from every compilation unit's address ranges. */
static void file_index_cus(struct sym_file *f)
{
	Dwarf *dw = dw_fn.dwfl_module_getdwarf(f->mod, &f->dwarf_bias);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t cap = 0;
	uint8_t unit_type;

	f->cu_spans_indexed = true;
	if (!dw)
		return;
	while (dw_fn.dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, NULL) == 0) {
		struct cu_index tmp = { .ranges = f->cu_spans, .count = f->cu_span_count };

		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		if (cu_ranges_add(&tmp, &cap, &cudie) < 0)
			break;
		f->cu_spans = tmp.ranges;
		f->cu_span_count = tmp.count;
	}
	qsort(f->cu_spans, f->cu_span_count, sizeof(*f->cu_spans), cu_range_cmp);
}

/* The compilation unit DIE holding the Dwfl address addr, or NULL; *cubias
 * gets the DWARF-to-Dwfl address bias, *by_libdw whether libdw's own
 * lookup found it (its line lookup, dwfl_module_getsrc, then agrees). */
static Dwarf_Die *file_cu_at(struct sym_file *f, GElf_Addr addr, Dwarf_Addr *cubias,
			     bool *by_libdw)
{
	Dwarf_Addr libdw_bias = 0;
	Dwarf_Die *libdw_cu = dw_fn.dwfl_module_addrdie(f->mod, addr, &libdw_bias);
	Dwarf_Die *cudie = NULL;
	struct cu_index all;

	/* libdw 0.188 finds units only through .debug_aranges, and takes the
	 * unit of the nearest arange below addr even when addr lies past its
	 * end: in a Go program linked with cgo, only the C units have
	 * aranges, and every Go frame got the line of runtime/cgo's
	 * gcc_mmap.c:37.  Its answer stands only when the unit holds addr. */
	*by_libdw = libdw_cu && dw_fn.dwarf_haspc(libdw_cu, addr - libdw_bias) > 0;
	if (*by_libdw) {
		*cubias = libdw_bias;
		return libdw_cu;
	}
	if (!f->cu_spans_indexed)
		file_index_cus(f);
	all.ranges = f->cu_spans;
	all.count = f->cu_span_count;
	if (all.count)
		cudie = cu_index_find(&all, addr - f->dwarf_bias);
	if (cudie) {
		*cubias = f->dwarf_bias;
		return cudie;
	}
	/* a unit without address ranges: libdw's guess is all there is */
	*by_libdw = libdw_cu != NULL;
	*cubias = libdw_bias;
	return libdw_cu;
}

/* What libdw knows about the ELF address addr of an open file. */
static struct sym_answer *answer_resolve(struct symbolizer *s, uint32_t fi, uint64_t offset,
					 GElf_Addr addr)
{
	struct sym_file *f = &s->files[fi];
	Dwarf_Die chain[MAX_INLINE_DEPTH];
	Dwarf_Die *cudie, *fn;
	Dwarf_Addr cubias = 0;
	bool cu_by_libdw = false;
	size_t depth = 0;
	const struct elf_symbol *sym;
	const char *file = NULL;
	int lineno = 0;
	Dwfl_Line *line;
	Dwarf_Line *cu_line;
	struct sym_answer *a;

	addr += f->dwfl_bias;
	sym = file_symbol_at(f, addr);
	cudie = file_cu_at(f, addr, &cubias, &cu_by_libdw);
	if (cudie) {
		struct cu_index *cu = cu_index_get(f, cudie);

		fn = cu ? cu_index_find(cu, addr - cubias) : NULL;
		if (fn) {
			chain[0] = *fn;
			depth = scope_chain_inner(fn, addr - cubias, chain, 1);
		}
	}
	line = cu_by_libdw || !cudie ? dw_fn.dwfl_module_getsrc(f->mod, addr) : NULL;
	if (line) {
		file = dw_fn.dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	} else if (cudie && (cu_line = dw_fn.dwarf_getsrc_die(cudie, addr - cubias)) != NULL) {
		file = dw_fn.dwarf_linesrc(cu_line, NULL, NULL);
		if (dw_fn.dwarf_lineno(cu_line, &lineno) != 0)
			lineno = 0;
	}

	a = answer_add(s, fi, offset, depth ? depth : 1);
	if (!a)
		return NULL;
	/* frames[i] is chain[depth - 1 - i]: innermost first. */
	a->frames[0].file = string_intern(s, file);
	a->frames[0].line = file && lineno > 0 ? (uint32_t)lineno : 0;
	for (size_t i = 0; i < depth; i++) {
		Dwarf_Die *die = &chain[depth - 1 - i];

		a->frames[i].function = die_function_name(s, f, die, cubias);
		a->frames[i].inlined = i + 1 < depth;
		if (i + 1 < depth)
			die_call_site(s, cudie, die, &a->frames[i + 1].file, &a->frames[i + 1].line);
	}
	if (!a->frames[a->loc.count - 1].function && sym)
		a->frames[a->loc.count - 1].function = string_intern_function(s, sym->name);
	a->loc.has_debug_info = a->frames[0].file != NULL;
	a->loc.has_symbol = a->frames[0].function != NULL;
	return a;
}

/* ---- public interface ---- */

struct symbolizer *symbolizer_new(const struct module_maps *maps)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->maps = maps;
	s->file_cap = 16;
	s->files = calloc(s->file_cap, sizeof(*s->files));
	if (!s->files) {
		free(s);
		return NULL;
	}
	s->files[0].path = strdup("?");
	s->files[0].state = FILE_UNUSABLE;
	if (!s->files[0].path) {
		free(s->files);
		free(s);
		return NULL;
	}
	s->file_count = 1;
	s->failed_frame.module = "?";
	s->failed.frames = &s->failed_frame;
	s->failed.count = 1;
	return s;
}

void symbolizer_set_maps(struct symbolizer *s, const struct module_maps *maps)
{
	size_t open = 0;

	s->maps = maps;
	memset(s->cache_module, 0, sizeof(s->cache_module));
	for (size_t i = 0; i < s->used_count; i++)
		s->used[i]->used = false;
	s->used_count = 0;
	/* Modules stay open for the next trace, up to a point: a run of many
	 * different programs would otherwise hold the debug info of all. */
	for (size_t i = 1; i < s->file_count; i++)
		open += s->files[i].state == FILE_OPEN;
	if (open <= SYMBOLIZER_OPEN_FILES_MAX)
		return;
	for (size_t i = 1; i < s->file_count; i++) {
		const struct sym_file *f = &s->files[i];

		/* not those with answers still to cache (none without build-id) */
		if (!f->cache_dirty || !s->cache_folder || !f->build_id_len)
			file_release(&s->files[i]);
	}
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->answer_slots; i++)
		free(s->answers[i]);
	free(s->answers);
	free(s->used);
	for (size_t i = 0; i < s->string_slots; i++)
		free(s->strings[i]);
	free(s->strings);
	for (size_t i = 0; i < s->file_count; i++)
		file_close(&s->files[i]);
	free(s->files);
	free(s->file_slots);
	free(s->cache_folder);
	free(s);
}

/* Copies answer in into the table as one of file fi (the first of a key
 * wins).  Returns 0 or -ENOMEM. */
static int answer_copy(struct symbolizer *s, uint32_t fi, const struct symbol_table_answer *in)
{
	struct sym_answer *a;

	if (answer_find(s, fi, in->module_offset))
		return 0;
	a = answer_add(s, fi, in->module_offset, in->loc->count);
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < in->loc->count; i++) {
		const struct sym_frame *fr = &in->loc->frames[i];

		a->frames[i].function = string_intern(s, fr->function);
		a->frames[i].file = string_intern(s, fr->file);
		a->frames[i].line = fr->line;
		a->frames[i].inlined = fr->inlined;
	}
	a->loc.has_debug_info = in->loc->has_debug_info;
	a->loc.has_symbol = in->loc->has_symbol;
	return 0;
}

/* Copies one embedded answer into the table. */
static int load_answer(void *ctx, const struct symbol_table_answer *in)
{
	struct symbolizer *s = ctx;
	int64_t fi = file_intern(s, in->module_path, in->build_id, in->build_id_len);

	return fi < 0 ? -ENOMEM : answer_copy(s, (uint32_t)fi, in);
}

int symbolizer_load_embedded(struct symbolizer *s, const uint8_t *data, size_t bytes)
{
	int rc = symbol_table_decode(data, bytes, load_answer, s);

	return rc == -ENOMEM ? -ENOMEM : rc < 0 ? -EBADMSG : 0;
}

/* Index of the file of module m.  A cache hit is checked against the
 * file's identity, so maps may change (and reuse memory) meanwhile. */
static int64_t file_of_module(struct symbolizer *s, const struct module *m)
{
	size_t k = ((uintptr_t)m / sizeof(*m)) % MODULE_CACHE_SLOTS;
	int64_t fi;

	if (s->cache_module[k] == m &&
	    file_matches(&s->files[s->cache_file[k]], m->path, m->build_id, m->build_id_len))
		return s->cache_file[k];
	fi = file_intern(s, m->path, m->build_id, m->build_id_len);
	if (fi >= 0) {
		s->cache_module[k] = m;
		s->cache_file[k] = (uint32_t)fi;
	}
	return fi;
}

/* ---- answers out: the SYMBOLS chunk, the cache ---- */

/* Module path, build-id, then offset: the order of the answers a SYMBOLS
 * chunk or a cache file gets, the same from run to run whatever the
 * answers' table (seeded) holds them in. */
static int export_cmp(const void *pa, const void *pb)
{
	const struct symbol_table_answer *a = pa, *b = pb;
	/* the answers of one file share its path string */
	int c = a->module_path == b->module_path ? 0 : strcmp(a->module_path, b->module_path);

	if (c)
		return c;
	if (a->build_id_len != b->build_id_len)
		return a->build_id_len < b->build_id_len ? -1 : 1;
	if (a->build_id_len) {
		c = memcmp(a->build_id, b->build_id, a->build_id_len);
		if (c)
			return c;
	}
	return a->module_offset < b->module_offset ? -1 : a->module_offset > b->module_offset;
}

/* Answer a as encoder input, into *out. */
static void answer_export(const struct symbolizer *s, const struct sym_answer *a,
			  struct symbol_table_answer *out)
{
	const struct sym_file *f = &s->files[a->file];

	out->module_path = f->path;
	out->build_id = f->build_id;
	out->build_id_len = f->build_id_len;
	out->module_offset = a->module_offset;
	out->loc = &a->loc;
}

/* The answers of list[0..count) that keep(a, arg) selects, as encoder
 * input in out[] (room for count), sorted by export_cmp; returns how
 * many. */
static size_t answers_collect(const struct symbolizer *s, struct sym_answer *const *list,
			      size_t count, struct symbol_table_answer *out,
			      bool (*keep)(const struct sym_answer *a, uint32_t arg), uint32_t arg)
{
	size_t n = 0;

	for (size_t i = 0; i < count; i++) {
		const struct sym_answer *a = list[i];

		if (keep(a, arg))
			answer_export(s, a, &out[n++]);
	}
	qsort(out, n, sizeof(*out), export_cmp);
	return n;
}

/* Every answer this trace asked for, even one that says no more than
 * module+offset: a report that finds an address missing from the SYMBOLS
 * chunk opens the module with libdw again (and may ask debuginfod), which
 * made up most of the report's time and memory on C++ programs.  Cached
 * answers the trace never asked for stay out. */
static bool answer_to_embed(const struct sym_answer *a, uint32_t unused)
{
	(void)unused;
	return a->used && a->file != NO_FILE;
}

/* ---- the answer cache on disk (symbol_cache.h) ---- */

struct cache_load {
	struct symbolizer *s;
	uint32_t fi;
};

/* Takes one cached answer of the file being loaded. */
static int cache_load_answer(void *ctx, const struct symbol_table_answer *in)
{
	struct cache_load *l = ctx;
	const struct sym_file *f = &l->s->files[l->fi];

	if (in->build_id_len != f->build_id_len ||
	    memcmp(in->build_id, f->build_id, f->build_id_len) != 0)
		return 0; /* not this module's: ignored */
	return answer_copy(l->s, l->fi, in);
}

/* Whether answers made without DWARF may be cached: not when libdw may ask
 * debuginfod servers, which the proof of no debug file cannot cover. */
static bool symtab_cache_allowed(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return !urls || !*urls;
}

/* Puts the answers of file fi's SYMTAB cache file into the table, when its
 * proof that fi has no debug file still holds. */
static void cache_load_symtab(struct symbolizer *s, uint32_t fi)
{
	struct sym_file *f = &s->files[fi];
	struct symbol_cache_file cf;
	struct cache_load l = { s, fi };
	uint32_t proof_bytes;

	if (!symtab_cache_allowed() ||
	    symbol_cache_read(s->cache_folder, f->build_id, f->build_id_len, SYMBOL_CACHE_SYMTAB,
			      &cf) < 0)
		return;
	if ((cf.flags & SYMBOL_CACHE_SYMTAB) && cf.payload_bytes >= 4 &&
	    (proof_bytes = trace_get_le32(cf.payload)) <= cf.payload_bytes - 4 &&
	    debug_search_proof_holds(cf.payload + 4, proof_bytes, f->path))
		symbol_table_decode(cf.payload + 4 + proof_bytes, cf.payload_bytes - 4 - proof_bytes,
				    cache_load_answer, &l);
	free(cf.payload);
}

/* Puts the cached answers of file fi into the table: those made with DWARF
 * when there are any, else those made without while their proof holds
 * (symbol_cache.h). */
static void cache_load(struct symbolizer *s, uint32_t fi)
{
	struct sym_file *f = &s->files[fi];
	struct symbol_cache_file cf;
	struct cache_load l = { s, fi };

	f->cache_tried = true;
	if (!s->cache_folder || !f->build_id_len)
		return;
	if (symbol_cache_read(s->cache_folder, f->build_id, f->build_id_len, SYMBOL_CACHE_DWARF,
			      &cf) < 0) {
		cache_load_symtab(s, fi);
		return;
	}
	if (cf.flags & SYMBOL_CACHE_DWARF) {
		symbol_table_decode(cf.payload, cf.payload_bytes, cache_load_answer, &l);
		f->dwarf_cached = true;
	}
	free(cf.payload);
}

int symbolizer_use_cache(struct symbolizer *s)
{
	char folder[4096];
	int rc = symbol_cache_folder(folder, sizeof(folder));

	if (rc < 0)
		return rc;
	free(s->cache_folder);
	s->cache_folder = strdup(folder);
	return s->cache_folder ? 0 : -ENOMEM;
}

/* The proof that file f has no debug file, with its u32 length before it,
 * into *out (malloc'd, *bytes); 0 or a negative errno (then no cache). */
static int cache_symtab_proof(const struct sym_file *f, uint8_t **out, size_t *bytes)
{
	uint8_t *proof, *v;
	size_t proof_bytes;
	int rc;

	/* answers loaded from a DWARF file would be mixed in; no search made
	 * or one that found a file: no proof */
	if (!symtab_cache_allowed() || f->dwarf_cached || !f->debug || !f->debug->in_vain ||
	    f->opened_kept)
		return -ENOENT;
	rc = debug_search_proof_make(f->path, f->debug->debuglink, f->build_id, f->build_id_len,
				     &proof, &proof_bytes);
	if (rc < 0)
		return rc;
	v = proof_bytes <= UINT32_MAX ? malloc(proof_bytes + 4) : NULL;
	if (v) {
		trace_put_le32(v, (uint32_t)proof_bytes);
		memcpy(v + 4, proof, proof_bytes);
	}
	free(proof);
	*out = v;
	*bytes = proof_bytes + 4;
	return v ? 0 : -ENOMEM;
}

/* Writes the n answers of the files of file fi's build-id (found now or
 * loaded; mine, in no order, the same offset maybe more than once) to the
 * cache as fi's: to its DWARF file when made with DWARF, else to its SYMTAB
 * file with the proof that fi has no debug file.  Returns 1 when written,
 * 0 when fi cannot say (not open, no proof), or a negative errno. */
static int cache_save_file(struct symbolizer *s, uint32_t fi, const struct sym_answer *const *mine,
			   size_t n)
{
	struct sym_file *f = &s->files[fi];
	struct symbol_table_answer *out;
	Dwarf_Addr bias;
	uint8_t *data = NULL, *proof = NULL;
	size_t bytes = 0, proof_bytes = 0;
	unsigned kind = SYMBOL_CACHE_DWARF;
	int rc;

	if (f->state != FILE_OPEN)
		return 0;
	if (!dw_fn.dwfl_module_getdwarf(f->mod, &bias)) {
		kind = SYMBOL_CACHE_SYMTAB;
		if (cache_symtab_proof(f, &proof, &proof_bytes) < 0)
			return 0; /* another copy, or a debug file, may do better */
	}
	out = malloc((n ? n : 1) * sizeof(*out));
	rc = out ? 0 : -ENOMEM;
	if (rc == 0) {
		size_t kept = 0;

		for (size_t i = 0; i < n; i++) {
			answer_export(s, mine[i], &out[i]);
			out[i].module_path = f->path; /* a copy's answers are fi's */
		}
		qsort(out, n, sizeof(*out), export_cmp);
		for (size_t i = 0; i < n; i++)
			if (!kept || out[i].module_offset != out[kept - 1].module_offset)
				out[kept++] = out[i];
		rc = symbol_table_encode(out, kept, &data, &bytes);
	}
	if (rc == 0 && proof) {
		uint8_t *v = realloc(proof, proof_bytes + bytes);

		rc = v ? 0 : -ENOMEM;
		if (v) {
			memcpy(v + proof_bytes, data, bytes);
			free(data);
			data = v;
			bytes += proof_bytes;
			proof = NULL;
		}
	}
	if (rc == 0)
		rc = symbol_cache_write(s->cache_folder, f->build_id, f->build_id_len, kind, data,
					bytes);
	free(proof);
	free(data);
	free(out);
	return rc < 0 ? rc : 1;
}

/* Whether file fi's answers are to be written to the cache. */
static bool cache_save_wanted(const struct symbolizer *s, uint32_t fi)
{
	return fi != NO_FILE && s->files[fi].cache_dirty && s->files[fi].build_id_len;
}

/* A file to save, by its build-id. */
struct cache_file_key {
	const uint8_t *build_id;
	size_t build_id_len;
	uint32_t fi;
};

/* Whether two files have the same build-id. */
static int cache_build_id_cmp(const struct cache_file_key *a, const struct cache_file_key *b)
{
	if (a->build_id_len != b->build_id_len)
		return a->build_id_len < b->build_id_len ? -1 : 1;
	return memcmp(a->build_id, b->build_id, a->build_id_len);
}

/* qsort order of files to save: by build-id, then by index. */
static int cache_file_cmp(const void *pa, const void *pb)
{
	const struct cache_file_key *a = pa, *b = pb;
	int c = cache_build_id_cmp(a, b);

	return c ? c : (a->fi > b->fi) - (a->fi < b->fi);
}

/* The files to save, ordered by build-id, into order[] (room for every
 * file), their ranks into rank[]; returns how many. */
static size_t cache_save_order(const struct symbolizer *s, struct cache_file_key *order,
			       uint32_t *rank)
{
	size_t n = 0;

	for (uint32_t fi = 1; fi < s->file_count; fi++)
		if (cache_save_wanted(s, fi))
			order[n++] = (struct cache_file_key){ s->files[fi].build_id,
							      s->files[fi].build_id_len, fi };
	qsort(order, n, sizeof(*order), cache_file_cmp);
	for (size_t r = 0; r < n; r++)
		rank[order[r].fi] = (uint32_t)r;
	return n;
}

/* Saves the answers of the files order[first..last), of one build-id, with
 * their answers at by_rank[start..end): as the first of them that can say
 * (open, or with a proof), once; 0, or -EIO (the files stay dirty). */
static int cache_save_group(struct symbolizer *s, const struct cache_file_key *order,
			    size_t first, size_t last, const struct sym_answer *const *answers,
			    size_t n)
{
	int rc = 0;

	for (size_t r = first; r < last && rc == 0; r++)
		rc = cache_save_file(s, order[r].fi, answers, n);
	if (rc < 0)
		return -EIO;
	for (size_t r = first; r < last; r++)
		s->files[order[r].fi].cache_dirty = false; /* till libdw answers more */
	return 0;
}

int symbolizer_cache_save(struct symbolizer *s)
{
	const struct sym_answer **by_rank = NULL;
	struct cache_file_key *order;
	uint32_t *rank, fi;
	size_t *start, n;
	int rc = 0;

	if (!s->cache_folder)
		return 0;
	/* nothing new since the last save (the usual trace of a run after the
	 * first): no pass over every answer */
	for (fi = 1; fi < s->file_count && !cache_save_wanted(s, fi); fi++)
		;
	if (fi == s->file_count)
		return 0;
	/* the answers sorted by file, the files by build-id, in one pass over
	 * the answers (a pass per file was O(files x answers)), and one write
	 * per build-id (thousands of copies of one library were as many
	 * writes of one cache file) */
	order = malloc(s->file_count * sizeof(*order));
	rank = malloc(s->file_count * sizeof(*rank));
	start = calloc(s->file_count + 1, sizeof(*start));
	if (order && rank && start)
		by_rank = malloc((s->answer_count ? s->answer_count : 1) * sizeof(*by_rank));
	if (!by_rank) {
		free(order);
		free(rank);
		free(start);
		return -ENOMEM;
	}
	n = cache_save_order(s, order, rank);
	for (size_t i = 0; i < s->answer_slots; i++)
		if (s->answers[i] && cache_save_wanted(s, s->answers[i]->file))
			start[rank[s->answers[i]->file] + 1]++;
	for (size_t r = 1; r <= n; r++)
		start[r] += start[r - 1];
	for (size_t i = 0; i < s->answer_slots; i++) {
		const struct sym_answer *a = s->answers[i];

		if (a && cache_save_wanted(s, a->file))
			by_rank[start[rank[a->file]]++] = a;
	}
	/* the answers of rank r now end at start[r] and begin at start[r - 1]
	 * (0 for rank 0) */
	for (size_t first = 0, last; first < n; first = last) {
		size_t from = first ? start[first - 1] : 0;

		for (last = first + 1; last < n && !cache_build_id_cmp(&order[first], &order[last]);)
			last++;
		if (cache_save_group(s, order, first, last, by_rank + from, start[last - 1] - from) < 0)
			rc = -EIO;
	}
	free(order);
	free(rank);
	free(start);
	free(by_rank);
	return rc;
}

int symbolizer_place(struct symbolizer *s, uint64_t epoch, uint64_t ip, struct sym_place *p)
{
	const struct module *m = s->maps ? module_maps_find(s->maps, epoch, ip - 1) : NULL;
	int64_t fi = m ? file_of_module(s, m) : NO_FILE;

	if (fi < 0)
		return -ENOMEM;
	*p = (struct sym_place){m ? ip - m->bias : ip, (uint32_t)fi};
	return 0;
}

/* a's location, marked used (symbolizer.used); the failed one when the
 * list cannot grow. */
static const struct sym_location *answer_use(struct symbolizer *s, struct sym_answer *a)
{
	if (a->used)
		return &a->loc;
	if (s->used_count == s->used_cap) {
		size_t cap = s->used_cap ? 2 * s->used_cap : 256;
		struct sym_answer **v = realloc(s->used, cap * sizeof(*v));

		if (!v) {
			s->failed_frame.module_offset = a->module_offset;
			return &s->failed;
		}
		s->used = v;
		s->used_cap = cap;
	}
	s->used[s->used_count++] = a;
	a->used = true;
	return &a->loc;
}

const struct sym_location *symbolizer_lookup_place(struct symbolizer *s,
						   const struct sym_place *p)
{
	uint32_t fi = p->file;
	struct sym_answer *a = answer_find(s, fi, p->offset);
	struct sym_file *f;

	if (!a && !s->files[fi].cache_tried && fi != NO_FILE) {
		cache_load(s, fi);
		a = answer_find(s, fi, p->offset);
	}
	if (a)
		return answer_use(s, a);
	f = &s->files[fi];
	if (f->state == FILE_UNOPENED)
		file_open(f);
	if (f->state == FILE_OPEN) {
		a = answer_resolve(s, fi, p->offset, p->offset - 1);
		f->cache_dirty = true;
	} else {
		a = answer_add(s, fi, p->offset, 1);
	}
	if (a)
		return answer_use(s, a);
	s->failed_frame.module_offset = p->offset;
	return &s->failed;
}

const struct sym_location *symbolizer_lookup(struct symbolizer *s, uint64_t epoch, uint64_t ip)
{
	struct sym_place p;

	if (symbolizer_place(s, epoch, ip, &p) < 0) {
		s->failed_frame.module_offset = ip;
		return &s->failed;
	}
	return symbolizer_lookup_place(s, &p);
}

bool symbolizer_epoch_mapped(const struct symbolizer *s, uint64_t epoch)
{
	return s->maps && module_maps_cover(s->maps, epoch);
}

bool symbolizer_failed(const struct symbolizer *s, const struct sym_location *loc)
{
	return loc == &s->failed;
}

int symbolizer_export(struct symbolizer *s, uint8_t **data, size_t *bytes)
{
	struct symbol_table_answer *out = malloc((s->used_count ? s->used_count : 1) *
						 sizeof(*out));
	size_t n;
	int rc;

	if (!out)
		return -ENOMEM;
	n = answers_collect(s, s->used, s->used_count, out, answer_to_embed, 0);
	rc = symbol_table_encode(out, n, data, bytes);
	free(out);
	return rc;
}
