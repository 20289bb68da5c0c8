/*
 * preload/pidns.h - the pids of this process as the launcher sees them, in
 * its PID namespace (pidns.c).
 */
#ifndef MPROF_PRELOAD_PIDNS_H
#define MPROF_PRELOAD_PIDNS_H

#include <stdint.h>

/* The launcher's PID namespace, from MPROF_LAUNCHER_PIDNS
 * (trace/session.h). */
struct pidns_launcher {
	int known;          /* the variable was set and well formed */
	uint64_t ns_dev;    /* its /proc/self/ns/pid: st_dev, */
	uint64_t ns_ino;    /* st_ino */
	uint64_t proc_dev;  /* st_dev of its /proc, which shows its namespace;
	                     * 0: its /proc shows another */
};

/* This process's pids. */
struct pidns_view {
	uint32_t pid;       /* in the launcher's namespace, 0: unknown */
	uint32_t ppid;      /* its parent's there, 0: unknown or outside it */
	uint32_t ns_pid;    /* getpid(): in its own namespace */
	uint64_t ns_dev;    /* its namespace: /proc/self/ns/pid's st_dev, */
	uint64_t ns_ino;    /* st_ino; 0: unknown */
	int same_ns;        /* 1: it runs in the launcher's namespace; 0: in
	                     * another; -1: cannot tell (no /proc) */
};

/* Parses MPROF_LAUNCHER_PIDNS's value "NS_DEV:NS_INO:PROC_DEV" (NULL:
 * unset) into *out; out->known is 0 when it is unset or malformed. */
void pidns_launcher_parse(const char *value, struct pidns_launcher *out);

/*
 * Fills *out for the calling process: in the launcher's namespace its pids
 * are its own; in another one (a descendant: the program called unshare or
 * clone with CLONE_NEWPID) they are read from /proc/self/status (NStgid's
 * first field and PPid) when /proc is the launcher's, else unknown (0).
 * Without /proc, or without the launcher's word, its own pids are taken, as
 * in the launcher's namespace.  A stat and, in another namespace, one read
 * of /proc: for the start of an image and a fork child, never the hot path.
 * A fork child under a seccomp filter (filtered not 0), which records
 * nothing, asks no getppid (ppid 0) and reads no /proc file (in another
 * namespace its pid is then unknown): a sandbox may kill it for either.
 * Never allocates.
 */
void pidns_view_read(const struct pidns_launcher *launcher, struct pidns_view *out,
		     int filtered);

#endif
