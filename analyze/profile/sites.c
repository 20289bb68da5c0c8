/*
 * analyze/profile/sites.c - from call stacks (ids) to allocation sites: walk each
 * stack, symbolize every instruction pointer (inline frames expanded,
 * innermost first), drop the allocator wrappers in front, and merge the
 * stacks whose remaining frames are identical (same function, file, line,
 * module and inlining, in the same order) by summing their statistics.
 * The stacks' frame sequences are shared in a trie, so a stack node is
 * symbolized and interned once however many stacks pass through it (see
 * struct trie_node).
 *
 * Owns the site array and the sites' statistics, the distinct-frame table
 * and the sites' frame sequences (a tree).  Must never copy symbol strings (they belong to the
 * symbolizer) nor look at events; it runs once, after the event pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/hash_seed.h"
#include "analyze/util/huge_array.h"
#include "analyze/profile/sites.h"

/*
 * Allocator wrappers: functions whose only job is to get memory from the
 * allocator for their caller, so that their caller is the real allocation
 * site.  Leading frames that match are dropped (unless --keep-wrappers) so
 * a site names the code that wanted the memory.  Names are matched up to a
 * parameter list, so "strdup" matches "strdup" and "xmalloc(unsigned
 * long)"; a name ending in '*' matches every name it starts.  Containers
 * (std::vector, Rust's Vec, GLib's GArray) are not wrappers: where they
 * grow is worth seeing.  mprof-report(1) lists them all: keep it in step.
 */
static const char *const wrapper_names[] = {
	/* the C library; the allocator's own names when they are not the
	 * recorder's (the dynamic loader's inlined calls into it) */
	"strdup", "strndup", "__strdup", "__strndup", "wcsdup", "__wcsdup",
	"malloc", "calloc", "realloc",
	/* GNU (gnulib's xalloc.h, libiberty) */
	"xmalloc", "xcalloc", "xrealloc", "xstrdup", "xzalloc", "xstrndup", "xmemdup",
	"xnmalloc", "xnrealloc", "x2realloc", "x2nrealloc", "xreallocarray", "xcharalloc",
	/* GLib */
	"g_malloc", "g_malloc0", "g_realloc", "g_try_malloc", "g_try_malloc0",
	"g_try_realloc", "g_malloc_n", "g_malloc0_n", "g_realloc_n", "g_try_malloc_n",
	"g_try_malloc0_n", "g_try_realloc_n", "g_strdup", "g_strndup", "g_memdup",
	"g_memdup2", "g_slice_alloc", "g_slice_alloc0", "g_slice_copy",
	/* Rust: the global allocator's entry points (std's and #[global_allocator]'s) */
	"__rust_alloc", "__rust_alloc_zeroed", "__rust_realloc", "__rdl_alloc",
	"__rdl_alloc_zeroed", "__rdl_realloc", "__rg_alloc", "__rg_alloc_zeroed", "__rg_realloc",
	/* SQLite (the amalgamation's internal names, with its debug info) */
	"sqlite3_malloc", "sqlite3_malloc64", "sqlite3_realloc", "sqlite3_realloc64",
	"sqlite3Malloc", "sqlite3MallocZero", "sqlite3Realloc", "sqlite3MemMalloc",
	"sqlite3MemRealloc", "mallocWithAlarm", "sqlite3DbMallocRaw", "sqlite3DbMallocRawNN",
	"sqlite3DbMallocZero", "sqlite3DbRealloc", "sqlite3DbReallocOrFree", "dbMallocRawFinish",
	"dbReallocFinish", "sqlite3DbStrDup", "sqlite3DbStrNDup",
	/* CPython's memory API */
	"PyMem_RawMalloc", "PyMem_RawCalloc", "PyMem_RawRealloc", "_PyMem_RawMalloc",
	"_PyMem_RawCalloc", "_PyMem_RawRealloc", "PyMem_Malloc", "PyMem_Calloc", "PyMem_Realloc",
	"PyObject_Malloc", "PyObject_Calloc", "PyObject_Realloc", "_PyObject_Malloc",
	"_PyObject_Calloc", "_PyObject_Realloc",
	/* OpenSSL (behind the OPENSSL_malloc family of macros) */
	"CRYPTO_malloc", "CRYPTO_zalloc", "CRYPTO_realloc", "CRYPTO_strdup", "CRYPTO_strndup",
	"CRYPTO_memdup",
	/* Perl (behind Newx and friends) */
	"Perl_safesysmalloc", "Perl_safesyscalloc", "Perl_safesysrealloc",
	/* Ruby */
	"ruby_xmalloc", "ruby_xmalloc2", "ruby_xcalloc", "ruby_xrealloc", "ruby_xrealloc2",
	"ruby_xmalloc_body", "ruby_xmalloc2_body", "ruby_xcalloc_body", "ruby_xrealloc_body",
	"ruby_xrealloc2_body", "objspace_xmalloc0", "objspace_xcalloc", "objspace_xrealloc",
	/* Lua */
	"l_alloc", "luaM_malloc_", "luaM_realloc_", "luaM_saferealloc_",
	/* the JVM (HotSpot's C heap) */
	"os::malloc", "os::realloc", "os::strdup", "os::strdup_check_oom", "AllocateHeap",
	"ReallocateHeap", "NMTPreInitAllocation::do_alloc", "NMTPreInit::handle_malloc",
	"NMTPreInit::handle_realloc",
};

/* Wrappers matched by prefix: every overload of C++'s operator new and
 * new[] and the standard allocator layers; Rust's allocation layers (both
 * manglings: legacy "alloc::raw_vec::RawVec<T,A>::grow_amortized", v0
 * "<alloc::raw_vec::RawVec<u8>>::grow_amortized"), std's System allocator,
 * and the __rustc:: names newer compilers give the entry points. */
static const char *const wrapper_prefixes[] = {
	"operator new", "CHeapObj<", "ResourceObj::operator new",
	"std::allocator<", "std::allocator_traits<", "std::__new_allocator<",
	"__gnu_cxx::new_allocator<", "__gnu_cxx::__alloc_traits<",
	"alloc::alloc::", "<alloc::alloc::", "alloc::raw_vec::", "<alloc::raw_vec::",
	"<std::alloc::System as core::alloc::", "std::sys::unix::alloc::",
	"std::sys::pal::unix::alloc::", "std::sys::alloc::", "__rustc::__rust_alloc",
	"__rustc::__rust_realloc", "__rustc::__rdl_", "__rustc::__rg_",
};

/* name matches function when equal, or equal up to a '(' that follows. */
static bool name_matches(const char *function, const char *name)
{
	size_t n = strlen(name);

	if (n > 0 && name[n - 1] == '*')
		return strncmp(function, name, n - 1) == 0;
	return strncmp(function, name, n) == 0 && (function[n] == '\0' || function[n] == '(');
}

/* Whether function is in the built-in wrapper lists. */
static bool is_builtin_wrapper(const char *function)
{
	for (size_t i = 0; i < sizeof(wrapper_prefixes) / sizeof(wrapper_prefixes[0]); i++)
		if (strncmp(function, wrapper_prefixes[i], strlen(wrapper_prefixes[i])) == 0)
			return true;
	for (size_t i = 0; i < sizeof(wrapper_names) / sizeof(wrapper_names[0]); i++)
		if (name_matches(function, wrapper_names[i]))
			return true;
	return false;
}

bool site_is_alloc_wrapper(const char *function, const struct site_options *opt)
{
	if (!function)
		return false;
	if (!(opt && opt->keep_wrappers) && is_builtin_wrapper(function))
		return true;
	for (size_t i = 0; opt && i < opt->alloc_fn_count; i++)
		if (name_matches(function, opt->alloc_fns[i]))
			return true;
	return false;
}

/* The profiler's own frames never belong to a site. */
static bool is_profiler_frame(const struct sym_frame *f)
{
	const char *base = f->module ? strrchr(f->module, '/') : NULL;

	base = base ? base + 1 : f->module;
	return base && strncmp(base, "libmprof", 8) == 0;
}

/* ---- hashing ---- */

/* Every table here is keyed by what the trace says (addresses, frames), so
 * hashed with the seeded hash_mix64 (hash_seed.h); no table's order reaches
 * the report. */

static uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		return hash_mix64(h ^ 0x5bd1e995u);
	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return hash_mix64(h);
}

static bool str_eq(const char *a, const char *b)
{
	if (a == b)
		return true;
	return a && b && strcmp(a, b) == 0;
}

/* Frames without a function name are told apart by their offset. */
static uint64_t frame_hash(const struct site_frame *f)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = hash_str(h, f->function);
	h = hash_str(h, f->file);
	h = hash_str(h, f->module);
	h = hash_mix64(h ^ ((uint64_t)f->line << 1 | f->inlined));
	if (!f->function)
		h = hash_mix64(h ^ f->module_offset);
	return h;
}

static bool frame_eq(const struct site_frame *a, const struct site_frame *b)
{
	return a->line == b->line && a->inlined == b->inlined && str_eq(a->function, b->function) &&
	       str_eq(a->file, b->file) && str_eq(a->module, b->module) &&
	       (a->function || a->module_offset == b->module_offset);
}

bool site_frame_equal(const struct site_frame *a, const struct site_frame *b)
{
	return frame_eq(a, b);
}

uint64_t site_frame_hash(const struct site_frame *f)
{
	return frame_hash(f);
}

static int grow_array(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	p = realloc(*v, n * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

/* Rebuilds an index-hash table (values are indices + 1) at twice the size,
 * with the entries first .. count - 1 of ctx's array. */
static int rehash(uint32_t **table, size_t *mask, size_t first, size_t count,
		  uint64_t (*hash_of)(const void *ctx, uint32_t), const void *ctx)
{
	size_t n = (*mask + 1) * 2;
	uint32_t *v = calloc(n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t k = first; k < count; k++) {
		size_t i = hash_of(ctx, (uint32_t)k) & (n - 1);

		while (v[i])
			i = (i + 1) & (n - 1);
		v[i] = (uint32_t)(k + 1);
	}
	free(*table);
	*table = v;
	*mask = n - 1;
	return 0;
}

static uint64_t frame_hash_of(const void *ctx, uint32_t k)
{
	return frame_hash(&((const struct site_table *)ctx)->frames[k]);
}

/* Interns f; returns its index or -1 on ENOMEM. */
static long frame_intern(struct site_table *t, const struct site_frame *f)
{
	uint64_t h = frame_hash(f);
	size_t i = h & t->frame_hash_mask;

	while (t->frame_hash[i]) {
		uint32_t k = t->frame_hash[i] - 1;

		if (frame_eq(&t->frames[k], f)) {
			/* addresses merged into one frame show the lowest (not
			 * the first met: the same whatever order stacks are
			 * walked in) */
			if (f->module_offset < t->frames[k].module_offset)
				t->frames[k].module_offset = f->module_offset;
			return k;
		}
		i = (i + 1) & t->frame_hash_mask;
	}
	if (grow_array((void **)&t->frames, &t->frame_cap, t->frame_count + 1, sizeof(*f)) < 0)
		return -1;
	t->frames[t->frame_count] = *f;
	t->frame_hash[i] = (uint32_t)(t->frame_count + 1);
	t->frame_count++;
	if (t->frame_count * 2 > t->frame_hash_mask + 1 &&
	    rehash(&t->frame_hash, &t->frame_hash_mask, 0, t->frame_count, frame_hash_of, t) < 0)
		return -1;
	return (long)(t->frame_count - 1);
}

static uint64_t ip_place_hash(uint32_t file, uint64_t offset)
{
	return hash_mix64(offset * 31 + file);
}

static uint64_t ip_hash_of(const void *ctx, uint32_t k)
{
	const struct site_ip *e = &((const struct site_table *)ctx)->ips[k];

	return ip_place_hash(e->file, e->offset);
}

/* The index in t->ips of place p, made on first use (*first then true);
 * -1 on ENOMEM. */
static long ip_set_add(struct site_table *t, const struct sym_place *p, bool *first)
{
	size_t i = ip_place_hash(p->file, p->offset) & t->ip_hash_mask;

	for (uint32_t k; (k = t->ip_hash[i]) != 0; i = (i + 1) & t->ip_hash_mask) {
		const struct site_ip *e = &t->ips[k - 1];

		if (e->file == p->file && e->offset == p->offset) {
			*first = false;
			return (long)k - 1;
		}
	}
	if (t->ip_count >= UINT32_MAX - 1 ||
	    grow_array((void **)&t->ips, &t->ip_cap, t->ip_count + 1, sizeof(*t->ips)) < 0)
		return -1;
	t->ips[t->ip_count] = (struct site_ip){.offset = p->offset, .file = p->file};
	t->ip_hash[i] = (uint32_t)(t->ip_count + 1);
	t->ip_count++;
	*first = true;
	if (t->ip_count * 2 > t->ip_hash_mask + 1 &&
	    rehash(&t->ip_hash, &t->ip_hash_mask, 0, t->ip_count, ip_hash_of, t) < 0)
		return -1;
	return (long)(t->ip_count - 1);
}

#define FRAME_NOT_INTERNED UINT32_MAX

/* Where in memo_ids the frame ids of e's frames (count of them) are kept,
 * reserved on first use, all FRAME_NOT_INTERNED; -ENOMEM. */
static long ip_memo(struct site_table *t, struct site_ip *e, size_t count)
{
	if (e->memo_plus1)
		return (long)(e->memo_plus1 - 1);
	if (grow_array((void **)&t->memo_ids, &t->memo_cap, t->memo_count + count,
		       sizeof(*t->memo_ids)) < 0)
		return -ENOMEM;
	for (size_t j = 0; j < count; j++)
		t->memo_ids[t->memo_count + j] = FRAME_NOT_INTERNED;
	e->memo_plus1 = t->memo_count + 1;
	t->memo_count += count;
	return (long)(e->memo_plus1 - 1);
}

/* The symbolizer's answer for e, asked once (an out-of-memory answer is not
 * kept: the build gives up on it). */
static const struct sym_location *ip_location(struct symbolizer *sym, struct site_ip *e)
{
	struct sym_place p = {e->offset, e->file};
	const struct sym_location *loc;

	if (e->loc)
		return e->loc;
	loc = symbolizer_lookup_place(sym, &p);
	if (!symbolizer_failed(sym, loc))
		e->loc = loc;
	return loc;
}

/*
 * The frame sequences of the stacks, shared as a trie.  Node 0 is the empty
 * sequence; every other node is its parent's sequence with one more frame
 * on the leaf side.  The frames of a stack node (its instruction pointer's,
 * inline frames expanded) extend the trie node of its parent stack node,
 * and that answer is kept per stack node: the stacks of a program share
 * most of their frames, so each node is symbolized and interned once, not
 * once per stack through it, and a walk stops at the first node a walk
 * has been through (python3's report: 7 k stacks, 21 k trie nodes; 55.5 M
 * instructions building the sites, then 21.1 M, callgrind).  Stripping a
 * stack's leading profiler and wrapper frames is walking up from its
 * leaf's trie node, and a site is the trie node left: equal frame
 * sequences are one trie node.
 */
struct trie_node {
	uint32_t parent;       /* trie node */
	uint32_t frame;        /* frame id (t->frames) */
	uint32_t first_child;  /* its first child, the only one not in the
	                        * trie's hash; 0: none yet */
};
/* (12 bytes: a node's depth is counted when needed, trie_depth; 961,208
 * nodes for 262,145 stacks) */

/* A slot of the trie's hash (uint32_t) holds a trie node + 1 (0: empty)
 * in its low node_bits bits (site_build.node_bits: the trie's node ids
 * fit them), and in the bits above them the same bits of its key's hash's
 * high half: a tag that spares the trie node's cache miss on most other
 * keys a probe meets. */
static uint32_t trie_node_mask(unsigned node_bits)
{
	return node_bits >= 32 ? UINT32_MAX : ((uint32_t)1 << node_bits) - 1;
}

static uint32_t trie_slot_tag(uint64_t h, uint32_t node_mask)
{
	return (uint32_t)(h >> 32) & ~node_mask;
}

/* What is known of a stack node once a stack through it was walked (its
 * chain within SITES_MAX_DEPTH): a walk stops at the first such node.
 * 8 bytes, one per stack node id: 524,288 distinct stacks had 2.45 M
 * nodes.  The root is named by its place among the distinct roots met
 * (struct site_build's root_ips).  Kept in the node's own entry, which
 * the walks need no more (stack_nodes_take), when no chain is longer than
 * SITES_MAX_DEPTH: else a stack cut to its leaf side (stack_too_deep)
 * walks nodes that a shorter stack's walk gave their memo, and the memo is
 * an array of its own. */
struct node_memo {
	uint32_t trie_plus1;   /* its trie node + 1; 0: nothing known yet */
	uint32_t root_depth;   /* root slot << MEMO_DEPTH_BITS | nodes from the
	                        * root, itself included */
};

#define MEMO_DEPTH_BITS 11
_Static_assert(SITES_MAX_DEPTH < (1u << MEMO_DEPTH_BITS), "a memo's depth fits its bits");
/* Distinct roots a memo can name; nodes under roots met after that many
 * get no memo (each stack through them is walked to its root: slower, the
 * same sites).  Real traces have two a module epoch at most. */
#define MEMO_ROOTS_MAX ((uint32_t)1 << (32 - MEMO_DEPTH_BITS))

/* What a site's walks leave of it until its struct site is made (12 bytes
 * instead of 32: 524,288 sites took 16 MiB beside the walks' tables). */
struct site_seed {
	uint32_t node;         /* its trie node */
	uint32_t stack_count;  /* call stacks merged into it */
	uint16_t depth;        /* its trie node's frames (the trie is gone when
	                        * the site is made) */
	bool truncated;        /* a merged stack hit --max-frames */
};
_Static_assert(SITES_MAX_FRAMES <= UINT16_MAX, "a seed's depth fits its bits");

/* Which entry of the site table's ips an (epoch, return address) pair a
 * walk met lately has.  Its place takes a module search, some 200
 * instructions: once per stack node it made many_stacks' report (2.45 M
 * nodes, 22 places) take 18% more instructions, while walks meet few pairs
 * again and again.
 * Direct-mapped and never grown: 10,000 loads of one library make 290,019
 * pairs of 42 places. */
struct place_memo {
	uint64_t epoch, ip;
	uint32_t entry_plus1;  /* index in ips + 1; 0: empty */
};

#define PLACE_MEMO_SLOTS 4096 /* 96 KiB */

/* frame_flags bits */
enum { FRAME_ASKED = 1, FRAME_WRAPPER = 2, FRAME_PROFILER = 4 };

/* The working state of site_table_build. */
struct site_build {
	struct site_table *t;
	struct stack_nodes *nodes;
	struct symbolizer *sym;
	const struct site_options *opt;
	struct trie_node *trie;  /* trie_mem.p */
	struct grow_big trie_mem; /* on huge pages once large: grown in place,
	                           * without the copies and small-page faults of
	                           * a realloc (a sixth of the report's page
	                           * faults on 262,145 stacks) */
	size_t trie_count;
	size_t trie_hashed;      /* trie nodes in the hash: all but first children */
	uint32_t *trie_hash;     /* (parent, frame) -> trie node + 1 and a tag */
	size_t trie_hash_mask;
	unsigned node_bits;      /* the bits of a slot that hold a node + 1 */
	size_t trie_hash_reserved; /* its mapping's reservation; 0: on the heap */
	struct node_memo *memo;  /* per stack node id, owned (nodes->id_end);
	                          * unused when memo_in_nodes */
	bool memo_in_nodes;      /* the memo is in the nodes' entries */
	uint64_t *root_ips;      /* the roots' ips (2 * epoch + truncated) the
	                          * memo names, by slot; owned */
	size_t root_count, root_cap;
	uint32_t *root_hash;     /* root ip -> slot + 1; owned */
	size_t root_hash_mask;
	bool memo_in_spare;      /* memo lies in t->spare (not freed on its own) */
	size_t memo_reserved;    /* else its mapping's reservation; 0: on the heap */
	uint8_t *frame_flags;    /* per frame id */
	size_t frame_flags_cap;
	/* the sites met so far, in the order they were made: their array is
	 * made once the stacks are walked (site_table_build), so that it and
	 * the walks' tables are never in memory together */
	/* the seeds: a mapping of their own once 2 MiB, so that the part of
	 * the sites made already is given back as the sites are made (3 MiB
	 * held through the sums on 262,145 sites) */
	struct grow_big seeds_mem;
	struct site_seed *seeds;   /* seeds_mem.p */
	size_t seed_count;
	uint32_t unknown_site, inherited_site; /* index + 1; 0: none yet */
	/* per stack, what its walk found (STACK_ flags) until its site is
	 * known; owned */
	uint8_t *stack_flags;
	/* per trie node, its site's index + 1 (0: none yet), made once the
	 * walks' tables are freed: 4 bytes a trie node that are not beside
	 * them (961,208 trie nodes for 262,145 stacks); owned */
	uint32_t *site_plus1;
	size_t site_plus1_reserved; /* its mapping's reservation; 0: on the heap */
	size_t capped_stacks;    /* stacks given their leaf side (stack_too_deep) */
	uint64_t walk_epoch;     /* the module epoch of the stack walked last */
	size_t walk_frames;      /* its frames as recorded; 0: not known (a
	                          * chain too deep, given its leaf side only) */
	size_t loc_frames_max;   /* the most frames an address looked up had */
	struct place_memo *places; /* PLACE_MEMO_SLOTS of them, owned */
	uint32_t path[SITES_MAX_DEPTH];
};

static uint64_t trie_key_hash(uint32_t parent, uint32_t frame)
{
	return hash_mix64(((uint64_t)parent << 32) | frame);
}

/* A zeroed array of n elements of elem bytes: a mapping on huge pages
 * once 2 MiB or more (a page fault per 2 MiB instead of per 4 KiB, some
 * 13 us each on these virtual machines, and fewer TLB misses), else on the
 * heap.  NULL on ENOMEM; *reserved: the mapping's reservation, 0 on the
 * heap.  Freed with big_free. */
static void *big_zeroed(size_t n, size_t elem, size_t *reserved)
{
	void *v = NULL;

	*reserved = 0;
	if (n && n <= SIZE_MAX / elem && n * elem >= HUGE_ARRAY_MIN)
		v = huge_array_alloc_exact(n * elem, reserved);
	if (!v) {
		*reserved = 0;
		v = calloc(n ? n : 1, elem);
	}
	return v;
}

static void big_free(void *v, size_t reserved)
{
	if (reserved)
		huge_array_free(v, reserved);
	else
		free(v);
}

/* Rebuilds the trie hash with n slots (a power of 2), the tags for
 * b->node_bits.  Returns 0 or -ENOMEM. */
static int trie_rehash(struct site_build *b, size_t n)
{
	uint32_t node_mask = trie_node_mask(b->node_bits);
	size_t reserved;
	uint32_t *v = big_zeroed(n, sizeof(*v), &reserved);

	if (!v)
		return -ENOMEM;
	/* (node 0, the empty sequence, is no one's child: not in the hash) */
	for (size_t k = 1; k < b->trie_count; k++) {
		uint64_t h = trie_key_hash(b->trie[k].parent, b->trie[k].frame);
		size_t i = h & (n - 1);

		if (b->trie[b->trie[k].parent].first_child == k)
			continue;
		while (v[i])
			i = (i + 1) & (n - 1);
		v[i] = (uint32_t)(k + 1) | trie_slot_tag(h, node_mask);
	}
	big_free(b->trie_hash, b->trie_hash_reserved);
	b->trie_hash = v;
	b->trie_hash_reserved = reserved;
	b->trie_hash_mask = n - 1;
	return 0;
}

/* A new trie node of parent's sequence with frame added: its index, or -1
 * on ENOMEM. */
static long trie_node_new(struct site_build *b, uint32_t parent, uint32_t frame)
{
	if (b->trie_count >= UINT32_MAX - 1 ||
	    grow_big_to(&b->trie_mem, b->trie_count, sizeof(*b->trie), 256) < 0)
		return -1;
	b->trie = b->trie_mem.p;
	b->trie[b->trie_count] = (struct trie_node){parent, frame, 0};
	return (long)b->trie_count++;
}

/* The trie node of parent's sequence with frame added; -1 on ENOMEM. */
static long trie_child(struct site_build *b, uint32_t parent, uint32_t frame)
{
	uint32_t first = b->trie[parent].first_child;
	uint64_t h;
	size_t mask, i;
	uint32_t tag, node_mask;
	bool grow;
	long k;

	/* the first child is kept in its parent, not in the hash: a new stack
	 * node's frames extend the newest trie node, which has no child yet,
	 * without a probe (a cache miss on a random slot each: a quarter of
	 * the report on 262,145 stacks) */
	if (first && b->trie[first].frame == frame)
		return first;
	if (!first) {
		k = trie_node_new(b, parent, frame);
		if (k > 0)
			b->trie[parent].first_child = (uint32_t)k;
		return k;
	}
	h = trie_key_hash(parent, frame);
	mask = b->trie_hash_mask;
	i = h & mask;
	node_mask = trie_node_mask(b->node_bits);
	tag = trie_slot_tag(h, node_mask);
	for (uint32_t v; (v = b->trie_hash[i]) != 0; i = (i + 1) & mask) {
		uint32_t c = (v & node_mask) - 1;

		if ((v & ~node_mask) == tag && b->trie[c].parent == parent && b->trie[c].frame == frame)
			return c;
	}
	k = trie_node_new(b, parent, frame);
	if (k < 0)
		return -1;
	b->trie_hashed++;
	/* filled to 3/4: a table per trie node is most of the build's memory
	 * after the statistics and the stack nodes */
	grow = b->trie_hashed * 4 > (mask + 1) * 3;
	if ((uint64_t)k + 1 > node_mask) {
		/* node ids wider than the slots' node bits: shorter tags, every
		 * slot rebuilt (node k with them, as it is no first child) */
		while ((uint64_t)k + 1 > trie_node_mask(b->node_bits))
			b->node_bits++;
		return trie_rehash(b, grow ? (mask + 1) * 2 : mask + 1) < 0 ? -1 : k;
	}
	b->trie_hash[i] = (uint32_t)(k + 1) | tag;
	if (grow && trie_rehash(b, (mask + 1) * 2) < 0)
		return -1;
	return k;
}

static uint64_t root_hash_of(const void *ctx, uint32_t k)
{
	return hash_mix64(((const uint64_t *)ctx)[k]);
}

/* No slot: MEMO_ROOTS_MAX roots have one already. */
#define ROOT_SLOT_NONE (-2)

/* The memo's slot of the root whose ip is root_ip, made on first use;
 * ROOT_SLOT_NONE, or -1 on ENOMEM. */
static long root_slot(struct site_build *b, uint64_t root_ip)
{
	size_t i = hash_mix64(root_ip) & b->root_hash_mask;

	for (uint32_t k; (k = b->root_hash[i]) != 0; i = (i + 1) & b->root_hash_mask)
		if (b->root_ips[k - 1] == root_ip)
			return k - 1;
	if (b->root_count >= MEMO_ROOTS_MAX)
		return ROOT_SLOT_NONE;
	if (grow_array((void **)&b->root_ips, &b->root_cap, b->root_count + 1,
		       sizeof(*b->root_ips)) < 0)
		return -1;
	b->root_ips[b->root_count] = root_ip;
	b->root_hash[i] = (uint32_t)(b->root_count + 1);
	b->root_count++;
	if (b->root_count * 2 > b->root_hash_mask + 1 &&
	    rehash(&b->root_hash, &b->root_hash_mask, 0, b->root_count, root_hash_of,
		   b->root_ips) < 0)
		return -1;
	return (long)(b->root_count - 1);
}

/* The frames of trie node x's sequence (its depth): a walk to node 0. */
static uint32_t trie_depth(const struct site_build *b, uint32_t x)
{
	uint32_t depth = 0;

	for (; x; x = b->trie[x].parent)
		depth++;
	return depth;
}

/* A trie node's depth as a walk knows it: exact, or a bound above it
 * while the sequence cannot reach SITES_MAX_FRAMES (then counted). */
struct trie_depth_known {
	uint64_t depth;
	bool exact;
};

/* The entry of ip in epoch: from b->places when they hold it, else found
 * by its place (made on first use: *first then true).  NULL on ENOMEM. */
static struct site_ip *walk_ip(struct site_build *b, uint64_t epoch, uint64_t ip, bool *first)
{
	struct place_memo *m = &b->places[hash_mix64(epoch * 31 + ip) & (PLACE_MEMO_SLOTS - 1)];
	struct sym_place p;
	long k;

	*first = false;
	if (m->entry_plus1 && m->epoch == epoch && m->ip == ip)
		return &b->t->ips[m->entry_plus1 - 1];
	if (symbolizer_place(b->sym, epoch, ip, &p) < 0)
		return NULL;
	k = ip_set_add(b->t, &p, first);
	if (k < 0)
		return NULL;
	*m = (struct place_memo){epoch, ip, (uint32_t)k + 1};
	return &b->t->ips[k];
}

/* Extends trie node x by the frames of ip (epoch's modules), outermost
 * first, while x has fewer than SITES_MAX_FRAMES; *d is x's depth before
 * and after (struct trie_depth_known).  Returns the node, -1 on ENOMEM. */
static long trie_add_ip(struct site_build *b, long x, uint64_t epoch, uint64_t ip,
			struct trie_depth_known *d)
{
	struct site_table *t = b->t;
	const struct sym_location *loc;
	bool first;
	struct site_ip *e = walk_ip(b, epoch, ip, &first);
	long memo;

	if (!e)
		return -1;
	loc = ip_location(b->sym, e);
	/* (the symbolizer out of memory: a report of "??" frames would be
	 * wrong, and the memo counts on one answer per address) */
	if (symbolizer_failed(b->sym, loc))
		return -1;
	memo = ip_memo(t, e, loc->count);
	if (memo < 0)
		return -1;
	if (loc->count > b->loc_frames_max)
		b->loc_frames_max = loc->count;
	/* (the cap can stop this ip's frames only when their depth can reach
	 * it: then the depth is counted, and known from then on) */
	if (!d->exact && d->depth + loc->count > SITES_MAX_FRAMES)
		*d = (struct trie_depth_known){trie_depth(b, (uint32_t)x), true};
	if (first) {
		t->frames_total++;
		if (!loc->has_debug_info)
			t->frames_no_debug_info++;
		if (!loc->has_symbol)
			t->frames_no_symbol++;
	}
	for (size_t j = loc->count; j-- > 0 && x >= 0 && d->depth < SITES_MAX_FRAMES;) {
		const struct sym_frame *sf = &loc->frames[j];
		uint32_t *id = &t->memo_ids[memo + (long)j];

		if (*id == FRAME_NOT_INTERNED) {
			/* what frame_intern says of the same frame of the same
			 * address never changes */
			struct site_frame f = {sf->function, sf->file, sf->module ? sf->module : "?",
					       sf->line, sf->module_offset, sf->inlined};
			size_t known = t->frame_count;
			long k = frame_intern(t, &f);

			if (k < 0 || grow_array((void **)&b->frame_flags, &b->frame_flags_cap,
						t->frame_count, sizeof(*b->frame_flags)) < 0)
				return -1;
			if ((size_t)k >= known) /* new: no flags yet */
				b->frame_flags[k] = is_profiler_frame(sf) ? FRAME_PROFILER : 0;
			*id = (uint32_t)k;
		}
		/* the profiler's own frames are no part of the program's stack,
		 * also between its frames (the recorder's pthread_create) */
		if (b->frame_flags[*id] & FRAME_PROFILER)
			continue;
		x = trie_child(b, (uint32_t)x, *id);
		d->depth++;
	}
	return x;
}

/* The ip of node id, defined (a walk went through it). */
static uint64_t stack_node_ip(const struct stack_nodes *nodes, uint32_t id)
{
	struct stack_node node = {0, 0};

	stack_nodes_get(nodes, id, &node);
	return node.ip;
}

/* A stack whose chain is longer than SITES_MAX_DEPTH keeps its leaf side
 * only: its frames start below the root, and its nodes keep no memo. */
static int stack_trie_node_capped(struct site_build *b, uint64_t stack_id, long *x,
				  bool *truncated, bool *unknown)
{
	struct trie_depth_known d = {0, true};
	uint64_t epoch = 0;
	size_t depth = 0;

	*x = 0;
	*unknown = stack_nodes_walk(b->nodes, stack_id, b->path, SITES_MAX_DEPTH, &depth, &epoch,
				    truncated) < 0;
	b->walk_epoch = epoch;
	b->walk_frames = 0;
	for (size_t i = depth; i-- > 0 && !*unknown;) {
		*x = trie_add_ip(b, *x, epoch, stack_node_ip(b->nodes, b->path[i]), &d);
		if (*x < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Gives stack node id (defined, walked) memo m. */
static void memo_put(struct site_build *b, uint32_t id, struct node_memo m)
{
	if (!b->memo_in_nodes)
		b->memo[id] = m;
	else if (m.trie_plus1 < STACK_NODES_TAKEN) /* (else none: slower, the same sites) */
		stack_nodes_take(b->nodes, id, m.trie_plus1, m.root_depth);
}

/* node_memo.trie_plus1 of a node met by a stack too deep once
 * SITES_MAX_CAPPED_STACKS were given their leaf side: any stack through it
 * is unknown, without a walk. */
#define MEMO_DEEP UINT32_MAX

/* stack_id, whose walk met a chain longer than SITES_MAX_DEPTH after its
 * first n nodes (b->path): its leaf side while SITES_MAX_CAPPED_STACKS
 * last, else unknown and those nodes marked MEMO_DEEP. */
static int stack_too_deep(struct site_build *b, uint64_t stack_id, size_t n, long *x,
			  bool *truncated, bool *unknown)
{
	if (b->capped_stacks < SITES_MAX_CAPPED_STACKS) {
		b->capped_stacks++;
		return stack_trie_node_capped(b, stack_id, x, truncated, unknown);
	}
	/* (with the memo in the nodes no chain is too deep: never here) */
	for (size_t i = 0; i < n && !b->memo_in_nodes; i++)
		b->memo[b->path[i]].trie_plus1 = MEMO_DEEP;
	*x = 0;
	*unknown = true;
	b->walk_frames = 0;
	return 0;
}

/*
 * The trie node of stack_id's frames, before anything is dropped: *x, or
 * *unknown when the stack cannot be walked (an undefined node on the way,
 * a chain longer than 4096: a cycle).  Walks up to the first node a walk
 * has been through, and gives each node on the way its memo.  Returns 0 or
 * -ENOMEM.
 */
static int stack_trie_node(struct site_build *b, uint64_t stack_id, long *x, bool *truncated,
			   bool *unknown)
{
	const struct stack_nodes *nodes = b->nodes;
	uint32_t base_trie_plus1 = 1, base_depth = 0;
	struct trie_depth_known d;
	uint64_t root_ip = 0, id = stack_id;
	long slot = ROOT_SLOT_NONE;
	size_t n = 0;

	*x = 0;
	*truncated = false;
	*unknown = false;
	for (;;) {
		struct node_memo m = {0, 0};
		struct stack_node node = {0, 0};

		if (!(b->memo_in_nodes && stack_nodes_taken(nodes, id, &m.trie_plus1, &m.root_depth))) {
			if (!stack_nodes_get(nodes, id, &node)) {
				*unknown = true;
				return 0;
			}
			if (!b->memo_in_nodes)
				m = b->memo[id]; /* (a defined id is below nodes->id_end) */
		}
		if (m.trie_plus1 == MEMO_DEEP)
			return stack_too_deep(b, stack_id, n, x, truncated, unknown);
		if (m.trie_plus1) {
			base_trie_plus1 = m.trie_plus1;
			base_depth = m.root_depth & ((1u << MEMO_DEPTH_BITS) - 1);
			slot = (long)(m.root_depth >> MEMO_DEPTH_BITS);
			root_ip = b->root_ips[slot];
			break;
		}
		if (node.parent == 0) {
			root_ip = node.ip;
			break;
		}
		if (n == SITES_MAX_DEPTH)
			return stack_too_deep(b, stack_id, n, x, truncated, unknown);
		b->path[n++] = (uint32_t)id;
		id = node.parent;
	}
	if (base_depth + n > SITES_MAX_DEPTH)
		return stack_too_deep(b, stack_id, n, x, truncated, unknown);
	if (n && slot == ROOT_SLOT_NONE) {
		slot = root_slot(b, root_ip);
		if (slot == -1)
			return -ENOMEM;
	}
	*truncated = (root_ip & 1) != 0;
	b->walk_epoch = root_ip >> 1;
	b->walk_frames = base_depth + n;
	*x = (long)base_trie_plus1 - 1;
	/* the base's depth: no more frames than its stack nodes' addresses
	 * had, none more than loc_frames_max */
	d = (struct trie_depth_known){(uint64_t)base_depth * b->loc_frames_max, base_depth == 0};
	for (size_t i = n; i-- > 0;) {
		*x = trie_add_ip(b, *x, root_ip >> 1, stack_node_ip(nodes, b->path[i]), &d);
		if (*x < 0)
			return -ENOMEM;
		if (slot >= 0)
			memo_put(b, b->path[i],
				 (struct node_memo){(uint32_t)(*x + 1),
						    (uint32_t)slot << MEMO_DEPTH_BITS |
							    (base_depth + (uint32_t)(n - i))});
	}
	return 0;
}

/* Whether frame id f is an allocator wrapper, asked once per frame (the
 * answer depends on the function name and opt only). */
static bool frame_is_wrapper(struct site_build *b, uint32_t f)
{
	uint8_t *flags = &b->frame_flags[f];

	if (!(*flags & FRAME_ASKED))
		*flags |= FRAME_ASKED |
			  (site_is_alloc_wrapper(b->t->frames[f].function, b->opt) ? FRAME_WRAPPER : 0);
	return *flags & FRAME_WRAPPER;
}

/* Unnamed frames looked through for a wrapper that called them. */
#define SITE_UNNAMED_IN_WRAPPER_MAX 4u

/* The node past the unnamed frames from y on when a wrapper called them:
 * they are its own (a static helper of a stripped library, as
 * sqlite3MemMalloc under sqlite3Malloc); else y. */
static uint32_t site_past_wrapper_helpers(struct site_build *b, uint32_t y)
{
	uint32_t z = y;

	for (unsigned n = 0; z && !b->t->frames[b->trie[z].frame].function; n++) {
		if (n == SITE_UNNAMED_IN_WRAPPER_MAX)
			return y;
		z = b->trie[z].parent;
	}
	return z != y && z && frame_is_wrapper(b, b->trie[z].frame) ? z : y;
}

/* The trie node of the site of a stack whose frames are trie node x (the
 * profiler's own frames never enter the trie: trie_add_ip): the leading
 * allocator wrappers and the unnamed frames they called dropped, never all
 * of them. */
static uint32_t site_node(struct site_build *b, uint32_t x)
{
	uint32_t y;

	for (y = x; y;) {
		uint32_t z = site_past_wrapper_helpers(b, y);

		if (!frame_is_wrapper(b, b->trie[z].frame))
			break;
		y = b->trie[z].parent;
	}
	if (y == 0 && x != 0)
		for (y = x; b->trie[y].parent;)
			y = b->trie[y].parent; /* all wrappers: the outermost stays */
	return y;
}

/* A new site of trie node x's frames: its index, or -1 on ENOMEM. */
static long site_new(struct site_build *b, uint32_t x)
{
	if (b->seed_count >= UINT32_MAX - 1 ||
	    grow_big_to(&b->seeds_mem, b->seed_count, sizeof(*b->seeds), 64) < 0)
		return -1;
	b->seeds = b->seeds_mem.p;
	b->seeds[b->seed_count] = (struct site_seed){x, 0, (uint16_t)trie_depth(b, x), false};
	return (long)b->seed_count++;
}

/* Makes room for the sites of the seeds (t->sites: in the spare memory
 * when spare_plan placed them there), zeroed; site_make fills each.
 * Returns 0 or -ENOMEM. */
static int sites_alloc(struct site_build *b)
{
	struct site_table *t = b->t;

	if (!b->seed_count)
		return 0;
	if (!t->sites) {
		t->sites = big_zeroed(b->seed_count, sizeof(*t->sites), &t->sites_reserved);
		if (!t->sites)
			return -ENOMEM;
		t->cap = b->seed_count;
	}
	t->count = b->seed_count;
	return 0;
}

/* Makes site k of its seed (its statistics empty). */
static void site_make(struct site_build *b, size_t k)
{
	const struct site_seed *e = &b->seeds[k];

	b->t->sites[k] = (struct site){
		.frame_node = e->node, .frame_count = e->depth,
		.stack_count = e->stack_count, .truncated = e->truncated,
		.unknown_stack = k + 1 == b->unknown_site,
		.inherited = k + 1 == b->inherited_site};
}

/*
 * The two largest arrays of the sites phase (sites and the stack nodes'
 * memo: on python3's trace 1.0 and 0.5 MB at the time) are made in
 * the block table's memory (aggregate_release_blocks), when it has room,
 * instead of on the heap: its pages are faulted in already, while a page
 * faulted in takes some 13 us on these virtual machines.  python3's report
 * took 349 page faults in this phase instead of 904, and the phase 12-14
 * ms instead of 17-19 (4 interleaved runs each).  The spare memory is laid
 * out as [sites | memo] and the rest unmapped at once; the memo is
 * unmapped once the stacks are walked.
 */
#define SPARE_ALIGN ((size_t)64)

static size_t spare_round(size_t bytes)
{
	return (bytes + SPARE_ALIGN - 1) & ~(SPARE_ALIGN - 1);
}

/* Frees spare memory (none of it in use). */
static void spare_drop(struct huge_spare *spare)
{
	huge_array_free(spare->p, spare->reserved);
	memset(spare, 0, sizeof(*spare));
}

/* The first size of the trie's hash (a power of 2): room below the 3/4
 * fill for a quarter of the stack node ids, as only the trie nodes that
 * are not their parent's first child are in it (27% of them on 262,145
 * stacks, 5-31% on python3's traces); more take a rehash, a pass over the
 * trie. */
static size_t trie_slots_for(const struct stack_nodes *nodes)
{
	size_t n = 256;

	while (n / 4 * 3 < nodes->id_end / 4)
		n *= 2;
	return n;
}

/* Whether site_table_build keeps its memo in the nodes' entries: when no
 * chain is longer than SITES_MAX_DEPTH (struct node_memo). */
static bool memo_in_nodes_for(struct stack_nodes *nodes)
{
	return stack_nodes_chain_max(nodes, SITES_MAX_DEPTH) <= SITES_MAX_DEPTH;
}

/* The bytes of the memo of site_table_build (0: in the nodes). */
static size_t memo_bytes_for(struct stack_nodes *nodes)
{
	if (memo_in_nodes_for(nodes))
		return 0;
	return (nodes->id_end ? nodes->id_end : 1) * sizeof(struct node_memo);
}

/* Trims spare to the layout's size for sites_count sites and memo_bytes,
 * or frees it when they do not fit.  Returns the sites' bytes (a multiple
 * of SPARE_ALIGN), 0 when the spare was freed. */
static size_t spare_fit(struct huge_spare *spare, size_t sites_count, size_t memo_bytes)
{
	size_t s = spare_round(sites_count * sizeof(struct site)), m = spare_round(memo_bytes);

	if (!spare->p || !sites_count || s > spare->bytes || m > spare->bytes - s) {
		spare_drop(spare);
		return 0;
	}
	spare->bytes = s + m; /* a multiple of SPARE_ALIGN, no more than it was */
	huge_array_trim(spare->p, spare->bytes, &spare->reserved);
	return s;
}

void site_spare_fit(struct huge_spare *spare, const struct aggregate *agg,
		    struct stack_nodes *nodes)
{
	spare_fit(spare, agg->stat_count, memo_bytes_for(nodes));
}

/* Lays t's spare memory out for the build, or frees it when the sites and
 * the memo do not fit: zeroed sites (sites_count of them) at its start, a
 * zeroed memo (memo_bytes) at its end.  Returns 0 when they were made, -1
 * when they are still to be made. */
static int spare_plan(struct site_build *b, size_t sites_count, size_t memo_bytes)
{
	struct site_table *t = b->t;
	size_t s = spare_fit(&t->spare, sites_count, memo_bytes), m = spare_round(memo_bytes);

	if (!s)
		return -1;
	t->sites = memset(t->spare.p, 0, s);
	t->cap = sites_count;
	t->sites_in_spare = true;
	b->memo = memset((char *)t->spare.p + s, 0, m);
	b->memo_in_spare = true;
	t->spare_used = s;
	return 0;
}

/* After the build: unmaps what lies past the arrays in use (a spare the
 * sites were not made in was freed already, by spare_plan). */
static void spare_trim(struct site_table *t)
{
	if (!t->spare.p)
		return;
	huge_array_trim(t->spare.p, t->spare_used, &t->spare.reserved);
	t->spare.bytes = t->spare_used;
}

/* Keeps the trie as the sites' frames (site_table.frame_links): each node
 * reduced to its parent and frame, in place, and the array cut to that
 * size.  A site's frames are its node's sequence, shared with every site
 * that has the same outer frames: 524,288 sites of 24 frames took 48 MiB
 * as one array of frame ids, 19 MiB as the trie's 2.45 M nodes. */
static void site_frames_keep(struct site_build *b)
{
	struct site_table *t = b->t;
	uint32_t *links = (uint32_t *)b->trie, *v;

	/* node k's 8 bytes go where node 2k / 3 was: read already */
	for (size_t k = 0; k < b->trie_count; k++) {
		uint32_t parent = b->trie[k].parent, frame = b->trie[k].frame;

		links[2 * k] = parent;
		links[2 * k + 1] = frame;
	}
	if (b->trie_mem.reserved) {
		t->links_reserved = b->trie_mem.reserved;
		huge_array_trim(links, b->trie_count * 2 * sizeof(*links), &t->links_reserved);
		v = links;
	} else {
		v = realloc(links, b->trie_count * 2 * sizeof(*links));
	}
	t->frame_links = v ? v : links; /* (a smaller block that failed: keep the old) */
	t->link_count = b->trie_count;
	b->trie = NULL;
	b->trie_mem = (struct grow_big){0};
}

/* Counts a truncated stack of `frames` frames towards the most any kept. */
static void count_truncated_frames(struct site_table *t, size_t frames)
{
	if (frames > t->truncated_frames_max) {
		t->truncated_frames_max = frames;
		t->truncated_at_frames_max = 0;
	}
	if (frames == t->truncated_frames_max)
		t->truncated_at_frames_max++;
}

/* stack_flags bits */
enum { STACK_TRUNCATED = 1, STACK_UNKNOWN = 2, STACK_INHERITED = 4 };

/* Walks the stack stack_id: *node is the trie node of its frames (0 when
 * unknown or inherited), *flags what else the walk found.  Returns 0 or
 * -ENOMEM. */
static int walk_stack(struct site_build *b, uint64_t stack_id, uint32_t *node, uint8_t *flags)
{
	struct site_table *t = b->t;
	bool truncated = false, unknown = false;
	long x = 0;

	*node = 0;
	if (stack_id == AGG_STACK_INHERITED) {
		*flags = STACK_INHERITED;
		return 0;
	}
	if (stack_trie_node(b, stack_id, &x, &truncated, &unknown) < 0)
		return -ENOMEM;
	t->stacks++;
	t->truncated_stacks += truncated;
	if (truncated && !unknown && b->walk_frames)
		count_truncated_frames(t, b->walk_frames);
	t->unknown_stacks += unknown;
	/* a stack id other than 0 ("no stack") names nodes the recorder wrote:
	 * undefined, or of an epoch without a module map, their records were lost */
	if (unknown && stack_id != 0)
		t->lost_stacks++;
	else if (!unknown && !symbolizer_epoch_mapped(b->sym, b->walk_epoch))
		t->unmapped_stacks++;
	*flags = (uint8_t)((truncated ? STACK_TRUNCATED : 0) | (unknown ? STACK_UNKNOWN : 0));
	if (!unknown)
		*node = (uint32_t)x;
	return 0;
}

/* Adds a walked stack (walk_stack's node and flags) to its site, made on
 * first use: *site is the site's index.  Returns 0 or -ENOMEM. */
static int add_stack(struct site_build *b, uint32_t node, uint8_t flags, uint32_t *site)
{
	bool inherited = flags & STACK_INHERITED, unknown = flags & STACK_UNKNOWN;
	uint32_t *slot, y;

	y = inherited || unknown ? 0 : site_node(b, node);
	slot = inherited ? &b->inherited_site : unknown ? &b->unknown_site : &b->site_plus1[y];
	if (!*slot) {
		long k = site_new(b, y);

		if (k < 0)
			return -ENOMEM;
		*slot = (uint32_t)(k + 1);
	}
	*site = *slot - 1;
	b->seeds[*site].stack_count++;
	b->seeds[*site].truncated |= (flags & STACK_TRUNCATED) != 0;
	return 0;
}

/* Stacks summed between two drops of the packed statistics read and of the
 * seeds made (about 0.5 and 0.2 MiB of them at 20-40 and 12 bytes). */
#define SUM_DROP_STACKS ((size_t)1 << 14)

/* Sums the statistics of the stacks (packed, in the order add_stack met
 * them; stack_site: each one's site) into the sites' own.  Returns 0 or
 * -ENOMEM. */
static int site_stats_sum(struct site_build *b, const struct stats_packed *packed,
			  const uint32_t *stack_site)
{
	struct site_table *t = b->t;
	const uint8_t *p = packed->bytes;
	size_t made = 0;

	for (size_t k = 0; k < packed->count; k++) {
		struct site *site = &t->sites[stack_site[k]];
		struct alloc_stats s, sum;

		p = stats_packed_read(p, &s);
		if (stack_site[k] == made) {
			/* the seeds were made in the order of their first
			 * stacks: each site is made as its first stack comes,
			 * so that the sites' pages are touched as the packed
			 * statistics are given back, and that stack's
			 * statistics are its sum so far (empty statistics
			 * merged with them) */
			site_make(b, made++);
			if (site_stats_store(t, site, &s) < 0)
				return -ENOMEM;
		} else if (site->stats_full) {
			if (alloc_stats_merge(site->st.full, &s))
				t->saturated = true;
		} else {
			stats_small_unpack(&site->st.small, &sum);
			if (alloc_stats_merge(&sum, &s))
				t->saturated = true;
			if (site_stats_store(t, site, &sum) < 0)
				return -ENOMEM;
		}
		/* each 2 MiB read goes back to the system, so that the sites
		 * made beside it take its place, and so do the seeds made */
		if (packed->bytes_reserved && (k + 1) % SUM_DROP_STACKS == 0)
			huge_array_drop_head(packed->bytes, (size_t)(p - packed->bytes));
		if (b->seeds_mem.reserved && (k + 1) % SUM_DROP_STACKS == 0)
			huge_array_drop_head(b->seeds, made * sizeof(*b->seeds));
	}
	for (; made < t->count; made++) /* (none: every site has a stack) */
		site_make(b, made);
	return 0;
}

int site_stats_store(struct site_table *t, struct site *s, const struct alloc_stats *st)
{
	if (!s->stats_full && stats_small_pack(st, &s->st.small))
		return 0;
	if (!s->stats_full) {
		struct alloc_stats *full = site_stats_pool_new(&t->stats_pool);

		if (!full)
			return -ENOMEM;
		s->st.full = full;
		s->stats_full = true;
	}
	*s->st.full = *st;
	return 0;
}

/* Frees what only the stacks' walks use (the memo, the trie's and the
 * roots' hashes; the caller's stack nodes are freed next to it) before the
 * frame ids are written, so that they are never in memory together. */
static void site_build_walks_free(struct site_build *b)
{
	struct site_table *t = b->t;

	big_free(b->trie_hash, b->trie_hash_reserved);
	b->trie_hash = NULL;
	b->trie_hash_reserved = 0;
	free(b->root_hash);
	b->root_hash = NULL;
	free(b->root_ips);
	b->root_ips = NULL;
	free(b->places);
	b->places = NULL;
	if (!b->memo_in_spare)
		big_free(b->memo, b->memo_reserved);
	else if (t->spare.p) /* the memo is the spare's tail */
		spare_trim(t);
	b->memo = NULL;
}

/* The keys of the sites' order: allocated bytes, allocations, live bytes. */
static inline void site_sort_keys(const struct site *s, uint64_t key[3])
{
	if (s->stats_full) {
		key[0] = s->st.full->allocated_bytes;
		key[1] = s->st.full->allocations;
		key[2] = s->st.full->live_bytes;
	} else {
		key[0] = s->st.small.allocated_bytes;
		key[1] = s->st.small.allocations;
		key[2] = s->st.small.live_bytes;
	}
}

/* -1 when a goes before b by their keys (larger first), 1 after, 0 when
 * the keys are equal. */
static inline int site_keys_cmp(const struct site *a, const struct site *b)
{
	uint64_t ka[3], kb[3];

	site_sort_keys(a, ka);
	site_sort_keys(b, kb);
	for (int i = 0; i < 3; i++)
		if (ka[i] != kb[i])
			return ka[i] > kb[i] ? -1 : 1;
	return 0;
}

static int site_cmp_allocated(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;
	int c = site_keys_cmp(a, b);

	/* then creation order (stable output for equal numbers) */
	return c ? c : a->id < b->id ? -1 : a->id > b->id;
}

/* site_cmp_allocated of the sites made i-th and j-th (sites[i] and
 * sites[j]): whether i goes first. */
static inline bool site_index_before(const struct site *sites, uint32_t i, uint32_t j)
{
	int c = site_keys_cmp(&sites[i], &sites[j]);

	return c ? c < 0 : i < j;
}

/* Sorts the site indices v[0, n) by site_index_before, tmp[0, n) its
 * scratch: halves sorted in place and merged into tmp, short runs by
 * insertion, as glibc's qsort does. */
static void sites_msort(const struct site *sites, uint32_t *v, uint32_t *tmp, size_t n)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n <= 16) {
		for (size_t a = 1; a < n; a++) {
			uint32_t x = v[a];
			size_t b = a;

			for (; b > 0 && site_index_before(sites, x, v[b - 1]); b--)
				v[b] = v[b - 1];
			v[b] = x;
		}
		return;
	}
	sites_msort(sites, v, tmp, mid);
	sites_msort(sites, v + mid, tmp, n - mid);
	while (i < mid && j < n)
		tmp[k++] = site_index_before(sites, v[j], v[i]) ? v[j++] : v[i++];
	while (i < mid)
		tmp[k++] = v[i++];
	/* (the rest of the second half is in place already) */
	memcpy(v, tmp, k * sizeof(*v));
}

/* Puts site order[k] at place k for every k, one cycle of the permutation
 * at a time (order is spent: each entry becomes its own place). */
static void sites_permute(struct site *sites, uint32_t *order, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct site hold;
		size_t j = k;

		if (order[k] == k)
			continue;
		hold = sites[k];
		for (;;) {
			size_t from = order[j];

			order[j] = (uint32_t)j;
			if (from == k) {
				sites[j] = hold;
				break;
			}
			sites[j] = sites[from];
			j = from;
		}
	}
}

/* Sorts t's sites, in the order made, by site_cmp_allocated (a total
 * order: any sort gives the same).  The sort moves 4-byte indices, not the
 * 88-byte sites, then each site once: its scratch for 262,145
 * sites was 8 MiB beside them, the report's peak once the rest had
 * shrunk.  qsort of the sites when the indices cannot be had. */
static void sites_sort(struct site_table *t)
{
	size_t n = t->count, reserved;
	uint32_t *order = big_zeroed(2 * n, sizeof(*order), &reserved);

	if (!order) {
		qsort(t->sites, n, sizeof(*t->sites), site_cmp_allocated);
		return;
	}
	for (size_t k = 0; k < n; k++)
		order[k] = (uint32_t)k;
	sites_msort(t->sites, order, order + n, n);
	sites_permute(t->sites, order, n);
	big_free(order, reserved);
}

/* The sites' sample figures (t->samples, by creation order), the sums of
 * their stacks' (stack_site: each one's site); none when the aggregation
 * kept none.  Returns 0 or -ENOMEM. */
static int site_samples_sum(struct site_table *t, const struct aggregate *agg,
			    const uint32_t *stack_site, size_t stacks)
{
	if (!agg->stack_samples)
		return 0;
	t->samples = calloc(t->count ? t->count : 1, sizeof(*t->samples));
	if (!t->samples)
		return -ENOMEM;
	for (size_t k = 0; k < stacks && k < agg->stack_samples_cap; k++)
		sample_figures_merge(&t->samples[stack_site[k]], &agg->stack_samples[k]);
	return 0;
}

/* t->samples put in the sites' sorted order (each site's id: its creation
 * index, before the ids become ranks).  Returns 0 or -ENOMEM. */
static int site_samples_sort(struct site_table *t)
{
	struct sample_figures *sorted = malloc((t->count ? t->count : 1) * sizeof(*sorted));

	if (!sorted)
		return -ENOMEM;
	for (size_t k = 0; k < t->count; k++)
		sorted[k] = t->samples[t->sites[k].id];
	free(t->samples);
	t->samples = sorted;
	return 0;
}

int site_table_build(struct site_table *t, struct aggregate *agg, struct stack_nodes *nodes,
		     struct symbolizer *sym, const struct site_options *opt,
		     struct huge_spare *spare)
{
	struct site_build *b = calloc(1, sizeof(*b));
	size_t memo_bytes = memo_bytes_for(nodes);
	struct stats_packed packed = {0};
	uint32_t *stack_site = NULL;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (spare) {
		t->spare = *spare;
		memset(spare, 0, sizeof(*spare));
	}
	t->frame_hash = calloc(256, sizeof(*t->frame_hash));
	t->frame_hash_mask = 255;
	t->ip_hash = calloc(256, sizeof(*t->ip_hash));
	t->ip_hash_mask = 255;
	if (b) {
		*b = (struct site_build){.t = t, .nodes = nodes, .sym = sym, .opt = opt};
		size_t slots = trie_slots_for(nodes);

		if (grow_big_to(&b->trie_mem, 0, sizeof(*b->trie), 256) == 0)
			b->trie = b->trie_mem.p;
		b->trie_count = 1; /* node 0: no frames */
		b->trie_hash = big_zeroed(slots, sizeof(*b->trie_hash), &b->trie_hash_reserved);
		b->trie_hash_mask = slots - 1;
		b->node_bits = 8; /* (ids below 255: widened as the trie grows) */
		b->root_hash = calloc(16, sizeof(*b->root_hash));
		b->root_hash_mask = 15;
		b->places = calloc(PLACE_MEMO_SLOTS, sizeof(*b->places));
		b->memo_in_nodes = memo_bytes == 0;
		if (spare_plan(b, agg->stat_count, memo_bytes) < 0 && !b->memo_in_nodes)
			b->memo = big_zeroed(1, memo_bytes, &b->memo_reserved);
	} else {
		spare_drop(&t->spare);
	}
	if (!t->frame_hash || !t->ip_hash || !b || !b->trie || !b->trie_hash || !b->root_hash ||
	    !b->places ||
	    (!b->memo && !b->memo_in_nodes))
		rc = -ENOMEM;
	if (rc == 0 && aggregate_stats_pack(agg, &packed) < 0)
		rc = -ENOMEM;
	/* each stack's trie node replaces its id, then its site */
	stack_site = packed.stack_ids;
	packed.stack_ids = NULL;
	if (rc == 0 && packed.count && !(b->stack_flags = malloc(packed.count)))
		rc = -ENOMEM;
	for (size_t k = 0; k < packed.count && rc == 0; k++)
		rc = walk_stack(b, stack_site[k], &stack_site[k], &b->stack_flags[k]);
	if (b)
		site_build_walks_free(b);
	stack_nodes_free(nodes);
	if (rc == 0 && packed.count &&
	    !(b->site_plus1 = big_zeroed(b->trie_count, sizeof(*b->site_plus1),
					 &b->site_plus1_reserved)))
		rc = -ENOMEM;
	for (size_t k = 0; k < packed.count && rc == 0; k++)
		rc = add_stack(b, stack_site[k], b->stack_flags[k], &stack_site[k]);
	if (b) {
		big_free(b->site_plus1, b->site_plus1_reserved);
		b->site_plus1 = NULL;
		free(b->stack_flags);
		b->stack_flags = NULL;
	}
	/* the trie cut to the sites' frames before the sites are made: the
	 * two were the build's peak together (14.7 and 22 MiB for 262,145
	 * sites) */
	if (rc == 0)
		site_frames_keep(b);
	if (b) {
		grow_big_free(&b->trie_mem);
		free(b->frame_flags);
		b->frame_flags = NULL;
	}
	if (rc == 0)
		rc = sites_alloc(b);
	if (rc == 0)
		rc = site_stats_sum(b, &packed, stack_site);
	if (rc == 0)
		rc = site_samples_sum(t, agg, stack_site, packed.count);
	if (b) {
		grow_big_free(&b->seeds_mem);
		free(b);
	}
	stats_packed_free(&packed);
	free(stack_site);
	spare_trim(t);
	if (rc < 0)
		return rc;
	for (size_t k = 0; k < t->count; k++)
		t->sites[k].id = (uint32_t)k; /* creation order, for the sort's tie-break */
	if (t->count > 1)
		sites_sort(t);
	if (t->samples && site_samples_sort(t) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < t->count; k++)
		t->sites[k].id = (uint32_t)(k + 1);
	return 0;
}

void site_table_free(struct site_table *t)
{
	if (!t->sites_in_spare)
		big_free(t->sites, t->sites_reserved);
	free(t->frames);
	site_stats_pool_free(&t->stats_pool);
	free(t->samples);
	t->samples = NULL;
	if (t->links_reserved)
		huge_array_free(t->frame_links, t->links_reserved);
	else
		free(t->frame_links);
	spare_drop(&t->spare);
	free(t->frame_hash);
	free(t->ips);
	free(t->ip_hash);
	free(t->memo_ids);
	memset(t, 0, sizeof(*t));
}
