/*
 * analyze/read/stack_nodes.c - the call-stack prefix tree table, see
 * stack_nodes.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/read/stack_nodes.h"

#define WALK_LIMIT 4096

void stack_nodes_init(struct stack_nodes *t)
{
	memset(t, 0, sizeof(*t));
}

void stack_nodes_free(struct stack_nodes *t)
{
	grow_big_free(&t->ips);
	grow_big_free(&t->parents);
	stack_nodes_init(t);
}

int stack_nodes_add(struct stack_nodes *t, uint64_t id, uint64_t parent, uint64_t ip)
{
	if (id == 0 || id > STACK_NODES_MAX_ID)
		return -EINVAL;
	if (id >= t->capacity) {
		if (grow_big_to(&t->ips, (size_t)id, sizeof(uint64_t), 1024) < 0 ||
		    grow_big_to(&t->parents, (size_t)id, sizeof(uint32_t), 1024) < 0)
			return -ENOMEM;
		t->capacity = t->ips.count < t->parents.count ? t->ips.count : t->parents.count;
	}
	/* a parent beyond any id stays one that no lookup finds */
	((uint32_t *)t->parents.p)[id] =
		(uint32_t)(parent <= STACK_NODES_MAX_ID ? parent + 1 : STACK_NODES_MAX_ID + 2);
	((uint64_t *)t->ips.p)[id] = ip;
	if (id >= t->id_end)
		t->id_end = (size_t)id + 1;
	return 0;
}

int stack_nodes_walk(const struct stack_nodes *t, uint64_t id, uint32_t *path, size_t max,
		     size_t *depth, uint64_t *epoch, bool *truncated)
{
	size_t n = 0;

	for (int steps = 0; steps < WALK_LIMIT; steps++) {
		struct stack_node node;

		if (!stack_nodes_get(t, id, &node))
			return -ENOENT;
		if (node.parent == 0) {
			*epoch = node.ip >> 1;
			*truncated = (node.ip & 1) != 0 || n > max;
			*depth = n < max ? n : max;
			return 0;
		}
		if (n < max)
			path[n] = (uint32_t)id;
		n++;
		id = node.parent;
	}
	return -ENOENT;
}
