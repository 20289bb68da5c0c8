/*
 * cli/run.c - `mprof run`: option parsing, the checks made before the
 * program starts, starting it with the recorder, and the exit status.
 *
 * Order of a run: resolve PROGRAM; if LD_PRELOAD cannot reach it (static,
 * secure-execution) say so and execute it plainly; make the session
 * directory; fork (the child waits); create the trace named after the
 * child's pid before the program runs (failure: status 125, the program never
 * runs); release the child; collect until it ends; remove the session;
 * embed symbols; print where the traces are; return the program's status.
 *
 * Owns the run's options and the final messages.  Never writes to stdout.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/analyzer.h"
#include "cli/collector.h"
#include "cli/die.h"
#include "cli/elf_check.h"
#include "cli/help.h"
#include "cli/launcher_alive.h"
#include "cli/paths.h"
#include "cli/run.h"
#include "cli/run_table.h"
#include "cli/self_command.h"
#include "cli/session_dir.h"
#include "cli/signals.h"
#include "cli/spawn.h"
#include "cli/std_fds.h"
#include "cli/trace_files.h"
#include "trace/argv_quote.h"
#include "trace/session.h"

#define MAX_FRAMES_LIMIT 1024u
#define SAMPLE_RATE_DEFAULT_BYTES (512u << 10)
#define SAMPLE_RATE_MAX_BYTES SESSION_SAMPLE_RATE_MAX_BYTES
#define LISTED_CHILD_TRACES 4
#define TOGGLE_SIGNAL_DEFAULT SIGUSR2 /* with --paused */

struct run_options {
	const char *output;     /* -o, or NULL for the default name */
	unsigned max_frames;
	bool no_children;
	uint64_t sample_rate_bytes; /* --sample-rate; 0: exact mode */
	uint64_t sample_seed;
	bool have_seed;             /* --sample-seed given */
	bool paused;                /* --paused */
	int toggle_signal;          /* --toggle-signal; 0: none, -1: not given */
	bool sampled_last;          /* -s/--sampled came right before PROGRAM, no "--" between */
	char **argv;            /* PROGRAM ARGS..., NULL-terminated */
	int argc;
};

static _Noreturn void usage_die(const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, arg);
	mprof_die(MPROF_EXIT_USAGE, "run: %s (see '%s run --help')", msg, self_command());
}

static unsigned max_frames_parse(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < 1 || v > MAX_FRAMES_LIMIT)
		usage_die("--max-frames wants a number from 1 to 1024, not '%s'", s);
	return (unsigned)v;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* Reads BYTES of --sample-rate, a number with an optional K, M or G
 * (powers of 1024), into *bytes; false when s is not one from 1 byte to
 * SAMPLE_RATE_MAX_BYTES (1G). */
static bool sample_rate_scan(const char *s, uint64_t *bytes)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (errno || end == s || *end || !isdigit((unsigned char)s[0]) || v < 1 ||
	    v > (SAMPLE_RATE_MAX_BYTES >> shift))
		return false;
	*bytes = (uint64_t)v << shift;
	return true;
}

/* sample_rate_scan, or a usage error. */
static uint64_t sample_rate_parse(const char *s)
{
	uint64_t bytes;

	if (!sample_rate_scan(s, &bytes))
		usage_die("--sample-rate wants a size from 1 to 1G (suffixes K, M, G), not '%s'",
			  s);
	return bytes;
}

static uint64_t sample_seed_parse(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || !isdigit((unsigned char)s[0]))
		usage_die("--sample-seed wants a number from 0 to 2^64-1, not '%s'", s);
	return (uint64_t)v;
}

/* The number in s: decimal digits only, at most 9999; -1 for anything else
 * (empty, a sign, other characters). */
static int small_number(const char *s)
{
	int v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || v > 999)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* SIG of --toggle-signal: USR1, USR2, RTMIN, RTMIN+N, RTMAX-N or RTMAX (the
 * names of kill -l, with or without SIG, any case), a number, or "none" (0,
 * any case).  Only signals session_toggle_signal_ok accepts: the others
 * have a meaning of their own, and a caught fault's signal would hang the
 * program on its faulting instruction instead of killing it. */
static int toggle_signal_parse(const char *s)
{
	const char *name = strncasecmp(s, "SIG", 3) == 0 ? s + 3 : s;
	char fmt[256];
	int sig = -1, n;

	if (strcasecmp(s, "none") == 0)
		return 0;
	if (isdigit((unsigned char)s[0])) {
		sig = small_number(s);
	} else if (strncasecmp(name, "RTMIN", 5) == 0) {
		n = name[5] == '+' ? small_number(name + 6) : name[5] ? -1 : 0;
		sig = n < 0 ? -1 : SIGRTMIN + n;
	} else if (strncasecmp(name, "RTMAX", 5) == 0) {
		n = name[5] == '-' ? small_number(name + 6) : name[5] ? -1 : 0;
		sig = n < 0 ? -1 : SIGRTMAX - n;
	} else if (strcasecmp(name, "USR1") == 0) {
		sig = SIGUSR1;
	} else if (strcasecmp(name, "USR2") == 0) {
		sig = SIGUSR2;
	}
	if (sig > 0 && session_toggle_signal_ok(sig))
		return sig;
	snprintf(fmt, sizeof(fmt),
		 "--toggle-signal wants USR1, USR2, a real-time signal (RTMIN+N, RTMAX-N, "
		 "%d..%d) or 'none', not '%%s'", SIGRTMIN, SIGRTMAX);
	usage_die(fmt, s);
}

static void options_parse(int argc, char **argv, struct run_options *o)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "max-frames", required_argument, NULL, 'F' },
		{ "no-children", no_argument, NULL, 'C' },
		{ "sample-rate", required_argument, NULL, 'R' },
		{ "sample-seed", required_argument, NULL, 'S' },
		{ "sampled", no_argument, NULL, 's' },
		{ "paused", no_argument, NULL, 'P' },
		{ "toggle-signal", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, last = 0;

	memset(o, 0, sizeof(*o));
	o->max_frames = SESSION_DEFAULT_MAX_FRAMES;
	o->toggle_signal = -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:qhs", longs, NULL)) != -1) {
		last = c;
		switch (c) {
		case 'o':
			if (!optarg[0])
				usage_die("%s-o wants a file name", "");
			o->output = optarg;
			break;
		case 'F':
			o->max_frames = max_frames_parse(optarg);
			break;
		case 'C':
			o->no_children = true;
			break;
		case 'R':
			o->sample_rate_bytes = sample_rate_parse(optarg);
			break;
		case 's':
			o->sample_rate_bytes = SAMPLE_RATE_DEFAULT_BYTES;
			break;
		case 'S':
			o->sample_seed = sample_seed_parse(optarg);
			o->have_seed = true;
			break;
		case 'P':
			o->paused = true;
			break;
		case 'T':
			o->toggle_signal = toggle_signal_parse(optarg);
			break;
		case 'q':
			mprof_quiet = true;
			break;
		case 'h':
			help_print(stdout, "run");
			exit(0);
		case ':':
			usage_die("option '%s' wants a value", argv[optind - 1]);
		default:
			if (optopt) {
				char opt[3] = { '-', (char)optopt, '\0' };

				usage_die("unknown option '%s'", opt);
			}
			usage_die("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_die("%sno PROGRAM to run", "");
	if (o->toggle_signal < 0)
		o->toggle_signal = o->paused ? TOGGLE_SIGNAL_DEFAULT : 0;
	o->sampled_last = last == 's' && strcmp(argv[optind - 1], "--") != 0;
	o->argv = argv + optind;
	o->argc = argc - optind;
}

/* A PROGRAM not found that reads as a sample rate right after -s (which
 * takes no value, as `-s 64k` would have it): a usage error that names
 * --sample-rate, not "command not found". */
static void sampled_value_check(const struct run_options *o)
{
	uint64_t bytes;

	if (o->sampled_last && sample_rate_scan(o->argv[0], &bytes))
		mprof_die(MPROF_EXIT_USAGE, "run: -s (--sampled) takes no value: it samples at %uK; for a "
			  "sample rate of %s write --sample-rate %s (see '%s run --help')",
			  SAMPLE_RATE_DEFAULT_BYTES >> 10, o->argv[0], o->argv[0], self_command());
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Dies with 127 or 126 for a program that cannot be started; path is the
 * file executed (NULL when none was found).  An ENOENT from the exec of a
 * file that exists is its interpreter's (a "#!" line's or a dynamic
 * loader's): named as such, with the 127 shells give it. */
static _Noreturn void exec_error_die(const char *program, const char *path, int err)
{
	char interp[PATH_MAX];

	if (err == ENOENT && path && access(path, F_OK) == 0) {
		if (elf_check_interpreter(path, interp, sizeof(interp)) == 0 &&
		    access(interp, F_OK) != 0)
			mprof_die(MPROF_EXIT_NOTFOUND, "%s: cannot execute: its interpreter %s is "
				  "missing", program, interp);
		mprof_die(MPROF_EXIT_NOTFOUND, "%s: cannot execute: %s (the file exists: a file "
			  "it needs to start is missing)", program, strerror(err));
	}
	if (err == ENOENT)
		mprof_die(MPROF_EXIT_NOTFOUND, "%s: command not found", program);
	mprof_die(MPROF_EXIT_NOEXEC, "%s: cannot execute: %s", program, strerror(err));
}

/* Static, foreign (32-bit), sanitizer-built or secure-execution program:
 * say why, then run it without us.  A warning, shown with -q too: the trace
 * asked for will not exist. */
static void unreachable_check(const struct run_options *o, const char *path)
{
	const char *secure, *sanitizer;
	char soname[256];
	int err;

	enum elf_link link = elf_check_link(path);

	if (link == ELF_LINK_STATIC) {
		mprof_warn("%s is statically linked: LD_PRELOAD cannot reach it, so no "
			   "allocations will be recorded (no trace written)", o->argv[0]);
	} else if (link == ELF_LINK_FOREIGN) {
		/* run without LD_PRELOAD: its loader would print an error of its
		 * own (wrong ELF class) on the program's stderr */
		mprof_warn("%s is %s: its loader cannot load mprof's recorder, so no "
			   "allocations will be recorded (no trace written)", o->argv[0],
			   elf_check_foreign_kind(path));
	} else if (link == ELF_LINK_DYNAMIC &&
		   (sanitizer = elf_check_sanitizer(path, soname, sizeof(soname))) != NULL) {
		/* AddressSanitizer ends the program when a preloaded library
		 * comes before its runtime; the others' malloc would be ours */
		mprof_warn("%s is built with %s (it loads %s), whose runtime serves malloc "
			   "itself and must come first: it runs without mprof's recorder, so no "
			   "allocations will be recorded (no trace written)", o->argv[0],
			   sanitizer, soname);
	} else {
		secure = elf_check_secure_exec(path);
		if (!secure)
			return;
		mprof_warn("%s runs %s: the loader ignores LD_PRELOAD in secure mode, so no "
			   "allocations will be recorded (no trace written)", o->argv[0], secure);
	}
	err = spawn_exec_plain(path, o->argv);
	exec_error_die(o->argv[0], path, err);
}

/* The preload library's absolute path, or death with status 125. */
static const char *preload_find(void)
{
	static char real[PATH_MAX];
	const char *path = mprof_path_preload();

	if (access(path, R_OK) != 0 || !realpath(path, real))
		mprof_die(MPROF_EXIT_FAILED, "cannot find the preload library %s: %s (set "
			  "MPROF_PRELOAD_LIB to its location)", path, strerror(errno));
	if (strpbrk(real, " :"))
		mprof_die(MPROF_EXIT_FAILED, "the preload library path %s contains a space or "
			  "a colon, which LD_PRELOAD cannot express", real);
	return real;
}

/* The command line, quoted as a shell would read it back (argv_quote.h). */
static char *command_join(const struct run_options *o)
{
	size_t n = 1, len = 0;
	char *s;

	for (int i = 0; i < o->argc; i++)
		n += 4 * strlen(o->argv[i]) + 3;
	s = malloc(n);
	if (!s)
		mprof_die(MPROF_EXIT_FAILED, "out of memory");
	for (int i = 0; i < o->argc; i++)
		len = argv_quote_append(s, n - 1, len, o->argv[i], strlen(o->argv[i]));
	s[len] = '\0';
	return s;
}

/* Default "<cwd>/mprof.PROGNAME.PID.trace", absolute so that the place does
 * not depend on what the program does later.  Characters of PROGNAME other
 * than letters, digits and ._+- become '_' (a program named with spaces or
 * newlines must not give a trace name that breaks scripts), and it is cut
 * at TRACE_NAME_PROGRAM_MAX bytes: the name, with a child's ".PID.N" after
 * it, stays within a file name's 255 (a 240-byte program name made the run
 * fail before the program started). */
#define TRACE_NAME_PROGRAM_MAX 128
static char *trace_path_default(const char *program, pid_t pid)
{
	char cwd[PATH_MAX], *out, *name;
	size_t n;

	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	n = strlen(cwd) + strlen(program) + 64;
	out = malloc(n);
	if (!out)
		return NULL;
	snprintf(out, n, "%s%smprof.", cwd, strcmp(cwd, "/") ? "/" : "");
	name = out + strlen(out);
	snprintf(name, n - (size_t)(name - out), "%.*s.%ld.trace", TRACE_NAME_PROGRAM_MAX,
		 base_name(program), (long)pid);
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._+-", *c))
			*c = '_';
	return out;
}

/* path as one shell word, for the hint printed at the end: as it is when it
 * is made of plain characters, else in single quotes.  Static buffer. */
static const char *shell_word(const char *path)
{
	static char buf[2 * PATH_MAX];
	size_t j = 0;

	if (!path[strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789._+-/=,:@%")])
		return path;
	buf[j++] = '\'';
	for (const char *c = path; *c && j + 5 < sizeof(buf); c++) {
		if (*c == '\'') {
			memcpy(buf + j, "'\\''", 4);
			j += 4;
		} else {
			buf[j++] = *c;
		}
	}
	buf[j++] = '\'';
	buf[j] = 0;
	return buf;
}

/* More descriptors for the launcher (one per traced process); the program
 * keeps its own limit because it was forked before this. */
static void fd_limit_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int status_to_exit(int wait_status)
{
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	return MPROF_EXIT_FAILED;
}

/* The collector could not read the session directory (it said why). */
static bool session_unread;

/* "trace written to F (N child traces: F.1 F.2 …); view it with ...", the
 * command as the user can paste it (self_command). */
static void summary_print(const struct run_options *o, const struct collector_result *res)
{
	char list[1024] = "";
	size_t first_child = res->root_seen ? 1 : 0, nchild = res->ntraces - first_child;
	size_t len = 0;

	for (size_t i = 0; i < nchild && i < LISTED_CHILD_TRACES; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? " " : "",
					res->traces[first_child + i]);
	if (nchild > LISTED_CHILD_TRACES && len < sizeof(list))
		snprintf(list + len, sizeof(list) - len, " …");
	if (!res->root_seen) {
		struct rlimit fsize;
		char why[160] = "LD_PRELOAD was dropped, or it became a static or set-user-ID "
				"program through exec";

		if (session_unread) { /* said already, with the reason */
			mprof_note("no data came from %s; its empty trace was deleted", o->argv[0]);
			return;
		}

		/* the recorder does not start under a file size limit below
		 * its process file's size (it would raise SIGXFSZ) */
		if (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY)
			snprintf(why, sizeof(why), "the file size limit, ulimit -f %llu KiB, is "
				 "below what its process file needs; or LD_PRELOAD was dropped",
				 (unsigned long long)fsize.rlim_cur / 1024);
		mprof_note("no data came from %s: the recorder never started in it (%s); its empty "
			   "trace was deleted", o->argv[0], why);
		if (nchild)
			mprof_note("%zu child trace%s written: %s", nchild, nchild == 1 ? "" : "s",
				   list);
		return;
	}
	if (nchild)
		mprof_note("trace written to %s (%zu child trace%s: %s); view them all with: "
			   "%s report --all %s", res->traces[0], nchild, nchild == 1 ? "" : "s",
			   list, self_command(), shell_word(res->traces[0]));
	else
		mprof_note("trace written to %s; view it with: %s report %s", res->traces[0],
			   self_command(), shell_word(res->traces[0]));
}

/* What the program's process ran last, for a message about how it ended:
 * the first word of the command of the image it executed last, when it
 * executed another program (`sh -c 'exec prog'`), else argv[0]. */
static const char *last_program(const struct run_options *o, const struct collector_result *res,
				char *buf, size_t size)
{
	const char *last = NULL;

	if (!res->root_seen || !res->figures)
		return o->argv[0];
	for (size_t i = 1; i < res->ntraces; i++)
		if (res->figures[i].pid == res->figures[0].pid && res->figures[i].command &&
		    res->figures[i].process_state && strcmp(res->figures[i].process_state, "exec"))
			last = res->figures[i].command;
	if (!last)
		return o->argv[0];
	snprintf(buf, size, "%.*s", (int)argv_quote_word_len(last), last);
	return buf;
}

/* "process PID (NAME)" for a message about one of the run's processes,
 * its name cut to 60 columns as the message will escape it, into out. */
static const char *process_label(unsigned pid, const char *name, char *out, size_t size)
{
	char fit[60 * 4 + 8] = "?";

	if (name)
		argv_quote_fit(name, 60, fit, sizeof(fit));
	if (pid)
		snprintf(out, size, "process %u (%s)", pid, fit);
	else
		snprintf(out, size, "process (%s)", fit);
	return out;
}

/* Names the run's processes whose traces end with them running (the wait
 * for them to end is cli/collector.c's procs_ending_settle). */
static void still_running_print(const struct run_options *o, const struct collector_result *res)
{
	char first[300];
	size_t n = res->still_running, s = res->still_stopped;

	process_label(res->running_pid, res->running_name, first, sizeof(first));
	if (n == 1)
		mprof_note("%s, started by %s, still ran when mprof had waited %.1f s for it to "
			   "end; its trace holds what it recorded until then (mprof waits no "
			   "longer: run a server that daemonizes in the foreground to record it to "
			   "its end)", first, o->argv[0], res->ending_waited_ms / 1000.0);
	else if (n)
		mprof_note("%zu processes started by %s still ran when mprof had waited %.1f s for "
			   "them to end (%s and %zu more); their traces hold what they recorded "
			   "until then (mprof waits no longer: run a server that daemonizes in the "
			   "foreground to record them to their end)", n, o->argv[0],
			   res->ending_waited_ms / 1000.0, first, n - 1);
	process_label(res->stopped_pid, res->stopped_name, first, sizeof(first));
	if (s == 1)
		mprof_note("%s, started by %s, was stopped when the recording ended; its trace "
			   "holds what it recorded until then (mprof does not wait for a stopped "
			   "process)", first, o->argv[0]);
	else if (s)
		mprof_note("%zu processes started by %s were stopped when the recording ended (%s "
			   "and %zu more); their traces hold what they recorded until then (mprof "
			   "does not wait for a stopped process)", s, o->argv[0], first, s - 1);
}

/* The index in res->traces of the last image of the program's own process
 * when that process executed another program (a wrapper script or pyenv's
 * shim that execs the real program) and the image made an allocation
 * record; else -1.  The program's pid must be known (not 0). */
static long exec_target_trace(const struct collector_result *res)
{
	const struct collector_trace *f = res->figures;
	long last = -1;

	if (!res->root_seen || !f || !f[0].pid || !f[0].process_state ||
	    strcmp(f[0].process_state, "exec"))
		return -1;
	for (size_t i = 1; i < res->ntraces; i++)
		if (f[i].pid == f[0].pid && f[i].process_state &&
		    strcmp(f[i].process_state, "exec"))
			last = (long)i;
	return last >= 0 && f[last].samples ? last : -1;
}

/* The closing hint: the command that makes the page of one trace.  A run of
 * one trace names it.  Of several, it names the program the command executed
 * in the end (exec_target_trace), as that is the program the user asked
 * for and whose exit status mprof returns; else the one with the most
 * allocation records (top, from run_table_print), else the first. */
static void page_hint_print(const struct collector_result *res, long top)
{
	char word[256], program[60 * 4 + 32];
	long shown = exec_target_trace(res);
	const char *t, *command;

	if (shown < 0)
		shown = top > 0 ? top : 0;
	if (!res->root_seen && top <= 0)
		return;
	t = res->traces[shown];
	if (res->ntraces < 2 || !res->figures || !res->figures[shown].command) {
		mprof_note("a page to look at it: %s report --html %s.html %s", self_command(),
			   shell_word(t), shell_word(t));
		return;
	}
	command = res->figures[shown].command;
	snprintf(word, sizeof(word), "%.*s", (int)argv_quote_word_len(command), command);
	argv_quote_fit(word, 60, program, sizeof(program));
	if (res->figures[shown].pid) /* 0: unknown (preload/pidns.h) */
		snprintf(program + strlen(program), sizeof(program) - strlen(program), " (pid %u)",
			 res->figures[shown].pid);
	mprof_note("a page to look at the trace of %s: %s report --html %s.html %s", program,
		   self_command(), shell_word(t), shell_word(t));
}

static void ending_print(const struct run_options *o, const struct collector_result *res)
{
	long top = -1;
	char last[256];

	still_running_print(o, res);
	if (WIFSIGNALED(res->wait_status)) {
		int sig = WTERMSIG(res->wait_status);
		const char *abbrev = sigabbrev_np(sig);

		mprof_note("%s was killed by signal %d (%s%s)", last_program(o, res, last, sizeof(last)),
			   sig, abbrev ? "SIG" : "", abbrev ? abbrev : "unknown");
	}
	if (!mprof_quiet)
		top = run_table_print(res, o->sample_rate_bytes, o->paused);
	summary_print(o, res);
	page_hint_print(res, top);
}

/* glibc's malloc debugging library in the user's LD_PRELOAD: its malloc
 * comes after the recorder's, which calls the C library's own, so its
 * checks and mtrace log see nothing; say so rather than let a program
 * that should abort run on. */
static void malloc_debug_check(void)
{
	const char *preload = getenv("LD_PRELOAD");

	if (preload && strstr(preload, "libc_malloc_debug"))
		mprof_warn("libc_malloc_debug is in LD_PRELOAD: under mprof its checks "
			   "(glibc.malloc.check, MALLOC_CHECK_, mcheck) and mtrace log see no "
			   "allocation, since mprof's recorder takes malloc first and calls "
			   "the C library's own");
}

/* Runs the program under the recorder; returns its exit status. */
static int run_recorded(const struct run_options *o, const char *path)
{
	char session[PATH_MAX], recorder_real[PATH_MAX], *command, *trace_path;
	struct spawn_env env = { 0 };
	struct collector_config cfg = { 0 };
	struct collector_result res;
	struct trace_file root_trace;
	struct spawn sp;
	sigset_t old_mask;
	int rc, err;

	env.preload_path = preload_find();
	rc = session_dir_create(session, sizeof(session));
	if (rc < 0)
		mprof_die(MPROF_EXIT_FAILED, "cannot create a session directory in /dev/shm, "
			  "$TMPDIR or /tmp: %s", strerror(-rc));
	/* failing, the recorders fall back on the launcher's pid */
	launcher_alive_start(session);
	env.session_dir = session;
	env.max_frames = o->max_frames;
	env.no_children = o->no_children;
	env.sample_rate_bytes = o->sample_rate_bytes;
	env.have_seed = o->have_seed;
	env.sample_seed = o->sample_seed;
	env.paused = o->paused;
	env.toggle_signal = o->toggle_signal;
	trace_files_set_sampled(o->sample_rate_bytes != 0);
	command = command_join(o);
	malloc_debug_check();

	signals_block(o->toggle_signal, &old_mask);
	rc = spawn_fork(&sp, path, o->argv, &env, &old_mask);
	if (rc < 0) {
		session_dir_remove(session);
		mprof_die(MPROF_EXIT_FAILED, "cannot start %s: %s", o->argv[0], strerror(-rc));
	}
	signals_forward_start(sp.pid, &old_mask);
	fd_limit_raise();

	trace_path = o->output ? strdup(o->output) : trace_path_default(o->argv[0], sp.pid);
	rc = trace_path ? trace_file_create(&root_trace, trace_path) : -errno;
	if (rc < 0) {
		spawn_abort(&sp);
		session_dir_remove(session);
		if (!trace_path)
			mprof_die(MPROF_EXIT_FAILED, "cannot name the trace in the current "
				  "directory: %s", strerror(-rc));
		mprof_die(MPROF_EXIT_FAILED, "cannot create trace %s: %s%s", trace_path,
			  strerror(-rc), rc == -EEXIST ? " (mprof never overwrites a file)" : "");
	}
	cfg.start_unix_ns = clock_ns(CLOCK_REALTIME);
	cfg.start_mono_ns = clock_ns(CLOCK_MONOTONIC);
	err = spawn_release(&sp);
	if (err) {
		trace_file_discard(&root_trace);
		trace_files_release();
		session_dir_remove(session);
		exec_error_die(o->argv[0], path, err);
	}

	cfg.session_dir = session;
	cfg.root_pid = sp.pid;
	cfg.helper_start = analyzer_prestart;
	cfg.program_ended = std_fds_release_in_out;
	cfg.toggle_signal = o->toggle_signal;
	cfg.root_trace = &root_trace;
	cfg.trace_base = trace_path;
	cfg.command = command;
	cfg.program = o->argv[0];
	cfg.max_frames = o->max_frames;
	cfg.no_children = o->no_children;
	cfg.sample_rate_bytes = o->sample_rate_bytes;
	cfg.paused = o->paused;
	cfg.recorder_path = realpath(env.preload_path, recorder_real) ? recorder_real : NULL;
	rc = collector_run(&cfg, &res);
	launcher_alive_stop();
	if (rc < 0) {
		mprof_warn("cannot read the session directory %s: %s%s; nothing was recorded",
			   session, strerror(-rc),
			   rc == -EMFILE ? " (mprof shares the program's ulimit -n)" : "");
		session_unread = true;
	}
	session_dir_remove(session);
	if (res.ntraces)
		analyzer_symbolize(res.traces, res.ntraces, &res.kept);
	ending_print(o, &res);
	rc = status_to_exit(res.wait_status);
	collector_result_free(&res);
	free(trace_path);
	free(command);
	if (WIFSIGNALED(res.wait_status))
		signals_end_by(WTERMSIG(res.wait_status));
	return rc;
}

int run_main(int argc, char **argv)
{
	struct run_options o;
	char path[PATH_MAX];
	int rc;

	std_fds_hold();
	options_parse(argc, argv, &o);
	rc = program_resolve(o.argv[0], path, sizeof(path));
	if (rc == -ENOENT)
		sampled_value_check(&o);
	if (rc < 0)
		exec_error_die(o.argv[0], NULL, -rc);
	unreachable_check(&o, path);
	return run_recorded(&o, path);
}
