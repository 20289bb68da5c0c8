/*
 * preload/stack_table.h - interning call stacks as a prefix tree.
 *
 * A node is (parent id, ip) -> id; ids are dense from 1 in each process
 * file.  A root has parent 0 and ip 2 * epoch + truncated (trace/format.h).
 * The table is shared by all threads: lookups take no lock, inserts take a
 * small lock on a miss.
 */
#ifndef MPROF_PRELOAD_STACK_TABLE_H
#define MPROF_PRELOAD_STACK_TABLE_H

#include <stdint.h>

#include "preload/thread.h"

/* stack_table_intern result when the module map changed under it. */
#define STACK_TABLE_RESTART UINT64_MAX

/* Maps the first table.  Returns 0, or -1 when out of memory. */
int stack_table_init(void);

/*
 * Interns the nodes of t->ips[0..depth) (outermost first) under the root
 * root_key and returns the leaf's id (0 when out of memory).  Nodes created
 * by this call are appended to t->new_nodes (the caller empties it by
 * setting t->new_count = 0 before a capture), parents first, for the
 * caller's STACK records.  When check_modules is set and a new node's
 * ip lies in no known module, the module map is refreshed first; if that
 * starts a new epoch, or the current map's epoch is no longer root_key's
 * (root_key = 2 * epoch + truncated), returns STACK_TABLE_RESTART (intern
 * again with the new root).  Uses and updates t's cache of its previous stack.
 */
uint64_t stack_table_intern(struct preload_thread *t, uint32_t depth, uint64_t root_key,
			    int check_modules);
/* (When t->ips_known is set, t->ips[0, ips_known) are the cached stack's
 * first frames, not copied (preload/unwind.h): the intern starts after
 * them, or copies them first when the cache no longer belongs to root_key.) */

/* Copies the frames a capture left in the cache (t->ips_known) into t->ips. */
static inline void stack_table_ips_fill(struct preload_thread *t)
{
	for (uint32_t i = 0; i < t->ips_known; i++)
		t->ips[i] = t->cache_ips[i];
}

/* Fork support: lock held across fork() in the parent; the child starts an
 * empty table with ids from 1 (returns -1 when out of memory). */
void stack_table_fork_prepare(void);
void stack_table_fork_parent(void);
int stack_table_fork_child(void);

#endif
