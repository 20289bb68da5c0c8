/*
 * cli/rezip.h - deflating the EVENTS chunks a trace holds stored.
 *
 * While the program keeps every processor busy the collector stores its
 * chunks as they are (cli/collector.c): compressing them would take the
 * program's processor time.  A re-compression job rewrites such a trace
 * chunk by chunk into a new file in the same folder, deflating every stored
 * chunk and copying the others byte for byte, while the collector goes on
 * appending to the trace; once the job has caught up with the trace's end,
 * the new file takes the trace's name with one rename(2), and the trace is
 * written on in it.  The format does not change: a reader sees an ordinary
 * trace, before and after.
 *
 * Crash safety: the trace's name always holds a whole trace.  A launcher
 * killed during a job leaves the trace as it was; the new file is unnamed
 * (O_TMPFILE) and vanishes with it, or, on a file system without
 * O_TMPFILE, stays beside the trace as TRACE.rezip-PID.
 *
 * While the program runs, jobs run on a worker thread at SCHED_IDLE, so
 * they take only processor time that nothing else wants ("once a
 * processor is free again"); when it has ended the collector finishes them
 * at full speed, with a helper thread per other processor.  Both deflate
 * at the fastest level.  All functions but the worker's own are
 * called from the collector's thread.
 */
#ifndef MPROF_CLI_REZIP_H
#define MPROF_CLI_REZIP_H

#include <stdbool.h>

#include "cli/trace_files.h"

/* Told of a job that failed (negative errno err; the trace at path keeps
 * its stored chunks) or, with err 0, of nothing. */
typedef void rezip_report_fn(const char *path, int err);

/*
 * Starts a job on tf, an open trace whose absolute path is path: its
 * stored chunks so far and those written until the job has caught up.
 * Sets tf->rezip.  Returns 0 or a negative errno (nothing started).
 */
int rezip_start(struct trace_file *tf, const char *path);

/*
 * The collector's round: tells each job where its trace ends now; the new
 * file of a job that has caught up takes its trace's name (an open trace's
 * descriptor becomes the new file's, and its stored_bytes 0).  Failed jobs
 * are dropped, their traces marked rezip_failed, and reported.
 */
void rezip_poll(rezip_report_fn *report);

/* An eventfd that turns readable when the worker has a chunk ready for
 * rezip_poll, for the collector's idle wait; -1 before the first job. */
int rezip_wake_fd(void);

/* tf is about to be closed: its job, if any, goes on alone up to the end
 * the trace has now, with descriptors of its own. */
void rezip_detach(struct trace_file *tf);

/*
 * At the end of the run, every trace closed (rezip_detach): finishes every
 * job at compression level (TRACE_LEVEL_*), on the calling thread and a
 * helper thread at full priority for each other processor it may run on
 * (chunks are independent streams: each helper deflates one, the calling
 * thread writes them in file order); puts each new file in its trace's
 * place, and lets the workers go.  With
 * stop_halfway (a testing aid, MPROF_TEST_STORE=stall) it stops once the
 * first job has read half of its trace, leaving every trace as it was, and
 * returns true.
 */
bool rezip_finish(int level, bool stop_halfway, rezip_report_fn *report);

#endif
