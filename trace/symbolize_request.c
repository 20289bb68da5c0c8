/*
 * trace/symbolize_request.c - sending and receiving the symbolize step's
 * request (trace/symbolize_request.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "trace/symbolize_request.h"

#define REQUEST_MAGIC 0x5153504du          /* "MPSQ" read as bytes */
#define REQUEST_MAX_TRACES (1u << 20)
#define REQUEST_MAX_PAYLOAD (256ull << 20) /* far above any real request */
#define REQUEST_ACK 'K'

struct request_header {
	uint32_t magic, ntraces, nfds, zero;
	uint64_t payload_bytes;
};

/* Writes all of buf; -errno on failure. */
static int send_all(int socket, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(socket, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads exactly len bytes; 0, -EPROTO at an early end, or -errno. */
static int recv_all(int socket, char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = recv(socket, buf, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPROTO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int symbolize_request_send(int socket, char *const traces[], size_t ntraces, const int fds[],
			   char *const exes[], size_t nfds)
{
	struct request_header h = { REQUEST_MAGIC, (uint32_t)ntraces, (uint32_t)nfds, 0, 0 };
	union {
		char buf[CMSG_SPACE(SYMBOLIZE_REQUEST_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { &h, sizeof(h) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	char *payload, *p;
	ssize_t sent;
	int rc;

	if (nfds > SYMBOLIZE_REQUEST_MAX_FDS || ntraces == 0 || ntraces > REQUEST_MAX_TRACES)
		return -EINVAL;
	for (size_t i = 0; i < ntraces; i++)
		h.payload_bytes += strlen(traces[i]) + 1;
	for (size_t i = 0; i < nfds; i++)
		h.payload_bytes += strlen(exes[i]) + 1;
	payload = malloc(h.payload_bytes);
	if (!payload)
		return -ENOMEM;
	p = payload;
	for (size_t i = 0; i < ntraces; i++)
		p = stpcpy(p, traces[i]) + 1;
	for (size_t i = 0; i < nfds; i++)
		p = stpcpy(p, exes[i]) + 1;
	if (nfds) {
		struct cmsghdr *c;

		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	do
		sent = sendmsg(socket, &msg, MSG_NOSIGNAL);
	while (sent < 0 && errno == EINTR);
	if (sent < 0)
		rc = -errno;
	else /* the descriptors went with the first byte; the rest plainly */
		rc = send_all(socket, (const char *)&h + sent, sizeof(h) - (size_t)sent);
	if (rc == 0)
		rc = send_all(socket, payload, h.payload_bytes);
	free(payload);
	return rc;
}

/* Takes the descriptors of an SCM_RIGHTS message into fds (at most cap);
 * returns how many came, or -1 when they were cut short (all closed then). */
static int take_fds(struct msghdr *msg, int fds[], size_t cap)
{
	size_t n = 0;
	int cut = (msg->msg_flags & MSG_CTRUNC) != 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t count;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (n < cap)
				fds[n++] = fd;
			else
				close(fd), cut = 1;
		}
	}
	if (cut) {
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return -1;
	}
	return (int)n;
}

/* Builds the MPROF_KEPT_IMAGES value of fds[i] named names (nfds strings
 * one after another); NULL without images or memory. */
static char *kept_value(const int fds[], size_t nfds, const char *names)
{
	size_t cap = 1, len = 0;
	const char *name = names;
	char *value;

	for (size_t i = 0; i < nfds; i++, name += strlen(name) + 1)
		cap += 32 + strlen(name);
	value = nfds ? malloc(cap) : NULL;
	if (!value)
		return NULL;
	value[0] = '\0';
	name = names;
	for (size_t i = 0; i < nfds; i++, name += strlen(name) + 1)
		len += (size_t)snprintf(value + len, cap - len, "/proc/self/fd/%d\t%s\n", fds[i],
					name);
	return value;
}

int symbolize_request_receive(int socket, char ***traces, char **kept)
{
	struct request_header h;
	union {
		char buf[CMSG_SPACE(SYMBOLIZE_REQUEST_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { &h, sizeof(h) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = control.buf,
			      .msg_controllen = sizeof(control.buf) };
	int fds[SYMBOLIZE_REQUEST_MAX_FDS], nfds, rc;
	char *payload = NULL, *p, **v = NULL;
	size_t strings = 0, vector_bytes;
	ssize_t got;

	*traces = NULL;
	*kept = NULL;
	do
		got = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
	while (got < 0 && errno == EINTR);
	if (got <= 0)
		return got == 0 ? 0 : -errno;
	nfds = take_fds(&msg, fds, SYMBOLIZE_REQUEST_MAX_FDS);
	if (nfds < 0)
		return -EPROTO;
	rc = recv_all(socket, (char *)&h + got, sizeof(h) - (size_t)got);
	if (rc == 0 && (h.magic != REQUEST_MAGIC || h.zero || h.ntraces == 0 ||
			h.ntraces > REQUEST_MAX_TRACES || h.nfds != (uint32_t)nfds ||
			h.payload_bytes > REQUEST_MAX_PAYLOAD ||
			h.payload_bytes < (uint64_t)h.ntraces + h.nfds))
		rc = -EPROTO;
	/* the vector and the strings it points into are one block; the
	 * payload is read straight into it */
	if (rc == 0) {
		vector_bytes = (h.ntraces + 1) * sizeof(*v);
		v = malloc(vector_bytes + h.payload_bytes);
		payload = v ? (char *)v + vector_bytes : NULL;
		rc = v ? recv_all(socket, payload, h.payload_bytes) : -ENOMEM;
	}
	/* every string ends in a NUL, and there are exactly as many as said */
	for (uint64_t i = 0; rc == 0 && i < h.payload_bytes; i++)
		strings += payload[i] == '\0';
	if (rc == 0 && (strings != (uint64_t)h.ntraces + h.nfds || payload[h.payload_bytes - 1]))
		rc = -EPROTO;
	if (rc != 0) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		free(v);
		return rc;
	}
	p = payload;
	for (uint32_t i = 0; i < h.ntraces; i++, p += strlen(p) + 1)
		v[i] = p;
	v[h.ntraces] = NULL;
	*kept = kept_value(fds, (size_t)nfds, p);
	*traces = v;
	return (int)h.ntraces;
}

int symbolize_request_ack(int socket)
{
	static const char ack = REQUEST_ACK;

	return send_all(socket, &ack, 1);
}

int symbolize_request_wait_ack(int socket)
{
	char ack;
	ssize_t n;

	do
		n = recv(socket, &ack, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == ECONNRESET ? 0 : -errno;
	return n == 1 && ack == REQUEST_ACK;
}
