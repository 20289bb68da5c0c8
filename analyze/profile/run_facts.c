/*
 * analyze/profile/run_facts.c - the run facts a report states, gathered from the END
 * and META chunks, the process record and the sites (run_facts.h).
 *
 * Owns nothing: every string it hands out belongs to the trace_info.  The
 * key names read here are those the launcher writes (mprof-trace(5)); a few
 * alternative spellings are accepted so older traces still read.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/profile/run_facts.h"
#include "trace/proc_name.h"
#include "trace/plural.h"

/* What the facts are gathered from, and where they go. */
struct report {
	const struct trace_info *info;
	const struct heap_summary *agg;
	const struct site_table *sites;
	struct run_facts *run;
};

/* Parses the first of keys present in l as a signed decimal number that
 * fits 64 bits (one that does not is not taken). */
static bool kv_number(const struct kv_list *l, const char *const *keys, int64_t *out)
{
	for (; *keys; keys++) {
		const char *v = kv_list_get(l, *keys);
		char *e;
		long long n;

		if (!v || !*v)
			continue;
		errno = 0;
		n = strtoll(v, &e, 10);
		if (*e != '\0' || errno == ERANGE)
			continue;
		*out = n;
		return true;
	}
	return false;
}

/* kv_number from 0 to max. */
static bool kv_bounded(const struct kv_list *l, const char *const *keys, uint64_t max,
		       uint64_t *out)
{
	int64_t v;

	if (!kv_number(l, keys, &v) || v < 0 || (uint64_t)v > max)
		return false;
	*out = (uint64_t)v;
	return true;
}

/* The first of keys present in l as a decimal number from 0 to 2^64 - 1
 * (a seed: every value is one). */
static bool kv_u64(const struct kv_list *l, const char *const *keys, uint64_t *out)
{
	for (; *keys; keys++) {
		const char *v = kv_list_get(l, *keys);
		char *e;
		unsigned long long n;

		if (!v || *v < '0' || *v > '9')
			continue;
		errno = 0;
		n = strtoull(v, &e, 10);
		if (*e != '\0' || errno == ERANGE)
			continue;
		*out = n;
		return true;
	}
	return false;
}

static bool kv_unsigned(const struct kv_list *l, const char *const *keys, uint64_t *out)
{
	return kv_bounded(l, keys, INT64_MAX, out);
}

static const char *const wall_keys[] = {"wall_ns", "run_time_ns", NULL};

bool run_facts_wall_ns(const struct kv_list *end, uint64_t *ns)
{
	return kv_bounded(end, wall_keys, RUN_FACTS_MAX_RUN_NS, ns);
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

static void report_run_end_reason(struct report *r);
static void report_run_names(struct report *r);
static void report_run_runtime(struct report *r);
static void report_run_data_lost(struct report *r);
static void report_run_meta_lost(struct report *r);
static void report_run_recording(struct report *r);
static void report_run_max_frames(struct report *r);

static void report_run_collect(struct report *r)
{
	static const char *const status_keys[] = {"exit_status", "status", "exit_code", NULL};
	static const char *const signal_keys[] = {"exit_signal", "signal", "term_signal", NULL};
	static const char *const rss_keys[] = {"peak_rss_kib", "max_rss_kib", NULL};
	static const char *const cpu_keys[] = {"launcher_cpu_ns", NULL};
	static const char *const wait_keys[] = {"ring_waits", NULL};
	static const char *const ua_keys[] = {"unrecorded_allocs", "unrecorded_allocations", NULL};
	static const char *const uf_keys[] = {"unrecorded_frees", NULL};
	static const char *const exe_keys[] = {"exe", "program", NULL};
	static const char *const cmd_keys[] = {"cmdline", "command", "argv", NULL};
	static const char *const pid_keys[] = {"pid", NULL};
	static const char *const ns_pid_keys[] = {"ns_pid", NULL};
	static const char *const how_keys[] = {"peak_rss_how", NULL};
	static const char *const rec_keys[] = {"recorder_kib", NULL};
	const struct trace_info *info = r->info;
	struct run_facts *run = r->run;
	const char *how;
	int64_t v;

	memset(run, 0, sizeof(*run));
	/* a signal number and an exit status as wait() gives them */
	if (kv_number(&info->end, signal_keys, &v) && v > 0 && v < 128) {
		run->has_signal = true;
		run->exit_signal = v;
	} else if (kv_number(&info->end, status_keys, &v) && v >= 0 && v <= 255) {
		static const char *const unnoted_keys[] = {"exit_unnoted", NULL};
		uint64_t unnoted = 0;

		run->has_status = true;
		run->exit_status = v;
		run->exit_unnoted = kv_unsigned(&info->end, unnoted_keys, &unnoted) && unnoted;
	}
	run->has_run_time = run_facts_wall_ns(&info->end, &run->run_time_ns);
	if (!run->has_run_time && r->agg->time_known && r->agg->last_time_ns > r->agg->first_time_ns) {
		run->has_run_time = true;
		run->run_time_ns = r->agg->last_time_ns - r->agg->first_time_ns;
	}
	run->has_peak_rss = kv_bounded(&info->end, rss_keys, RUN_FACTS_MAX_RSS_KIB,
				       &run->peak_rss_kib);
	how = kv_string(&info->end, how_keys);
	run->peak_rss_sampled = how && strcmp(how, "sampled") == 0;
	run->has_recorder = kv_unsigned(&info->end, rec_keys, &run->recorder_kib);
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
		static const char *const ue_keys[] = {"execs_unrecorded", NULL};
		static const char *const uc_keys[] = {"children_unrecorded", NULL};
		static const char *const up_keys[] = {"exec_unrecorded_path", NULL};

		static const char *const ei_keys[] = {"exec_into", NULL};
		static const char *const ew_keys[] = {"exec_into_why", NULL};

		static const char *const nc_keys[] = {"no_children", NULL};
		uint64_t no_children = 0;

		kv_unsigned(&info->end, uc_keys, &run->children_unrecorded);
		kv_unsigned(&info->meta, nc_keys, &no_children);
		run->no_children = no_children != 0;
		run->exec_into = kv_string(&info->end, ei_keys);
		run->exec_into_why = kv_string(&info->end, ew_keys);
		if (kv_unsigned(&info->end, ue_keys, &run->execs_unrecorded) &&
		    run->execs_unrecorded)
			run->exec_unrecorded_path = kv_string(&info->end, up_keys);
	}

	{
		static const char *const state_keys[] = {"process_state", NULL};
		static const char *const diag_keys[] = {"diag_text", NULL};
		static const char *const cerr_keys[] = {"collector_error", NULL};
		static const char *const werr_keys[] = {"write_error", NULL};
		static const char *const parent_keys[] = {"parent_trace", NULL};
		static const char *const fork_keys[] = {"fork_seq", NULL};
		static const char *const rate_keys[] = {"sample_rate_bytes", NULL};
		static const char *const seed_keys[] = {"sample_seed", NULL};
		static const char *const res_keys[] = {"time_resolution_ns", NULL};

		run->process_state = kv_string(&info->end, state_keys);
		run->end_diag = kv_string(&info->end, diag_keys);
		run->collector_error = kv_string(&info->end, cerr_keys);
		run->write_error = kv_string(&info->end, werr_keys);
		run->parent_trace = kv_string(&info->meta, parent_keys);
		run->has_fork_seq = kv_unsigned(&info->meta, fork_keys, &run->fork_seq);
		if (!kv_unsigned(&info->meta, rate_keys, &run->sample_rate_bytes))
			run->sample_rate_bytes = 0;
		if (!kv_u64(&info->meta, res_keys, &run->time_resolution_ns))
			run->time_resolution_ns = 0;
		run->has_sample_seed = info->sampled &&
				       kv_u64(&info->meta, seed_keys, &run->sample_seed);
	}
	report_run_max_frames(r);
	if (info->has_process) {
		run->exe = info->exe && *info->exe ? info->exe : NULL;
		run->cmdline = info->cmdline && *info->cmdline ? info->cmdline : NULL;
		run->has_pid = info->pid != 0; /* 0: unknown to the launcher */
		run->pid = info->pid;
	}
	if (!run->exe)
		run->exe = kv_string(&info->meta, exe_keys);
	if (!run->cmdline)
		run->cmdline = kv_string(&info->meta, cmd_keys);
	report_run_names(r);
	if (!run->has_pid)
		run->has_pid = kv_unsigned(&info->meta, pid_keys, &run->pid) && run->pid != 0;
	run->has_ns_pid = kv_unsigned(&info->meta, ns_pid_keys, &run->ns_pid) && run->ns_pid != 0;
	report_run_end_reason(r);
	report_run_runtime(r);
	report_run_data_lost(r);
	report_run_meta_lost(r);
	report_run_recording(r);
}

/* The names the program gave itself after its start (END command, comm,
 * name_how): the command line at the end replaces the start's, which is
 * kept apart. */
static void report_run_names(struct report *r)
{
	static const char *const cmd_keys[] = {"command", NULL};
	static const char *const comm_keys[] = {"comm", NULL};
	static const char *const how_keys[] = {"name_how", NULL};
	const struct kv_list *end = &r->info->end;
	struct run_facts *run = r->run;
	const char *later = kv_string(end, cmd_keys);

	if (later && (!run->cmdline || strcmp(later, run->cmdline) != 0)) {
		run->cmdline_start = run->cmdline;
		run->cmdline = later;
	}
	run->comm = kv_string(end, comm_keys);
	if (run->cmdline_start || run->comm)
		run->name_how = kv_string(end, how_keys);
}

const char *run_facts_name(const struct run_facts *run, char *out, size_t cap)
{
	const char *base = run->cmdline ? run->cmdline : run->exe;

	if (!run->comm || (base && strstr(base, run->comm)))
		return base;
	return proc_name_compose(base, run->comm, out, cap);
}

/* A stretch of recording at rate (0: exact) is noted in run. */
static void recording_rate_note(struct run_facts *run, uint64_t rate)
{
	if (!rate) {
		run->partly_exact = true;
		return;
	}
	if (!run->rate_min_bytes || rate < run->rate_min_bytes)
		run->rate_min_bytes = rate;
	if (rate > run->rate_max_bytes)
		run->rate_max_bytes = rate;
}

static int rate_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Counts the distinct sample rates of the sampled stretches (first: the
 * start's, 0 when the run started exact or paused) into run->rate_count
 * and lists the lowest RUN_FACTS_RATES_LISTED; rate_count stays 0 when
 * the memory to count them is lacking. */
static void recording_rates_list(struct run_facts *run, const struct trace_info *info,
				 uint64_t first)
{
	uint64_t *v = malloc((info->control_count + 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return;
	if (first)
		v[n++] = first;
	for (size_t i = 0; i < info->control_count; i++)
		if (info->controls[i].started && info->controls[i].sample_rate_bytes)
			v[n++] = info->controls[i].sample_rate_bytes;
	qsort(v, n, sizeof(*v), rate_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i && v[i] == v[i - 1])
			continue;
		if (run->rate_count < RUN_FACTS_RATES_LISTED)
			run->rates_bytes[run->rate_count] = v[i];
		run->rate_count++;
	}
	free(v);
}

/*
 * Fills the recording facts of r->run from META paused and the CONTROL
 * records (in sequence order, their times never decreasing:
 * trace_info_order_stamps): the stretches while recording was on, their
 * sum, their sample rates.  A stop while stopped or a start while started
 * changes nothing but the rate.
 */
static void report_run_recording(struct report *r)
{
	static const char *const paused_keys[] = {"paused", NULL};
	const struct trace_info *info = r->info;
	const struct heap_summary *h = r->agg;
	struct run_facts *run = r->run;
	uint64_t paused = 0, t0 = h->time_known ? h->first_time_ns : 0, end, on_since = 0;
	bool on;

	kv_unsigned(&info->meta, paused_keys, &paused);
	run->paused_at_start = paused != 0;
	run->recording_controlled = run->paused_at_start || info->control_count > 0;
	if (!run->recording_controlled)
		return;
	if (!h->time_known && info->control_count)
		t0 = info->controls[0].time_ns;
	end = run->has_run_time ? run->run_time_ns
				: h->time_known ? h->last_time_ns - t0 : 0;
	on = !run->paused_at_start;
	if (on)
		recording_rate_note(run, info->sampled ? run->sample_rate_bytes : 0);
	recording_rates_list(run, info, on && info->sampled ? run->sample_rate_bytes : 0);
	for (size_t i = 0; i < info->control_count; i++) {
		const struct trace_control *c = &info->controls[i];
		uint64_t at = c->time_ns > t0 ? c->time_ns - t0 : 0;

		if (at > end)
			end = at;
		if (c->started) {
			run->recording_starts++;
			recording_rate_note(run, c->sample_rate_bytes);
			if (!on)
				on_since = at;
			on = true;
		} else {
			run->recording_stops++;
			if (on)
				run->recorded_ns += at - on_since;
			on = false;
		}
	}
	if (on)
		run->recorded_ns += end - on_since;
	if (run->recorded_ns > end)
		run->recorded_ns = end;
	run->paused_ns = end - run->recorded_ns;
	if (!run->sample_rate_bytes)
		run->sample_rate_bytes = run->rate_min_bytes;
	if (!run->rate_min_bytes)
		run->partly_exact = false; /* all exact: nothing to tell apart */
}

/* Fills r->run->data_lost from the trace's quality counts. */
static void report_run_data_lost(struct report *r)
{
	const struct trace_info *info = r->info;
	char *buf = r->run->data_lost;
	size_t cap = sizeof(r->run->data_lost), len = 0;

	buf[0] = '\0';
	if (info->chunks_lost)
		len += (size_t)snprintf(buf + len, cap - len, "%" PRIu64 " %s lost",
					info->chunks_lost, plural(info->chunks_lost, "chunk", "chunks"));
	if (info->seq_missing && len < cap)
		len += (size_t)snprintf(buf + len, cap - len, "%s%" PRIu64 " %s missing",
					len ? ", " : "", info->seq_missing,
					plural(info->seq_missing, "event", "events"));
	if (r->run->has_unrecorded && r->run->unrecorded_allocs && len < cap)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s%" PRIu64
					" %s not recorded", len ? ", " : "",
					info->unrecorded_saturated ? "at least " : "",
					r->run->unrecorded_allocs,
					plural(r->run->unrecorded_allocs, "allocation", "allocations"));
	/* the events after the failed write are not in the trace, and no
	 * gap shows it: they were the last */
	if (r->run->write_error && len < cap)
		snprintf(buf + len, cap - len, "%sthe events after mprof failed to write the trace "
			 "(%s)", len ? ", " : "", r->run->write_error);
}

/* Fills r->run->meta_lost from the site table's counts of stacks whose
 * records the trace lacks. */
/* META max_frames, and the truncated stacks that kept that many frames:
 * the capture stopped at the limit, not where an unwinder stopped. */
static void report_run_max_frames(struct report *r)
{
	static const char *const keys[] = {"max_frames", NULL};
	const struct site_table *t = r->sites;
	struct run_facts *run = r->run;

	if (!kv_bounded(&r->info->meta, keys, RUN_FACTS_MAX_FRAMES, &run->max_frames))
		run->max_frames = 0;
	if (t && run->max_frames && t->truncated_frames_max == run->max_frames)
		run->stacks_cut_at_max_frames = t->truncated_at_frames_max;
	run->stacks_cut_notable = run->stacks_cut_at_max_frames &&
				  run->stacks_cut_at_max_frames >= t->stacks / RUN_FACTS_CUT_STACKS_NOTABLE;
}

static void report_run_meta_lost(struct report *r)
{
	const struct site_table *t = r->sites;
	char *buf = r->run->meta_lost;
	size_t cap = sizeof(r->run->meta_lost), len = 0;

	buf[0] = '\0';
	if (!t)
		return;
	if (t->lost_stacks)
		len += (size_t)snprintf(buf, cap, "%" PRIu64 " of %" PRIu64 " %s the "
					"events name (their stack records are missing)",
					t->lost_stacks, t->stacks,
					plural(t->stacks, "call stack", "call stacks"));
	if (t->unmapped_stacks && len < cap)
		snprintf(buf + len, cap - len, "%sthe module map of %" PRIu64 " %s (its "
			 "module records are missing)", len ? ", " : "", t->unmapped_stacks,
			 plural(t->unmapped_stacks, "call stack", "call stacks"));
}

/* Fills r->run->ended_early: the first reason found, most specific first. */
static void report_run_end_reason(struct report *r)
{
	const struct trace_info *info = r->info;
	struct run_facts *run = r->run;
	char *buf = run->ended_early;
	size_t cap = sizeof(run->ended_early);
	const char *name;

	buf[0] = '\0';
	if (run->has_signal) {
		name = run_signal_name(run->exit_signal);
		snprintf(buf, cap, "the program was killed by signal %" PRId64 "%s%s%s",
			 run->exit_signal, name ? " (" : "", name ? name : "", name ? ")" : "");
	} else if (info->truncated) {
		snprintf(buf, cap, "the trace is truncated at offset %" PRIu64
			 " (the program or mprof was killed, or the disk was full)",
			 info->truncated_offset);
	} else if (!info->has_end) {
		snprintf(buf, cap, "the trace has no END record (the recording did not finish)");
	} else if (run->process_state && strcmp(run->process_state, "running") == 0) {
		snprintf(buf, cap, "the process was still running when mprof stopped recording");
	} else if (run->write_error) {
		snprintf(buf, cap, "mprof could not write the trace to its end (%s)",
			 run->write_error);
	} else if (run->collector_error) {
		snprintf(buf, cap, "the collector reported: %s", run->collector_error);
	} else if (run->end_diag && strstr(run->end_diag, "recording stopped")) {
		snprintf(buf, cap, "%s", run->end_diag);
	}
}

/* Modules of runtimes that manage a heap of their own (a garbage collector
 * or object pools on top of malloc), by their file name: the prefix, then
 * the end of the name or a '.', '-' or digit (a version).  (Lua is not one:
 * each of its objects is a block of its realloc.) */
static const struct {
	const char *module_prefix;
	const char *runtime;
	const char *unless; /* when the runtime hands every object to malloc */
} report_runtimes[] = {
	{ "libjvm.so", "the JVM", NULL },
	{ "libruby", "Ruby", NULL },
	{ "libpython", "Python", "it runs with PYTHONMALLOC=malloc" },
	{ "python3", "Python", "it runs with PYTHONMALLOC=malloc" },
	{ "libtcl", "Tcl", NULL },
	{ "libnode.so", "Node.js (V8)", NULL },
	{ "node", "Node.js (V8)", NULL },
	{ "nodejs", "Node.js (V8)", NULL },
	{ "libperl.so", "Perl", NULL },
	{ "perl", "Perl", NULL },
	{ "libphp", "PHP (the Zend heap)", NULL },
	{ "php", "PHP (the Zend heap)", NULL },
	{ "libluajit", "LuaJIT", NULL },
	{ "luajit", "LuaJIT", NULL },
	{ "libcoreclr.so", ".NET", NULL },
	{ "libmonosgen", "Mono", NULL },
	{ "libgo.so", "gccgo's Go runtime", NULL },
	{ "libguile", "Guile", NULL },
	{ "libgc", "Boehm's collector (libgc)", NULL },
	{ "libgjs", "GJS (SpiderMonkey)", NULL },
	{ "libmozjs", "SpiderMonkey", NULL },
};

/* Functions of CPython's own object allocator (pymalloc), all static: any
 * of them in a stack shows that the program ran with it (its first arena
 * grows the arena table with realloc, so every pymalloc run has one).
 * Without them, CPython's static functions that allocate objects (of
 * Python 3.8 to 3.13) show that the symbol table was there to name them,
 * and so that pymalloc did not run: PYTHONMALLOC=malloc made every object
 * a malloc block.  A stripped interpreter names neither: the trace cannot
 * tell. */
static const char *const report_pymalloc_functions[] = {
	"new_arena", "pymalloc_alloc", "pymalloc_realloc", "_PyObject_Malloc", "_PyObject_Calloc",
	"_PyObject_Realloc",
};
static const char *const report_python_static_functions[] = {
	"gc_alloc", "list_resize", "new_keys_object", "dictresize",
};

/* Whether function is one of names[0..n). */
static bool report_function_in(const char *function, const char *const *names, size_t n)
{
	for (size_t k = 0; function && k < n; k++)
		if (strcmp(function, names[k]) == 0)
			return true;
	return false;
}

/* For a Python program (r->run->own_heap_runtime "Python"): decides from
 * the frames whether pymalloc served its objects (the heap is then its
 * own: no "unless") or PYTHONMALLOC=malloc made each a malloc block (no
 * heap of its own: every object is recorded).  Leaves both alone when the
 * frames cannot tell. */
static void report_python_allocator(struct report *r)
{
	const struct site_table *t = r->sites;
	bool named = false;

	for (size_t i = 0; t && i < t->frame_count; i++) {
		const char *fn = t->frames[i].function;

		if (report_function_in(fn, report_pymalloc_functions,
				       sizeof(report_pymalloc_functions) / sizeof(report_pymalloc_functions[0]))) {
			r->run->own_heap_unless = NULL;
			return;
		}
		named = named || report_function_in(fn, report_python_static_functions,
						    sizeof(report_python_static_functions) /
							    sizeof(report_python_static_functions[0]));
	}
	if (named) {
		r->run->own_heap_runtime = NULL;
		r->run->own_heap_unless = NULL;
	}
}

/* Runtimes that manage a heap of their own and are linked into the program's
 * executable, so no module names them, by the prefix of their C functions:
 * OCaml's native programs and ocamlrun (caml_), Erlang's beam.smp (erts_). */
static const struct {
	const char *function_prefix;
	const char *runtime;
} report_runtime_functions[] = {
	{ "caml_", "OCaml" },
	{ "erts_", "Erlang (BEAM)" },
};

/* The runtime whose C function FUNCTION is, by report_runtime_functions, or
 * NULL. */
static const char *report_runtime_of_function(const char *function)
{
	size_t n = sizeof(report_runtime_functions) / sizeof(report_runtime_functions[0]);

	for (size_t k = 0; function && k < n; k++) {
		const char *prefix = report_runtime_functions[k].function_prefix;

		if (strncmp(function, prefix, strlen(prefix)) == 0)
			return report_runtime_functions[k].runtime;
	}
	return NULL;
}

/* The file name of a module path. */
static const char *report_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Fills r->run->own_heap_runtime from the frames' modules (and Go's, OCaml's
 * and Erlang's runtimes from their function names), r->run->rss_mostly_unseen
 * from the peaks, and r->run->foreign_malloc from the diagnostics. */
static void report_run_runtime(struct report *r)
{
	const struct site_table *t = r->sites;
	bool forwards = false; /* the foreign malloc called the recorder's */

	r->run->own_heap_runtime = NULL;
	r->run->own_heap_unless = NULL;
	for (size_t i = 0; t && i < t->frame_count && !r->run->own_heap_runtime; i++) {
		const struct site_frame *f = &t->frames[i];
		const char *base = f->module ? report_base_name(f->module) : "";

		if (f->function && strncmp(f->function, "runtime.", 8) == 0 && f->file &&
		    strlen(f->file) > 3 && strcmp(f->file + strlen(f->file) - 3, ".go") == 0) {
			r->run->own_heap_runtime = "Go";
			break;
		}
		r->run->own_heap_runtime = report_runtime_of_function(f->function);
		if (r->run->own_heap_runtime)
			break;
		for (size_t k = 0; k < sizeof(report_runtimes) / sizeof(report_runtimes[0]); k++) {
			const char *prefix = report_runtimes[k].module_prefix;
			size_t len = strlen(prefix);

			if (strncmp(base, prefix, len) == 0 &&
			    (base[len] == '\0' || base[len] == '.' || base[len] == '-' ||
			     (base[len] >= '0' && base[len] <= '9'))) {
				r->run->own_heap_runtime = report_runtimes[k].runtime;
				r->run->own_heap_unless = report_runtimes[k].unless;
				break;
			}
		}
	}
	if (r->run->own_heap_runtime && strcmp(r->run->own_heap_runtime, "Python") == 0)
		report_python_allocator(r);
	/* a recording cut while the process ran on (a failed write, the
	 * launcher giving up on it) has the heap peak of its part only and the
	 * peak RSS of the whole run, so they do not compare */
	if (r->run->has_peak_rss && r->agg && !r->run->write_error && !r->run->collector_error) {
		uint64_t rss = r->run->peak_rss_kib * 1024, heap = r->agg->peak_bytes;
		uint64_t own = r->run->has_recorder ? r->run->recorder_kib * 1024 : 0;

		/* the recorder's memory is mprof's, not the program's */
		rss = rss > own ? rss - own : 0;
		r->run->rss_mostly_unseen = rss / REPORT_RSS_UNSEEN_RATIO > heap &&
					   rss - heap > REPORT_RSS_UNSEEN_BYTES;
	}
	r->run->foreign_malloc = false;
	r->run->foreign_new = false;
	for (size_t i = 0; i < r->info->diag_count; i++) {
		if (r->info->diags[i].code == TRACE_DIAG_FOREIGN_NEW)
			r->run->foreign_new = true;
		if (r->info->diags[i].code == TRACE_DIAG_FOREIGN_MALLOC)
			r->run->foreign_malloc = true;
		if (r->info->diags[i].code == TRACE_DIAG_FOREIGN_FORWARDS)
			forwards = true;
	}
	if (forwards)
		r->run->foreign_malloc = false;
}

const char *run_signal_name(int64_t sig)
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

void run_facts_collect(struct run_facts *run, const struct trace_info *info,
		       const struct heap_summary *h, const struct site_table *sites)
{
	struct report r = {info, h, sites, run};

	report_run_collect(&r);
}
