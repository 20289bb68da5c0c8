/*
 * preload/exec_args.c - the exec wrappers' reads of the memory a program
 * hands an exec or posix_spawn call (path, argv[0], envp and its entries),
 * made before the kernel checks it.  Each is a copy through
 * process_vm_readv into a buffer of the caller's, split at 4 KiB pages, so
 * that a bad address, or a page another thread unmaps between two reads,
 * is an error the wrapper answers by noting nothing (the call then fails
 * with EFAULT, or runs, as without mprof), not a SIGSEGV in the shim: a
 * check of each page followed by a direct read (what was here before)
 * still faulted on a page unmapped in between.  Under a seccomp filter, or
 * where process_vm_readv is refused, memory is read directly.  Never
 * allocates; the buffers live on the caller's stack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/exec_args.h"

#define EXEC_ARGS_PAGE 4096u

/* envp slots read at once, and the most of each entry's head read with
 * them (the longer name below and its '='). */
#define ENV_BATCH 32
#define ENV_HEAD 15

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

/* Copies size bytes at src into dst, a page's span a call: 0, or -1. */
static int reader_read(struct exec_args_reader *r, void *dst, const void *src, size_t size)
{
	while (size) {
		size_t n = page_rest(src) < size ? page_rest(src) : size;
		struct iovec local = { dst, n }, remote = { (void *)src, n };

		if (reader_copy(r, &local, &remote, 1) != 0)
			return -1;
		dst = (char *)dst + n;
		src = (const char *)src + n;
		size -= n;
	}
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

/* Whether the entry at the program's address entry, whose first len bytes
 * are head (len cut at a page's end), begins name (with its '='). */
static int env_head_is(struct exec_args_reader *r, const char *entry, const char *head,
		       size_t len, const char *name)
{
	size_t n = strlen(name);
	char whole[ENV_HEAD];

	if (memcmp(head, name, len < n ? len : n) != 0)
		return 0;
	return len >= n || (reader_read(r, whole, entry, n) == 0 && memcmp(whole, name, n) == 0);
}

/* Takes the entry at the program's address entry (the envp index at) for
 * env's name j, when no earlier entry was: 0, or -1 when unreadable. */
static int env_take(struct exec_args_reader *r, struct exec_args_env *env, int j,
		    const char *entry, size_t at)
{
	char *dst = j == 0 ? env->preload : env->session;
	size_t size = j == 0 ? sizeof(env->preload) : sizeof(env->session);
	int rc = exec_args_str(r, dst, size, entry);

	if (rc < 0)
		return -1;
	if (j == 0) {
		env->preload_at = at;
		env->preload_cut = rc;
	}
	return 0;
}

int exec_args_env_read(struct exec_args_reader *r, struct exec_args_env *env,
		       char *const envp[])
{
	char *slots[ENV_BATCH];
	char heads[ENV_BATCH][ENV_HEAD];
	struct iovec local[ENV_BATCH], remote[ENV_BATCH];
	size_t i = 0, n, m;
	int found = 0;

	env->preload[0] = env->session[0] = '\0';
	env->preload_at = SIZE_MAX;
	env->preload_cut = 0;
	for (; envp; i += n) {
		/* the slots up to the batch's size or their page's end */
		n = page_rest(&envp[i]) / sizeof(slots[0]);
		n = n < 1 ? 1 : n > ENV_BATCH ? ENV_BATCH : n;
		if (reader_read(r, slots, &envp[i], n * sizeof(slots[0])) != 0)
			return -1;
		for (m = 0; m < n && slots[m]; m++) {
			size_t len = page_rest(slots[m]);

			local[m] = (struct iovec){ heads[m], len < ENV_HEAD ? len : ENV_HEAD };
			remote[m] = (struct iovec){ slots[m], local[m].iov_len };
		}
		if (m && reader_copy(r, local, remote, m) != 0)
			return -1;
		for (size_t k = 0; k < m; k++)
			for (int j = 0; j < 2; j++)
				if (!(found & 1 << j) &&
				    env_head_is(r, slots[k], heads[k], local[k].iov_len,
						env_names[j])) {
					if (env_take(r, env, j, slots[k], i + k) != 0)
						return -1;
					found |= 1 << j;
					break;
				}
		if (m < n) {
			i += m;
			break;
		}
	}
	env->count = i;
	m = 0;
	if (found & 1)
		env->picked[m++] = env->preload;
	if (found & 2)
		env->picked[m++] = env->session;
	env->picked[m] = NULL;
	return 0;
}
