/*
 * analyze/read/module_tree.c - persistent AVL trees of modules by (lowest
 * address, id) in one node arena, and the lookup of the module holding an
 * instruction pointer.
 *
 * A change copies the nodes on its path (and the few a rotation touches);
 * the nodes it made itself are private to it until it returns, so it
 * changes those in place.  Nothing here allocates except
 * module_forest_reserve: the changes run in room reserved before them.
 * Each node keeps the range of addresses its subtree's modules can hold,
 * so an ip in no module (or in interleaved segments) is found without
 * visiting every module.
 */
#include <errno.h>
#include <stdlib.h>

#include "analyze/read/module_tree.h"
#include "analyze/read/modules.h"

void module_forest_init(struct module_forest *f)
{
	f->nodes = NULL;
	f->count = 0;
	f->cap = 0;
}

void module_forest_free(struct module_forest *f)
{
	free(f->nodes);
	module_forest_init(f);
}

int module_forest_reserve(struct module_forest *f, size_t n)
{
	size_t used = f->count ? f->count : 1, cap = f->cap ? f->cap : 64;
	struct module_node *grown;

	if (n > UINT32_MAX - used)
		return -E2BIG;
	if (used + n <= f->cap)
		return 0;
	while (cap < used + n)
		cap *= 2;
	grown = realloc(f->nodes, cap * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	f->nodes = grown;
	f->cap = cap;
	f->count = used;
	return 0;
}

size_t module_tree_change_nodes(size_t count)
{
	size_t bits = 0;

	/* An AVL tree of count nodes is less than 1.45 log2(count + 2) high;
	 * each level copies its node and at most two for a rotation. */
	for (size_t c = count + 2; c; c >>= 1)
		bits++;
	return 3 * ((3 * bits + 1) / 2 + 2) + 1;
}

int module_key_cmp(const struct module *a, const struct module *b)
{
	if (a->low != b->low)
		return a->low < b->low ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int module_holds_ip(const struct module *mod, uint64_t ip)
{
	uint64_t rel = ip - mod->bias;

	for (size_t k = 0; k < mod->segment_count; k++) {
		if (rel - mod->segments[k].start < mod->segments[k].size)
			return 1;
	}
	return 0;
}

/* One change in progress: nodes from fresh on are its own. */
struct tree_change {
	struct module_forest *f;
	module_pool_t pool;
	size_t fresh;
};

static uint32_t node_height(const struct module_forest *f, uint32_t n)
{
	return n ? f->nodes[n].height : 0;
}

/* Sets n's height and reach from its module and children. */
static void node_update(const struct tree_change *c, uint32_t n)
{
	struct module_node *node = &c->f->nodes[n];
	const struct module *mod = c->pool[node->module];
	uint32_t hl = node_height(c->f, node->left), hr = node_height(c->f, node->right);

	node->reach_low = mod->reach_low;
	node->reach_high = mod->reach_high;
	for (int side = 0; side < 2; side++) {
		uint32_t child = side ? node->right : node->left;

		if (!child)
			continue;
		if (c->f->nodes[child].reach_low < node->reach_low)
			node->reach_low = c->f->nodes[child].reach_low;
		if (c->f->nodes[child].reach_high > node->reach_high)
			node->reach_high = c->f->nodes[child].reach_high;
	}
	node->height = 1 + (hl > hr ? hl : hr);
}

static uint32_t node_new(struct tree_change *c, uint32_t module, uint32_t left, uint32_t right)
{
	uint32_t n = (uint32_t)c->f->count++;

	c->f->nodes[n] = (struct module_node){.left = left, .right = right, .module = module};
	node_update(c, n);
	return n;
}

/* n itself when the change made it, else a copy of it the change owns. */
static uint32_t node_own(struct tree_change *c, uint32_t n)
{
	uint32_t copy;

	if (n >= c->fresh)
		return n;
	copy = (uint32_t)c->f->count++;
	c->f->nodes[copy] = c->f->nodes[n];
	return copy;
}

/* Rotations of an owned node; each returns the subtree's new root. */
static uint32_t node_rotate_right(struct tree_change *c, uint32_t n)
{
	uint32_t l = node_own(c, c->f->nodes[n].left);

	c->f->nodes[n].left = c->f->nodes[l].right;
	node_update(c, n);
	c->f->nodes[l].right = n;
	node_update(c, l);
	return l;
}

static uint32_t node_rotate_left(struct tree_change *c, uint32_t n)
{
	uint32_t r = node_own(c, c->f->nodes[n].right);

	c->f->nodes[n].right = c->f->nodes[r].left;
	node_update(c, n);
	c->f->nodes[r].left = n;
	node_update(c, r);
	return r;
}

/* Restores the AVL balance at an owned node whose subtrees are balanced
 * and differ in height by at most 2. */
static uint32_t node_rebalance(struct tree_change *c, uint32_t n)
{
	struct module_forest *f = c->f;
	uint32_t l = f->nodes[n].left, r = f->nodes[n].right, side;

	node_update(c, n);
	if (node_height(f, l) > node_height(f, r) + 1) {
		if (node_height(f, f->nodes[l].left) < node_height(f, f->nodes[l].right)) {
			side = node_rotate_left(c, node_own(c, l));
			f->nodes[n].left = side;
		}
		return node_rotate_right(c, n);
	}
	if (node_height(f, r) > node_height(f, l) + 1) {
		if (node_height(f, f->nodes[r].right) < node_height(f, f->nodes[r].left)) {
			side = node_rotate_right(c, node_own(c, r));
			f->nodes[n].right = side;
		}
		return node_rotate_left(c, n);
	}
	return n;
}

static uint32_t node_build(struct tree_change *c, const uint32_t *ids, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2;
	uint32_t left, right;

	if (lo >= hi)
		return 0;
	left = node_build(c, ids, lo, mid);
	right = node_build(c, ids, mid + 1, hi);
	return node_new(c, ids[mid], left, right);
}

uint32_t module_tree_build(struct module_forest *f, module_pool_t pool, const uint32_t *ids,
			   size_t n)
{
	struct tree_change c = {f, pool, f->count};

	return node_build(&c, ids, 0, n);
}

static uint32_t node_insert(struct tree_change *c, uint32_t n, uint32_t id)
{
	uint32_t child;

	if (!n)
		return node_new(c, id, 0, 0);
	n = node_own(c, n);
	if (module_key_cmp(c->pool[id], c->pool[c->f->nodes[n].module]) < 0) {
		child = node_insert(c, c->f->nodes[n].left, id);
		c->f->nodes[n].left = child;
	} else {
		child = node_insert(c, c->f->nodes[n].right, id);
		c->f->nodes[n].right = child;
	}
	return node_rebalance(c, n);
}

uint32_t module_tree_insert(struct module_forest *f, module_pool_t pool, uint32_t root,
			    uint32_t id)
{
	struct tree_change c = {f, pool, f->count};

	return node_insert(&c, root, id);
}

/* The subtree of n without its first module, whose index goes to *first. */
static uint32_t node_remove_first(struct tree_change *c, uint32_t n, uint32_t *first)
{
	uint32_t child;

	if (!c->f->nodes[n].left) {
		*first = c->f->nodes[n].module;
		return c->f->nodes[n].right;
	}
	n = node_own(c, n);
	child = node_remove_first(c, c->f->nodes[n].left, first);
	c->f->nodes[n].left = child;
	return node_rebalance(c, n);
}

static uint32_t node_remove(struct tree_change *c, uint32_t n, const struct module *key)
{
	int cmp;
	uint32_t child, first;

	if (!n)
		return 0;
	cmp = module_key_cmp(key, c->pool[c->f->nodes[n].module]);
	if (cmp == 0 && (!c->f->nodes[n].left || !c->f->nodes[n].right))
		return c->f->nodes[n].left ? c->f->nodes[n].left : c->f->nodes[n].right;
	n = node_own(c, n);
	if (cmp == 0) {
		child = node_remove_first(c, c->f->nodes[n].right, &first);
		c->f->nodes[n].right = child;
		c->f->nodes[n].module = first;
	} else if (cmp < 0) {
		child = node_remove(c, c->f->nodes[n].left, key);
		c->f->nodes[n].left = child;
	} else {
		child = node_remove(c, c->f->nodes[n].right, key);
		c->f->nodes[n].right = child;
	}
	return node_rebalance(c, n);
}

uint32_t module_tree_remove(struct module_forest *f, module_pool_t pool, uint32_t root,
			    uint32_t id)
{
	struct tree_change c = {f, pool, f->count};

	return node_remove(&c, root, pool[id]);
}

int module_tree_holds(const struct module_forest *f, module_pool_t pool, uint32_t root,
		      uint32_t id)
{
	uint32_t n = root;

	while (n) {
		int cmp = module_key_cmp(pool[id], pool[f->nodes[n].module]);

		if (cmp == 0)
			return f->nodes[n].module == id;
		n = cmp < 0 ? f->nodes[n].left : f->nodes[n].right;
	}
	return 0;
}

size_t module_tree_list(const struct module_forest *f, uint32_t root, uint32_t *out)
{
	size_t n = 0;

	if (!root)
		return 0;
	n = module_tree_list(f, f->nodes[root].left, out);
	out[n++] = f->nodes[root].module;
	return n + module_tree_list(f, f->nodes[root].right, out + n);
}

/* The first module by (low, id) in the subtree of n that holds ip. */
static const struct module *node_first_holder(const struct module_forest *f, module_pool_t pool,
					      uint32_t n, uint64_t ip)
{
	const struct module *mod;

	if (!n || ip < f->nodes[n].reach_low || ip > f->nodes[n].reach_high)
		return NULL;
	mod = node_first_holder(f, pool, f->nodes[n].left, ip);
	if (mod)
		return mod;
	if (module_holds_ip(pool[f->nodes[n].module], ip))
		return pool[f->nodes[n].module];
	return node_first_holder(f, pool, f->nodes[n].right, ip);
}

/*
 * Modules are ordered by lowest address, so the module holding ip is
 * normally the last one starting at or below it; a miss (modules whose
 * segments interleave, ips in no module) takes the first that holds it.
 */
const struct module *module_tree_find(const struct module_forest *f, module_pool_t pool,
				      uint32_t root, uint64_t ip)
{
	uint32_t n = root, last = 0;

	while (n) {
		if (pool[f->nodes[n].module]->low <= ip) {
			last = n;
			n = f->nodes[n].right;
		} else {
			n = f->nodes[n].left;
		}
	}
	if (last && module_holds_ip(pool[f->nodes[last].module], ip))
		return pool[f->nodes[last].module];
	return node_first_holder(f, pool, root, ip);
}
