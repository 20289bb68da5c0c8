/*
 * preload/exec_args.c - the exec wrappers' reads of the memory a program
 * hands an exec or posix_spawn call (path, argv[0], envp and its entries),
 * made before the kernel checks it.  Each is a copy through
 * process_vm_readv into a buffer of the caller's, split at 4 KiB pages, so
 * that a bad address, or a page another thread unmaps between two reads,
 * is an error the wrapper answers by noting nothing (the call then fails
 * with EFAULT, or runs, as without mprof), not a SIGSEGV in the shim: a
 * check of each page followed by a direct read (what was here before)
 * still faulted on a page unmapped in between.  Calls are few, as each
 * costs about 1 us more than the page check did: the path's first page
 * with envp's first slots, then each 1 KiB piece of entries whole (about
 * 7 KiB of stack in all with exec_watch.c's buffers; a cut LD_PRELOAD's
 * rest is searched for the recorder's name 256 bytes at a time).  Under a
 * seccomp filter, or where process_vm_readv is refused, memory is read
 * directly.  Never allocates; the buffers live on the caller's stack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/exec_args.h"
#include "preload/own_read.h"

#define EXEC_ARGS_PAGE 4096u

/* envp slots read at once, and the most of each entry's head looked at
 * (the longer name below and its '=', and a NUL). */
#define ENV_BATCH 64
#define ENV_HEAD 16

static const char *const env_names[2] = { "LD_PRELOAD=", SESSION_ENV "=" };

void exec_args_reader_init(struct exec_args_reader *r, int direct)
{
	r->pid = direct ? 0 : (int)getpid();
	r->direct = direct;
}

/* The bytes from at to the end of its page. */
static size_t page_rest(const void *at)
{
	return EXEC_ARGS_PAGE - ((uintptr_t)at & (EXEC_ARGS_PAGE - 1));
}

/* Copies the n spans remote[] into local[] (none crossing a page): 0, or
 * -1 when one cannot be read. */
static int reader_copy(struct exec_args_reader *r, const struct iovec *local,
		       const struct iovec *remote, size_t n)
{
	size_t total = 0;
	ssize_t got;

	for (size_t i = 0; i < n; i++)
		total += remote[i].iov_len;
	if (!r->direct) {
		got = process_vm_readv(r->pid, local, n, remote, n, 0);
		if (got == (ssize_t)total)
			return 0;
		if (got >= 0 || (errno != ENOSYS && errno != EPERM))
			return -1;
		r->direct = 1;
	}
	for (size_t i = 0; i < n; i++)
		memcpy(local[i].iov_base, remote[i].iov_base, remote[i].iov_len);
	return 0;
}

/* Copies size bytes at src into dst, a page's span a call (own_read.h):
 * 0, or -1; where process_vm_readv is refused, directly from then on. */
static int reader_read(struct exec_args_reader *r, void *dst, const void *src, size_t size)
{
	if (!r->direct) {
		errno = 0; /* a short read leaves it: not a refusal */
		if (own_read(dst, src, size) == 0)
			return 0;
		if (errno != ENOSYS && errno != EPERM)
			return -1;
		r->direct = 1;
	}
	memcpy(dst, src, size);
	return 0;
}

int exec_args_str(struct exec_args_reader *r, char *dst, size_t size, const char *src)
{
	size_t n = 0;

	if (!src || !size)
		return -1;
	while (n < size) {
		size_t span = page_rest(src + n);

		if (span > size - n)
			span = size - n;
		if (reader_read(r, dst + n, src + n, span) != 0)
			return -1;
		if (memchr(dst + n, '\0', span))
			return 0;
		n += span;
	}
	dst[size - 1] = '\0';
	return 1;
}

int exec_args_slots(struct exec_args_reader *r, char **dst, char *const envp[], size_t count)
{
	return count ? reader_read(r, dst, envp, count * sizeof(dst[0])) : 0;
}

/* The last 1 KiB piece (aligned, so within a page) of the program's
 * memory read whole: an environment's entries usually lie one after
 * another, and a process_vm_readv span costs about as much as a call (its
 * pages are pinned), so reading each entry's head apart cost 46 us a
 * failed execve against the page checks' 20.  A piece, not a page: the
 * wrappers run on threads with 16 KiB stacks. */
#define EXEC_ARGS_PIECE 1024u

struct piece_cache {
	uintptr_t piece;
	int valid;
	char bytes[EXEC_ARGS_PIECE];
};

/* The cached copy of the byte at, reading its piece when not cached:
 * NULL when it cannot be read.  *rest: the bytes from at to the piece's
 * end. */
static const char *cache_at(struct exec_args_reader *r, struct piece_cache *c, uintptr_t at,
			    size_t *rest)
{
	uintptr_t piece = at & ~(uintptr_t)(EXEC_ARGS_PIECE - 1);

	if (!c->valid || c->piece != piece) {
		c->valid = 0;
		if (reader_read(r, c->bytes, (const void *)piece, EXEC_ARGS_PIECE) != 0)
			return NULL;
		c->piece = piece;
		c->valid = 1;
	}
	*rest = EXEC_ARGS_PIECE - (at - piece);
	return c->bytes + (at - piece);
}

/*
 * Copies the string at src into dst up to and with its NUL, or size bytes
 * when it has none in them, through the cache (a piece is read whole only
 * when the string reaches it): 0 when its NUL was copied, 1 when cut (dst
 * is then NUL-terminated when size allows), -1 when a piece it reaches
 * cannot be read.
 */
static int cache_str(struct exec_args_reader *r, struct piece_cache *c, char *dst, size_t size,
		     const char *src)
{
	size_t n = 0;

	while (n < size) {
		size_t span;
		const char *from = cache_at(r, c, (uintptr_t)src + n, &span), *nul;

		if (!from)
			return -1;
		if (span > size - n)
			span = size - n;
		nul = memchr(from, '\0', span);
		if (nul) {
			memcpy(dst + n, from, (size_t)(nul - from) + 1);
			return 0;
		}
		memcpy(dst + n, from, span);
		n += span;
	}
	if (size)
		dst[size - 1] = '\0';
	return 1;
}

/* Whether the string at src equals want, compared a piece at a time
 * (no copy of it is kept): 1 or 0, or -1 when a piece it reaches cannot
 * be read. */
static int cache_equal(struct exec_args_reader *r, struct piece_cache *c, const char *src,
		       const char *want)
{
	size_t n = 0, left = strlen(want) + 1;

	while (left) {
		size_t span;
		const char *from = cache_at(r, c, (uintptr_t)src + n, &span);

		if (!from)
			return -1;
		if (span > left)
			span = left;
		if (memcmp(from, want + n, span) != 0)
			return 0;
		n += span;
		left -= span;
	}
	return 1;
}

/*
 * Whether the rest of a cut LD_PRELOAD entry, from src on, names the
 * recorder (EXEC_ARGS_SHIM): 1, 0, or -1 when a piece cannot be read.
 * Read through the cache a chunk at a time, each after the first
 * beginning with the previous one's last CARRY bytes (the name's length
 * less one), so that a name across two chunks is found too.
 */
static int cache_has_shim(struct exec_args_reader *r, struct piece_cache *c, const char *src)
{
	enum { CARRY = sizeof(EXEC_ARGS_SHIM) - 2 };
	char chunk[256];
	size_t keep = 0;

	for (;;) {
		int rc = cache_str(r, c, chunk + keep, sizeof(chunk) - keep, src);

		if (rc < 0)
			return -1;
		if (strstr(chunk, EXEC_ARGS_SHIM))
			return 1;
		if (rc == 0)
			return 0;
		/* cut: sizeof(chunk) - 1 bytes of text, the last CARRY kept */
		src += sizeof(chunk) - keep - 1;
		memmove(chunk, chunk + sizeof(chunk) - 1 - CARRY, CARRY);
		keep = CARRY;
	}
}

/* Copies the LD_PRELOAD entry at src into dst[size] (cache_str's answer);
 * a cut one ends with ":" EXEC_ARGS_SHIM when its rest names the recorder,
 * so that a long LD_PRELOAD with the recorder last still reads as keeping
 * it. */
static int cache_preload(struct exec_args_reader *r, struct piece_cache *c, char *dst, size_t size,
			 const char *src)
{
	static const char mark[] = ":" EXEC_ARGS_SHIM;
	int rc = cache_str(r, c, dst, size, src), has;

	if (rc != 1 || size < sizeof(mark) || strstr(dst, EXEC_ARGS_SHIM))
		return rc;
	/* from the name's length before the cut: one across it is found */
	has = cache_has_shim(r, c, src + size - 1 - (sizeof(mark) - 2));
	if (has < 0)
		return -1;
	if (has)
		memcpy(dst + size - sizeof(mark), mark, sizeof(mark));
	return 1;
}

/* The envp slots from &envp[i] to the batch's size or their page's end. */
static size_t env_batch(char *const envp[], size_t i)
{
	size_t n = page_rest(&envp[i]) / sizeof(envp[0]);

	return n < 1 ? 1 : n > ENV_BATCH ? ENV_BATCH : n;
}

/* Fills env from envp, whose first n slots are read already into slots;
 * session is the value the MPROF_SESSION entry is compared with. */
static int env_scan(struct exec_args_reader *r, struct exec_args_env *env, char *const envp[],
		    char **slots, size_t n, const char *session)
{
	struct piece_cache cache = { .valid = 0 };
	size_t i = 0, m;
	int session_found = 0;

	env->preload[0] = '\0';
	env->session_same = 0;
	env->preload_at = SIZE_MAX;
	env->preload_cut = 0;
	env->preload_entries = 0;
	for (; envp; i += n) {
		if (i) {
			n = env_batch(envp, i);
			if (reader_read(r, slots, &envp[i], n * sizeof(slots[0])) != 0)
				return -1;
		}
		for (m = 0; m < n && slots[m]; m++) {
			char head[ENV_HEAD];
			int rc;

			if (cache_str(r, &cache, head, sizeof(head), slots[m]) < 0)
				return -1;
			/* ld.so takes the last LD_PRELOAD, getenv the first
			 * MPROF_SESSION (preload/settings.c) */
			if (strncmp(head, env_names[0], strlen(env_names[0])) == 0) {
				rc = cache_preload(r, &cache, env->preload, sizeof(env->preload),
						   slots[m]);
				if (rc < 0)
					return -1;
				env->preload_at = i + m;
				env->preload_cut = rc;
				env->preload_entries++;
			} else if (!session_found &&
				   strncmp(head, env_names[1], strlen(env_names[1])) == 0) {
				rc = cache_equal(r, &cache, slots[m] + strlen(env_names[1]), session);
				if (rc < 0)
					return -1;
				env->session_same = rc;
				session_found = 1;
			}
		}
		if (m < n) {
			i += m;
			break;
		}
	}
	env->count = i;
	return 0;
}

int exec_args_read(struct exec_args_reader *r, char *path_dst, size_t path_size,
		   const char *path, struct exec_args_env *env, char *const envp[],
		   const char *session)
{
	char *slots[ENV_BATCH];
	struct iovec local[2], remote[2];
	size_t span, n = envp ? env_batch(envp, 0) : 0;

	if (!path || !path_size)
		return -1;
	/* the path's first page and envp's first slots in one call */
	span = page_rest(path) < path_size ? page_rest(path) : path_size;
	local[0] = (struct iovec){ path_dst, span };
	remote[0] = (struct iovec){ (void *)path, span };
	local[1] = (struct iovec){ slots, n * sizeof(slots[0]) };
	remote[1] = (struct iovec){ (void *)envp, local[1].iov_len };
	if (reader_copy(r, local, remote, n ? 2 : 1) != 0)
		return -1;
	if (!memchr(path_dst, '\0', span)) {
		int rc = span == path_size
				 ? 1
				 : exec_args_str(r, path_dst + span, path_size - span, path + span);

		if (rc != 0)
			return rc;
	}
	return env_scan(r, env, envp, slots, n, session);
}
