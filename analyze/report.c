/*
 * analyze/report.c - the run facts a report states, gathered from the END
 * and META chunks and the process record (see report.h).
 *
 * Owns nothing: every string it hands out belongs to the trace_info.  The
 * key names read here are those the launcher writes (mprof-trace(5)); a few
 * alternative spellings are accepted so older traces still read.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"

/* Parses the first of keys present in l as a signed decimal number. */
static bool kv_number(const struct kv_list *l, const char *const *keys, int64_t *out)
{
	for (; *keys; keys++) {
		const char *v = kv_list_get(l, *keys);
		char *e;
		long long n;

		if (!v || !*v)
			continue;
		n = strtoll(v, &e, 10);
		if (*e != '\0')
			continue;
		*out = n;
		return true;
	}
	return false;
}

static bool kv_unsigned(const struct kv_list *l, const char *const *keys, uint64_t *out)
{
	int64_t v;

	if (!kv_number(l, keys, &v) || v < 0)
		return false;
	*out = (uint64_t)v;
	return true;
}

static const char *kv_string(const struct kv_list *l, const char *const *keys)
{
	for (; *keys; keys++) {
		const char *v = kv_list_get(l, *keys);

		if (v && *v)
			return v;
	}
	return NULL;
}

void report_run_collect(struct report *r)
{
	static const char *const status_keys[] = {"exit_status", "status", "exit_code", NULL};
	static const char *const signal_keys[] = {"exit_signal", "signal", "term_signal", NULL};
	static const char *const wall_keys[] = {"wall_ns", "run_time_ns", NULL};
	static const char *const rss_keys[] = {"peak_rss_kib", "max_rss_kib", NULL};
	static const char *const cpu_keys[] = {"launcher_cpu_ns", NULL};
	static const char *const wait_keys[] = {"ring_waits", NULL};
	static const char *const ua_keys[] = {"unrecorded_allocs", "unrecorded_allocations", NULL};
	static const char *const uf_keys[] = {"unrecorded_frees", NULL};
	static const char *const exe_keys[] = {"exe", "program", NULL};
	static const char *const cmd_keys[] = {"cmdline", "command", "argv", NULL};
	static const char *const pid_keys[] = {"pid", NULL};
	const struct trace_info *info = r->info;
	struct report_run *run = &r->run;
	int64_t v;

	memset(run, 0, sizeof(*run));
	if (kv_number(&info->end, signal_keys, &v) && v > 0) {
		run->has_signal = true;
		run->exit_signal = v;
	} else if (kv_number(&info->end, status_keys, &v)) {
		run->has_status = true;
		run->exit_status = v;
	}
	run->has_run_time = kv_unsigned(&info->end, wall_keys, &run->run_time_ns);
	if (!run->has_run_time && r->agg->time_known && r->agg->last_time_ns > r->agg->first_time_ns) {
		run->has_run_time = true;
		run->run_time_ns = r->agg->last_time_ns - r->agg->first_time_ns;
	}
	run->has_peak_rss = kv_unsigned(&info->end, rss_keys, &run->peak_rss_kib);
	run->has_launcher_cpu = kv_unsigned(&info->end, cpu_keys, &run->launcher_cpu_ns);
	run->has_ring_waits = kv_unsigned(&info->end, wait_keys, &run->ring_waits);

	/* unrecorded allocations: the END totals, else the sum of EXT records */
	run->unrecorded_allocs = info->unrecorded_allocs;
	run->unrecorded_frees = info->unrecorded_frees;
	run->has_unrecorded = info->has_unrecorded;
	if (kv_unsigned(&info->end, ua_keys, &run->unrecorded_allocs))
		run->has_unrecorded = true;
	if (kv_unsigned(&info->end, uf_keys, &run->unrecorded_frees))
		run->has_unrecorded = true;

	{
		static const char *const state_keys[] = {"process_state", NULL};
		static const char *const diag_keys[] = {"diag_text", NULL};
		static const char *const cerr_keys[] = {"collector_error", NULL};
		static const char *const parent_keys[] = {"parent_trace", NULL};
		static const char *const fork_keys[] = {"fork_seq", NULL};

		run->process_state = kv_string(&info->end, state_keys);
		run->end_diag = kv_string(&info->end, diag_keys);
		run->collector_error = kv_string(&info->end, cerr_keys);
		run->parent_trace = kv_string(&info->meta, parent_keys);
		run->has_fork_seq = kv_unsigned(&info->meta, fork_keys, &run->fork_seq);
	}
	if (info->has_process) {
		run->exe = info->exe && *info->exe ? info->exe : NULL;
		run->cmdline = info->cmdline && *info->cmdline ? info->cmdline : NULL;
		run->has_pid = true;
		run->pid = info->pid;
	}
	if (!run->exe)
		run->exe = kv_string(&info->meta, exe_keys);
	if (!run->cmdline)
		run->cmdline = kv_string(&info->meta, cmd_keys);
	if (!run->has_pid)
		run->has_pid = kv_unsigned(&info->meta, pid_keys, &run->pid);
}

const char *report_signal_name(int64_t sig)
{
	switch (sig) {
	case SIGHUP: return "SIGHUP";
	case SIGINT: return "SIGINT";
	case SIGQUIT: return "SIGQUIT";
	case SIGILL: return "SIGILL";
	case SIGTRAP: return "SIGTRAP";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGUSR1: return "SIGUSR1";
	case SIGSEGV: return "SIGSEGV";
	case SIGUSR2: return "SIGUSR2";
	case SIGPIPE: return "SIGPIPE";
	case SIGALRM: return "SIGALRM";
	case SIGTERM: return "SIGTERM";
	case SIGXCPU: return "SIGXCPU";
	case SIGXFSZ: return "SIGXFSZ";
	case SIGSYS: return "SIGSYS";
	}
	return NULL;
}
