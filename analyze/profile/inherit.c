/*
 * analyze/profile/inherit.c - a fork child's inherited blocks (inherit.h):
 * finding the parent's trace from the child's META and reading it up to
 * the fork (aggregate/fork_points.h), recursively for a parent that is a
 * fork child too, and once for all the children of one parent.
 *
 * Owns the parent's aggregation while fn sees it.  Never prints: what
 * went wrong becomes the child's note.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/aggregate/fork_points.h"
#include "analyze/profile/inherit.h"
#include "analyze/read/event_stream.h"

#define INHERIT_MAX_DEPTH 8 /* fork generations followed back */

/* A readable regular file: paths taken from a trace must not name a FIFO
 * or a device, whose open or reads could block forever. */
static bool regular_file_readable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* The parent trace named in a child's META: as written, else next to the
 * child (traces of one run share a directory).  NULL when not found, or
 * out of memory (then *oom is set). */
static char *parent_path_resolve(const char *child_path, const char *parent, bool *oom)
{
	const char *slash = strrchr(child_path, '/'), *base = strrchr(parent, '/');
	size_t dir_len = slash ? (size_t)(slash - child_path + 1) : 0;
	char *p;

	if (regular_file_readable(parent)) {
		p = strdup(parent);
		*oom = !p;
		return p;
	}
	base = base ? base + 1 : parent;
	p = malloc(dir_len + strlen(base) + 1);
	if (!p) {
		*oom = true;
		return NULL;
	}
	memcpy(p, child_path, dir_len);
	strcpy(p + dir_len, base);
	if (regular_file_readable(p))
		return p;
	free(p);
	return NULL;
}

/* Without parent_trace in META: the traces of one run are FILE (the first
 * process) and FILE.PID (the others), so a child FILE.PID's parent is
 * FILE.PPID or FILE itself when its META pid is PPID.  NULL when not found,
 * or out of memory (then *oom is set). */
static char *parent_path_guess(const char *child_path, const char *ppid, bool *oom)
{
	const char *dot = strrchr(child_path, '.'), *slash = strrchr(child_path, '/');
	size_t base_len;
	struct kv_list meta = {0};
	char *p;
	int rc;

	if (!ppid || !*ppid || !dot || (slash && dot < slash) || dot[1] < '0' || dot[1] > '9')
		return NULL;
	base_len = (size_t)(dot - child_path);
	p = malloc(base_len + strlen(ppid) + 2);
	if (!p) {
		*oom = true;
		return NULL;
	}
	memcpy(p, child_path, base_len);
	sprintf(p + base_len, ".%s", ppid);
	if (regular_file_readable(p))
		return p;
	p[base_len] = '\0';
	rc = regular_file_readable(p) ? event_stream_read_meta(p, &meta) : -ENOENT;
	if (rc == 0 && kv_list_get(&meta, "pid") && strcmp(kv_list_get(&meta, "pid"), ppid) == 0) {
		kv_list_free(&meta);
		return p;
	}
	*oom = rc == -ENOMEM;
	kv_list_free(&meta);
	free(p);
	return NULL;
}


/*
 * Whether the trace at path, depth forks away from the trace reported, is
 * a fork child: 2 when it is one whose parent's trace was found, with the
 * fork's sequence number in *seq and that trace's path in *ppath (owned);
 * 1 with a message in note when its parent's blocks cannot be known (its
 * trace not found, or too many forks away); 0 when it is no fork child,
 * or its META cannot be read (reading the trace itself will say what is
 * wrong); -ENOMEM.
 */
static int fork_child_find(const char *path, int depth, uint64_t *seq, char **ppath, char *note,
			   size_t note_bytes)
{
	struct kv_list meta = {0};
	const char *parent, *fork_seq;
	char *end;
	bool oom = false;
	int rc;

	*ppath = NULL;
	rc = event_stream_read_meta(path, &meta);
	if (rc == -ENOMEM) {
		kv_list_free(&meta);
		return rc; /* not "no fork child": its leaks would be wrong */
	}
	if (rc < 0)
		goto none;
	parent = kv_list_get(&meta, "parent_trace");
	fork_seq = kv_list_get(&meta, "fork_seq");
	if (!fork_seq)
		goto none;
	*seq = strtoull(fork_seq, &end, 10);
	if (*end || end == fork_seq || *seq == 0)
		goto none;
	if (parent && *parent) {
		*ppath = parent_path_resolve(path, parent, &oom);
	} else {
		*ppath = parent_path_guess(path, kv_list_get(&meta, "ppid"), &oom);
		parent = "of the parent process";
	}
	if (oom) {
		kv_list_free(&meta);
		return -ENOMEM;
	}
	if (!*ppath || depth >= INHERIT_MAX_DEPTH) {
		snprintf(note, note_bytes, "parent trace %s %s: blocks inherited at fork are "
			 "unknown, and frees of them count as unmatched", parent,
			 *ppath ? "is too many forks away" : "not found");
		free(*ppath);
		*ppath = NULL;
		kv_list_free(&meta);
		return 1;
	}
	kv_list_free(&meta);
	return 2;
none:
	kv_list_free(&meta);
	return 0;
}

/* Seeds agg from seed, whose note goes to note unless it is there. */
static int seed_apply(const struct inherit_seed *seed, struct aggregate *agg, char *note,
		      size_t note_bytes)
{
	if (seed->note != note)
		snprintf(note, note_bytes, "%s", seed->note);
	if (!seed->parent)
		return seed->rc;
	return aggregate_seed_inherited(agg, seed->parent, seed->fork_seq, seed->fork_time_ns);
}

/* fork_points_read's callback: the seed of the child at a fork point. */
struct forks_seen {
	inherit_each_fn fn;
	void *ctx;
	size_t first;   /* fork point i is fn's child first + i */
	const char *note;
	int fn_rc;      /* fn's negative return, or 0 */
};

static int fork_seen(void *ctx, size_t i, const struct fork_point *fp)
{
	struct forks_seen *c = ctx;
	struct inherit_seed seed = {fp->parent, fp->seq, fp->time_ns, 0, c->note};
	int rc = c->fn(c->ctx, c->first + i, &seed);

	if (rc < 0)
		c->fn_rc = rc;
	return rc;
}

static int seed_inherited(const char *path, struct aggregate *agg, int depth, char *note,
			  size_t note_bytes);

/*
 * Reads the parent's trace at ppath (depth forks away from the trace
 * reported) for the forks seqs[0..n) (non-decreasing), calling fn(ctx, i,
 * seed) for each i in order: with the parent's aggregation at fork i, or
 * with none and why in note.  The note of a parent that is a fork child
 * itself goes with each.  Returns 0 or fn's negative errno.
 */
static int parent_forks_read(const char *ppath, const uint64_t *seqs, size_t n, int depth,
			     inherit_each_fn fn, void *ctx, char *note, size_t note_bytes)
{
	size_t done = 0;

	while (done < n) {
		struct forks_seen seen = {fn, ctx, done, note, 0};
		struct inherit_seed unknown = {NULL, 0, 0, 1, note};
		struct aggregate pagg;
		char err[512] = "";
		size_t served = 0;
		int rc;

		note[0] = '\0';
		rc = aggregate_init(&pagg);
		if (rc == 0)
			rc = seed_inherited(ppath, &pagg, depth, note, note_bytes);
		if (rc >= 0)
			rc = fork_points_read(ppath, &pagg, seqs + done, n - done, fork_seen, &seen,
					      &served, err, sizeof(err));
		aggregate_free(&pagg);
		done += served;
		if (seen.fn_rc < 0)
			return seen.fn_rc;
		if (rc == 0 && served)
			continue; /* read again for the forks after a late event */
		if (rc == -ENOMEM) {
			unknown.rc = -ENOMEM;
		} else {
			if (rc == 0) /* cannot be: a read that ends well serves a fork */
				snprintf(err, sizeof(err), "%s: read to no fork", ppath);
			snprintf(note, note_bytes, "parent trace unreadable (%s): blocks inherited at "
				 "fork are unknown, and frees of them count as unmatched", err);
		}
		for (; done < n; done++) {
			rc = fn(ctx, done, &unknown);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* parent_forks_read's fn for one child's own read: seeds its aggregation. */
struct seed_one {
	struct aggregate *agg;
	char *note;
	size_t note_bytes;
	int rc;
};

static int seed_one(void *ctx, size_t i, const struct inherit_seed *seed)
{
	struct seed_one *s = ctx;

	(void)i;
	s->rc = seed_apply(seed, s->agg, s->note, s->note_bytes);
	return s->rc < 0 ? s->rc : 0;
}

/*
 * A fork child starts with its parent's live blocks: reads the parent's
 * trace up to the fork (and, recursively, its parent's) and seeds agg with
 * them, so that frees of inherited blocks match.  Returns as inherit_seed.
 */
static int seed_inherited(const char *path, struct aggregate *agg, int depth, char *note,
			  size_t note_bytes)
{
	struct seed_one s = {agg, note, note_bytes, 0};
	uint64_t seq = 0;
	char *ppath;
	int rc = fork_child_find(path, depth, &seq, &ppath, note, note_bytes);

	if (rc != 2)
		return rc;
	rc = parent_forks_read(ppath, &seq, 1, depth + 1, seed_one, &s, note, note_bytes);
	free(ppath);
	return rc < 0 ? rc : s.rc;
}

int inherit_seed(const char *path, const struct inherit_seed *seed, struct aggregate *agg,
		 char *note, size_t note_bytes)
{
	if (!seed)
		return seed_inherited(path, agg, 0, note, note_bytes);
	return seed_apply(seed, agg, note, note_bytes);
}

/* A trace of inherit_each's paths. */
struct each_trace {
	int found;      /* fork_child_find's return */
	char *ppath;    /* found 2: owned */
	uint64_t seq;
	bool done;      /* fn was told */
};

/* inherit_each's children of one parent, in fork order. */
struct each_group {
	inherit_each_fn fn;
	void *ctx;
	const size_t *index; /* the children's places in paths */
};

static int group_seen(void *ctx, size_t i, const struct inherit_seed *seed)
{
	struct each_group *g = ctx;

	return g->fn(g->ctx, g->index[i], seed);
}

/* Tells fn of the children of traces[first]'s parent (first among them),
 * the parent read once.  Returns 0, fn's negative errno, or -ENOMEM. */
static int each_group_tell(struct each_trace *traces, size_t n, size_t first, inherit_each_fn fn,
			   void *ctx)
{
	struct each_group g = {fn, ctx, NULL};
	size_t *index = malloc((n - first) * sizeof(*index));
	uint64_t *seqs = malloc((n - first) * sizeof(*seqs));
	char note[INHERIT_NOTE_BYTES];
	size_t m = 0;
	int rc;

	if (!index || !seqs) {
		free(index);
		free(seqs);
		return -ENOMEM;
	}
	/* insertion into fork order (stable: paths' order at one fork) */
	for (size_t j = first; j < n; j++) {
		size_t k = m;

		if (!traces[j].ppath || strcmp(traces[j].ppath, traces[first].ppath) != 0)
			continue;
		m++;
		for (; k > 0 && seqs[k - 1] > traces[j].seq; k--) {
			seqs[k] = seqs[k - 1];
			index[k] = index[k - 1];
		}
		seqs[k] = traces[j].seq;
		index[k] = j;
		traces[j].done = true;
	}
	g.index = index;
	rc = parent_forks_read(traces[first].ppath, seqs, m, 1, group_seen, &g, note,
			       sizeof(note));
	free(index);
	free(seqs);
	return rc;
}

int inherit_each(char *const *paths, size_t n, inherit_each_fn fn, void *ctx)
{
	struct each_trace *traces = calloc(n ? n : 1, sizeof(*traces));
	const struct inherit_seed none = {NULL, 0, 0, 0, ""};
	char note[INHERIT_NOTE_BYTES];
	int rc = 0;

	if (!traces)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		traces[i].found = fork_child_find(paths[i], 0, &traces[i].seq, &traces[i].ppath,
						  note, sizeof(note));
	for (size_t i = 0; i < n && rc >= 0; i++) {
		if (traces[i].done)
			continue;
		if (traces[i].found == 2)
			rc = each_group_tell(traces, n, i, fn, ctx);
		else /* a fork child whose blocks are unknown: inherit_seed says why */
			rc = fn(ctx, i, traces[i].found == 0 ? &none : NULL);
		traces[i].done = true;
	}
	for (size_t i = 0; i < n; i++)
		free(traces[i].ppath);
	free(traces);
	return rc < 0 ? rc : 0;
}
