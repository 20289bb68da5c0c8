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

#include "analyze/util/grow.h"

#define STACK_NODES_MAX_ID (1ull << 28) /* refuse ids beyond this: corrupt trace */

/* A node as stack_nodes_get gives it. */
struct stack_node {
	uint64_t ip;        /* return address; for a root 2 * epoch + truncated */
	uint32_t parent;    /* 0 for a root; STACK_NODES_MAX_ID + 1 and beyond:
	                     * no node (never found) */
};

_Static_assert(STACK_NODES_MAX_ID + 2 <= UINT32_MAX, "a node id + 1 fits its parent field");

/* A node as the table keeps it, by id. */
struct stack_node_entry {
	uint32_t parent_plus1; /* parent + 1; 0: id undefined */
	uint32_t ip_index;     /* its ip's index in stack_nodes.ips */
};

/* 8 bytes a node, and 8 bytes (and 4-8 of hash) a distinct instruction
 * pointer: the nodes of a program's stacks repeat few return addresses
 * under many parents (262,145 stacks: 1.22 M nodes, 22 distinct ips), and
 * their 8-byte ips were a third of the nodes' memory.  The array by id is
 * a mapping of its own once large (grow.h), grown in place: one array, not
 * two, so that a lookup reads one cache line and the huge pages' rounding
 * is paid once. */
struct stack_nodes {
	struct grow_big by_id;   /* struct stack_node_entry by id */
	struct grow_big ips;     /* uint64_t: the distinct ips, in the order met */
	size_t ip_count;         /* of them */
	uint32_t *ip_hash;       /* ip -> index + 1, open addressing; owned */
	size_t ip_hash_mask;     /* its slots - 1; 0: none yet */
	size_t capacity;         /* ids below it may be defined */
	size_t id_end;           /* one past the largest id defined; 0: none */
	size_t chain_max_plus1;  /* stack_nodes_chain_max's answer + 1, and
	                          * its max + 2 in chain_limit; 0: not known */
	size_t chain_limit;
};

/* Bit 31 of an entry's parent_plus1, which no parent + 1 reaches: the
 * entry was given over to a user (stack_nodes_take) and names no node. */
#define STACK_NODES_TAKEN (UINT32_C(1) << 31)
_Static_assert(STACK_NODES_MAX_ID + 2 < STACK_NODES_TAKEN, "a parent + 1 is below the bit");

void stack_nodes_init(struct stack_nodes *t);
void stack_nodes_free(struct stack_nodes *t);

/* Records node id (again: the new parent and ip replace the old).  Returns
 * 0, -EINVAL for id 0 or id > STACK_NODES_MAX_ID, -ENOMEM (no node changed). */
int stack_nodes_add(struct stack_nodes *t, uint64_t id, uint64_t parent, uint64_t ip);

/* Whether node id is defined; if so, *node is set. */
static inline bool stack_nodes_get(const struct stack_nodes *t, uint64_t id,
				   struct stack_node *node)
{
	const struct stack_node_entry *e;

	if (id == 0 || id >= t->capacity)
		return false;
	e = &((const struct stack_node_entry *)t->by_id.p)[id];
	if (!e->parent_plus1)
		return false;
	node->parent = e->parent_plus1 - 1;
	node->ip = ((const uint64_t *)t->ips.p)[e->ip_index];
	return true;
}

/* Whether node id's entry was given over (stack_nodes_take); if so, *a
 * and *b are the words it holds. */
static inline bool stack_nodes_taken(const struct stack_nodes *t, uint64_t id, uint32_t *a,
				     uint32_t *b)
{
	const struct stack_node_entry *e;

	if (id == 0 || id >= t->capacity)
		return false;
	e = &((const struct stack_node_entry *)t->by_id.p)[id];
	if (!(e->parent_plus1 & STACK_NODES_TAKEN))
		return false;
	*a = e->parent_plus1 & ~STACK_NODES_TAKEN;
	*b = e->ip_index;
	return true;
}

/* Gives defined node id's entry over to its user's words a (below 2^31)
 * and b, for good: the node is lost (stack_nodes_get and stack_nodes_walk
 * must not be asked of it again), stack_nodes_taken gives a and b.  The
 * site build keeps what it knows of a walked node so (its memo), instead
 * of in an array of its own beside the nodes. */
static inline void stack_nodes_take(struct stack_nodes *t, uint64_t id, uint32_t a, uint32_t b)
{
	struct stack_node_entry *e = &((struct stack_node_entry *)t->by_id.p)[id];

	e->parent_plus1 = a | STACK_NODES_TAKEN;
	e->ip_index = b;
}

/*
 * The most defined nodes in one chain below a root (a chain ends at a root
 * or an undefined node, which do not count), or max + 1 when a chain has
 * more than max (or is a cycle), or SIZE_MAX on ENOMEM; max at most
 * 65,000.  Known again without a pass until a node is added.  No node may
 * be taken (stack_nodes_take).
 */
size_t stack_nodes_chain_max(struct stack_nodes *t, size_t max);

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
