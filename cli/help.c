/*
 * cli/help.c - the text of `mprof --help`, `mprof help CMD` and
 * `mprof CMD --help`.  Owns only constant strings; the exit statuses listed
 * here are the ones cli/die.h defines and cli/run.c returns.
 */
#include "config.h"

#include <string.h>

#include "cli/help.h"
#include "trace/session.h"

_Static_assert(SESSION_DEFAULT_RING_BYTES == 768u << 10,
	       "mprof run --help names the default ring size");

static const char help_main[] =
	"usage: mprof COMMAND [ARGS...]\n"
	"\n"
	"mprof records every heap allocation of a program with its call stack and\n"
	"reports where memory goes: allocation sites, peak (t-gmax), leaks (live at\n"
	"exit) and temporary allocations.\n"
	"\n"
	"Commands:\n"
	"  run [OPTIONS] [--] PROGRAM [ARGS...]   run PROGRAM and write a trace\n"
	"  report TRACE... [OPTIONS]              summarize one or more traces\n"
	"  diff [OPTIONS] A B                     compare two traces site by site\n"
	"  help [COMMAND]                         show this help or a command's help\n"
	"\n"
	"Options:\n"
	"  -h, --help      show this help\n"
	"  -V, --version   show the version\n"
	"\n"
	"Example:\n"
	"  mprof run -- ./myprog --input data.txt\n"
	"  mprof report mprof.myprog.12345.trace\n"
	"\n"
	"See 'mprof help run' for the exit statuses of a run.\n";

static const char help_run[] =
	"usage: mprof run [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Runs PROGRAM (searched in PATH) with the mprof recorder preloaded and writes\n"
	"a trace of every heap allocation.  PROGRAM gets mprof's stdin, stdout and\n"
	"stderr as they are; mprof never reads stdin or writes stdout, and closes its\n"
	"own copies of the two when PROGRAM ends, so that a pipe ends with PROGRAM's\n"
	"processes.  mprof's own messages go to stderr, prefixed with \"mprof:\".\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   write the trace to FILE (default: mprof.PROGRAM.PID.trace\n"
	"                      in the current directory); FILE must not exist: mprof\n"
	"                      never overwrites a file.  Processes the program starts\n"
	"                      get their own traces, FILE.PID, or FILE.PID.N when\n"
	"                      that is taken (a child that executes a program)\n"
	"      --max-frames N  record at most N frames per call stack, 1..1024\n"
	"                      (default 64); deeper stacks are marked truncated, and\n"
	"                      mprof report's \"cut stacks:\" line counts them\n"
	"      --no-children   record only PROGRAM itself (and what it executes in the\n"
	"                      same process), not the processes it starts\n"
	"      --sample-rate BYTES  record a sample instead of every allocation: Poisson\n"
	"                      by bytes, one sample per BYTES on average (1..1G,\n"
	"                      suffixes K, M, G); each sample weighs 1/p, so reports\n"
	"                      give unbiased estimates of counts, bytes and leaks\n"
	"                      (not of temporary, max live or peak); default: exact\n"
	"  -s, --sampled       --sample-rate 512K (takes no value: for another rate\n"
	"                      use --sample-rate)\n"
	"      --sample-seed N  seed of the sampler (0..2^64-1): a deterministic\n"
	"                      program gives the same samples again; every program\n"
	"                      the run executes uses N itself, and a fork child its\n"
	"                      parent's seed mixed with the fork's number (1 for the\n"
	"                      parent's first fork); default: each process draws its\n"
	"                      own from the clock and its pid; in each trace either way\n"
	"      --paused        start with recording stopped; the program starts it with\n"
	"                      mprof_start() (mprof.h, man 3 mprof) or SIGUSR2 toggles\n"
	"                      it (kill -USR2 PROGRAM_PID); frees of blocks recorded\n"
	"                      before a stop stay matched (man mprof-run)\n"
	"      --toggle-signal SIG  the signal that toggles recording: USR1, USR2, a\n"
	"                      real-time signal (RTMIN+N, RTMAX-N as kill -l names\n"
	"                      them; SIG and case optional) or its number, or none\n"
	"                      (default: USR2 with --paused, else none); other\n"
	"                      signals mean something already and are refused; a\n"
	"                      handler the program installs itself wins\n"
	"  -q, --quiet         print no mprof messages except errors and warnings\n"
	"  -h, --help          show this help\n"
	"\n"
	"While the program runs, mprof samples each process's RSS every 100 ms into\n"
	"its trace: the page of 'mprof report --html' charts it with the heap.\n"
	"\n"
	"A run that makes several traces ends with a table of its processes\n"
	"(program, pid, allocations, peak RSS, trace; most allocations first, at most\n"
	"20 lines; sampled: most samples first), then names the trace of its top row.\n"
	"A row names a process by its own command line, as its report does ('/bin/sh\n"
	"./s.sh' for a script run through its #! line).\n"
	"The closing 'mprof report --html' hint names the program the first process\n"
	"executed in the end (a wrapper or pyenv shim that execs it), else that row.\n"
	"'mprof report --all FILE' reports them.\n"
	"The commands mprof's messages suggest name mprof as it was run: 'mprof'\n"
	"when PATH finds this mprof by that name, else the path it was run by.\n"
	"When PROGRAM ends, mprof waits up to 2 s for processes it started just\n"
	"before whose recorder is still starting, and names in a warning each of\n"
	"the run's processes left without a trace, with the reason (man mprof-run).\n"
	"Then it gives the run's processes still running up to 0.5 s to end by\n"
	"themselves (up to 5 s while one is busy on the processor; not stopped\n"
	"ones), and names the first one still running.\n"
	"\n"
	"Signals another process sends to mprof (SIGINT, SIGTERM, SIGHUP, SIGQUIT,\n"
	"SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM, real-time signals, SIGABRT and others:\n"
	"man mprof-run) are passed on to PROGRAM; mprof itself finishes the trace\n"
	"after PROGRAM ends.\n"
	"\n"
	"Statically linked programs, set-user-ID, set-group-ID or capability-\n"
	"raising programs (the dynamic loader ignores LD_PRELOAD for them) and 32-bit\n"
	"programs (PROGRAM or one it starts) cannot be recorded: mprof says so and\n"
	"runs them without recording.\n"
	"\n"
	"Environment: MPROF_RING_KIB (ring size per thread, KiB; default 768),\n"
	"MPROF_UNWIND (dwarf, libunwind, fp or check), MPROF_DEBUGINFOD,\n"
	"MPROF_SYMBOL_CACHE (symbol cache folder; empty: no cache),\n"
	"MPROF_PRELOAD_LIB, MPROF_ANALYZE, MPROF_TEST_STORE (a testing aid): see\n"
	"mprof-run(1).  PROGRAM and its children see LD_PRELOAD and MPROF_SESSION,\n"
	"MPROF_LAUNCHER_PID, MPROF_LAUNCHER_PIDNS, MPROF_ROOT_PID, MPROF_MAX_FRAMES,\n"
	"MPROF_LAUNCHER_TIMENS_NS (when mprof runs in a time namespace with an\n"
	"offset) and, with the options that set them, MPROF_NO_CHILDREN,\n"
	"MPROF_SAMPLE_RATE, MPROF_SAMPLE_SEED, MPROF_PAUSED and MPROF_TOGGLE_SIGNAL,\n"
	"which carry the recording to the processes it starts.\n"
	"\n"
	"Exit status:\n"
	"  the program's own exit status; when signal N killed it, mprof ends by the\n"
	"  same signal once the trace is written (a shell shows 128+N), without a\n"
	"  core dump of its own\n"
	"  2    usage error\n"
	"  125  mprof failed before the program could start (e.g. the trace file or\n"
	"       the session directory cannot be created)\n"
	"  126  the program was found but cannot be executed\n"
	"  127  the program was not found\n";

static const char help_report[] =
	"usage: mprof report TRACE... [--all] [OPTIONS]\n"
	"\n"
	"Prints a summary and the top allocation sites of the traces written by\n"
	"'mprof run' (a program's trace and, optionally, those of its children).\n"
	"With --all, TRACE stands for every trace of its run (TRACE.PID ...); a\n"
	"quoted glob ('dir/trace*') names several.  Several traces start with an\n"
	"overview, one line per process, most allocations first.\n"
	"The work is done by the analyzer, mprof-analyze; its options are passed on\n"
	"unchanged: see 'mprof-analyze report --help' or mprof-report(1).\n"
	"\n"
	"Exit status: the analyzer's (0 success, 1 a trace cannot be read, 2 usage\n"
	"errors); 125 when the analyzer cannot be started.\n";

static const char help_diff[] =
	"usage: mprof diff [-n N] [-f text|json|folded|flamegraph|html] [--metric M] [-o FILE]\n"
	"                  [--match function|line] [--fail-if EXPR]... [--force]\n"
	"                  [--alloc-fn NAME]... A B\n"
	"\n"
	"Compares trace B with trace A site by site: the totals side by side, then\n"
	"the sites that grew and those that shrank.  Sites match by function in\n"
	"modules of the same file name, so two builds in different folders compare.\n"
	"--fail-if makes it a CI gate: 'peak>+5%' (a change from A), 'leaked>0' (B's\n"
	"value), 'site:allocated>+1M' (any one site).  -f html writes one page with\n"
	"the change and a differential flame graph (red grew, blue shrank).  The\n"
	"work is done by the analyzer, mprof-analyze; see 'mprof-analyze diff --help'\n"
	"or mprof-diff(1).\n"
	"\n"
	"Exit status: the analyzer's (0 no --fail-if condition held, 1 one held, 2\n"
	"usage errors, unreadable traces, different programs, or none held and one\n"
	"undecided: a temporary count that is only an upper bound cannot tell); 125\n"
	"when it cannot be started.\n";

int help_print(FILE *out, const char *command)
{
	const char *text;

	if (!command)
		text = help_main;
	else if (strcmp(command, "run") == 0)
		text = help_run;
	else if (strcmp(command, "report") == 0)
		text = help_report;
	else if (strcmp(command, "diff") == 0)
		text = help_diff;
	else if (strcmp(command, "help") == 0)
		text = help_main;
	else
		return -1;
	fputs(text, out);
	return 0;
}
