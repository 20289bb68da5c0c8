/*
 * cli/pid_guard.c - a pid held by a pidfd, its identity checked once by
 * its start time or the process file it maps (pid_guard.h).  Never prints.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cli/pid_guard.h"
#include "cli/pid_info.h"

/* A pidfd is held for a process's whole life, so it takes only the lowest
 * sixteenth of the descriptor table (ulimit -n, which the launcher shares
 * with the program): the rest is for process files and traces, which a
 * program with many live processes needs more; past it the start time
 * serves. */
static bool pidfd_affordable(int fd)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	       (rlim_t)fd < rl.rlim_cur / 16;
}

/* A pidfd of pid, or -1 with errno (ENOSYS before Linux 5.3 or with
 * MPROF_TEST_PID_GUARD=start-time; EMFILE also when it would take more
 * than pidfd_affordable allows). */
static int pidfd_of(unsigned pid)
{
#ifdef SYS_pidfd_open
	const char *test = getenv("MPROF_TEST_PID_GUARD");
	int fd;

	/* a testing aid (mprof-run(1)): the start-time path on any kernel */
	if (test && strcmp(test, "start-time") == 0) {
		errno = ENOSYS;
		return -1;
	}
	fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);

	if (fd >= 0 && !pidfd_affordable(fd)) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* Whether a line of /proc/PID/maps ("start-end perms offset MAJ:MIN INODE
 * path") maps the file dev:ino. */
static bool maps_line_is(const char *line, dev_t dev, ino_t ino)
{
	unsigned maj, min;
	unsigned long long inode;

	if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &inode) != 3)
		return false;
	return inode == (unsigned long long)ino && maj == major(dev) && min == minor(dev);
}

/* 1 when pid maps the file dev:ino, 0 when not, a negative errno when its
 * maps cannot be read; *lines: whether they had any (a process that ended
 * has none).  Read in pieces: a large program has thousands of mappings. */
static int maps_scan(unsigned pid, dev_t dev, ino_t ino, bool *lines)
{
	char path[64], buf[8192];
	size_t have = 0;
	int fd, found = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			found = -errno;
			break;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while (!found && (nl = strchr(line, '\n')) != NULL) {
			*nl = '\0';
			*lines = true;
			found = maps_line_is(line, dev, ino);
			line = nl + 1;
		}
		if (found)
			break;
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0; /* a line longer than buf (a long path): not ours */
	}
	close(fd);
	return found;
}

static int maps_has_file(unsigned pid, dev_t dev, ino_t ino)
{
	bool lines = false;

	return maps_scan(pid, dev, ino, &lines);
}

bool pid_guard_maps_other(unsigned pid, dev_t dev, ino_t ino)
{
	bool lines = false;

	return maps_scan(pid, dev, ino, &lines) == 0 && lines;
}

/* The clock tick since boot (as /proc/PID/stat counts a start) of mono_ns
 * (CLOCK_MONOTONIC) into *tick; false when mono_ns is 0 (unknown) or the
 * clocks cannot be read. */
static bool mono_tick(uint64_t mono_ns, uint64_t *tick)
{
	struct timespec boot, mono;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t boot_ns;

	if (!mono_ns || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0 ||
	    clock_gettime(CLOCK_MONOTONIC, &mono) != 0)
		return false;
	/* the boot clock counts suspends too: mono_ns on it */
	boot_ns = mono_ns + ((uint64_t)boot.tv_sec - (uint64_t)mono.tv_sec) * 1000000000u +
		  (uint64_t)boot.tv_nsec - (uint64_t)mono.tv_nsec;
	*tick = boot_ns / (1000000000u / (uint64_t)hz);
	return true;
}

/* Whether a process that started at start_ticks (clock ticks since boot,
 * /proc/PID/stat field 22; 0: unknown) started before mono_ns
 * (CLOCK_MONOTONIC, 0: unknown): a process that got the pid after one
 * alive at mono_ns was reaped started after it.  With same_tick, also one
 * that started within mono_ns's tick. */
static bool started_before(unsigned long long start_ticks, uint64_t mono_ns, bool same_tick)
{
	uint64_t tick;

	if (!start_ticks || !mono_tick(mono_ns, &tick))
		return false;
	return start_ticks < tick || (same_tick && start_ticks == tick);
}

/* Whether a process that started at start_ticks (0: unknown) surely
 * started after mono_ns (0: unknown): after its tick. */
static bool started_after(unsigned long long start_ticks, uint64_t mono_ns)
{
	uint64_t tick;

	return start_ticks && mono_tick(mono_ns, &tick) && start_ticks > tick;
}

/* One read of /proc/PID/stat (state and start) serves the start-time
 * check, the zombie's and the hold without pidfds; against the maps' some
 * 30-100 us.  The state is read again only when the maps do not show the
 * file and the process was not a zombie then: it may have ended since;
 * the pid is checked again unless the start named the process. */
int pid_guard_take(struct pid_guard *g, unsigned pid, uint64_t alive_mono_ns, dev_t dev,
		   ino_t ino)
{
	struct pid_guard t = { pid, -1, 0 };
	unsigned long long start, again;
	bool by_start;
	char state;
	int rc;

	*g = PID_GUARD_NONE;
	if (pid == 0)
		return -ESRCH;
	t.pidfd = pidfd_of(pid);
	/* no pidfds, or no descriptor left (ulimit -n: the traces need them
	 * more): its start time instead */
	if (t.pidfd < 0 && errno != ENOSYS && errno != EMFILE && errno != ENFILE)
		return -errno;
	state = pid_info_state_start(pid, &start);
	if (t.pidfd < 0)
		t.start_ticks = start;
	by_start = started_before(start, alive_mono_ns, false);
	rc = by_start ? 1 : maps_has_file(pid, dev, ino);
	if (rc != 1 && state != 'Z') {
		state = pid_info_state_start(pid, &again);
		if (again != start)
			state = 0; /* another process's */
	}
	/* a zombie has no maps: one that started within its file's tick is
	 * taken as it (else a child killed at once never shows its signal);
	 * another would have had to get the pid and end within that tick */
	if (rc != 1 && state == 'Z' && started_before(start, alive_mono_ns, true))
		rc = 1;
	/* a start before the file's tick names its process (it had the pid
	 * since, so the pidfd opened before the read is its own); the maps,
	 * or a zombie of the same tick, may be a later process's */
	if (rc == 1 && !by_start && !pid_guard_current(&t))
		rc = 0;
	if (rc != 1) {
		pid_guard_release(&t);
		return rc < 0 ? rc : -ESRCH;
	}
	*g = t;
	return 0;
}

bool pid_guard_holds(const struct pid_guard *g)
{
	return g->pid && (g->pidfd >= 0 || g->start_ticks);
}

bool pid_guard_current(const struct pid_guard *g)
{
	if (g->pidfd >= 0) {
#ifdef SYS_pidfd_send_signal
		/* signal 0 checks only that the process exists: a zombie does */
		return syscall(SYS_pidfd_send_signal, g->pidfd, 0, NULL, 0) == 0 ||
		       errno == EPERM;
#else
		return false;
#endif
	}
	/* without pidfds: the same start time, i.e. the same process unless
	 * the pid was reaped and reused within one clock tick (a zombie keeps
	 * its start until it is reaped) */
	return g->pid && g->start_ticks && pid_info_start_ticks_any(g->pid) == g->start_ticks;
}

/* Whether g's process, held by its start time, whose pid's start now reads
 * now_ticks (0: unreadable, errno err), has been reaped. */
static bool start_time_reaped(const struct pid_guard *g, unsigned long long now_ticks, int err)
{
	if (now_ticks)
		return now_ticks != g->start_ticks;
	return err != EMFILE && err != ENFILE && err != ENOMEM && err != EAGAIN;
}

bool pid_guard_reaped(const struct pid_guard *g)
{
	unsigned long long now;

	if (!pid_guard_holds(g))
		return false;
	if (g->pidfd >= 0) {
#ifdef SYS_pidfd_send_signal
		return syscall(SYS_pidfd_send_signal, g->pidfd, 0, NULL, 0) != 0 && errno == ESRCH;
#else
		return false;
#endif
	}
	errno = 0;
	now = pid_info_start_ticks_any(g->pid);
	return start_time_reaped(g, now, errno);
}

bool pid_guard_pid_running(unsigned pid, uint64_t alive_mono_ns)
{
	unsigned long long start;

	return pid_info_running_start(pid, &start) && !started_after(start, alive_mono_ns);
}

bool pid_guard_running(const struct pid_guard *g, unsigned pid, uint64_t alive_mono_ns)
{
	unsigned long long now;
	bool running;

	if (!pid_guard_holds(g) || g->pid != pid)
		return pid_guard_pid_running(pid, alive_mono_ns);
	if (g->pidfd >= 0)
		return pid_info_running(pid) && !pid_guard_reaped(g);
	/* on the start-time path one read of /proc/PID/stat serves both */
	errno = 0;
	running = pid_info_running_start(pid, &now);
	return running && !start_time_reaped(g, now, errno);
}

void pid_guard_release(struct pid_guard *g)
{
	if (g->pidfd >= 0)
		close(g->pidfd);
	*g = PID_GUARD_NONE;
}
