/*
 * analyze/read/stack_nodes.c - the call-stack prefix tree table, see
 * stack_nodes.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/util/grow.h"
#include "analyze/read/stack_nodes.h"

#define WALK_LIMIT 4096

void stack_nodes_init(struct stack_nodes *t)
{
	t->nodes = NULL;
	t->capacity = 0;
}

void stack_nodes_free(struct stack_nodes *t)
{
	free(t->nodes);
	stack_nodes_init(t);
}

int stack_nodes_add(struct stack_nodes *t, uint64_t id, uint64_t parent, uint64_t ip)
{
	if (id == 0 || id > STACK_NODES_MAX_ID)
		return -EINVAL;
	if (id >= t->capacity) {
		struct stack_node *v = grow_zeroed(t->nodes, &t->capacity, (size_t)id, sizeof(*v),
						   1024);

		if (!v)
			return -ENOMEM;
		t->nodes = v;
	}
	/* a parent beyond any id stays one that no lookup finds */
	t->nodes[id].parent = parent <= STACK_NODES_MAX_ID ? (uint32_t)parent : UINT32_MAX;
	t->nodes[id].ip = ip;
	t->nodes[id].defined = true;
	return 0;
}

const struct stack_node *stack_nodes_get(const struct stack_nodes *t, uint64_t id)
{
	if (id == 0 || id >= t->capacity || !t->nodes[id].defined)
		return NULL;
	return &t->nodes[id];
}

int stack_nodes_walk(const struct stack_nodes *t, uint64_t id, uint32_t *path, size_t max,
		     size_t *depth, uint64_t *epoch, bool *truncated)
{
	size_t n = 0;

	for (int steps = 0; steps < WALK_LIMIT; steps++) {
		const struct stack_node *node = stack_nodes_get(t, id);

		if (!node)
			return -ENOENT;
		if (node->parent == 0) {
			*epoch = node->ip >> 1;
			*truncated = (node->ip & 1) != 0 || n > max;
			*depth = n < max ? n : max;
			return 0;
		}
		if (n < max)
			path[n] = (uint32_t)id;
		n++;
		id = node->parent;
	}
	return -ENOENT;
}
