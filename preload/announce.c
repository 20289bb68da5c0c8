/*
 * preload/announce.c - the records that open every process file: PROCESS,
 * MODULES and the recorder's diagnostics.
 *
 * Owns the reading of /proc/self/cmdline when the process file's header
 * holds only part of it (the one descriptor the shim ever opens, closed
 * before returning).  Must never call malloc: the command line
 * is read into an anonymous mapping.
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "preload/announce.h"
#include "preload/diag.h"
#include "preload/mem.h"
#include "preload/meta.h"
#include "preload/modules.h"
#include "preload/ring.h"
#include "preload/sys.h"
#include "trace/argv_quote.h"

#define ANNOUNCE_CMDLINE_MAX (64u << 10) /* half raw, half quoted */

/* Reads the command line into buf[cap] (raw, the second half of buf as
 * scratch) and quotes it (trace/argv_quote.h) into its first half; returns
 * the quoted length. */
static size_t announce_cmdline(char *buf, size_t cap)
{
	char *raw = buf + cap / 2;
	ssize_t len = sys_read_file("/proc/self/cmdline", raw, cap / 2);

	return len > 0 ? argv_quote_cmdline(buf, cap / 2, raw, (size_t)len) : 0;
}

/* The PROCESS record; the command line is read before the meta lock is
 * taken, unless the process file's header holds all of it already (read
 * there moments ago: a second read cost 6 system calls and 2 page faults
 * per process). */
static void announce_process(void)
{
	const struct session_proc_header *h = preload_proc.hdr;
	size_t exe_len = strlen(preload_proc.exe), cmd_len = 0;
	const char *command = "";
	char *cmdline = NULL;
	struct preload_thread *m;
	uint8_t *rec = NULL, *p;

	if (h && preload_proc.command_whole) {
		command = h->command;
		cmd_len = strlen(command);
	} else if ((cmdline = preload_mem_map(ANNOUNCE_CMDLINE_MAX))) {
		command = cmdline;
		cmd_len = announce_cmdline(cmdline, ANNOUNCE_CMDLINE_MAX);
	}
	m = meta_begin();
	if (m)
		rec = ring_reserve(m, (uint32_t)(RECORD_EXT_HEADER_BYTES + 4 * VARINT_MAX_BYTES +
						 exe_len + cmd_len));
	if (rec) {
		p = record_ext_begin(rec, TRACE_REC_EXT_PROCESS);
		p = varint_put_u64(p, preload_proc.view.pid);
		p = varint_put_u64(p, preload_proc.view.ppid);
		p = record_put_bytes(p, preload_proc.exe, exe_len);
		p = record_put_bytes(p, command, cmd_len);
		record_ext_end(rec, p);
		ring_commit(m, p);
	}
	if (m)
		meta_end(m);
	preload_mem_unmap(cmdline, ANNOUNCE_CMDLINE_MAX);
}

/* What the image's start announced beyond the process and its modules: a
 * fork child runs the same image, malloc and unwinder, so its file says
 * it again (preload_announce_fork_child). */
static const char *announce_foreign_text;
static unsigned announce_foreign_code;
static int announce_have_unwinder = 1;
static const char *announce_new_text;
static unsigned announce_new_code;

void preload_announce_foreign_new(const char *text, unsigned code)
{
	announce_new_text = text;
	announce_new_code = code;
}

void preload_announce(const char *foreign_text, unsigned foreign_code, int have_unwinder)
{
	announce_foreign_text = foreign_text;
	announce_foreign_code = foreign_code;
	announce_have_unwinder = have_unwinder;
	announce_process();
	modules_write_current();
	if (!have_unwinder)
		diag_report(TRACE_DIAG_NO_UNWINDER,
			    "libunwind (" MPROF_LIBUNWIND ") could not be loaded or used: call stacks "
			    "have one frame");
	if (foreign_text)
		diag_report(foreign_code, foreign_text);
	if (announce_new_text)
		diag_report(announce_new_code, announce_new_text);
}

void preload_announce_fork_child(void)
{
	preload_announce(announce_foreign_text, announce_foreign_code, announce_have_unwinder);
}
