/*
 * trace/symbolize_request.h - the request by which `mprof run` gives an
 * analyzer it started early (`mprof-analyze symbolize --request-fd N`) the
 * symbolize step's work when the program has ended: the trace paths and the
 * kept program images, over a Unix stream socket.
 *
 * Wire format (host byte order: both ends are one machine): a 24-byte
 * header { uint32 magic "MPSQ", uint32 trace count, uint32 image count,
 * uint32 0, uint64 payload bytes }, sent with the images' descriptors as one
 * SCM_RIGHTS message, then the payload: each trace path, then each image's
 * program name, every one ending in a NUL.  The analyzer answers with one
 * byte once it holds the whole request: a socket that closes before it
 * means the analyzer ended without the work (killed), and the launcher
 * starts another.  Shared by cli/ and analyze/.
 */
#ifndef MPROF_TRACE_SYMBOLIZE_REQUEST_H
#define MPROF_TRACE_SYMBOLIZE_REQUEST_H

#include <stddef.h>

/* At most this many kept images' descriptors in a request (the launcher
 * keeps fewer, KEPT_IMAGES_MAX; the kernel takes up to 253 in a message). */
#define SYMBOLIZE_REQUEST_MAX_FDS 64

/*
 * Sends one request over socket: traces[0..ntraces) and the descriptors
 * fds[0..nfds) of the programs named exes[0..nfds).  Never raises SIGPIPE.
 * Returns 0, -EINVAL when nfds is above SYMBOLIZE_REQUEST_MAX_FDS, or a
 * negative errno (-EPIPE when the analyzer is gone).
 */
int symbolize_request_send(int socket, char *const traces[], size_t ntraces, const int fds[],
			   char *const exes[], size_t nfds);

/*
 * Receives one request from socket.  On success sets *traces to a
 * NULL-terminated vector of the trace paths and *kept to the value of
 * MPROF_KEPT_IMAGES for the received descriptors ("/proc/self/fd/N<TAB>
 * PROGRAM" lines; NULL without images); the caller frees both with free()
 * (the vector and its strings are one block).  Returns the trace count (at
 * least 1), 0 when the socket closed before a request (the launcher has no
 * work or is gone), -EPROTO for a malformed request, or a negative errno.
 */
int symbolize_request_receive(int socket, char ***traces, char **kept);

/* The analyzer's answer that it holds the request: one byte on socket.
 * Never raises SIGPIPE.  Returns 0 or a negative errno. */
int symbolize_request_ack(int socket);

/*
 * Waits for the analyzer's answer to a request sent on socket.  Returns 1
 * when it came, 0 when the socket closed without it (the analyzer ended
 * before it took the work), or a negative errno.
 */
int symbolize_request_wait_ack(int socket);

#endif
