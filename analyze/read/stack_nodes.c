/*
 * analyze/read/stack_nodes.c - the call-stack prefix tree table, see
 * stack_nodes.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/read/stack_nodes.h"
#include "analyze/util/hash_seed.h"

#define WALK_LIMIT 4096
#define IP_HASH_INITIAL 256u

void stack_nodes_init(struct stack_nodes *t)
{
	memset(t, 0, sizeof(*t));
}

void stack_nodes_free(struct stack_nodes *t)
{
	grow_big_free(&t->by_id);
	grow_big_free(&t->ips);
	free(t->ip_hash);
	stack_nodes_init(t);
}

/* Rebuilds the ip hash with n slots (a power of 2) from t->ips.  Returns 0
 * or -ENOMEM (t unchanged). */
static int ip_hash_rebuild(struct stack_nodes *t, size_t n)
{
	const uint64_t *ips = t->ips.p;
	uint32_t *v = calloc(n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < t->ip_count; k++) {
		size_t i = (size_t)hash_mix64(ips[k]) & (n - 1);

		while (v[i])
			i = (i + 1) & (n - 1);
		v[i] = (uint32_t)(k + 1);
	}
	free(t->ip_hash);
	t->ip_hash = v;
	t->ip_hash_mask = n - 1;
	return 0;
}

/* The index of ip in t->ips, added on first use; -1 on ENOMEM.  The hash
 * stays at most half full. */
static long ip_intern(struct stack_nodes *t, uint64_t ip)
{
	size_t i;

	if ((t->ip_count + 1) * 2 > t->ip_hash_mask + 1 &&
	    ip_hash_rebuild(t, t->ip_hash ? (t->ip_hash_mask + 1) * 2 : IP_HASH_INITIAL) < 0)
		return -1;
	i = (size_t)hash_mix64(ip) & t->ip_hash_mask;
	for (uint32_t k; (k = t->ip_hash[i]) != 0; i = (i + 1) & t->ip_hash_mask)
		if (((const uint64_t *)t->ips.p)[k - 1] == ip)
			return (long)(k - 1);
	if (t->ip_count >= UINT32_MAX - 1 || /* (a crafted trace's redefinitions) */
	    grow_big_to(&t->ips, t->ip_count, sizeof(uint64_t), 256) < 0)
		return -1;
	((uint64_t *)t->ips.p)[t->ip_count] = ip;
	t->ip_hash[i] = (uint32_t)(t->ip_count + 1);
	return (long)t->ip_count++;
}

int stack_nodes_add(struct stack_nodes *t, uint64_t id, uint64_t parent, uint64_t ip)
{
	struct stack_node_entry *e;
	long k;

	if (id == 0 || id > STACK_NODES_MAX_ID)
		return -EINVAL;
	if (id >= t->capacity) {
		if (grow_big_to(&t->by_id, (size_t)id, sizeof(*e), 1024) < 0)
			return -ENOMEM;
		t->capacity = t->by_id.count;
	}
	k = ip_intern(t, ip);
	if (k < 0)
		return -ENOMEM;
	e = &((struct stack_node_entry *)t->by_id.p)[id];
	/* a parent beyond any id stays one that no lookup finds */
	e->parent_plus1 =
		(uint32_t)(parent <= STACK_NODES_MAX_ID ? parent + 1 : STACK_NODES_MAX_ID + 2);
	e->ip_index = (uint32_t)k;
	if (id >= t->id_end)
		t->id_end = (size_t)id + 1;
	t->chain_max_plus1 = 0;
	return 0;
}

size_t stack_nodes_chain_max(struct stack_nodes *t, size_t max)
{
	const struct stack_node_entry *by_id = t->by_id.p;
	uint16_t *below; /* per id, its chain's nodes + 1; 0: not known yet */
	uint32_t *path;
	size_t longest = 0;

	if (t->chain_max_plus1 && t->chain_limit == max + 2)
		return t->chain_max_plus1 - 1;
	below = calloc(t->id_end ? t->id_end : 1, sizeof(*below));
	path = malloc((max + 1) * sizeof(*path));
	if (!below || !path) {
		free(below);
		free(path);
		return SIZE_MAX;
	}
	for (size_t id = 1; id < t->id_end && longest <= max; id++) {
		size_t n = 0, base = 0;

		/* up to a known node, a root or an undefined one */
		for (size_t x = id; x < t->id_end && by_id[x].parent_plus1 > 1; n++) {
			if (below[x]) {
				base = below[x] - 1;
				break;
			}
			if (n > max)
				break; /* too long, or a cycle */
			path[n] = (uint32_t)x;
			x = by_id[x].parent_plus1 - 1;
		}
		if (n > max || base + n > max) {
			longest = max + 1;
			break;
		}
		for (size_t i = n; i-- > 0;)
			below[path[i]] = (uint16_t)(base + (n - i) + 1);
		if (base + n > longest)
			longest = base + n;
	}
	free(below);
	free(path);
	t->chain_max_plus1 = longest + 1;
	t->chain_limit = max + 2;
	return longest;
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
