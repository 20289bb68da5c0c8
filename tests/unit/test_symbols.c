/*
 * tests/unit/test_symbols.c - CUnit tests of the analyzer's symbolization:
 * MODULES record parsing (analyze/read/modules.c), libdw lookups of this very
 * test program and of libstdc++ (analyze/symbolize/symbolize.c), the SYMBOLS chunk
 * codec (analyze/symbolize/symbol_table.c), demangling, and the `symbolize`
 * subcommand on a small hand-made trace.
 *
 * Needs the test built with -g (file:line and inlined-frame checks).  Makes
 * temporary files under $TMPDIR (or /tmp) and removes them.
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "analyze/cmd/symbolize.h"
#include "analyze/symbolize/demangle.h"
#include "analyze/symbolize/dw_loader.h"
#include "analyze/read/modules.h"
#include "analyze/symbolize/symbol_shorten.h"
#include "analyze/symbolize/symbol_table.h"
#include "analyze/symbolize/symbolize.h"
#include "trace/chunk.h"
#include "trace/format.h"
#include "trace/modules_delta.h"
#include "trace/record.h"

#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noinline, noipa))
#endif

/* ---- code to symbolize: keep the marked lines where they are ---- */

static NOIPA void *return_address(void)
{
	return __builtin_return_address(0);
}

static int plain_call_line;
static NOIPA void *symbols_plain_caller(void)
{
	void *volatile ip = return_address(); plain_call_line = __LINE__;
	return ip;
}

static int inner_call_line, inlined_call_line;
static inline __attribute__((always_inline)) void *symbols_inlined_helper(void)
{
	void *volatile ip = return_address(); inner_call_line = __LINE__;
	return ip;
}

static NOIPA void *symbols_inlining_caller(void)
{
	void *volatile ip = symbols_inlined_helper(); inlined_call_line = __LINE__;
	return ip;
}

/* Checks that demangle_fn(mangled) gives want (NULL: no answer). */
static void check_demangled(char *(*demangle_fn)(const char *), const char *mangled,
			    const char *want)
{
	char *got = demangle_fn(mangled);

	if (!want) {
		CU_ASSERT_PTR_NULL(got);
	} else {
		CU_ASSERT_PTR_NOT_NULL_FATAL(got);
		CU_ASSERT_STRING_EQUAL(got, want);
	}
	free(got);
}

static void test_demangle_rust_v0(void)
{
#ifdef HAVE_LIBIBERTY
	/* crate disambiguators (Cs..._) are left out, back references followed */
	check_demangled(demangle_rust, "_RNvMs0_NtNtNtCsjrHSEGnQ3l9_3std3sys6thread4unixNtB5_6Thread3new",
			"<std::sys::thread::unix::Thread>::new");
	check_demangled(demangle_rust, "_RNvCs2AtevEgESKb_10rust_alloc11make_buffer",
			"rust_alloc::make_buffer");
	check_demangled(demangle_symbol,
			"_RINvNtNtCsdyIG5SqMl5y_3std10sys_common9backtrace28___rust_begin_short_backtrace"
			"FEuuECs2AtevEgESKb_10rust_alloc",
			"std::sys_common::backtrace::__rust_begin_short_backtrace::<fn(), ()>");
	/* an LLVM suffix after the name is ignored */
	check_demangled(demangle_rust, "_RNvCs2AtevEgESKb_10rust_alloc4main.llvm.123",
			"rust_alloc::main");
#else
	check_demangled(demangle_rust, "_RNvCs2AtevEgESKb_10rust_alloc11make_buffer", NULL);
#endif
	check_demangled(demangle_rust, "_R!garbage", NULL);
	check_demangled(demangle_rust, "malloc", NULL);
	check_demangled(demangle_rust, NULL, NULL);
}

static void test_demangle_rust_legacy_without_hash(void)
{
#ifdef HAVE_LIBIBERTY
	check_demangled(demangle_rust, "_ZN3std6thread9lifecycle15spawn_unchecked17he251b36ec94080ceE",
			"std::thread::lifecycle::spawn_unchecked");
	/* $LT$ $GT$ $C$ $u20$ and ".." decoded */
	check_demangled(demangle_symbol,
			"_ZN102_$LT$core..iter..adapters..map..Map$LT$I$C$F$GT$$u20$as$u20$core..iter..traits"
			"..iterator..Iterator$GT$4fold17h0123456789abcdefE",
			"<core::iter::adapters::map::Map<I,F> as core::iter::traits::iterator::Iterator>::fold");
	check_demangled(demangle_symbol,
			"_ZN3std2rt19lang_start_internal28_$u7b$$u7b$closure$u7d$$u7d$17h250ad398b7b25c83E",
			"std::rt::lang_start_internal::{{closure}}");
#endif
	/* C++ names are not Rust ones, even one ending in a hash-like part
	 * (a Rust hash has at least 5 distinct hex digits) */
	check_demangled(demangle_rust, "_ZN2ns6Widget6resizeEim", NULL);
	check_demangled(demangle_rust, "_ZN3foo17h0000000000000000E", NULL);
	check_demangled(demangle_symbol, "_ZN2ns6Widget6resizeEim", "ns::Widget::resize(int, unsigned long)");
	check_demangled(demangle_symbol, "malloc", NULL);
}

#define ELL "\xe2\x80\xa6" /* "…", what symbol_shorten puts in */

/* Checks that symbol_shorten(name, max_chars) gives want (NULL: fits). */
static void check_shortened(const char *name, size_t max_chars, const char *want)
{
	char *got = symbol_shorten(name, max_chars);

	if (!want) {
		CU_ASSERT_PTR_NULL(got);
	} else {
		CU_ASSERT_PTR_NOT_NULL_FATAL(got);
		CU_ASSERT_STRING_EQUAL(got, want);
	}
	free(got);
}

/* std::vector<std::pair<int, std::string>>::_M_realloc_insert as g++ 12
 * and __cxa_demangle give it (c++filt of its symbol): 805 characters. */
#define STR "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
#define PAIR "std::pair<int, " STR " >"
#define VECTOR "std::vector<" PAIR ", std::allocator<" PAIR " > >"
static const char realloc_insert[] =
	"void " VECTOR "::_M_realloc_insert<" PAIR " >(__gnu_cxx::__normal_iterator<" PAIR "*, "
	VECTOR " >, " PAIR "&&)";

static void test_long_cxx_name_shortened_in_steps(void)
{
	CU_ASSERT_EQUAL(strlen(realloc_insert), 805);
	/* template arguments, deepest first, only as far as needed */
	check_shortened(realloc_insert, SYMBOL_TEXT_MAX_CHARS,
			"void std::vector<" ELL ">::_M_realloc_insert<" ELL ">(__gnu_cxx::__normal_iterator<"
			ELL ">, std::pair<" ELL ">&&)");
	/* then the parameters */
	check_shortened(realloc_insert, 60, "void std::vector<" ELL ">::_M_realloc_insert<" ELL ">(" ELL ")");
	check_shortened("std::vector<std::pair<int, std::vector<long, std::allocator<long> > >, "
			"std::allocator<int> >::push_back(int const&)", 90,
			"std::vector<std::pair<int, std::vector<" ELL "> >, std::allocator<int> >"
			"::push_back(int const&)");
	check_shortened("std::vector<std::pair<int, std::vector<long, std::allocator<long> > >, "
			"std::allocator<int> >::push_back(int const&)", 80,
			"std::vector<std::pair<" ELL ">, std::allocator<" ELL "> >::push_back(int const&)");
	check_shortened("std::vector<std::pair<int, long>, std::allocator<std::pair<int, long> > >"
			"::_M_realloc_insert(int)", 60, "std::vector<" ELL ">::_M_realloc_insert(int)");
	/* "(anonymous namespace)" and operators are not lists */
	check_shortened("(anonymous namespace)::Registry::add(std::map<int, int, std::less<int>, "
			"std::allocator<int> > const&)", 60,
			"(anonymous namespace)::Registry::add(std::map<" ELL "> const&)");
	check_shortened("bool operator<< <std::basic_string<char>, std::vector<int, std::allocator<int> > >"
			"(std::basic_string<char> const&, int)", 60,
			"bool operator<< <" ELL ">(std::basic_string<" ELL "> const&, int)");
	check_shortened("ns::Foo<int>::operator()(std::vector<int, std::allocator<int> > const&) const", 60,
			"ns::Foo<" ELL ">::operator()(std::vector<" ELL "> const&) const");
	check_shortened("std::_Function_handler<void (int), main::{lambda(int)#1}>::_M_invoke("
			"std::_Any_data const&, int&&)", 60,
			"std::_Function_handler<" ELL ">::_M_invoke(" ELL ")");
}

static void test_long_name_shortened_keeps_path_and_end(void)
{
	/* a Rust qualified path keeps its leading <...> */
	check_shortened("<alloc::raw_vec::RawVec<std::collections::hash::map::HashMap<u32, "
			"alloc::string::String>>>::allocate_in", 60,
			"<alloc::raw_vec::RawVec<" ELL ">>::allocate_in");
	/* no brackets left to drop: the middle goes, the function's name stays */
	check_shortened("namespace_one::namespace_two::namespace_three::namespace_four::namespace_five"
			"::very_long_function_name_indeed", 60,
			"namespace_one::names" ELL "ce_five::very_long_function_name_indeed");
	check_shortened("abcdefghijkl", 8, "ab" ELL "hijkl");
	/* names that fit stay as they are: NULL, print the name itself */
	check_shortened("abcdefgh", 8, NULL);
	check_shortened("x<a>", 8, NULL);
	check_shortened(realloc_insert, 805, NULL);
	check_shortened(NULL, 60, NULL);
}

/* ---- building module maps of this process ---- */

struct module_desc {
	char path[PATH_MAX];
	uint64_t bias;
	uint8_t build_id[64];
	size_t build_id_len;
	uint64_t seg_start[8], seg_size[8];
	size_t seg_count;
	uintptr_t want;          /* an address the module must hold */
	bool found;
};

static void note_build_id(struct module_desc *m, const struct dl_phdr_info *info,
			  const ElfW(Phdr) *ph)
{
	const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
	const uint8_t *end = p + ph->p_memsz;

	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
		const uint8_t *name = p + sizeof(*n);
		const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);

		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && n->n_descsz <= sizeof(m->build_id)) {
			memcpy(m->build_id, desc, n->n_descsz);
			m->build_id_len = n->n_descsz;
			return;
		}
		p = desc + ((n->n_descsz + 3) & ~3u);
	}
}

static int phdr_callback(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct module_desc *m = arg;
	bool holds = false;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && m->want >= lo && m->want < lo + ph->p_memsz)
			holds = true;
	}
	if (!holds)
		return 0;
	m->bias = info->dlpi_addr;
	m->seg_count = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && m->seg_count < 8) {
			m->seg_start[m->seg_count] = ph->p_vaddr;
			m->seg_size[m->seg_count++] = ph->p_memsz;
		}
		if (ph->p_type == PT_NOTE && m->build_id_len == 0)
			note_build_id(m, info, ph);
	}
	if (info->dlpi_name && info->dlpi_name[0]) {
		snprintf(m->path, sizeof(m->path), "%s", info->dlpi_name);
	} else {
		ssize_t n = readlink("/proc/self/exe", m->path, sizeof(m->path) - 1);

		m->path[n > 0 ? n : 0] = '\0';
	}
	m->found = true;
	return 1;
}

/* Describes the loaded module that holds address want. */
static bool module_desc_of(struct module_desc *m, const void *want)
{
	memset(m, 0, sizeof(*m));
	m->want = (uintptr_t)want;
	dl_iterate_phdr(phdr_callback, m);
	return m->found;
}

/* Encodes a MODULES payload of the given modules; returns its length. */
static size_t modules_payload(uint8_t *buf, uint64_t epoch, const struct module_desc *mods,
			      size_t count)
{
	uint8_t *p = buf;

	p = varint_put_u64(p, epoch);
	p = varint_put_u64(p, count);
	for (size_t i = 0; i < count; i++) {
		p = varint_put_u64(p, mods[i].bias);
		p = record_put_bytes(p, mods[i].path, strlen(mods[i].path));
		p = record_put_bytes(p, mods[i].build_id, mods[i].build_id_len);
		p = varint_put_u64(p, mods[i].seg_count);
		for (size_t k = 0; k < mods[i].seg_count; k++) {
			p = varint_put_u64(p, mods[i].seg_start[k]);
			p = varint_put_u64(p, mods[i].seg_size[k]);
		}
	}
	return (size_t)(p - buf);
}

static int maps_of(struct module_maps *maps, uint64_t epoch, const struct module_desc *mods,
		   size_t count)
{
	uint8_t buf[8192];
	size_t n = modules_payload(buf, epoch, mods, count);

	return module_maps_add_record(maps, buf, n);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && strcmp(s + a - b, suffix) == 0;
}

/* ---- modules.c ---- */

/* The map in force from the i-th epoch of m on. */
static const struct module_map *map_at(const struct module_maps *m, size_t i)
{
	return &m->maps[m->epochs[i].map];
}

static void test_modules_record_round_trip(void)
{
	struct module_desc mods[2];
	struct module_maps maps;
	const struct module *m;

	memset(mods, 0, sizeof(mods));
	strcpy(mods[0].path, "/usr/lib/libfirst.so");
	mods[0].bias = 0x7f0000000000;
	mods[0].build_id_len = 3;
	memcpy(mods[0].build_id, "\x01\x02\x03", 3);
	mods[0].seg_count = 1;
	mods[0].seg_start[0] = 0x1000;
	mods[0].seg_size[0] = 0x500;
	strcpy(mods[1].path, "/bin/prog");
	mods[1].bias = 0x400000;
	mods[1].seg_count = 2;
	mods[1].seg_start[0] = 0x0;
	mods[1].seg_size[0] = 0x100;
	mods[1].seg_start[1] = 0x2000;
	mods[1].seg_size[1] = 0x100;

	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 3, mods, 2), 0);
	CU_ASSERT_EQUAL(maps.count, 1);
	CU_ASSERT_EQUAL(maps.epochs[0].epoch, 3);
	CU_ASSERT_EQUAL(map_at(&maps, 0)->count, 2);

	m = module_maps_find(&maps, 3, 0x7f0000001000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_STRING_EQUAL(m->path, "/usr/lib/libfirst.so");
	CU_ASSERT_EQUAL(m->bias, 0x7f0000000000);
	CU_ASSERT_EQUAL(m->build_id_len, 3);
	CU_ASSERT(memcmp(m->build_id, "\x01\x02\x03", 3) == 0);
	CU_ASSERT_PTR_NULL(module_maps_find(&maps, 3, 0x7f0000001500));
	m = module_maps_find(&maps, 3, 0x4020ff);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_STRING_EQUAL(m->path, "/bin/prog");
	CU_ASSERT_PTR_NULL(m->build_id);
	CU_ASSERT_PTR_NULL(module_maps_find(&maps, 3, 0x401000));
	/* A later epoch without a map of its own uses the newest older map;
	 * an earlier one has none. */
	CU_ASSERT_PTR_NOT_NULL(module_maps_find(&maps, 9, 0x400010));
	CU_ASSERT_PTR_NULL(module_maps_find(&maps, 2, 0x400010));

	/* The same epoch again replaces its map. */
	CU_ASSERT_EQUAL(maps_of(&maps, 3, &mods[1], 1), 0);
	CU_ASSERT_EQUAL(maps.count, 1);
	CU_ASSERT_PTR_NULL(module_maps_find(&maps, 3, 0x7f0000001000));
	module_maps_free(&maps);
}

/* A MODULES_DELTA payload: head (trace/modules_delta.h), then the added
 * modules as modules_payload lays them out. */
static size_t delta_payload(uint8_t *buf, uint64_t epoch, uint64_t base, const uint64_t *removed,
			    size_t nremoved, const struct module_desc *added, size_t nadded)
{
	uint8_t tmp[4096];
	size_t n = modules_payload(tmp, 0, added, nadded);
	uint8_t *p = modules_delta_put_head(buf, epoch, base, removed, nremoved, nadded);

	memcpy(p, tmp + 2, n - 2); /* epoch 0 and the count take a byte each */
	return (size_t)(p - buf) + n - 2;
}

static int delta_of(struct module_maps *maps, uint64_t epoch, uint64_t base,
		    const uint64_t *removed, size_t nremoved, const struct module_desc *added,
		    size_t nadded)
{
	uint8_t buf[8192];
	size_t n = delta_payload(buf, epoch, base, removed, nremoved, added, nadded);

	return module_maps_add_ext(maps, TRACE_REC_EXT_MODULES_DELTA, buf, n);
}

/* One module at bias with one segment [0x1000, 0x2000). */
static void desc_at(struct module_desc *m, const char *path, uint64_t bias)
{
	memset(m, 0, sizeof(*m));
	strcpy(m->path, path);
	m->bias = bias;
	m->seg_count = 1;
	m->seg_start[0] = 0x1000;
	m->seg_size[0] = 0x1000;
}

static const char *path_at(const struct module_maps *maps, uint64_t epoch, uint64_t ip)
{
	const struct module *m = module_maps_find(maps, epoch, ip);

	return m ? m->path : "(none)";
}

/* A delta's map is its base's without the removed ids, plus the added
 * modules under the next ids; a library loaded at a closed one's address
 * is found in the epochs after, the closed one in those before. */
static void test_modules_delta_applies_to_its_base(void)
{
	struct module_desc mods[3], add;
	struct module_maps maps;
	const uint64_t rm_b[] = { 1 }, rm_x[] = { 3 }, rm_ac[] = { 0, 2 };

	desc_at(&mods[0], "/a.so", 0x10000);
	desc_at(&mods[1], "/b.so", 0x20000);
	desc_at(&mods[2], "/c.so", 0x30000);
	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 1, mods, 3), 0);
	CU_ASSERT_EQUAL(map_at(&maps, 0)->next_id, 3);
	/* epoch 2: b.so closed, x.so loaded at its address (id 3) */
	desc_at(&add, "/x.so", 0x20000);
	CU_ASSERT_EQUAL_FATAL(delta_of(&maps, 2, 1, rm_b, 1, &add, 1), 0);
	CU_ASSERT_EQUAL(maps.count, 2);
	CU_ASSERT_EQUAL(map_at(&maps, 1)->count, 3);
	CU_ASSERT_EQUAL(map_at(&maps, 1)->next_id, 4);
	CU_ASSERT_STRING_EQUAL(path_at(&maps, 1, 0x21000), "/b.so");
	CU_ASSERT_STRING_EQUAL(path_at(&maps, 2, 0x21000), "/x.so");
	CU_ASSERT_STRING_EQUAL(path_at(&maps, 2, 0x11000), "/a.so");
	CU_ASSERT_STRING_EQUAL(path_at(&maps, 2, 0x31fff), "/c.so");
	/* the base's modules are shared, not copied */
	CU_ASSERT_PTR_EQUAL(module_maps_find(&maps, 1, 0x11000), module_maps_find(&maps, 2, 0x11000));
	/* epoch 3: x.so closed again (id 3), nothing added */
	CU_ASSERT_EQUAL_FATAL(delta_of(&maps, 3, 2, rm_x, 1, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(path_at(&maps, 3, 0x21000), "(none)");
	CU_ASSERT_EQUAL(map_at(&maps, 2)->next_id, 4);
	/* epoch 4: a.so and c.so gone, b.so back at a lower address (id 4),
	 * merged in by address */
	desc_at(&add, "/b.so", 0x5000);
	CU_ASSERT_EQUAL_FATAL(delta_of(&maps, 4, 3, rm_ac, 2, &add, 1), 0);
	CU_ASSERT_EQUAL(map_at(&maps, 3)->count, 1);
	CU_ASSERT_EQUAL(module_maps_find(&maps, 4, 0x6000)->id, 4);
	CU_ASSERT_STRING_EQUAL(path_at(&maps, 4, 0x11000), "(none)");
	/* every module parsed once: 3 + x.so + b.so again */
	CU_ASSERT_EQUAL(maps.pool_count, 5);
	module_maps_free(&maps);
}

/* A delta without its base, one naming an id its base lacks, one based on
 * its own epoch and one whose bytes do not add up are refused and add no
 * map; a delta on a refused one is refused in turn. */
static void test_modules_delta_refusals(void)
{
	struct module_desc mods[2], add;
	struct module_maps maps;
	const uint64_t rm_7[] = { 7 }, rm_0[] = { 0 };
	uint8_t buf[8192];
	size_t n;

	desc_at(&mods[0], "/a.so", 0x10000);
	desc_at(&mods[1], "/b.so", 0x20000);
	desc_at(&add, "/x.so", 0x40000);
	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 1, mods, 2), 0);
	CU_ASSERT_EQUAL(delta_of(&maps, 3, 2, NULL, 0, &add, 1), -EBADMSG);
	CU_ASSERT_EQUAL(delta_of(&maps, 2, 1, rm_7, 1, &add, 1), -EBADMSG);
	CU_ASSERT_EQUAL(delta_of(&maps, 1, 1, rm_0, 1, NULL, 0), -EBADMSG);
	CU_ASSERT_EQUAL(delta_of(&maps, 4, 2, NULL, 0, &add, 1), -EBADMSG);
	n = delta_payload(buf, 2, 1, rm_0, 1, &add, 1);
	for (size_t cut = 0; cut < n; cut++)
		CU_ASSERT_EQUAL(module_maps_add_delta(&maps, buf, cut), -EBADMSG);
	buf[n] = 0;
	CU_ASSERT_EQUAL(module_maps_add_delta(&maps, buf, n + 1), -EBADMSG);
	CU_ASSERT_EQUAL(maps.count, 1);
	CU_ASSERT_EQUAL(maps.pool_count, 2);
	/* the same bytes whole are a good delta */
	CU_ASSERT_EQUAL(module_maps_add_delta(&maps, buf, n), 0);
	CU_ASSERT_STRING_EQUAL(path_at(&maps, 2, 0x41000), "/x.so");
	CU_ASSERT_STRING_EQUAL(path_at(&maps, 2, 0x11000), "(none)");
	CU_ASSERT_EQUAL(module_maps_add_ext(&maps, TRACE_REC_EXT_DIAG, buf, n), 1);
	module_maps_free(&maps);
}

/* Deltas of a few bytes on a large map cost no copy of it: 100,000 empty
 * deltas on a map of 3072 modules are all taken (when each map held a
 * pointer per module, the 4 Mi pointers allowed ran out some 1,400 in). */
static void test_modules_empty_deltas_taken(void)
{
	enum { MODS = 3072 };
	static struct module_desc mods[MODS];
	static uint8_t buf[1 << 17];
	struct module_maps maps;
	size_t n, refused = 0;

	for (size_t i = 0; i < MODS; i++)
		desc_at(&mods[i], "/m", 0x100000 * (i + 1));
	module_maps_init(&maps);
	n = modules_payload(buf, 1, mods, MODS);
	CU_ASSERT_FATAL(n < sizeof(buf));
	CU_ASSERT_EQUAL_FATAL(module_maps_add_record(&maps, buf, n), 0);
	for (uint64_t epoch = 2; epoch <= 100000; epoch++)
		refused += delta_of(&maps, epoch, epoch - 1, NULL, 0, NULL, 0) != 0;
	CU_ASSERT_EQUAL(refused, 0);
	CU_ASSERT_EQUAL(maps.count, 100000);
	CU_ASSERT_PTR_EQUAL(module_maps_find(&maps, 100000, 0x100000 * 77 + 0x1000),
			    module_maps_find(&maps, 1, 0x100000 * 77 + 0x1000));
	CU_ASSERT_PTR_NOT_NULL(module_maps_find(&maps, 100000, 0x100000 * 77 + 0x1000));
	module_maps_free(&maps);
}

/* Crafted deltas that each remove hundreds of modules from a large map
 * with a byte per id make some 12 nodes per byte: they are refused once
 * the nodes pass MODULE_MAPS_NODES_PER_BYTE (or the free nodes), and the
 * maps taken before stay. */
static void test_modules_delta_budget(void)
{
	enum { MODS = 4096, GONE = 300 };
	static struct module_desc mods[MODS];
	static uint8_t buf[1 << 17];
	static uint64_t gone[GONE];
	struct module_maps maps;
	uint64_t epoch, cap;
	size_t n;
	int rc = 0;

	for (size_t i = 0; i < MODS; i++)
		desc_at(&mods[i], "/m", 0x100000 * (i + 1));
	module_maps_init(&maps);
	n = modules_payload(buf, 1, mods, MODS);
	CU_ASSERT_FATAL(n < sizeof(buf));
	CU_ASSERT_EQUAL_FATAL(module_maps_add_record(&maps, buf, n), 0);
	for (epoch = 2; epoch < 100000 && rc == 0; epoch++) {
		uint64_t from = (epoch * 7) % (MODS - GONE);

		for (size_t i = 0; i < GONE; i++)
			gone[i] = from + i;
		rc = delta_of(&maps, epoch, 1, gone, GONE, NULL, 0);
	}
	cap = maps.record_bytes * MODULE_MAPS_NODES_PER_BYTE;
	if (cap < MODULE_MAPS_FREE_NODES)
		cap = MODULE_MAPS_FREE_NODES;
	CU_ASSERT_EQUAL(rc, -E2BIG);
	CU_ASSERT(epoch > 200);
	CU_ASSERT(maps.forest.count <= cap);
	CU_ASSERT(maps.forest.count + MODS > cap);
	/* the last map taken lacks its removed modules, the refused one's
	 * epoch falls back to it */
	epoch -= 2;
	CU_ASSERT_EQUAL(maps.count, epoch);
	CU_ASSERT_EQUAL(map_at(&maps, epoch - 1)->count, MODS - GONE);
	CU_ASSERT_PTR_NULL(module_maps_find(&maps, epoch, 0x100000 * ((epoch * 7) % (MODS - GONE) + 1) + 0x1000));
	CU_ASSERT_PTR_NOT_NULL(module_maps_find(&maps, epoch + 1, (uint64_t)0x100000 * MODS + 0x1000));
	module_maps_free(&maps);
}

/* ---- a brute-force model of the module maps, to check lookups against ---- */

struct model_mod {
	char path[16];
	uint64_t id, bias;
	uint64_t start[3], size[3];
	size_t nseg;
};

struct model_map {
	uint64_t epoch;
	uint64_t next_id;
	size_t count;
	struct model_mod mods[160];
};

static uint64_t model_low(const struct model_mod *m)
{
	uint64_t low = UINT64_MAX;

	for (size_t k = 0; k < m->nseg; k++)
		if (m->start[k] + m->bias < low)
			low = m->start[k] + m->bias;
	return low;
}

static bool model_holds(const struct model_mod *m, uint64_t ip)
{
	for (size_t k = 0; k < m->nseg; k++)
		if (ip - m->bias - m->start[k] < m->size[k])
			return true;
	return false;
}

/* What the maps had to answer when each held a sorted array of its
 * modules: the last one by (low, id) starting at or below ip when it
 * holds ip, else the first that does. */
static const struct model_mod *model_find(const struct model_map *map, uint64_t ip)
{
	const struct model_mod *last = NULL, *first = NULL;

	for (size_t i = 0; i < map->count; i++) {
		const struct model_mod *m = &map->mods[i];
		uint64_t low = model_low(m);

		if (low <= ip && (!last || low > model_low(last) ||
				  (low == model_low(last) && m->id > last->id)))
			last = m;
		if (model_holds(m, ip) && (!first || low < model_low(first) ||
					   (low == model_low(first) && m->id < first->id)))
			first = m;
	}
	return last && model_holds(last, ip) ? last : first;
}

static unsigned model_rand(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(*state >> 33);
}

/* A random module: overlapping, interleaved, empty and (rarely) wrapping
 * segments all occur. */
static void model_mod_make(struct model_mod *m, uint64_t *rng, unsigned serial)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->path, sizeof(m->path), "/m%u", serial);
	m->bias = (uint64_t)(model_rand(rng) % 64) * 0x4000;
	if (model_rand(rng) % 50 == 0)
		m->bias = UINT64_MAX - 0x1fff;
	m->nseg = model_rand(rng) % 4;
	for (size_t k = 0; k < m->nseg; k++) {
		/* page-aligned starts half the time: modules of equal lows */
		m->start[k] = model_rand(rng) % 0x8000;
		if (model_rand(rng) % 2)
			m->start[k] &= ~(uint64_t)0xfff;
		m->size[k] = model_rand(rng) % 0x3000;
	}
}

static void model_desc(struct module_desc *d, const struct model_mod *m)
{
	memset(d, 0, sizeof(*d));
	strcpy(d->path, m->path);
	d->bias = m->bias;
	d->seg_count = m->nseg;
	for (size_t k = 0; k < m->nseg; k++) {
		d->seg_start[k] = m->start[k];
		d->seg_size[k] = m->size[k];
	}
}

/* The model map in force at epoch (the newest at or before it), or NULL. */
static const struct model_map *model_pick(const struct model_map *maps, size_t n, uint64_t epoch)
{
	const struct model_map *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (maps[i].epoch <= epoch && (!best || maps[i].epoch > best->epoch))
			best = &maps[i];
	return best;
}

static size_t model_index(const struct model_map *maps, size_t n, uint64_t epoch)
{
	for (size_t i = 0; i < n; i++)
		if (maps[i].epoch == epoch)
			return i;
	return n;
}

/*
 * Random chains of MODULES and MODULES_DELTA records, against the model:
 * deltas on the map before and on old epochs, epochs out of order, epochs
 * given again (replacing their maps, also ones other maps were made from),
 * maps emptied whole, removed ids not in the base (refused); then every
 * epoch's lookups of segment edges, gaps and ips in no module match the
 * model's.
 */
static void test_modules_lookups_match_brute_force(void)
{
	enum { OPS = 240, MAPS = OPS + 1, PROBES = 600 };
	static struct model_map model[MAPS];
	static struct model_mod born[OPS * 40];
	static struct module_desc descs[40];
	static uint64_t probes[PROBES];
	struct module_maps maps;
	uint64_t rng = 121, top = 0, gone[160];
	size_t nmaps = 0, nborn = 0, bad = 0, refused = 0, emptied = 0;
	unsigned serial = 0;

	module_maps_init(&maps);
	for (int op = 0; op < OPS; op++) {
		struct model_map next;
		uint64_t epoch;
		size_t at, nadd, ngone = 0;
		int rc, want = 0;
		bool bogus = false;

		/* mostly the next epochs; some out of order; some again */
		epoch = top + 1 + model_rand(&rng) % 5;
		if (op > 5 && model_rand(&rng) % 7 == 0)
			epoch = model_rand(&rng) % top;
		if (op > 5 && model_rand(&rng) % 9 == 0)
			epoch = model[model_rand(&rng) % nmaps].epoch;
		if (op == 0 || model_rand(&rng) % 10 == 0) {
			next.epoch = epoch;
			next.count = model_rand(&rng) % 40;
			for (size_t i = 0; i < next.count; i++) {
				model_mod_make(&next.mods[i], &rng, serial++);
				next.mods[i].id = i;
				model_desc(&descs[i], &next.mods[i]);
				born[nborn++] = next.mods[i];
			}
			next.next_id = next.count;
			rc = maps_of(&maps, epoch, descs, next.count);
		} else {
			const struct model_map *base = &model[model_rand(&rng) % nmaps];
			unsigned p = model_rand(&rng) % 4;

			if (base->epoch == epoch)
				epoch = top + 1;
			next = *base;
			next.epoch = epoch;
			next.count = 0;
			/* removed ids ascending: none, a few, many or all */
			for (size_t i = 0; i < base->count; i++) {
				bool rm = p == 3 || (p == 1 && model_rand(&rng) % 20 == 0) ||
					  (p == 2 && model_rand(&rng) % 3 == 0);

				if (rm)
					gone[ngone++] = base->mods[i].id;
				else
					next.mods[next.count++] = base->mods[i];
			}
			for (size_t i = 1; i < ngone; i++) /* by id: the model keeps them so */
				CU_ASSERT_FATAL(gone[i - 1] < gone[i]);
			if (model_rand(&rng) % 20 == 0) {
				gone[ngone++] = base->next_id + model_rand(&rng) % 3;
				bogus = true;
				want = -EBADMSG;
			}
			emptied += p == 3 && !bogus;
			nadd = model_rand(&rng) % 6;
			if (next.count + nadd > 160)
				nadd = 0;
			for (size_t i = 0; i < nadd; i++) {
				struct model_mod *m = &next.mods[next.count++];

				model_mod_make(m, &rng, serial++);
				m->id = base->next_id + i;
				model_desc(&descs[i], m);
				if (!bogus)
					born[nborn++] = *m;
			}
			next.next_id = base->next_id + nadd;
			rc = delta_of(&maps, epoch, base->epoch, gone, ngone, descs, nadd);
		}
		CU_ASSERT_EQUAL(rc, want);
		if (rc != 0) {
			refused++;
			continue;
		}
		at = model_index(model, nmaps, epoch);
		model[at] = next;
		nmaps += at == nmaps;
		if (epoch > top)
			top = epoch;
	}
	CU_ASSERT(refused > 3);
	CU_ASSERT(emptied > 3);
	CU_ASSERT_EQUAL(maps.count, nmaps);
	CU_ASSERT(maps.unordered > 10);
	CU_ASSERT(OPS - refused >= nmaps + 10); /* epochs given again */
	/* segment edges of modules seen, then ips anywhere */
	for (size_t i = 0; i < PROBES; i++) {
		const struct model_mod *m = &born[model_rand(&rng) % nborn];
		size_t k = m->nseg ? model_rand(&rng) % m->nseg : 0;
		uint64_t edge = m->bias + m->start[k] + (model_rand(&rng) % 2 ? m->size[k] : 0);

		probes[i] = i % 4 == 3 ? model_rand(&rng) % (66 * 0x4000) : edge - (i % 2);
	}
	probes[0] = 0;
	probes[1] = UINT64_MAX;
	for (uint64_t epoch = 0; epoch <= top + 1; epoch++) {
		const struct model_map *want = model_pick(model, nmaps, epoch);

		for (size_t i = 0; i < PROBES; i++) {
			const struct module *got = module_maps_find(&maps, epoch, probes[i]);
			const struct model_mod *w = want ? model_find(want, probes[i]) : NULL;

			if (!got != !w || (got && (got->id != w->id || strcmp(got->path, w->path) != 0))) {
				if (bad++ == 0)
					fprintf(stderr, "epoch %llu ip %#llx: got %s want %s\n",
						(unsigned long long)epoch, (unsigned long long)probes[i],
						got ? got->path : "(none)", w ? w->path : "(none)");
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	module_maps_free(&maps);
}

/* Maps out of epoch order are kept in order and found by epoch, up to
 * MODULE_MAPS_MAX_UNORDERED of them; in-order maps have no limit. */
static void test_modules_epochs_in_any_order(void)
{
	struct module_desc mod;
	struct module_maps maps;
	const struct module *m;
	uint64_t e;

	memset(&mod, 0, sizeof(mod));
	mod.seg_count = 1;
	mod.seg_size[0] = 0x100;
	module_maps_init(&maps);
	/* epochs 10, 20, ..., then 5, 15, ... between them: bias = epoch */
	for (e = 10; e <= 100; e += 10) {
		mod.bias = e << 12;
		snprintf(mod.path, sizeof(mod.path), "/lib/e%llu.so", (unsigned long long)e);
		CU_ASSERT_EQUAL_FATAL(maps_of(&maps, e, &mod, 1), 0);
	}
	for (int k = 9; k >= 0; k--) {
		e = 10 * (uint64_t)k + 5;
		mod.bias = e << 12;
		snprintf(mod.path, sizeof(mod.path), "/lib/e%llu.so", (unsigned long long)e);
		CU_ASSERT_EQUAL_FATAL(maps_of(&maps, e, &mod, 1), 0);
	}
	CU_ASSERT_EQUAL(maps.count, 20);
	CU_ASSERT_EQUAL(maps.unordered, 10);
	for (size_t i = 1; i < maps.count; i++)
		CU_ASSERT(maps.epochs[i - 1].epoch < maps.epochs[i].epoch);
	/* epoch 37 has no map: the newest older one, 35 */
	m = module_maps_find(&maps, 37, (35 << 12) + 0x10);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_STRING_EQUAL(m->path, "/lib/e35.so");
	CU_ASSERT_PTR_NULL(module_maps_find(&maps, 37, (40 << 12) + 0x10));
	CU_ASSERT_PTR_NULL(module_maps_find(&maps, 4, (5 << 12) + 0x10));
	module_maps_free(&maps);

	/* in order: many; out of order: refused past the limit */
	module_maps_init(&maps);
	mod.bias = 0x400000;
	strcpy(mod.path, "/bin/prog");
	for (e = 0; e < 3 * MODULE_MAPS_MAX_UNORDERED; e++)
		CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 2 * e + 2, &mod, 1), 0);
	for (e = 0; e < MODULE_MAPS_MAX_UNORDERED; e++)
		CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 2 * e + 1, &mod, 1), 0);
	CU_ASSERT_EQUAL(maps_of(&maps, 2 * e + 1, &mod, 1), -E2BIG);
	/* a repeated epoch still replaces its map */
	CU_ASSERT_EQUAL(maps_of(&maps, 2, &mod, 1), 0);
	CU_ASSERT_EQUAL(maps.count, 4 * MODULE_MAPS_MAX_UNORDERED);
	module_maps_free(&maps);
}

static void test_modules_garbage_refused(void)
{
	struct module_desc mod;
	struct module_maps maps;
	uint8_t buf[512], junk[64];
	size_t n;

	memset(&mod, 0, sizeof(mod));
	strcpy(mod.path, "/lib/x.so");
	mod.seg_count = 1;
	mod.seg_size[0] = 10;
	n = modules_payload(buf, 1, &mod, 1);
	module_maps_init(&maps);
	/* Every proper prefix is refused. */
	for (size_t len = 0; len < n; len++)
		CU_ASSERT_EQUAL(module_maps_add_record(&maps, buf, len), -EBADMSG);
	/* Trailing bytes are refused. */
	buf[n] = 0;
	CU_ASSERT_EQUAL(module_maps_add_record(&maps, buf, n + 1), -EBADMSG);
	/* Huge counts and lengths are refused without allocating them. */
	{
		uint8_t *p = junk;

		p = varint_put_u64(p, 1);
		p = varint_put_u64(p, UINT64_MAX);
		CU_ASSERT_EQUAL(module_maps_add_record(&maps, junk, (size_t)(p - junk)), -EBADMSG);
		p = junk;
		p = varint_put_u64(p, 1);
		p = varint_put_u64(p, 1);
		p = varint_put_u64(p, 0);
		p = varint_put_u64(p, 1ull << 40); /* path length */
		CU_ASSERT_EQUAL(module_maps_add_record(&maps, junk, (size_t)(p - junk)), -EBADMSG);
	}
	/* Random bytes never crash (most are refused). */
	srand(7);
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (uint8_t)rand();
		module_maps_add_record(&maps, junk, (size_t)rand() % sizeof(junk));
	}
	module_maps_free(&maps);
}

/* ---- symbolize.c ---- */

/* libdw comes into the process with the first module file read, not
 * before (dw_loader.h): a report of a trace with embedded answers never
 * maps it.  Runs before any other test reads a module. */
static void test_libdw_loaded_at_first_file(void)
{
	void *ip = symbols_plain_caller();
	struct module_desc self;
	struct module_maps maps;
	struct symbolizer *s;
	void *dw;

	CU_ASSERT_PTR_NULL(dlopen(DW_LOADER_SONAME, RTLD_NOW | RTLD_NOLOAD));
	CU_ASSERT_FATAL(module_desc_of(&self, (void *)symbols_plain_caller));
	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 0, &self, 1), 0);
	s = symbolizer_new(&maps);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NULL(dlopen(DW_LOADER_SONAME, RTLD_NOW | RTLD_NOLOAD));
	CU_ASSERT_STRING_EQUAL(symbolizer_lookup(s, 0, (uint64_t)(uintptr_t)ip)->frames[0].function,
			       "symbols_plain_caller");
	dw = dlopen(DW_LOADER_SONAME, RTLD_NOW | RTLD_NOLOAD);
	CU_ASSERT_PTR_NOT_NULL(dw);
	if (dw)
		dlclose(dw);
	symbolizer_free(s);
	module_maps_free(&maps);
}

static void test_symbolize_function_and_line(void)
{
	void *ip = symbols_plain_caller();
	struct module_desc self;
	struct module_maps maps;
	struct symbolizer *s;
	const struct sym_location *loc;

	CU_ASSERT_FATAL(module_desc_of(&self, (void *)symbols_plain_caller));
	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 0, &self, 1), 0);
	s = symbolizer_new(&maps);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	loc = symbolizer_lookup(s, 0, (uint64_t)(uintptr_t)ip);
	CU_ASSERT_EQUAL(loc->count, 1);
	CU_ASSERT(loc->has_symbol);
	CU_ASSERT(loc->has_debug_info);
	CU_ASSERT_STRING_EQUAL(loc->frames[0].function, "symbols_plain_caller");
	CU_ASSERT(ends_with(loc->frames[0].file, "test_symbols.c"));
	CU_ASSERT_EQUAL(loc->frames[0].line, (uint32_t)plain_call_line);
	CU_ASSERT_STRING_EQUAL(loc->frames[0].module, self.path);
	CU_ASSERT_EQUAL(loc->frames[0].module_offset, (uintptr_t)ip - self.bias);
	CU_ASSERT_FALSE(loc->frames[0].inlined);
	/* Cached: the same answer object comes back. */
	CU_ASSERT_PTR_EQUAL(symbolizer_lookup(s, 0, (uint64_t)(uintptr_t)ip), loc);
	symbolizer_free(s);
	module_maps_free(&maps);
}

static void check_inlined(const struct sym_location *loc)
{
	CU_ASSERT_EQUAL_FATAL(loc->count, 2);
	CU_ASSERT_STRING_EQUAL(loc->frames[0].function, "symbols_inlined_helper");
	CU_ASSERT(ends_with(loc->frames[0].file, "test_symbols.c"));
	CU_ASSERT_EQUAL(loc->frames[0].line, (uint32_t)inner_call_line);
	CU_ASSERT(loc->frames[0].inlined);
	CU_ASSERT_STRING_EQUAL(loc->frames[1].function, "symbols_inlining_caller");
	CU_ASSERT(ends_with(loc->frames[1].file, "test_symbols.c"));
	CU_ASSERT_EQUAL(loc->frames[1].line, (uint32_t)inlined_call_line);
	CU_ASSERT_FALSE(loc->frames[1].inlined);
	CU_ASSERT_EQUAL(loc->frames[0].module_offset, loc->frames[1].module_offset);
}

static void test_symbolize_inlined_frames(void)
{
	void *ip = symbols_inlining_caller();
	struct module_desc self;
	struct module_maps maps;
	struct symbolizer *s;

	CU_ASSERT_FATAL(module_desc_of(&self, (void *)symbols_inlining_caller));
	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 0, &self, 1), 0);
	s = symbolizer_new(&maps);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	check_inlined(symbolizer_lookup(s, 0, (uint64_t)(uintptr_t)ip));
	symbolizer_free(s);
	module_maps_free(&maps);
}

static void test_symbolize_cxx_name_demangled(void)
{
	/* Whether the C++ runtime was in the process before the first mangled
	 * name: not in this test program, which does not link it, unless a
	 * sanitizer runtime brought it (libubsan does; --enable-sanitizers
	 * builds with both, and gcc says so for ASan only). */
	bool runtime_before = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD) != NULL;
#ifndef __SANITIZE_ADDRESS__
	CU_ASSERT_FALSE(runtime_before);
#endif
	void *runtime, *fn;
	struct module_desc lib;
	struct module_maps maps;
	struct symbolizer *s;
	const struct sym_location *loc;
	char *d;

	CU_ASSERT_PTR_NULL(demangle_cxx("malloc"));
	/* demangle.c loads the runtime for the first mangled name only */
	CU_ASSERT_EQUAL(dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD) != NULL, runtime_before);
	d = demangle_cxx("_ZN2ns6Widget6resizeEim");
	CU_ASSERT_PTR_NOT_NULL(dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD));
	CU_ASSERT_STRING_EQUAL(d, "ns::Widget::resize(int, unsigned long)");
	free(d);
	CU_ASSERT_PTR_NULL(demangle_cxx("malloc"));
	CU_ASSERT_PTR_NULL(demangle_cxx("_Z!garbage"));

	runtime = dlopen("libstdc++.so.6", RTLD_LAZY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(runtime);
	fn = dlsym(runtime, "_ZSt9terminatev"); /* std::terminate() */
	CU_ASSERT_PTR_NOT_NULL_FATAL(fn);
	CU_ASSERT_FATAL(module_desc_of(&lib, fn));
	CU_ASSERT(strstr(lib.path, "libstdc++") != NULL);
	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 0, &lib, 1), 0);
	s = symbolizer_new(&maps);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	/* A return address one byte into the function. */
	loc = symbolizer_lookup(s, 0, (uint64_t)(uintptr_t)fn + 1);
	CU_ASSERT(loc->has_symbol);
	CU_ASSERT_STRING_EQUAL(loc->frames[loc->count - 1].function, "std::terminate()");
	CU_ASSERT_EQUAL(loc->frames[0].module_offset, (uintptr_t)fn + 1 - lib.bias);
	symbolizer_free(s);
	module_maps_free(&maps);
	dlclose(runtime);
}

static void test_symbolize_missing_module_gives_offset(void)
{
	void *ip = symbols_plain_caller();
	struct module_desc gone;
	struct module_maps maps;
	struct symbolizer *s;
	const struct sym_location *loc;

	CU_ASSERT_FATAL(module_desc_of(&gone, (void *)symbols_plain_caller));
	strcpy(gone.path, "/nonexistent/mprof-test/libgone.so");
	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 0, &gone, 1), 0);
	s = symbolizer_new(&maps);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	loc = symbolizer_lookup(s, 0, (uint64_t)(uintptr_t)ip);
	CU_ASSERT_EQUAL(loc->count, 1);
	CU_ASSERT_PTR_NULL(loc->frames[0].function);
	CU_ASSERT_PTR_NULL(loc->frames[0].file);
	CU_ASSERT_FALSE(loc->has_symbol);
	CU_ASSERT_FALSE(loc->has_debug_info);
	CU_ASSERT_STRING_EQUAL(loc->frames[0].module, gone.path);
	CU_ASSERT_EQUAL(loc->frames[0].module_offset, (uintptr_t)ip - gone.bias);
	/* The same address in a later epoch where the real binary is mapped
	 * there (a dlclose()d module's addresses reused): each epoch keeps
	 * its own module. */
	{
		struct module_desc self;
		const struct sym_location *now;

		CU_ASSERT_FATAL(module_desc_of(&self, (void *)symbols_plain_caller));
		CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 1, &self, 1), 0);
		now = symbolizer_lookup(s, 1, (uint64_t)(uintptr_t)ip);
		CU_ASSERT_STRING_EQUAL(now->frames[0].function, "symbols_plain_caller");
		CU_ASSERT_STRING_EQUAL(now->frames[0].module, self.path);
		CU_ASSERT_PTR_EQUAL(symbolizer_lookup(s, 0, (uint64_t)(uintptr_t)ip), loc);
	}
	/* An address in no module at all. */
	loc = symbolizer_lookup(s, 0, 0x10);
	CU_ASSERT_STRING_EQUAL(loc->frames[0].module, "?");
	CU_ASSERT_EQUAL(loc->frames[0].module_offset, 0x10);
	CU_ASSERT_PTR_NULL(loc->frames[0].function);
	symbolizer_free(s);
	module_maps_free(&maps);
}

/* A module loaded again (same path and build-id), even at another address,
 * is one place per offset, and the symbolizer's answer is the same; another
 * library at the same address in another epoch is a place of its own. */
static void test_symbolize_place_of_reloaded_module(void)
{
	uint64_t ip = (uint64_t)(uintptr_t)symbols_plain_caller(), moved = 0x100000;
	struct module_desc first, again, other;
	struct sym_place a, b, c, none;
	struct module_maps maps;
	struct symbolizer *s;
	const struct sym_location *loc;

	CU_ASSERT_FATAL(module_desc_of(&first, (void *)symbols_plain_caller));
	again = first;
	again.bias += moved;
	other = first;
	strcpy(other.path, "/nonexistent/mprof-test/libother.so");
	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 0, &first, 1), 0);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 1, &again, 1), 0);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 2, &other, 1), 0);
	s = symbolizer_new(&maps);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(symbolizer_place(s, 0, ip, &a), 0);
	CU_ASSERT_EQUAL(symbolizer_place(s, 1, ip + moved, &b), 0);
	CU_ASSERT_EQUAL(symbolizer_place(s, 2, ip, &c), 0);
	CU_ASSERT_EQUAL(symbolizer_place(s, 2, 0x10, &none), 0);
	CU_ASSERT_EQUAL(a.offset, ip - first.bias);
	CU_ASSERT_NOT_EQUAL(a.file, 0);
	CU_ASSERT_EQUAL(b.file, a.file);
	CU_ASSERT_EQUAL(b.offset, a.offset);
	CU_ASSERT_EQUAL(c.offset, a.offset);
	CU_ASSERT_NOT_EQUAL(c.file, a.file);
	CU_ASSERT_NOT_EQUAL(c.file, 0);
	CU_ASSERT_EQUAL(none.file, 0);
	CU_ASSERT_EQUAL(none.offset, 0x10);
	loc = symbolizer_lookup_place(s, &a);
	CU_ASSERT_STRING_EQUAL(loc->frames[0].function, "symbols_plain_caller");
	CU_ASSERT_PTR_EQUAL(symbolizer_lookup_place(s, &b), loc);
	CU_ASSERT_PTR_EQUAL(symbolizer_lookup(s, 1, ip + moved), loc);
	CU_ASSERT_STRING_EQUAL(symbolizer_lookup_place(s, &c)->frames[0].module, other.path);
	CU_ASSERT_PTR_NULL(symbolizer_lookup_place(s, &c)->frames[0].function);
	symbolizer_free(s);
	module_maps_free(&maps);
}

static void test_symbolize_other_build_id_gives_offset(void)
{
	void *ip = symbols_plain_caller();
	struct module_desc self;
	struct module_maps maps;
	struct symbolizer *s;
	const struct sym_location *loc;

	CU_ASSERT_FATAL(module_desc_of(&self, (void *)symbols_plain_caller));
	if (self.build_id_len == 0) {
		fprintf(stderr, "(no build-id in the test binary: check skipped) ");
		return;
	}
	self.build_id[0] ^= 0xff; /* "the binary was rebuilt since the run" */
	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 0, &self, 1), 0);
	s = symbolizer_new(&maps);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	loc = symbolizer_lookup(s, 0, (uint64_t)(uintptr_t)ip);
	CU_ASSERT_PTR_NULL(loc->frames[0].function);
	CU_ASSERT_EQUAL(loc->frames[0].module_offset, (uintptr_t)ip - self.bias);
	symbolizer_free(s);
	module_maps_free(&maps);
}

/* ---- symbol_table.c: embedding ---- */

static char *temp_path(const char *what)
{
	const char *dir = getenv("TMPDIR");
	char *path;

	if (asprintf(&path, "%s/mprof-test-%s-%ld", dir && *dir ? dir : "/tmp", what,
		     (long)getpid()) < 0)
		return NULL;
	return path;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	ssize_t n;
	int rc = (in >= 0 && out >= 0) ? 0 : -1;

	while (rc == 0 && (n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

static void same_location(const struct sym_location *a, const struct sym_location *b)
{
	CU_ASSERT_EQUAL_FATAL(a->count, b->count);
	CU_ASSERT_EQUAL(a->has_symbol, b->has_symbol);
	CU_ASSERT_EQUAL(a->has_debug_info, b->has_debug_info);
	for (size_t i = 0; i < a->count; i++) {
		const struct sym_frame *x = &a->frames[i], *y = &b->frames[i];

		CU_ASSERT((x->function == NULL) == (y->function == NULL));
		if (x->function && y->function)
			CU_ASSERT_STRING_EQUAL(x->function, y->function);
		CU_ASSERT((x->file == NULL) == (y->file == NULL));
		if (x->file && y->file)
			CU_ASSERT_STRING_EQUAL(x->file, y->file);
		CU_ASSERT_EQUAL(x->line, y->line);
		CU_ASSERT_STRING_EQUAL(x->module, y->module);
		CU_ASSERT_EQUAL(x->module_offset, y->module_offset);
		CU_ASSERT_EQUAL(x->inlined, y->inlined);
	}
}

/* Symbolizes ips with a copy of the test binary, exports, deletes the copy
 * and checks that the embedded answers come back unchanged. */
static void test_embedded_table_round_trip(void)
{
	uint64_t ips[3] = { (uintptr_t)symbols_plain_caller(), (uintptr_t)symbols_inlining_caller(),
			    0x10 };
	struct module_desc copy;
	struct module_maps maps;
	struct symbolizer *s, *t, *u;
	uint8_t *data = NULL;
	size_t bytes = 0;
	char *path = temp_path("exe");

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	CU_ASSERT_FATAL(module_desc_of(&copy, (void *)symbols_plain_caller));
	CU_ASSERT_EQUAL_FATAL(copy_file(copy.path, path), 0);
	snprintf(copy.path, sizeof(copy.path), "%s", path);
	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 0, &copy, 1), 0);

	s = symbolizer_new(&maps);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (int i = 0; i < 3; i++)
		symbolizer_lookup(s, 0, ips[i]);
	check_inlined(symbolizer_lookup(s, 0, ips[1]));
	CU_ASSERT_EQUAL_FATAL(symbolizer_export(s, &data, &bytes), 0);
	unlink(path);

	t = symbolizer_new(&maps);
	u = symbolizer_new(&maps);
	CU_ASSERT_FATAL(t && u);
	CU_ASSERT_EQUAL(symbolizer_load_embedded(t, data, bytes), 0);
	for (int i = 0; i < 3; i++)
		same_location(symbolizer_lookup(s, 0, ips[i]), symbolizer_lookup(t, 0, ips[i]));
	/* Without the table, the deleted binary gives module+offset only. */
	CU_ASSERT_PTR_NULL(symbolizer_lookup(u, 0, ips[0])->frames[0].function);

	/* Exporting the loaded answers gives the same bytes again. */
	{
		uint8_t *again = NULL;
		size_t again_bytes = 0;

		CU_ASSERT_EQUAL(symbolizer_export(t, &again, &again_bytes), 0);
		CU_ASSERT_EQUAL(again_bytes, bytes);
		CU_ASSERT(again && memcmp(again, data, bytes) == 0);
		free(again);
	}
	symbolizer_free(s);
	symbolizer_free(t);
	symbolizer_free(u);
	module_maps_free(&maps);
	free(data);
	free(path);
}

/* Counts the answers of a SYMBOLS payload. */
static int count_answer(void *ctx, const struct symbol_table_answer *in)
{
	(void)in;
	++*(size_t *)ctx;
	return 0;
}

static size_t exported_answers(struct symbolizer *s)
{
	uint8_t *data = NULL;
	size_t bytes = 0, n = 0;

	CU_ASSERT_EQUAL_FATAL(symbolizer_export(s, &data, &bytes), 0);
	CU_ASSERT_EQUAL(symbol_table_decode(data, bytes, count_answer, &n), 0);
	free(data);
	return n;
}

/* File descriptors this process has open. */
static size_t open_fds(void)
{
	char path[64];
	size_t n = 0;

	for (int fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += access(path, F_OK) == 0;
	}
	return n;
}

/* One symbolizer for many traces (symbolizer_set_maps), as `symbolize`
 * uses it: each trace exports just the answers it looked up, one found for
 * an earlier trace included; past SYMBOLIZER_OPEN_FILES_MAX (32) module
 * files open, it lets go of them between traces (their file descriptors
 * too, with the cache on and modules without build-id, whose answers are
 * never cached) and opens one again when a later trace asks it something
 * new.  70 "traces", each with its own link to this test binary (70 module
 * files), recorded without its build-id. */
static void test_symbolizer_shared_by_traces(void)
{
	enum { TRACES = 70 };
	uint64_t plain = (uintptr_t)symbols_plain_caller();
	uint64_t inlining = (uintptr_t)symbols_inlining_caller();
	struct module_desc self, link;
	struct module_maps maps[TRACES];
	struct symbolizer *s;
	const struct sym_location *loc;
	char *dir = temp_path("links");
	size_t named = 0, fds_before;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	CU_ASSERT_FATAL(module_desc_of(&self, (void *)symbols_plain_caller));
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
	fds_before = open_fds();
	s = symbolizer_new(NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	setenv("MPROF_SYMBOL_CACHE", dir, 1);
	CU_ASSERT_EQUAL(symbolizer_use_cache(s), 0);
	for (int k = 0; k < TRACES; k++) {
		link = self;
		link.build_id_len = 0;
		snprintf(link.path, sizeof(link.path), "%s/m%02d", dir, k);
		CU_ASSERT_EQUAL_FATAL(symlink(self.path, link.path), 0);
		module_maps_init(&maps[k]);
		CU_ASSERT_EQUAL_FATAL(maps_of(&maps[k], 0, &link, 1), 0);
		symbolizer_set_maps(s, &maps[k]);
		loc = symbolizer_lookup(s, 0, plain);
		named += loc->frames[0].function &&
			 strcmp(loc->frames[0].function, "symbols_plain_caller") == 0 &&
			 strcmp(loc->frames[0].module, link.path) == 0;
		CU_ASSERT_EQUAL(exported_answers(s), 1);
	}
	CU_ASSERT_EQUAL(named, TRACES);
	CU_ASSERT(open_fds() < fds_before + 64);
	/* the first trace's module again: its answer kept, exported again */
	symbolizer_set_maps(s, &maps[0]);
	CU_ASSERT_EQUAL(exported_answers(s), 0);
	loc = symbolizer_lookup(s, 0, plain);
	CU_ASSERT_STRING_EQUAL(loc->frames[0].function, "symbols_plain_caller");
	CU_ASSERT_EQUAL(exported_answers(s), 1);
	/* something new of it: the module, let go of, opens again */
	check_inlined(symbolizer_lookup(s, 0, inlining));
	CU_ASSERT_EQUAL(exported_answers(s), 2);
	symbolizer_set_maps(s, NULL);
	symbolizer_cache_save(s);
	symbolizer_free(s);
	unsetenv("MPROF_SYMBOL_CACHE");
	for (int k = 0; k < TRACES; k++) {
		char path[PATH_MAX];

		module_maps_free(&maps[k]);
		snprintf(path, sizeof(path), "%s/m%02d", dir, k);
		unlink(path);
	}
	rmdir(dir);
	free(dir);
}

static void test_embedded_table_garbage_refused(void)
{
	struct sym_frame frame = { .function = "f", .file = "f.c", .line = 7, .module = "/m" };
	struct sym_location loc = { .frames = &frame, .count = 1, .has_symbol = true };
	struct symbol_table_answer a = { .module_path = "/m", .module_offset = 42, .loc = &loc };
	struct symbolizer *s = symbolizer_new(NULL);
	uint8_t *data = NULL, junk[256];
	size_t bytes = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(symbol_table_encode(&a, 1, &data, &bytes), 0);
	for (size_t len = 0; len < bytes; len++)
		CU_ASSERT_EQUAL(symbolizer_load_embedded(s, data, len), -EBADMSG);
	data[0] = 2; /* another version */
	CU_ASSERT_EQUAL(symbolizer_load_embedded(s, data, bytes), -EBADMSG);
	data[0] = SYMBOL_TABLE_VERSION;
	CU_ASSERT_EQUAL(symbolizer_load_embedded(s, data, bytes), 0);
	srand(11);
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)rand() % sizeof(junk);

		for (size_t i = 0; i < n; i++)
			junk[i] = (uint8_t)rand();
		junk[0] = SYMBOL_TABLE_VERSION;
		symbolizer_load_embedded(s, junk, n);
	}
	free(data);
	symbolizer_free(s);
}

/* ---- cmd/symbolize.c on a hand-made trace ---- */

static int write_trace(const char *path, const struct module_desc *self, const uint64_t *ips,
		       size_t nips)
{
	uint8_t buf[16384], *p = buf, *rec;
	struct record_state st = { 0 };
	struct trace_writer w;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int rc;

	if (fd < 0)
		return -errno;
	p = varint_put_u64(p, 0); /* slot */
	p = varint_put_u64(p, 0); /* lap */
	p = varint_put_u64(p, 0); /* offset */
	p = record_put_thread(p, &st, 1234);
	rec = p;
	p = record_ext_begin(p, TRACE_REC_EXT_MODULES);
	p += modules_payload(p, 5, self, 1);
	record_ext_end(rec, p);
	p = record_put_stack(p, &st, 1, 0, 2 * 5); /* root: epoch 5 */
	for (size_t i = 0; i < nips; i++)
		p = record_put_stack(p, &st, i + 2, i + 1, ips[i]);
	rc = trace_writer_start(&w, fd, 0);
	if (rc == 0)
		rc = trace_writer_chunk(&w, TRACE_CHUNK_EVENTS, buf, (size_t)(p - buf));
	trace_writer_finish(&w);
	close(fd);
	return rc;
}

/* Counts the trace's SYMBOLS chunks and loads the last into s. */
static int read_symbols(const char *path, struct symbolizer *s, int *chunks)
{
	struct trace_reader r;
	struct trace_chunk c;
	int rc = trace_reader_open(&r, path);

	*chunks = 0;
	while (rc == 0 && (rc = trace_reader_next(&r, &c)) > 0) {
		if (c.type == TRACE_CHUNK_SYMBOLS) {
			(*chunks)++;
			rc = symbolizer_load_embedded(s, c.data, c.bytes);
		} else {
			rc = 0;
		}
	}
	trace_reader_close(&r);
	return rc;
}

static void test_cmd_symbolize_appends_once(void)
{
	uint64_t ips[2] = { (uintptr_t)symbols_plain_caller(), (uintptr_t)symbols_inlining_caller() };
	char *trace = temp_path("trace"), *exe = temp_path("exe2");
	struct module_desc copy;
	struct module_maps maps;
	struct symbolizer *s;
	char *argv[2];
	int chunks, fd;

	CU_ASSERT_FATAL(trace && exe);
	CU_ASSERT_FATAL(module_desc_of(&copy, (void *)symbols_plain_caller));
	CU_ASSERT_EQUAL_FATAL(copy_file(copy.path, exe), 0);
	snprintf(copy.path, sizeof(copy.path), "%s", exe);
	CU_ASSERT_EQUAL_FATAL(write_trace(trace, &copy, ips, 2), 0);
	/* A torn last chunk, as after SIGKILL. */
	fd = open(trace, O_WRONLY | O_APPEND);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "MPCK\x02\x01", 6), 6);
	close(fd);

	argv[0] = trace;
	argv[1] = NULL;
	fprintf(stderr, "\n(expected warning follows) ");
	CU_ASSERT_EQUAL(cmd_symbolize(1, argv), 0);
	CU_ASSERT_EQUAL(cmd_symbolize(1, argv), 0); /* idempotent */
	unlink(exe);

	module_maps_init(&maps);
	CU_ASSERT_EQUAL_FATAL(maps_of(&maps, 5, &copy, 1), 0);
	s = symbolizer_new(&maps);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(read_symbols(trace, s, &chunks), 0);
	CU_ASSERT_EQUAL(chunks, 1);
	CU_ASSERT_STRING_EQUAL(symbolizer_lookup(s, 5, ips[0])->frames[0].function,
			       "symbols_plain_caller");
	check_inlined(symbolizer_lookup(s, 5, ips[1]));
	symbolizer_free(s);
	module_maps_free(&maps);

	argv[0] = "/nonexistent/mprof-test/trace";
	fprintf(stderr, "(expected error follows) ");
	CU_ASSERT_EQUAL(cmd_symbolize(1, argv), 1);
	unlink(trace);
	free(trace);
	free(exe);
}

int main(void)
{
	CU_pSuite suite;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	suite = CU_add_suite("symbols", NULL, NULL);
	if (!suite ||
	    !CU_add_test(suite, "modules record round trip", test_modules_record_round_trip) ||
	    !CU_add_test(suite, "modules epochs in any order", test_modules_epochs_in_any_order) ||
	    !CU_add_test(suite, "modules garbage refused", test_modules_garbage_refused) ||
	    !CU_add_test(suite, "modules delta applies to its base",
			 test_modules_delta_applies_to_its_base) ||
	    !CU_add_test(suite, "modules delta refusals", test_modules_delta_refusals) ||
	    !CU_add_test(suite, "modules empty deltas taken", test_modules_empty_deltas_taken) ||
	    !CU_add_test(suite, "modules delta budget", test_modules_delta_budget) ||
	    !CU_add_test(suite, "modules lookups match brute force",
			 test_modules_lookups_match_brute_force) ||
	    !CU_add_test(suite, "libdw loaded at the first file", test_libdw_loaded_at_first_file) ||
	    !CU_add_test(suite, "function and line", test_symbolize_function_and_line) ||
	    !CU_add_test(suite, "inlined frames", test_symbolize_inlined_frames) ||
	    !CU_add_test(suite, "C++ name demangled", test_symbolize_cxx_name_demangled) ||
	    !CU_add_test(suite, "Rust v0 name demangled", test_demangle_rust_v0) ||
	    !CU_add_test(suite, "Rust legacy name demangled without its hash",
			 test_demangle_rust_legacy_without_hash) ||
	    !CU_add_test(suite, "long C++ name shortened in steps",
			 test_long_cxx_name_shortened_in_steps) ||
	    !CU_add_test(suite, "long name shortened keeps path and end",
			 test_long_name_shortened_keeps_path_and_end) ||
	    !CU_add_test(suite, "missing module gives offset",
			 test_symbolize_missing_module_gives_offset) ||
	    !CU_add_test(suite, "reloaded module is one place",
			 test_symbolize_place_of_reloaded_module) ||
	    !CU_add_test(suite, "other build-id gives offset",
			 test_symbolize_other_build_id_gives_offset) ||
	    !CU_add_test(suite, "embedded table round trip", test_embedded_table_round_trip) ||
	    !CU_add_test(suite, "symbolizer shared by traces", test_symbolizer_shared_by_traces) ||
	    !CU_add_test(suite, "embedded table garbage refused",
			 test_embedded_table_garbage_refused) ||
	    !CU_add_test(suite, "symbolize subcommand appends once",
			 test_cmd_symbolize_appends_once)) {
		CU_cleanup_registry();
		return 1;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
