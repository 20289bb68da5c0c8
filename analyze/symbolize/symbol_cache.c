/*
 * analyze/symbolize/symbol_cache.c - the on-disk cache of symbolization answers
 * (layout and rules in symbol_cache.h).  Owns only file names and read
 * buffers; knows nothing of ELF or DWARF, and never writes anywhere but its
 * own folder.  Every failure here is silent to the user: without the cache,
 * symbolization is only slower.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>

#include "analyze/symbolize/symbol_cache.h"
#include "trace/chunk.h"

#define CACHE_MAGIC "MPROFSYC"
#define CACHE_HEADER_BYTES 16
/* 2: Rust names demangled; the answers of 1 kept them mangled. */
#define CACHE_FORMAT 2
#define CACHE_MAX_BYTES (256u << 20)  /* larger files are not ours */
#define BUILD_ID_MAX_BYTES 64

int symbol_cache_folder(char *buf, size_t cap)
{
	const char *dir = getenv("MPROF_SYMBOL_CACHE");
	const char *base = "";
	int n;

	if (dir && !*dir)
		return -ENOENT;
	if (!dir) {
		dir = getenv("XDG_CACHE_HOME");
		base = "/mprof";
		if (!dir || *dir != '/') {
			dir = getenv("HOME");
			base = "/.cache/mprof";
		}
		if (!dir || *dir != '/')
			return -ENOENT;
	}
	n = snprintf(buf, cap, "%s%s/symbols-%d-%s", dir, base, CACHE_FORMAT, PACKAGE_VERSION);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* folder/HEX(build_id)[suffix] into buf; -ENAMETOOLONG or -EINVAL. */
static int cache_path(char *buf, size_t cap, const char *folder, const uint8_t *build_id,
		      size_t len, const char *suffix)
{
	char hex[2 * BUILD_ID_MAX_BYTES + 1];
	int n;

	if (len == 0 || len > BUILD_ID_MAX_BYTES)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", build_id[i]);
	n = snprintf(buf, cap, "%s/%s%s", folder, hex, suffix);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* The file name's suffix of a cache file of kind flags. */
static const char *cache_suffix(unsigned flags)
{
	return flags & SYMBOL_CACHE_SYMTAB ? ".symtab" : "";
}

int symbol_cache_read(const char *folder, const uint8_t *build_id, size_t len, unsigned kind,
		      struct symbol_cache_file *out)
{
	char path[4096];
	uint8_t header[CACHE_HEADER_BYTES];
	struct stat st;
	int fd, rc = cache_path(path, sizeof(path), folder, build_id, len, cache_suffix(kind));

	memset(out, 0, sizeof(*out));
	if (rc < 0)
		return -ENOENT;
	/* Regular files only: opening a FIFO would wait for a writer (forever)
	 * and a device may do anything; O_NONBLOCK in case it changed since. */
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -ENOENT;
	rc = -EBADMSG;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < CACHE_HEADER_BYTES ||
	    (uint64_t)st.st_size > CACHE_MAX_BYTES)
		goto out;
	if (read(fd, header, sizeof(header)) != (ssize_t)sizeof(header) ||
	    memcmp(header, CACHE_MAGIC, 8) != 0)
		goto out;
	out->payload_bytes = (size_t)st.st_size - CACHE_HEADER_BYTES;
	out->payload = malloc(out->payload_bytes ? out->payload_bytes : 1);
	if (!out->payload) {
		rc = -ENOMEM;
		goto out;
	}
	if (read(fd, out->payload, out->payload_bytes) != (ssize_t)out->payload_bytes ||
	    libdeflate_crc32(0, out->payload, out->payload_bytes) != trace_get_le32(header + 12))
		goto out;
	out->flags = header[8];
	rc = 0;
out:
	close(fd);
	if (rc < 0) {
		free(out->payload);
		memset(out, 0, sizeof(*out));
	}
	return rc;
}

/* mkdir -p of path (0700 for what it creates). */
static int make_folders(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0700) != 0 && errno != EEXIST ? -errno : 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int symbol_cache_write(const char *folder, const uint8_t *build_id, size_t len,
		       unsigned flags, const uint8_t *payload, size_t payload_bytes)
{
	char path[4096], tmp[4096 + 32];
	uint8_t header[CACHE_HEADER_BYTES] = { 0 };
	uint32_t crc = libdeflate_crc32(0, payload, payload_bytes);
	int fd, rc = cache_path(path, sizeof(path), folder, build_id, len, cache_suffix(flags));

	if (rc < 0 || payload_bytes > CACHE_MAX_BYTES)
		return rc < 0 ? rc : -EFBIG;
	rc = make_folders(folder);
	if (rc < 0)
		return rc;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memcpy(header, CACHE_MAGIC, 8);
	header[8] = (uint8_t)flags;
	trace_put_le32(header + 12, crc);
	rc = write_all(fd, header, sizeof(header));
	if (rc == 0)
		rc = write_all(fd, payload, payload_bytes);
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}
