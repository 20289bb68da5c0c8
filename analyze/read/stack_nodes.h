/*
 * analyze/read/stack_nodes.h - the call-stack prefix tree as the trace defines it
 * (STACK records: id -> parent id + instruction pointer; roots carry the
 * module epoch and the truncation flag, see trace/format.h).
 *
 * Ids are dense from 1 within one process's trace, so the table is an array
 * indexed by id.  Memory grows with the number of distinct stack nodes.
 */
#ifndef MPROF_ANALYZE_STACK_NODES_H
#define MPROF_ANALYZE_STACK_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STACK_NODES_MAX_ID (1ull << 28) /* refuse ids beyond this: corrupt trace */

/* 16 bytes (ids fit 32 bits): python3's report held 32 k of them at its
 * peak, 768 KiB at 24 bytes each. */
struct stack_node {
	uint64_t ip;        /* return address; for a root 2 * epoch + truncated */
	uint32_t parent;    /* 0 for a root; UINT32_MAX: beyond any id (never found) */
	bool defined;
};

_Static_assert(STACK_NODES_MAX_ID <= UINT32_MAX, "a node id fits its parent field");

struct stack_nodes {
	struct stack_node *nodes; /* indexed by id, owned */
	size_t capacity;
};

void stack_nodes_init(struct stack_nodes *t);
void stack_nodes_free(struct stack_nodes *t);

/* Records node id.  Returns 0, -EINVAL for id 0 or id > STACK_NODES_MAX_ID,
 * -ENOMEM. */
int stack_nodes_add(struct stack_nodes *t, uint64_t id, uint64_t parent, uint64_t ip);

/* The node with this id, or NULL when it was never defined. */
const struct stack_node *stack_nodes_get(const struct stack_nodes *t, uint64_t id);

/*
 * Walks from leaf id to its root.  Fills path[0..*depth) with the ids of
 * the nodes that carry frames (the root carries none), leaf (the
 * allocation's caller) first, at most max; stores the root's epoch and
 * truncation flag (also set when the chain is longer than max).  Returns 0,
 * or -ENOENT when a node on the way is undefined or the chain is longer
 * than 4096 (a cycle).
 */
int stack_nodes_walk(const struct stack_nodes *t, uint64_t id, uint32_t *path, size_t max,
		     size_t *depth, uint64_t *epoch, bool *truncated);

#endif
