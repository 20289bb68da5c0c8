/*
 * preload/modules.c - the module table, its scans and its MODULES and
 * MODULES_DELTA records.
 *
 * Owns the writer's table of loaded modules (under the modules lock) and the
 * epoch counter; readers see the map through preload/module_view.h.  A scan
 * walks dl_iterate_phdr without holding any lock of ours (a thread inside a
 * dl_iterate_phdr callback of the program may call malloc, and must then
 * never wait for a lock held by a thread that waits for the loader), against
 * a copy of the table's keys: a module the table has costs a compare, only
 * the new ones are encoded, so a rescan costs the loader's walk plus what
 * changed.  Applying it takes the modules lock, writes the record into the
 * meta stream first (under the meta lock, taken inside the modules lock) and
 * then publishes the view, so no stack of an epoch is interned before its map
 * is in the trace.  A map whose base (the map before it) is in the process
 * file goes in as a delta from it when that is smaller, so that N libraries
 * loaded one by one cost O(N) bytes of maps, not O(N^2); the whole map goes
 * in again once the deltas since the last one would outweigh it, so that a
 * reader that lost a delta recovers there.  Must never call malloc.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <limits.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "preload/deep_bind.h"
#include "preload/new_bind.h"
#include "preload/diag.h"
#include "preload/lock.h"
#include "preload/mem.h"
#include "preload/meta.h"
#include "preload/modules.h"
#include "preload/namespaces.h"
#include "preload/rec_stack.h"
#include "preload/ring.h"
#include "trace/modules_delta.h"

#define MODULES_FIRST_ADDED 64u
#define MODULES_FIRST_BODY_BYTES (16u << 10)
#define MODULES_FIRST_RANGES 256u

/* What tells a loaded module from another between two scans: the loader's
 * pointers, which stay while no module is unloaded, and a hash of its name
 * and build-id, checked when one was (a new module may get a freed one's
 * memory). */
struct module_key {
	uint64_t addr;               /* load bias */
	uintptr_t phdr, name;        /* the loader's program headers and name */
	uint64_t hash;               /* of the name and the build-id */
	uint32_t phnum;
	uint32_t body_len;           /* bytes of its encoded entry */
};

/* A module of the table, in the order it came in (which is id order). */
struct module_entry {
	struct module_key key;
	uint64_t uid;                /* ascending in table order, never reused */
	uint32_t id;                 /* its id in the trace (mprof-trace(5)) */
	uint32_t body_off;           /* its entry in the table's body */
};

/* An executable range and the uid of its module. */
struct module_owned_range {
	struct module_range range;
	uint64_t uid;
};

/* The writer's table: the current map's modules, their encoded entries
 * (with holes where removed ones were, until compacted) and their ranges
 * sorted by start.  Under modules_lock. */
struct modules_table {
	struct module_entry *entries;
	size_t entries_cap;          /* bytes mapped */
	uint32_t count;
	uint8_t *body;
	size_t body_cap, body_len, body_dead;
	struct module_owned_range *ranges;
	size_t ranges_cap;           /* bytes mapped */
	uint32_t nranges;
	struct module_range *plain;  /* the ranges without uids, for the view */
	size_t plain_cap;
	uint64_t epoch, adds, subs, next_uid, next_id;
};

/* One scan: the table's keys as they were (known), which of them it met,
 * and the modules it did not know, encoded. */
struct modules_scan {
	const struct module_key *known;
	uint32_t nknown, nseen, cursor, mask;
	uint8_t *seen;
	uint32_t *slots;             /* known + 1 by load bias; 0 empty */
	int slots_built, verify;
	struct module_key *added;
	uint32_t added_cap, nadded, added_need;
	uint8_t *body;
	size_t body_cap, body_len, body_need;
	struct module_owned_range *ranges; /* uid: the index in added */
	uint32_t ranges_cap, nranges, ranges_need;
	uint64_t *removed_ids, *removed_uids;
	uint32_t nremoved;
	uint8_t *head;               /* room for a delta's head */
	uint32_t index;
	uint64_t adds, subs, base_subs; /* the walk's counters, the table's */
	int overflow;
	uint8_t *scratch;            /* where the parts above lie */
	size_t scratch_bytes;
	int scratch_own;             /* mapped for this scan alone */
};

_Atomic int modules_dirty;
_Atomic uint64_t modules_removals;
/* dlcloses ended: a rescan sets bit 0 of modules_dirty again when one ended
 * after the rescan began (its scan may have run before that unload). */
static _Atomic unsigned modules_close_gen;
static struct preload_lock modules_lock;
static struct modules_table modules_table;
/* The epoch of the last map whose record went into this process's file (0:
 * none), which a delta may then name as its base; under modules_lock. */
static uint64_t modules_written_epoch;
/* Payload bytes of the last MODULES record of this process file and of the
 * MODULES_DELTA records since; a whole map goes in again once the deltas
 * would pass that record's size, so that a reader that lost a delta recovers
 * there, and the whole maps cost at most twice the deltas' bytes (plus the
 * first map).  Under modules_lock. */
static uint64_t modules_full_bytes_written, modules_delta_bytes;
/* The scratch of scans, kept between them; a scan takes it with
 * modules_scratch_busy and maps its own when another (a thread, or a signal
 * handler on top of a scan) has it. */
static uint8_t *modules_scratch;
static size_t modules_scratch_bytes;
static _Atomic int modules_scratch_busy;
/* The loader's counters at the table's last scan, for a check without the
 * lock (a torn pair only sends the caller to the locked check). */
static _Atomic uint64_t modules_seen_adds, modules_seen_subs;

/* Whether info carries the loader's adds/subs counters. */
static int modules_has_counters(size_t size)
{
	return size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(unsigned long long);
}

static int modules_counters_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t *c = arg;

	if (modules_has_counters(size)) {
		c[0] = info->dlpi_adds;
		c[1] = info->dlpi_subs;
	}
	return 1;
}

/* Whether [vaddr, vaddr + len) lies inside a loaded segment of info. */
static int modules_is_loaded(const struct dl_phdr_info *info, uint64_t vaddr, uint64_t len)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr + len <= ph->p_vaddr + ph->p_filesz)
			return 1;
	}
	return 0;
}

/* Finds the NT_GNU_BUILD_ID note of a module in memory. */
static void modules_build_id(const struct dl_phdr_info *info, const uint8_t **id, size_t *len)
{
	*id = NULL;
	*len = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t align = ph->p_align == 8 ? 8 : 4;
		const uint8_t *p, *end;

		if (ph->p_type != PT_NOTE || !modules_is_loaded(info, ph->p_vaddr, ph->p_memsz))
			continue;
		p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const uint8_t *name = p + sizeof(*nh);
			const uint8_t *desc = name + ((nh->n_namesz + align - 1) & ~(align - 1));
			const uint8_t *next = desc + ((nh->n_descsz + align - 1) & ~(align - 1));

			if (next > end || next <= p)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0) {
				*id = desc;
				*len = nh->n_descsz;
				return;
			}
			p = next;
		}
	}
}

/* Appends the lowercase hex digits of v to p; returns the end. */
static char *modules_put_hex(char *p, uint64_t v)
{
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* Whether info is the vDSO, whose program headers lie in the page the
 * kernel names in AT_SYSINFO_EHDR: no file backs it. */
static int modules_is_vdso(const struct dl_phdr_info *info)
{
	uintptr_t ehdr = (uintptr_t)getauxval(AT_SYSINFO_EHDR);

	return ehdr && (uintptr_t)info->dlpi_phdr - ehdr < PRELOAD_PAGE_BYTES;
}

/*
 * A module opened by a relative name (dlopen("./x.so")) is listed under
 * that name; the symbolizer runs later, elsewhere.  Asks the kernel which
 * file backs the module's first executable segment instead.  Returns path
 * itself when it is absolute or the kernel does not say, and without
 * asking for the vDSO ("linux-vdso.so.1": a failed readlink of /proc/self
 * at every start, 3 us).
 */
static const char *modules_absolute_path(const struct dl_phdr_info *info, const char *path,
					 char *buf, size_t cap)
{
	char link[96], *p;
	ssize_t n;

	if (path[0] == '/' || path[0] == '\0' || modules_is_vdso(info))
		return path;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uint64_t)(PRELOAD_PAGE_BYTES - 1);
		uint64_t end = (info->dlpi_addr + ph->p_vaddr + ph->p_filesz + PRELOAD_PAGE_BYTES - 1) &
			       ~(uint64_t)(PRELOAD_PAGE_BYTES - 1);

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		p = stpcpy(link, "/proc/self/map_files/");
		p = modules_put_hex(p, start);
		*p++ = '-';
		p = modules_put_hex(p, end);
		*p = '\0';
		n = readlink(link, buf, cap - 1);
		if (n <= 0 || buf[0] != '/')
			return path;
		buf[n] = '\0';
		return buf;
	}
	return path;
}

/* FNV-1a of n bytes at p, going on from h. */
static uint64_t modules_hash(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

/* The key of info; its hash only when with_hash (it reads the build-id). */
static struct module_key modules_key_of(const struct dl_phdr_info *info, int with_hash)
{
	struct module_key k = { .addr = info->dlpi_addr,
				.phdr = (uintptr_t)info->dlpi_phdr,
				.name = (uintptr_t)info->dlpi_name,
				.phnum = info->dlpi_phnum };
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	const uint8_t *id;
	size_t id_len;

	if (with_hash) {
		modules_build_id(info, &id, &id_len);
		k.hash = modules_hash(modules_hash(0xcbf29ce484222325ull, name, strlen(name) + 1),
				      id, id_len);
	}
	return k;
}

/* Whether a and b are the same module; their hashes count only when
 * verify (a module was unloaded since a was taken). */
static int modules_key_same(const struct module_key *a, const struct module_key *b, int verify)
{
	return a->addr == b->addr && a->phdr == b->phdr && a->name == b->name &&
	       a->phnum == b->phnum && (!verify || a->hash == b->hash);
}

/* The slot of a load bias in a scan's hash of known modules. */
static uint32_t modules_slot_of(uint64_t addr)
{
	return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 32);
}

/* Fills sc's hash of its known modules by load bias. */
static void modules_scan_index(struct modules_scan *sc)
{
	for (uint32_t i = 0; i < sc->nknown; i++) {
		uint32_t h = modules_slot_of(sc->known[i].addr);

		while (sc->slots[h & sc->mask])
			h++;
		sc->slots[h & sc->mask] = i + 1;
	}
	sc->slots_built = 1;
}

/*
 * The index of the known module that k is, marked seen, or -1 when k is
 * new.  The loader lists its modules in the same order each time, so the
 * one after the last match is tried first; the hash is made only when that
 * fails while some known module was not met yet.
 */
static int64_t modules_scan_find(struct modules_scan *sc, const struct module_key *k)
{
	uint32_t i = sc->cursor, h;

	if (i < sc->nknown && !sc->seen[i] && modules_key_same(&sc->known[i], k, sc->verify))
		goto found;
	if (sc->nseen == sc->nknown)
		return -1;
	if (!sc->slots_built)
		modules_scan_index(sc);
	for (h = modules_slot_of(k->addr); (i = sc->slots[h & sc->mask]) != 0; h++) {
		i--;
		if (!sc->seen[i] && modules_key_same(&sc->known[i], k, sc->verify))
			goto found;
	}
	return -1;
found:
	sc->seen[i] = 1;
	sc->nseen++;
	sc->cursor = i + 1;
	return i;
}

/* Encodes info (whose key is k) as an added module of sc, or counts what
 * it needs when sc's room is short. */
static void modules_scan_add(struct modules_scan *sc, struct dl_phdr_info *info,
			     struct module_key k, const char *path)
{
	char resolved[PATH_MAX];
	const uint8_t *id;
	size_t id_len, path_len, need;
	uint32_t nexec = 0;
	uint8_t *p;

	path = modules_absolute_path(info, path, resolved, sizeof(resolved));
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X))
			nexec++;
	modules_build_id(info, &id, &id_len);
	path_len = strlen(path);
	need = 4 * VARINT_MAX_BYTES + path_len + id_len + 2 * VARINT_MAX_BYTES * nexec;
	sc->body_need += need;
	sc->ranges_need += nexec;
	sc->added_need++;
	if (sc->overflow || sc->body_len + need > sc->body_cap ||
	    sc->nranges + nexec > sc->ranges_cap || sc->nadded == sc->added_cap) {
		sc->overflow = 1;
		return;
	}
	p = sc->body + sc->body_len;
	p = varint_put_u64(p, info->dlpi_addr);
	p = record_put_bytes(p, path, path_len);
	p = record_put_bytes(p, id, id_len);
	p = varint_put_u64(p, nexec);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		p = varint_put_u64(p, ph->p_vaddr);
		p = varint_put_u64(p, ph->p_memsz);
		sc->ranges[sc->nranges++] = (struct module_owned_range){
			{ info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz },
			sc->nadded
		};
	}
	if (!k.hash)
		k = modules_key_of(info, 1);
	k.body_len = (uint32_t)(p - (sc->body + sc->body_len));
	sc->added[sc->nadded++] = k;
	sc->body_len = (size_t)(p - sc->body);
}

static int modules_scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct modules_scan *sc = arg;
	const char *path = info->dlpi_name ? info->dlpi_name : "";
	struct module_key k;

	if (sc->index++ == 0) {
		if (modules_has_counters(size)) {
			sc->adds = info->dlpi_adds;
			sc->subs = info->dlpi_subs;
		}
		sc->verify = sc->subs != sc->base_subs;
		if (!*path)
			path = preload_proc.exe; /* the main program */
	}
	k = modules_key_of(info, sc->verify);
	if (modules_scan_find(sc, &k) < 0)
		modules_scan_add(sc, info, k, path);
	return 0;
}
/* Moves r[i] down the max-heap r[0..n) by start until its children are
 * not bigger. */
static void modules_sift_down(struct module_owned_range *r, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t big = i, left = 2 * i + 1, right = left + 1;
		struct module_owned_range v;

		if (left < n && r[left].range.start > r[big].range.start)
			big = left;
		if (right < n && r[right].range.start > r[big].range.start)
			big = right;
		if (big == i)
			return;
		v = r[i];
		r[i] = r[big];
		r[big] = v;
		i = big;
	}
}

/* Sorts ranges by start: a heap sort, as the loader lists the libraries
 * that dlopen maps top-down by descending address, an insertion sort's
 * worst case (n squared moves at each rescan). */
static void modules_sort_ranges(struct module_owned_range *r, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		modules_sift_down(r, i, n);
	for (uint32_t end = n; end-- > 1;) {
		struct module_owned_range v = r[0];

		r[0] = r[end];
		r[end] = v;
		modules_sift_down(r, 0, end);
	}
}

/* Lays sc's parts out at mem (when not NULL) for nknown known modules and
 * the given room for added ones; returns the bytes they take. */
static size_t modules_scan_layout(struct modules_scan *sc, uint8_t *mem, uint32_t nknown,
				  uint32_t added_cap, size_t body_cap, uint32_t ranges_cap)
{
	uint32_t nslots = 16;
	size_t at = 0;

	while (nslots < 2 * nknown)
		nslots *= 2;
#define MODULES_PART(field, n)                                   \
	do {                                                     \
		if (mem)                                         \
			sc->field = (void *)(mem + at);          \
		at += ((n) * sizeof(*sc->field) + 7) & ~(size_t)7; \
	} while (0)
	MODULES_PART(known, (size_t)nknown);
	MODULES_PART(removed_ids, (size_t)nknown);
	MODULES_PART(removed_uids, (size_t)nknown);
	MODULES_PART(slots, (size_t)nslots);
	MODULES_PART(added, (size_t)added_cap);
	MODULES_PART(ranges, (size_t)ranges_cap);
	MODULES_PART(seen, (size_t)nknown);
	MODULES_PART(head, (size_t)(4 + nknown) * VARINT_MAX_BYTES);
	MODULES_PART(body, body_cap);
#undef MODULES_PART
	if (mem) {
		sc->mask = nslots - 1;
		sc->added_cap = added_cap;
		sc->body_cap = body_cap;
		sc->ranges_cap = ranges_cap;
	}
	return at;
}

/* Gives sc a scratch of bytes: the kept one when free and big
 * enough (made so when free), else one of its own.  0 or -1. */
static int modules_scratch_take(struct modules_scan *sc, size_t bytes)
{
	sc->scratch_own = 1;
	if (!atomic_exchange_explicit(&modules_scratch_busy, 1, memory_order_acquire)) {
		if (modules_scratch_bytes < bytes) {
			preload_mem_unmap(modules_scratch, modules_scratch_bytes);
			modules_scratch_bytes = 0;
			modules_scratch = preload_mem_map(2 * bytes);
			if (modules_scratch)
				modules_scratch_bytes = 2 * bytes;
		}
		if (modules_scratch) {
			sc->scratch = modules_scratch;
			sc->scratch_bytes = bytes;
			sc->scratch_own = 0;
			return 0;
		}
		atomic_store_explicit(&modules_scratch_busy, 0, memory_order_release);
	}
	sc->scratch = preload_mem_map(bytes);
	sc->scratch_bytes = bytes;
	return sc->scratch ? 0 : -1;
}

/* Gives sc's scratch back. */
static void modules_scratch_give(struct modules_scan *sc)
{
	if (sc->scratch_own)
		preload_mem_unmap(sc->scratch, sc->scratch_bytes);
	else
		atomic_store_explicit(&modules_scratch_busy, 0, memory_order_release);
	sc->scratch = NULL;
}

/* Makes *mem (*cap bytes mapped) hold need bytes, keeping its first keep
 * bytes; 0, or -1 when out of memory.  Under modules_lock. */
static int modules_grow(void **mem, size_t *cap, size_t need, size_t keep)
{
	void *p;

	if (need <= *cap)
		return 0;
	p = preload_mem_map(2 * need + 4096);
	if (!p)
		return -1;
	if (*mem) {
		memcpy(p, *mem, keep);
		preload_mem_unmap(*mem, *cap);
	}
	*mem = p;
	*cap = 2 * need + 4096;
	return 0;
}

/* Moves the table's live entries to the front of its body, in table
 * order (which is body order).  Under modules_lock. */
static void modules_table_compact(struct modules_table *tb)
{
	size_t at = 0;

	if (!tb->body_dead)
		return;
	for (uint32_t i = 0; i < tb->count; i++) {
		struct module_entry *e = &tb->entries[i];

		memmove(tb->body + at, tb->body + e->body_off, e->key.body_len);
		e->body_off = (uint32_t)at;
		at += e->key.body_len;
	}
	tb->body_len = at;
	tb->body_dead = 0;
}

/* Bytes of the MODULES payload of the table's map at epoch. */
static size_t modules_full_bytes(const struct modules_table *tb, uint64_t epoch)
{
	return varint_len_u64(epoch) + varint_len_u64(tb->count) + tb->body_len - tb->body_dead;
}
/*
 * Writes an extended record of kind into the meta stream: head[0..head_len)
 * then tail[0..tail_len).  Returns 0, or -1 when it was not written (too
 * big for a ring, or the process file is gone).
 */
static int modules_put_record(unsigned kind, const uint8_t *head, size_t head_len,
			      const uint8_t *tail, size_t tail_len)
{
	uint64_t need = RECORD_EXT_HEADER_BYTES + head_len + tail_len;
	struct preload_thread *m;
	uint8_t *rec, *p;

	if (need + 64 > preload_proc.cfg.ring_bytes) {
		diag_note(TRACE_DIAG_INFO, "the module map does not fit in one thread ring and "
					   "was not recorded: raise MPROF_RING_KIB");
		return -1;
	}
	m = meta_begin();
	if (!m)
		return -1;
	rec = ring_reserve(m, (uint32_t)need);
	if (rec) {
		p = record_ext_begin(rec, kind);
		memcpy(p, head, head_len);
		p += head_len;
		memcpy(p, tail, tail_len);
		p += tail_len;
		record_ext_end(rec, p);
		ring_commit(m, p);
	}
	meta_end(m);
	return rec ? 0 : -1;
}

/* Writes the table's map whole as a MODULES record of epoch, its modules
 * taking ids 0 and up in table order; 0 or -1.  Under modules_lock. */
static int modules_write_full(struct modules_table *tb, uint64_t epoch)
{
	uint8_t head[2 * VARINT_MAX_BYTES], *p = head;
	int rc;

	modules_table_compact(tb);
	p = varint_put_u64(p, epoch);
	p = varint_put_u64(p, tb->count);
	rc = modules_put_record(TRACE_REC_EXT_MODULES, head, (size_t)(p - head), tb->body,
				tb->body_len);
	for (uint32_t i = 0; i < tb->count; i++)
		tb->entries[i].id = i;
	tb->next_id = tb->count;
	modules_written_epoch = rc == 0 ? epoch : 0;
	modules_full_bytes_written = modules_full_bytes(tb, epoch);
	modules_delta_bytes = 0;
	return rc;
}

/*
 * Writes the table's map at epoch (the table just took sc's changes, and
 * base_next_id is the next id before them) as a MODULES_DELTA record from
 * the map before it when that map's record is in the process file, the
 * delta is smaller than the whole map and the deltas since the last whole
 * map stay within that map's size; else whole.  Under modules_lock.
 */
static void modules_write_next(struct modules_table *tb, struct modules_scan *sc, uint64_t epoch,
			       uint64_t base_next_id)
{
	uint64_t base = epoch - 1;
	size_t head_bytes, bytes;
	int rc;

	if (modules_written_epoch != base || base_next_id + sc->nadded > UINT32_MAX) {
		modules_write_full(tb, epoch);
		return;
	}
	head_bytes = modules_delta_head_bytes(epoch, base, sc->removed_ids, sc->nremoved, sc->nadded);
	bytes = head_bytes + sc->body_len;
	if (bytes >= modules_full_bytes(tb, epoch) ||
	    modules_delta_bytes + bytes > modules_full_bytes_written) {
		modules_write_full(tb, epoch);
		return;
	}
	modules_delta_put_head(sc->head, epoch, base, sc->removed_ids, sc->nremoved, sc->nadded);
	rc = modules_put_record(TRACE_REC_EXT_MODULES_DELTA, sc->head, head_bytes, sc->body,
				sc->body_len);
	tb->next_id = base_next_id + sc->nadded;
	modules_written_epoch = rc == 0 ? epoch : 0;
	modules_delta_bytes += bytes;
}

/* Makes room in the table for sc's changes; 0 or -1.  Under modules_lock. */
static int modules_table_reserve(struct modules_table *tb, const struct modules_scan *sc)
{
	uint32_t count = tb->count + sc->nadded, nranges = tb->nranges + sc->nranges;

	return modules_grow((void **)&tb->entries, &tb->entries_cap,
			    count * sizeof(*tb->entries), tb->count * sizeof(*tb->entries)) < 0 ||
			       modules_grow((void **)&tb->body, &tb->body_cap,
					    tb->body_len + sc->body_len, tb->body_len) < 0 ||
			       modules_grow((void **)&tb->ranges, &tb->ranges_cap,
					    nranges * sizeof(*tb->ranges),
					    tb->nranges * sizeof(*tb->ranges)) < 0 ||
			       modules_grow((void **)&tb->plain, &tb->plain_cap,
					    nranges * sizeof(*tb->plain), 0) < 0 ?
		       -1 :
		       0;
}

/* Drops the table's modules that sc did not meet (listing their ids and
 * uids in sc, ascending) and their ranges.  Under modules_lock. */
static void modules_table_remove(struct modules_table *tb, struct modules_scan *sc)
{
	uint32_t j = 0;

	sc->nremoved = 0;
	for (uint32_t i = 0; i < tb->count; i++) {
		struct module_entry *e = &tb->entries[i];

		if (!sc->seen[i]) {
			sc->removed_ids[sc->nremoved] = e->id;
			sc->removed_uids[sc->nremoved++] = e->uid;
			tb->body_dead += e->key.body_len;
			continue;
		}
		tb->entries[j++] = *e;
	}
	tb->count = j;
	if (!sc->nremoved)
		return;
	j = 0;
	for (uint32_t i = 0; i < tb->nranges; i++)
		if (!modules_delta_id_listed(sc->removed_uids, sc->nremoved, tb->ranges[i].uid))
			tb->ranges[j++] = tb->ranges[i];
	tb->nranges = j;
}

/* Appends sc's added modules to the table, with ids from its next id on,
 * and merges their ranges into the table's.  Under modules_lock. */
static void modules_table_add(struct modules_table *tb, struct modules_scan *sc)
{
	uint32_t off = (uint32_t)tb->body_len;
	int64_t i = (int64_t)tb->nranges - 1, j = (int64_t)sc->nranges - 1;
	int64_t k = (int64_t)tb->nranges + sc->nranges - 1;

	for (uint32_t a = 0; a < sc->nadded; a++) {
		tb->entries[tb->count++] = (struct module_entry){ sc->added[a], tb->next_uid + a,
								  (uint32_t)(tb->next_id + a), off };
		off += sc->added[a].body_len;
	}
	memcpy(tb->body + tb->body_len, sc->body, sc->body_len);
	tb->body_len += sc->body_len;
	for (uint32_t r = 0; r < sc->nranges; r++)
		sc->ranges[r].uid += tb->next_uid;
	modules_sort_ranges(sc->ranges, sc->nranges);
	while (j >= 0) {
		if (i >= 0 && tb->ranges[i].range.start > sc->ranges[j].range.start)
			tb->ranges[k--] = tb->ranges[i--];
		else
			tb->ranges[k--] = sc->ranges[j--];
	}
	tb->nranges += sc->nranges;
	tb->next_uid += sc->nadded;
	for (uint32_t r = 0; r < tb->nranges; r++)
		tb->plain[r] = tb->ranges[r].range;
}

/* Publishes the table's map, then its counters for the check without the
 * lock (a view that could not be published is tried again at the next
 * rescan); 0 or -1.  Under modules_lock. */
static int modules_table_publish(const struct modules_table *tb)
{
	if (module_view_publish(tb->epoch, tb->plain, tb->nranges) < 0)
		return -1;
	atomic_store_explicit(&modules_seen_adds, tb->adds, memory_order_relaxed);
	atomic_store_explicit(&modules_seen_subs, tb->subs, memory_order_relaxed);
	return 0;
}

/*
 * Takes sc's changes into the table as the next epoch, writes its record
 * (when write) and publishes it.  Returns 0, or -1 when out of memory
 * (before any change, or for the view only: the next rescan publishes
 * it).  Under modules_lock.
 */
static int modules_apply(struct modules_scan *sc, int write)
{
	struct modules_table *tb = &modules_table;
	uint64_t epoch = tb->epoch + 1, base_next_id = tb->next_id;

	if (modules_table_reserve(tb, sc) < 0)
		return -1;
	modules_table_remove(tb, sc);
	modules_table_add(tb, sc);
	if (tb->body_dead > tb->body_len / 2)
		modules_table_compact(tb);
	if (write)
		modules_write_next(tb, sc, epoch, base_next_id);
	else
		tb->next_id = base_next_id + sc->nadded;
	tb->epoch = epoch;
	tb->adds = sc->adds;
	tb->subs = sc->subs;
	if (sc->nremoved)
		atomic_fetch_add_explicit(&modules_removals, 1, memory_order_release);
	return modules_table_publish(tb);
}

enum { MODULES_AGAIN = 2 };

/*
 * One rescan: copies the table's keys, walks the loader's modules against
 * them, and takes the changes into the table (writing the record when
 * write).  A table another thread changed meanwhile does instead when its
 * walk came no earlier than the loader's counters need[] (adds, subs: what
 * the caller saw before it rescanned; they only grow).  room: the added
 * modules, body bytes and ranges it makes room for, raised when they were
 * short.  Returns 1 when the epoch is no longer entry_epoch, 0 when not, -1
 * when out of memory, MODULES_AGAIN when the table changed meanwhile to a
 * walk older than need[] or the room was short.
 */
static int modules_rescan(uint64_t entry_epoch, int write, const uint64_t need[2],
			  uint32_t *added_cap, size_t *body_cap, uint32_t *ranges_cap)
{
	struct modules_table *tb = &modules_table;
	struct modules_scan sc = { 0 };
	uint32_t room;
	uint64_t base_epoch;
	int rc;

	preload_lock_take(&modules_lock);
	room = tb->count + 16;
	preload_lock_give(&modules_lock);
	if (modules_scratch_take(&sc, modules_scan_layout(&sc, NULL, room, *added_cap, *body_cap,
							 *ranges_cap)) < 0)
		return -1;
	modules_scan_layout(&sc, sc.scratch, room, *added_cap, *body_cap, *ranges_cap);
	memset(sc.seen, 0, room);
	memset(sc.slots, 0, (sc.mask + 1) * sizeof(*sc.slots));
	preload_lock_take(&modules_lock);
	if (tb->count > room) {
		preload_lock_give(&modules_lock);
		modules_scratch_give(&sc);
		return MODULES_AGAIN;
	}
	base_epoch = tb->epoch;
	sc.base_subs = tb->subs;
	sc.nknown = tb->count;
	for (uint32_t i = 0; i < tb->count; i++)
		((struct module_key *)sc.known)[i] = tb->entries[i].key;
	preload_lock_give(&modules_lock);

	dl_iterate_phdr(modules_scan_one, &sc);
	if (sc.overflow) {
		*added_cap = 2 * sc.added_need;
		*body_cap = 2 * sc.body_need;
		*ranges_cap = 2 * sc.ranges_need;
		modules_scratch_give(&sc);
		return MODULES_AGAIN;
	}
	preload_lock_take(&modules_lock);
	if (tb->epoch != base_epoch && (tb->adds < need[0] || tb->subs < need[1])) {
		rc = MODULES_AGAIN;
	} else if (tb->epoch != base_epoch ||
		   (tb->epoch && tb->adds == sc.adds && tb->subs == sc.subs)) {
		rc = modules_epoch() == tb->epoch || modules_table_publish(tb) == 0 ?
			     tb->epoch != entry_epoch : -1;
	} else {
		rc = modules_apply(&sc, write) < 0 ? -1 : 1;
	}
	preload_lock_give(&modules_lock);
	modules_scratch_give(&sc);
	return rc;
}

/* modules_rescan until the table held still for it (a few tries, as each
 * retry follows another thread's rescan or a bigger room). */
static int modules_rescan_all(uint64_t entry_epoch, int write, const uint64_t need[2])
{
	uint32_t added_cap = MODULES_FIRST_ADDED, ranges_cap = MODULES_FIRST_RANGES;
	size_t body_cap = MODULES_FIRST_BODY_BYTES;
	int rc = -1;

	for (int attempt = 0; attempt < 8; attempt++) {
		rc = modules_rescan(entry_epoch, write, need, &added_cap, &body_cap, &ranges_cap);
		if (rc != MODULES_AGAIN)
			return rc;
	}
	return -1;
}

int modules_init(void)
{
	static const uint64_t any[2] = { 0, 0 };

	return modules_rescan_all(0, 0, any) < 0 ? -1 : 0;
}

int modules_contains(uint64_t ip)
{
	uint64_t epoch;

	return module_view_contains(ip, &epoch);
}

int modules_write_current(void)
{
	int rc;

	preload_lock_take(&modules_lock);
	rc = modules_table.epoch ? modules_write_full(&modules_table, modules_table.epoch) : -1;
	preload_lock_give(&modules_lock);
	return rc;
}

void modules_close_begin(void)
{
	atomic_fetch_add(&modules_dirty, 2);
}

void modules_close_end(void)
{
	atomic_fetch_add(&modules_close_gen, 1);
	atomic_fetch_or(&modules_dirty, 1);
	atomic_fetch_sub(&modules_dirty, 2);
}

/* Clears bit 0 of modules_dirty after a rescan that began at close
 * generation gen, and sets it again when a dlclose ended since (sequentially
 * consistent: the clear must not pass the load). */
static void modules_dirty_clear(unsigned gen)
{
	atomic_fetch_and(&modules_dirty, ~1);
	if (atomic_load(&modules_close_gen) != gen)
		atomic_fetch_or(&modules_dirty, 1);
}

int modules_unload_unseen(void)
{
	uint64_t counters[2] = { 0, 0 };

	dl_iterate_phdr(modules_counters_one, counters);
	return counters[1] != atomic_load_explicit(&modules_seen_subs, memory_order_relaxed);
}

int modules_refresh(void)
{
	uint64_t entry_epoch = modules_epoch(), counters[2] = { 0, 0 };
	unsigned gen = atomic_load(&modules_close_gen);
	int rc = 0;

	dl_iterate_phdr(modules_counters_one, counters);
	if (!entry_epoch ||
	    atomic_load_explicit(&modules_seen_adds, memory_order_relaxed) != counters[0] ||
	    atomic_load_explicit(&modules_seen_subs, memory_order_relaxed) != counters[1]) {
		rc = modules_rescan_all(entry_epoch, 1, counters);
		if (rc == 1) {
			namespaces_look();
			deep_bind_redirect();
			new_bind_redirect();
		}
	}
	/* after the epoch is published: a capture that sees the bit clear
	 * sees the new epoch */
	modules_dirty_clear(gen);
	return rc;
}

static uintptr_t modules_refresh_here(void *arg)
{
	(void)arg;
	return (uintptr_t)(intptr_t)modules_refresh();
}

int modules_refresh_moved(struct preload_thread *t)
{
	if (!t->capture_off_stack)
		return modules_refresh();
	return (int)(intptr_t)rec_stack_call(t, modules_refresh_here, NULL);
}

void modules_fork_prepare(void)
{
	preload_lock_take(&modules_lock);
}

void modules_fork_parent(void)
{
	preload_lock_give(&modules_lock);
}

void modules_fork_child(void)
{
	preload_lock_reset(&modules_lock);
	modules_written_epoch = 0; /* the child's file has no map yet */
	modules_delta_bytes = 0;
	atomic_store_explicit(&modules_scratch_busy, 0, memory_order_relaxed); /* its taker is gone */
	atomic_store(&modules_dirty, 1); /* no dlclose is under way here: rescan once */
}
