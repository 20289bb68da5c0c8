/*
 * analyze/output/stack_tree.h - call stacks merged into a tree (a trie from
 * the root frame down), for the formats that draw or list merged stacks
 * (folded, flamegraph).  A node is one frame under one path of callers;
 * what a node stands for is the caller's key (a frame id, a name id, ...).
 * Stacks that end at the same node are summed there.
 */
#ifndef MPROF_ANALYZE_OUTPUT_STACK_TREE_H
#define MPROF_ANALYZE_OUTPUT_STACK_TREE_H

#include <stddef.h>
#include <stdint.h>

#define STACK_TREE_ROOT 0u        /* the node above every stack's first frame */
#define STACK_TREE_NONE UINT32_MAX

struct stack_tree_node {
	uint32_t key;             /* the caller's key of the frame (root: NONE) */
	uint32_t parent;          /* NONE for the root */
	uint64_t self_value;      /* summed over the stacks that end here */
	uint64_t self_count;      /* a second number summed the same way */
};

struct stack_tree {
	struct stack_tree_node *nodes; /* [0] is the root; owned */
	size_t count, cap;
	uint32_t *hash;           /* (parent, key) -> node index + 1; owned */
	size_t hash_mask;
	uint32_t *order;          /* stack_tree_sort: depth-first order; owned */
	uint32_t *depth;          /* stack_tree_sort: per node, 0 for the root */
};

/* An empty tree (the root only).  Returns 0 or -ENOMEM. */
int stack_tree_init(struct stack_tree *t);

void stack_tree_free(struct stack_tree *t);

/*
 * Adds a stack of n frames, keys[0] the outermost (root side), with value
 * and count added to its last node (the root when n is 0).  Returns 0, or
 * -ENOMEM (the tree is left as it was before the missing node) or
 * -EOVERFLOW (more than 2^32 - 2 nodes).
 */
int stack_tree_add(struct stack_tree *t, const uint32_t *keys, size_t n, uint64_t value,
		   uint64_t count);

/*
 * Puts the nodes in depth-first order into t->order (t->count entries, the
 * root first), a node's children by ascending key, and each node's depth
 * into t->depth.  Call once, after the last add.  Returns 0 or -ENOMEM.
 */
int stack_tree_sort(struct stack_tree *t);

#endif
