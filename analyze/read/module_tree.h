/*
 * analyze/read/module_tree.h - persistent AVL trees of modules ordered by
 * lowest address, for the module maps (modules.h): a change copies only the
 * path to the node it changes, so a map made from another by a few loads
 * and unloads costs a few nodes per change, not a copy of the whole map.
 *
 * Every tree lives in one node arena, a forest, and shares its unchanged
 * subtrees with the trees it was made from; nodes are never freed before
 * the forest.  Nodes name modules by their index in the caller's pool, and
 * modules are ordered by (low, id), unique within one map.
 */
#ifndef MPROF_ANALYZE_MODULE_TREE_H
#define MPROF_ANALYZE_MODULE_TREE_H

#include <stddef.h>
#include <stdint.h>

struct module;

/* A tree node; 0 is the empty tree. */
struct module_node {
	uint64_t reach_low;     /* the lowest reach_low of the subtree's modules */
	uint64_t reach_high;    /* the highest reach_high of them */
	uint32_t left, right;   /* subtrees (0: none) */
	uint32_t module;        /* index of its module in the pool */
	uint32_t height;        /* 1 for a leaf */
};

struct module_forest {
	struct module_node *nodes; /* nodes[0] unused: index 0 is no node */
	size_t count;              /* nodes made, the unused one included */
	size_t cap;
};

/* Modules never change after they are parsed, so trees name them by index. */
typedef struct module *const *module_pool_t;

/* Orders modules by lowest address, then id: -1, 0 or 1. */
int module_key_cmp(const struct module *a, const struct module *b);

/* Sets f empty (no allocation). */
void module_forest_init(struct module_forest *f);

/* Frees every node of every tree of f and sets it empty. */
void module_forest_free(struct module_forest *f);

/* Makes room for n more nodes, so that the calls below make no allocation
 * while they take at most n.  Returns 0, -ENOMEM, or -E2BIG when the
 * nodes would not fit in 32-bit indices. */
int module_forest_reserve(struct module_forest *f, size_t n);

/* Nodes a change (one insert or remove) makes at most in a tree of
 * at most count modules. */
size_t module_tree_change_nodes(size_t count);

/* A balanced tree of the modules pool[ids[0..n)], sorted by (low, id);
 * takes n nodes (reserved).  Returns its root. */
uint32_t module_tree_build(struct module_forest *f, module_pool_t pool, const uint32_t *ids,
			   size_t n);

/* The tree of root with pool[id] added (not in it; reserved room).
 * Returns the new root; root's tree is unchanged. */
uint32_t module_tree_insert(struct module_forest *f, module_pool_t pool, uint32_t root,
			    uint32_t id);

/* The tree of root without the module of pool index id, which it holds
 * (module_tree_holds); reserved room.  Returns the new root. */
uint32_t module_tree_remove(struct module_forest *f, module_pool_t pool, uint32_t root,
			    uint32_t id);

/* Whether the tree of root holds the module of pool index id. */
int module_tree_holds(const struct module_forest *f, module_pool_t pool, uint32_t root,
		      uint32_t id);

/* Writes the pool indices of the tree's modules to out, by (low, id), and
 * returns how many (out has room for all). */
size_t module_tree_list(const struct module_forest *f, uint32_t root, uint32_t *out);

/* The module holding ip in the tree of root: the last one whose low is at
 * or below ip when it holds ip, else the first by (low, id) that does;
 * NULL when none does. */
const struct module *module_tree_find(const struct module_forest *f, module_pool_t pool,
				      uint32_t root, uint64_t ip);

#endif
