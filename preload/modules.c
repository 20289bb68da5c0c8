/*
 * preload/modules.c - module maps and their MODULES and MODULES_DELTA records.
 *
 * Owns the published maps (immutable once published, kept mapped for
 * lock-free readers) and the epoch counter.  A scan walks dl_iterate_phdr
 * without holding any lock of ours (a thread inside a dl_iterate_phdr
 * callback of the program may call malloc, and must then never wait for a
 * lock held by a thread that waits for the loader); publishing takes the
 * modules lock, writes the MODULES record into the meta stream first (under
 * the meta lock, taken inside the modules lock) and then publishes the map,
 * so no stack of an epoch is interned before its map is in the trace.  A map
 * whose base (the map before it) is in the process file goes in as a delta
 * from it when that is smaller, so that N libraries loaded one by one cost
 * O(N) bytes of maps, not O(N^2); the whole map goes in again once the
 * deltas since the last one would outweigh it, so that a reader that lost
 * a delta recovers there.  Must never call malloc.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "preload/deep_bind.h"
#include "preload/diag.h"
#include "preload/lock.h"
#include "preload/mem.h"
#include "preload/meta.h"
#include "preload/modules.h"
#include "preload/namespaces.h"
#include "preload/rec_stack.h"
#include "preload/ring.h"
#include "trace/modules_delta.h"

#define MODULES_FIRST_BODY_BYTES (64u << 10)
#define MODULES_FIRST_RANGES 1024u

struct module_range {
	uint64_t start, end;
};

/* One scan in progress: encodes modules into body, ranges into ranges. */
struct modules_scan {
	uint8_t *body;
	size_t body_cap, body_len, body_need;
	struct module_range *ranges;
	uint32_t ranges_cap, nranges, ranges_need;
	uint32_t count, index;
	uint64_t adds, subs;
	int overflow;
};

_Atomic int modules_dirty;
_Atomic(struct module_map *) modules_current;
static struct preload_lock modules_lock;
/* The epoch of the last map whose record went into this process's file (0:
 * none), which a delta may then name as its base; under modules_lock. */
static uint64_t modules_written_epoch;
/* Payload bytes of the last MODULES record of this process file and of the
 * MODULES_DELTA records since; a whole map goes in again once the deltas
 * would pass that record's size, so that a reader that lost a delta recovers
 * there, and the whole maps cost at most twice the deltas' bytes (plus the
 * first map).  Under modules_lock. */
static uint64_t modules_full_bytes_written, modules_delta_bytes;

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

/*
 * A module opened by a relative name (dlopen("./x.so")) is listed under
 * that name; the symbolizer runs later, elsewhere.  Asks the kernel which
 * file backs the module's first executable segment instead.  Returns path
 * itself when it is absolute or the kernel does not say (the vdso).
 */
static const char *modules_absolute_path(const struct dl_phdr_info *info, const char *path,
					 char *buf, size_t cap)
{
	char link[96], *p;
	ssize_t n;

	if (path[0] == '/' || path[0] == '\0')
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

static int modules_scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct modules_scan *sc = arg;
	const char *path = info->dlpi_name ? info->dlpi_name : "";
	char resolved[PATH_MAX];
	const uint8_t *id;
	size_t id_len, path_len, need;
	uint32_t nexec = 0;
	uint8_t *p;

	if (sc->index++ == 0) {
		if (modules_has_counters(size)) {
			sc->adds = info->dlpi_adds;
			sc->subs = info->dlpi_subs;
		}
		if (!*path)
			path = preload_proc.exe; /* the main program */
	}
	path = modules_absolute_path(info, path, resolved, sizeof(resolved));
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X))
			nexec++;
	modules_build_id(info, &id, &id_len);
	path_len = strlen(path);
	need = 4 * VARINT_MAX_BYTES + path_len + id_len + 2 * VARINT_MAX_BYTES * nexec;
	if (sc->overflow || sc->body_len + need > sc->body_cap ||
	    sc->nranges + nexec > sc->ranges_cap) {
		sc->overflow = 1;
		sc->body_need += need;
		sc->ranges_need += nexec;
		return 0;
	}
	sc->body_need += need;
	sc->ranges_need += nexec;
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
		sc->ranges[sc->nranges++] = (struct module_range){
			info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz
		};
	}
	sc->body_len = (size_t)(p - sc->body);
	sc->count++;
	return 0;
}

/* Moves r[i] down the max-heap r[0..n) by start until its children are
 * not bigger. */
static void modules_sift_down(struct module_range *r, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t big = i, left = 2 * i + 1, right = left + 1;
		struct module_range v;

		if (left < n && r[left].start > r[big].start)
			big = left;
		if (right < n && r[right].start > r[big].start)
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
static void modules_sort_ranges(struct module_range *r, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		modules_sift_down(r, i, n);
	for (uint32_t end = n; end-- > 1;) {
		struct module_range v = r[0];

		r[0] = r[end];
		r[end] = v;
		modules_sift_down(r, 0, end);
	}
}

/* The end of the module entry (of our own encoding) at p. */
static const uint8_t *modules_entry_end(const uint8_t *p, const uint8_t *end)
{
	uint64_t v = 0;

	varint_get_u64(&p, end, &v); /* load bias */
	varint_get_u64(&p, end, &v); /* path */
	p += v;
	varint_get_u64(&p, end, &v); /* build-id */
	p += v;
	varint_get_u64(&p, end, &v); /* segments */
	for (uint64_t i = 0; i < 2 * v; i++)
		varint_get_u64(&p, end, &(uint64_t){ 0 });
	return p;
}

/* Fills off[0..count] with where each of map's entries starts in its body,
 * and where the last ends. */
static void modules_index_body(const struct module_map *map, uint32_t *off)
{
	const uint8_t *p = map->body, *end = map->body + map->body_bytes;

	for (uint32_t i = 0; i < map->count; i++) {
		off[i] = (uint32_t)(p - map->body);
		p = modules_entry_end(p, end);
	}
	off[map->count] = (uint32_t)map->body_bytes;
}

/* Copies a finished scan into a new, unpublished map. */
static struct module_map *modules_map_from(const struct modules_scan *sc)
{
	size_t bytes = sizeof(struct module_map) + sc->nranges * sizeof(struct module_range) +
		       sc->count * sizeof(uint32_t) + sc->body_len;
	struct module_map *m = preload_mem_map(bytes);

	if (!m)
		return NULL;
	m->map_bytes = bytes;
	m->adds = sc->adds;
	m->subs = sc->subs;
	m->count = sc->count;
	m->nranges = sc->nranges;
	m->body_bytes = sc->body_len;
	m->ranges = (struct module_range *)(m + 1);
	m->ids = (uint32_t *)(m->ranges + sc->nranges);
	m->body = (uint8_t *)(m->ids + sc->count);
	memcpy(m->ranges, sc->ranges, sc->nranges * sizeof(struct module_range));
	memcpy(m->body, sc->body, sc->body_len);
	modules_sort_ranges(m->ranges, m->nranges);
	return m;
}

/* Scans the loaded modules into a new map; NULL when out of memory. */
static struct module_map *modules_scan(void)
{
	size_t body_cap = MODULES_FIRST_BODY_BYTES;
	uint32_t ranges_cap = MODULES_FIRST_RANGES;

	for (int attempt = 0; attempt < 4; attempt++) {
		size_t bytes = body_cap + ranges_cap * sizeof(struct module_range);
		struct modules_scan sc = { 0 };
		struct module_map *m;
		uint8_t *scratch = preload_mem_map(bytes);

		if (!scratch)
			return NULL;
		sc.ranges = (struct module_range *)scratch;
		sc.ranges_cap = ranges_cap;
		sc.body = scratch + ranges_cap * sizeof(struct module_range);
		sc.body_cap = body_cap;
		dl_iterate_phdr(modules_scan_one, &sc);
		m = sc.overflow ? NULL : modules_map_from(&sc);
		preload_mem_unmap(scratch, bytes);
		if (!sc.overflow)
			return m;
		body_cap = 2 * sc.body_need;
		ranges_cap = 2 * sc.ranges_need;
	}
	return NULL;
}

int modules_init(void)
{
	struct module_map *m = modules_scan();

	if (!m)
		return -1;
	m->epoch = 1;
	atomic_store_explicit(&modules_current, m, memory_order_release);
	return 0;
}

int modules_contains(uint64_t ip)
{
	const struct module_map *m = atomic_load_explicit(&modules_current, memory_order_acquire);
	uint32_t lo = 0, hi;

	if (!m)
		return 1;
	hi = m->nranges;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ip < m->ranges[mid].start)
			hi = mid;
		else if (ip >= m->ranges[mid].end)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/* Bytes of map's MODULES payload. */
static size_t modules_full_bytes(const struct module_map *map)
{
	return varint_len_u64(map->epoch) + varint_len_u64(map->count) + map->body_bytes;
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

/* Writes map whole as a MODULES record, its modules taking ids 0 and up in
 * body order; 0 or -1.  Under modules_lock. */
static int modules_write_full(struct module_map *map)
{
	uint8_t head[2 * VARINT_MAX_BYTES], *p = head;
	int rc;

	p = varint_put_u64(p, map->epoch);
	p = varint_put_u64(p, map->count);
	rc = modules_put_record(TRACE_REC_EXT_MODULES, head, (size_t)(p - head), map->body,
				map->body_bytes);
	for (uint32_t i = 0; i < map->count; i++)
		map->ids[i] = i;
	map->next_id = map->count;
	modules_written_epoch = rc == 0 ? map->epoch : 0;
	modules_full_bytes_written = modules_full_bytes(map);
	modules_delta_bytes = 0;
	return rc;
}

/* FNV-1a of a module entry: equal entries are the same module. */
static uint64_t modules_entry_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/* Scratch of one delta: where the base's and the next map's entries start,
 * a hash table of the base's, which of both matched, the removed ids, and
 * the next map's body, offsets and ids in their new order; one mapping. */
struct modules_delta_work {
	uint8_t *mem;
	size_t mem_bytes;
	uint32_t *slots, mask;
	uint8_t *base_kept, *next_kept;
	uint64_t *removed;
	uint32_t nremoved, nkept;
	uint32_t *base_off, *next_off;
	uint8_t *body;
	uint32_t *offsets;
	uint32_t *ids;
	uint8_t *head;               /* the record's head */
};

/* Maps w's scratch for a delta from base to next and finds where their
 * entries start; 0, or -1 when out of memory. */
static int modules_delta_work_map(struct modules_delta_work *w, const struct module_map *base,
				  const struct module_map *next)
{
	uint32_t nslots = 16;

	while (nslots < 2 * base->count)
		nslots *= 2;
	w->mem_bytes = base->count * sizeof(uint64_t) + nslots * sizeof(uint32_t) +
		       (base->count + 2 * next->count + 3) * sizeof(uint32_t) +
		       next->count * sizeof(uint32_t) + base->count + next->count +
		       next->body_bytes + (4 + base->count) * VARINT_MAX_BYTES;
	w->mem = preload_mem_map(w->mem_bytes);
	if (!w->mem)
		return -1;
	w->removed = (uint64_t *)w->mem;
	w->slots = (uint32_t *)(w->removed + base->count);
	w->mask = nslots - 1;
	w->base_off = w->slots + nslots;
	w->next_off = w->base_off + base->count + 1;
	w->offsets = w->next_off + next->count + 1;
	w->ids = w->offsets + next->count + 1;
	w->base_kept = (uint8_t *)(w->ids + next->count);
	w->next_kept = w->base_kept + base->count;
	w->body = w->next_kept + next->count;
	w->head = w->body + next->body_bytes;
	modules_index_body(base, w->base_off);
	modules_index_body(next, w->next_off);
	return 0;
}

/* Marks the entries of base and next that are the same module. */
static void modules_delta_match(struct modules_delta_work *w, const struct module_map *base,
				const struct module_map *next)
{
	for (uint32_t i = 0; i < base->count; i++) {
		const uint8_t *e = base->body + w->base_off[i];
		uint32_t k = (uint32_t)modules_entry_hash(e, w->base_off[i + 1] - w->base_off[i]);

		while (w->slots[k & w->mask])
			k++;
		w->slots[k & w->mask] = i + 1;
	}
	for (uint32_t j = 0; j < next->count; j++) {
		const uint8_t *e = next->body + w->next_off[j];
		uint32_t len = w->next_off[j + 1] - w->next_off[j];
		uint32_t k = (uint32_t)modules_entry_hash(e, len), i;

		for (; (i = w->slots[k & w->mask]) != 0; k++) {
			i--;
			if (!w->base_kept[i] && w->base_off[i + 1] - w->base_off[i] == len &&
			    memcmp(base->body + w->base_off[i], e, len) == 0) {
				w->base_kept[i] = 1;
				w->next_kept[j] = 1;
				break;
			}
		}
	}
}

/*
 * Orders next's entries as a reader of a delta from base has them (the
 * kept ones in base's order, then the added ones) into w's body, offsets
 * and ids, and lists the ids of base's modules that left.  A map's ids
 * ascend in its order (those of a whole map are 0 and up, a delta's added
 * ones start above all its base's), so the removed ids are listed
 * ascending, as the record wants them.
 */
static void modules_delta_order(struct modules_delta_work *w, const struct module_map *base,
				const struct module_map *next)
{
	uint32_t n = 0;
	size_t at = 0;

	w->nremoved = 0;
	for (uint32_t i = 0; i < base->count; i++) {
		uint32_t len = w->base_off[i + 1] - w->base_off[i];

		if (!w->base_kept[i]) {
			w->removed[w->nremoved++] = base->ids[i];
			continue;
		}
		w->offsets[n] = (uint32_t)at;
		w->ids[n++] = base->ids[i];
		memcpy(w->body + at, base->body + w->base_off[i], len);
		at += len;
	}
	w->nkept = n;
	for (uint32_t j = 0; j < next->count; j++) {
		uint32_t len = w->next_off[j + 1] - w->next_off[j];

		if (w->next_kept[j])
			continue;
		w->offsets[n] = (uint32_t)at;
		w->ids[n] = base->next_id + (n - w->nkept);
		n++;
		memcpy(w->body + at, next->body + w->next_off[j], len);
		at += len;
	}
	w->offsets[n] = (uint32_t)at;
}

/*
 * Writes next as a MODULES_DELTA record from base (whose record is in the
 * process file) when it is smaller than the whole map and the deltas since
 * the last whole map stay within that map's size, taking w's order and ids
 * into next.  Returns 0 written, 1 when the whole map should be
 * written instead, -1 when out of memory or not written.  Under
 * modules_lock.
 */
static int modules_write_delta(const struct module_map *base, struct module_map *next)
{
	struct modules_delta_work w;
	uint32_t nadded;
	size_t head_bytes, added_bytes;
	int rc;

	if (base->next_id + next->count > UINT32_MAX || modules_delta_work_map(&w, base, next) < 0)
		return -1;
	modules_delta_match(&w, base, next);
	modules_delta_order(&w, base, next);
	nadded = next->count - w.nkept;
	added_bytes = next->body_bytes - w.offsets[w.nkept];
	head_bytes = modules_delta_head_bytes(next->epoch, base->epoch, w.removed, w.nremoved,
					      nadded);
	if (head_bytes + added_bytes >= modules_full_bytes(next) ||
	    modules_delta_bytes + head_bytes + added_bytes > modules_full_bytes_written) {
		preload_mem_unmap(w.mem, w.mem_bytes);
		return 1;
	}
	memcpy(next->body, w.body, next->body_bytes);
	memcpy(next->ids, w.ids, next->count * sizeof(uint32_t));
	next->next_id = base->next_id + nadded;
	modules_delta_put_head(w.head, next->epoch, base->epoch, w.removed, w.nremoved, nadded);
	rc = modules_put_record(TRACE_REC_EXT_MODULES_DELTA, w.head, head_bytes,
				next->body + w.offsets[w.nkept], added_bytes);
	preload_mem_unmap(w.mem, w.mem_bytes);
	modules_written_epoch = rc == 0 ? next->epoch : 0;
	modules_delta_bytes += head_bytes + added_bytes;
	return rc;
}

/* Writes next's record: a delta from base when base's record is in the
 * process file and the delta is smaller, else the whole map.  Under
 * modules_lock. */
static void modules_write_next(const struct module_map *base, struct module_map *next)
{
	if (base && base->epoch == modules_written_epoch &&
	    modules_write_delta(base, next) == 0)
		return;
	modules_write_full(next);
}

int modules_write_current(void)
{
	struct module_map *m = atomic_load_explicit(&modules_current, memory_order_acquire);
	int rc;

	if (!m)
		return -1;
	preload_lock_take(&modules_lock);
	m = atomic_load_explicit(&modules_current, memory_order_relaxed);
	rc = modules_write_full(m);
	preload_lock_give(&modules_lock);
	return rc;
}

int modules_refresh(void)
{
	struct module_map *cur = atomic_load_explicit(&modules_current, memory_order_acquire);
	uint64_t entry_epoch = cur ? cur->epoch : 0, counters[2] = { 0, 0 };
	struct module_map *next;

	atomic_store_explicit(&modules_dirty, 0, memory_order_relaxed);
	dl_iterate_phdr(modules_counters_one, counters);
	if (cur && cur->adds == counters[0] && cur->subs == counters[1])
		return 0;
	next = modules_scan();
	if (!next)
		return -1;
	preload_lock_take(&modules_lock);
	cur = atomic_load_explicit(&modules_current, memory_order_relaxed);
	if (cur && cur->adds == next->adds && cur->subs == next->subs) {
		preload_lock_give(&modules_lock);
		preload_mem_unmap(next, next->map_bytes);
		return cur->epoch != entry_epoch;
	}
	next->epoch = (cur ? cur->epoch : 0) + 1;
	modules_write_next(cur, next);
	atomic_store_explicit(&modules_current, next, memory_order_release);
	preload_lock_give(&modules_lock);
	namespaces_look();
	deep_bind_redirect();
	return 1;
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
}
