/*
 * tests/unit/test_control.c - runtime control (preload/control.c) with the
 * sampler (preload/sample.c), the set of recorded blocks
 * (preload/sample_set.c) and the ring handoff (preload/ring.c), driven
 * directly on thread states and a process file of the test's own, without
 * the preloaded shim, so that ThreadSanitizer can watch them
 * (`make check-tsan`).
 *
 * Four allocating threads record into their rings what control_recording
 * lets them, apply toggles a signal asks for, and free their blocks through
 * the set, while a controller starts and stops at changing rates and a
 * collector thread drains every ring as the launcher does.  The collector
 * checks that each ring's records arrive whole, in order, none lost; the
 * CONTROL records, numbered under the control lock, must tell one story.
 * The toggle signal's handler (preload/toggle_signal.c) is installed only
 * for the signals that may toggle, over the default disposition.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "preload/control.h"
#include "preload/diag.h"
#include "preload/event.h"
#include "preload/launcher_alive.h"
#include "preload/process.h"
#include "preload/ring.h"
#include "preload/sample.h"
#include "preload/sample_set.h"
#include "preload/toggle_signal.h"

struct preload_process preload_proc;
_Atomic int preload_phase = PRELOAD_READY;

#define ALLOCATORS 4
#define SLOTS (ALLOCATORS + 1) /* the controller writes too */
#define RING_BYTES 4096u
#define CALLS 200000
#define CONTROLS 600
#define TEST_REC_ALLOC 0x90    /* an extended kind of the test's own */

/* What the shim's other files would provide. */
int preload_launcher_alive(void)
{
	return 1;
}

/* Wakes the sleeping launcher would get (ring.c). */
static _Atomic unsigned launcher_wakes;

void preload_launcher_wake(void)
{
	atomic_fetch_add(&launcher_wakes, 1);
}

void preload_process_disable(const char *reason_text)
{
	(void)reason_text;
	atomic_store(&preload_phase, PRELOAD_DISABLED);
}

void diag_note(unsigned code, const char *text)
{
	(void)code;
	(void)text;
}

int diag_report(unsigned code, const char *text)
{
	(void)code;
	(void)text;
	return 0;
}

/* The environment as settings.c reads it (timens.c). */
const char *preload_getenv(const char *name)
{
	return getenv(name);
}

/* No seccomp filter here: populate.c faults the test's rings in. */
int seccomp_watch_filtered(void)
{
	return 0;
}

/* CONTROL records are numbered here; event_control runs under the control
 * lock, so the numbers follow the order of the word's changes.  Their
 * times must not decrease, nor lie ahead of the clock; the last few are
 * kept for test_toggles_timed_when_asked. */
static uint64_t control_records, control_time_errors, control_last_ns;
static struct {
	unsigned running;
	uint64_t time_ns;
} control_kept[8];

void event_control(struct preload_thread *t, unsigned running, uint64_t interval_bytes,
		   uint64_t time_ns)
{
	uint8_t *w = ring_reserve(t, RECORD_EXT_HEADER_BYTES + 3 * VARINT_MAX_BYTES), *rec = w;

	if (!w)
		abort();
	if (time_ns < control_last_ns || time_ns > ring_now_ns())
		control_time_errors++;
	control_last_ns = time_ns;
	control_kept[control_records % 8].running = running;
	control_kept[control_records % 8].time_ns = time_ns;
	w = record_ext_begin(rec, TRACE_REC_EXT_CONTROL);
	w = varint_put_u64(w, ++control_records);
	w = varint_put_u64(w, running);
	w = varint_put_u64(w, interval_bytes);
	record_ext_end(rec, w);
	ring_commit(t, w);
}

static uint8_t *test_file;
static struct preload_thread threads[SLOTS];
static _Atomic int writers_left;

static void test_file_make(void)
{
	struct session_proc_header *h;
	size_t bytes = SESSION_SLOTS_OFFSET + 4096 + (size_t)SLOTS * RING_BYTES;

	free(test_file); /* an earlier test's */
	test_file = aligned_alloc(4096, bytes);
	memset(test_file, 0, bytes);
	h = (struct session_proc_header *)test_file;
	h->nslots = SLOTS;
	h->ring_bytes = RING_BYTES;
	h->ring_offset = SESSION_SLOTS_OFFSET + 4096;
	preload_proc.hdr = h;
	for (uint32_t i = 0; i < SLOTS; i++) {
		struct preload_thread *t = &threads[i];

		memset(t, 0, sizeof(*t));
		t->control_seen = CONTROL_UNSYNCED;
		t->slot = session_slot_at(test_file, i);
		t->ring = session_ring_at(test_file, i);
		t->ring_bytes = RING_BYTES;
		ring_fill_start(t);
		t->tid = (pid_t)(i + 1);
		CU_ASSERT_FATAL(ring_write_thread_start(t) == 0);
	}
}

/* ---- the collector: drains every ring and checks its records ---- */

struct ring_check {
	uint64_t read_pos;
	uint8_t rec[256];   /* a record cut by the end of what was published */
	uint64_t next_count; /* the allocation number the ring must hold next */
	uint64_t controls[1024][3]; /* seq, running, rate */
	unsigned ncontrols;
	int bad;
};

static struct ring_check checks[SLOTS];

/* Parses one record at p (end: what was published); returns its length,
 * 0 when it is not whole yet. */
static size_t collector_record(struct ring_check *c, const uint8_t *p, const uint8_t *end)
{
	const uint8_t *q = p + 1;
	uint64_t v, len;

	switch (p[0]) {
	case TRACE_REC_PAD:
		return 1;
	case TRACE_REC_THREAD:
	case TRACE_REC_TIME:
		return varint_get_u64(&q, end, &v) < 0 ? 0 : (size_t)(q - p);
	case TEST_REC_ALLOC:
	case TRACE_REC_EXT_CONTROL:
		if (varint_get_u64(&q, end, &len) < 0 || (size_t)(end - q) < len)
			return 0;
		end = q + len;
		if (p[0] == TEST_REC_ALLOC) {
			if (varint_get_u64(&q, end, &v) < 0 || v != c->next_count)
				c->bad = 1;
			c->next_count++;
		} else if (c->ncontrols < 1024) {
			uint64_t *r = c->controls[c->ncontrols++];

			for (int k = 0; k < 3; k++)
				if (varint_get_u64(&q, end, &r[k]) < 0)
					c->bad = 1;
		}
		return (size_t)(end - p);
	default:
		c->bad = 1;
		return 1;
	}
}

/* Reads what slot i published since the last call. */
static void collector_drain(uint32_t i)
{
	struct ring_check *c = &checks[i];
	struct session_slot *s = session_slot_at(test_file, i);
	uint64_t write_pos = atomic_load_explicit(&s->write_pos, memory_order_acquire);
	const uint8_t *ring = session_ring_at(test_file, i);

	while (c->read_pos < write_pos && !c->bad) {
		uint32_t off = (uint32_t)(c->read_pos % RING_BYTES);
		uint64_t avail = write_pos - c->read_pos;
		const uint8_t *p = ring + off;
		size_t n = collector_record(c, p, p + (avail < RING_BYTES - off ? avail
									  : RING_BYTES - off));

		if (!n)
			break; /* records are published whole: cannot happen */
		c->read_pos += n;
	}
	if (c->read_pos < write_pos)
		c->bad = 1;
	atomic_store_explicit(&s->read_pos, c->read_pos, memory_order_release);
}

static void *collector_main(void *arg)
{
	(void)arg;
	while (atomic_load_explicit(&writers_left, memory_order_acquire) > 0)
		for (uint32_t i = 0; i < SLOTS; i++)
			collector_drain(i);
	for (uint32_t i = 0; i < SLOTS; i++)
		collector_drain(i);
	return NULL;
}

/* ---- the allocating threads ---- */

struct alloc_result {
	uint64_t recorded, wrong_rate, set_misses;
};

static struct alloc_result results[ALLOCATORS];
static pthread_t allocator_ids[ALLOCATORS];
static uint64_t controller_errors;
static _Atomic int controller_done;

/* Toggle signals sent by the controller and handled by an allocator. */
static _Atomic unsigned toggles_sent, toggles_handled;

static void test_toggle_handler(int sig)
{
	(void)sig;
	control_request_toggle();
	atomic_fetch_add_explicit(&toggles_handled, 1, memory_order_release);
}

static void *allocator_main(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	struct preload_thread *t = &threads[i];
	struct alloc_result *r = &results[i];
	/* Addresses of the thread's own, as a heap would hand out. */
	uintptr_t base = 0x100000000ull * (i + 1);
	uintptr_t held[16] = { 0 };

	while (!atomic_load(&controller_done)) sched_yield();
	/* CALLS calls at least, and 64 after the controller's last change */
	for (uint64_t k = 0, after = 0; k < CALLS || after < 64; k++) {
		uintptr_t addr = base + 16 * (k % 4096);
		uint64_t weight = 0;
		unsigned slot = (unsigned)(k % 16);

		if (atomic_load_explicit(&controller_done, memory_order_acquire))
			after++;

		if (held[slot]) {
			if (!sample_set_remove((void *)held[slot]))
				r->set_misses++;
			held[slot] = 0;
		}
		t->busy = 1;
		if (control_recording(t)) {
			if (t->sample_interval_bytes != control_word_rate(t->control_seen))
				r->wrong_rate++;
			weight = sample_weight(t, 64);
		}
		if (weight && sample_set_insert((void *)addr) == 0) {
			uint8_t *w = ring_reserve(t, RECORD_EXT_HEADER_BYTES + VARINT_MAX_BYTES);
			uint8_t *rec = w;

			if (!w)
				abort();
			w = record_ext_begin(rec, TEST_REC_ALLOC);
			w = varint_put_u64(w, r->recorded++);
			record_ext_end(rec, w);
			ring_commit(t, w);
			held[slot] = addr;
		}
		t->busy = 0;
	}
	for (unsigned s = 0; s < 16; s++)
		if (held[s] && !sample_set_remove((void *)held[s]))
			r->set_misses++;
	atomic_fetch_sub_explicit(&writers_left, 1, memory_order_release);
	return NULL;
}

/* Starts and stops at changing rates CONTROLS times, and signals the
 * allocators to toggle. */
static void *controller_main(void *arg)
{
	static const uint64_t rates[] = { 0, 4096, 1, 65536 };
	struct preload_thread *t = &threads[ALLOCATORS];
	unsigned k = 0;

	(void)arg;
	while (k < CONTROLS) {
		t->busy = 1;
		if (control_set(t, k % 3 != 2, rates[k % 4]) < 0)
			controller_errors++;
		t->busy = 0;
		/* one signal in flight at a time, so none is merged into another */
		if (k % 5 == 0 && atomic_load(&toggles_handled) == atomic_load(&toggles_sent)) {
			atomic_fetch_add(&toggles_sent, 1);
			pthread_kill(allocator_ids[k % ALLOCATORS], SIGUSR2);
		}
		k++;
		sched_yield();
	}
	/* End with recording on at rate 1 (every call sampled), after the last
	 * toggle was asked for: an allocator that a busy host starts late, or
	 * runs only in the stops, then still records before it ends. */
	while (atomic_load(&toggles_handled) != atomic_load(&toggles_sent))
		sched_yield();
	t->busy = 1;
	if (control_set(t, 1, 1) < 0)
		controller_errors++;
	t->busy = 0;
	atomic_store_explicit(&controller_done, 1, memory_order_release);
	atomic_fetch_sub_explicit(&writers_left, 1, memory_order_release);
	return NULL;
}

static int control_record_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static void test_control_while_threads_record(void)
{
	pthread_t collector, controller;
	struct sigaction sa;
	uint64_t all[4096][3];
	unsigned n = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = test_toggle_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
	test_file_make();
	sample_configure(1, 42);
	control_configure(1, 0);
	CU_ASSERT_EQUAL(control_uses_set, 1);
	atomic_store(&writers_left, SLOTS);
	pthread_create(&collector, NULL, collector_main, NULL);
	for (uintptr_t i = 0; i < ALLOCATORS; i++)
		pthread_create(&allocator_ids[i], NULL, allocator_main, (void *)i);
	pthread_create(&controller, NULL, controller_main, NULL);
	pthread_join(controller, NULL);
	for (int i = 0; i < ALLOCATORS; i++)
		pthread_join(allocator_ids[i], NULL);
	pthread_join(collector, NULL);

	for (uint32_t i = 0; i < SLOTS; i++) {
		CU_ASSERT_EQUAL(checks[i].bad, 0);
		for (unsigned k = 0; k < checks[i].ncontrols && n < 4096; k++)
			memcpy(all[n++], checks[i].controls[k], sizeof(all[0]));
	}
	for (int i = 0; i < ALLOCATORS; i++) {
		CU_ASSERT_EQUAL(checks[i].next_count, results[i].recorded);
		CU_ASSERT_EQUAL(results[i].wrong_rate, 0);
		CU_ASSERT_EQUAL(results[i].set_misses, 0);
		CU_ASSERT(results[i].recorded > 0);
	}
	/* Every change of the word has one CONTROL record, numbered 1..n; each
	 * differs from the one before, and the last is the word's state; their
	 * times never decrease. */
	CU_ASSERT_EQUAL(controller_errors, 0);
	CU_ASSERT_EQUAL(control_time_errors, 0);
	CU_ASSERT_EQUAL(n, control_records);
	CU_ASSERT(n > 10 && n < 4096);
	qsort(all, n, sizeof(all[0]), control_record_cmp);
	for (unsigned k = 0; k < n; k++) {
		CU_ASSERT_EQUAL(all[k][0], k + 1);
		if (k > 0)
			CU_ASSERT(all[k][1] != all[k - 1][1] || all[k][2] != all[k - 1][2]);
	}
	if (n > 0 && n < 4096) {
		uint64_t w = atomic_load(&control_word);

		CU_ASSERT_EQUAL(all[n - 1][1], w & CONTROL_RUNNING);
		CU_ASSERT_EQUAL(all[n - 1][2], control_word_rate(w));
	}
	signal(SIGUSR2, SIG_DFL);
}

/* control_set says whether the state changed, and refuses rates past the
 * word's room. */
static void test_control_set_results(void)
{
	struct preload_thread *t = &threads[ALLOCATORS];

	control_configure(1, 512);
	CU_ASSERT_EQUAL(control_start_rate(), 512);
	CU_ASSERT_EQUAL(control_set(t, 0, 0), 0);
	CU_ASSERT_EQUAL(control_set(t, 1, 512), 1);
	CU_ASSERT_EQUAL(control_set(t, 1, 512), 0);
	CU_ASSERT_EQUAL(control_set(t, 1, 4096), 1);
	CU_ASSERT_EQUAL(control_set(t, 1, CONTROL_RATE_MAX_BYTES + 1), -EINVAL);
	CU_ASSERT_EQUAL(control_word_rate(atomic_load(&control_word)), 4096);
	CU_ASSERT_EQUAL(control_set(t, 1, UINT64_C(1) << 32), -EINVAL);
	CU_ASSERT_EQUAL(control_set(t, 1, UINT64_C(1) << 30), 1);
	CU_ASSERT_EQUAL(control_word_rate(atomic_load(&control_word)), UINT64_C(1) << 30);
	CU_ASSERT_EQUAL(control_set(t, 0, 0), 1);
	control_configure(0, 0);
	CU_ASSERT_EQUAL(control_uses_set, 0);
	CU_ASSERT_EQUAL(atomic_load(&control_word), CONTROL_RUNNING);
}

/* When a toggle was asked: between before_ns and after_ns. */
struct asked {
	uint64_t before_ns, after_ns;
};

/* Asks for a toggle as the signal's handler does. */
static struct asked toggle_asked(void)
{
	struct asked a;

	a.before_ns = ring_now_ns();
	control_request_toggle();
	a.after_ns = ring_now_ns();
	return a;
}

/* The record k places before the newest (0: the newest). */
#define KEPT(k) control_kept[(control_records - 1 - (k)) % 8]

/* Whether the record k places before the newest is running, and timed
 * when a was asked. */
static int kept_is(unsigned k, unsigned running, struct asked a)
{
	return KEPT(k).running == running && KEPT(k).time_ns >= a.before_ns &&
	       KEPT(k).time_ns <= a.after_ns;
}

/*
 * Toggles are timed when they were asked, not when an allocator call
 * applied them: one flips recording at its time; two flip it and back,
 * at each one's time; three flip it at the first one's.  A start the
 * program makes after a toggle was asked comes after the toggle's record.
 */
static void test_toggles_timed_when_asked(void)
{
	struct preload_thread *t = &threads[0];
	struct asked first, second, call;
	uint64_t records;

	test_file_make();
	control_configure(0, 0);
	control_last_ns = 0;
	/* one: a stop */
	first = toggle_asked();
	records = control_records;
	CU_ASSERT_EQUAL(control_recording(t), 0);
	CU_ASSERT_EQUAL(control_records, records + 1);
	CU_ASSERT(kept_is(0, 0, first));
	/* two: a start and a stop, each at its own time; still stopped */
	first = toggle_asked();
	second = toggle_asked();
	records = control_records;
	CU_ASSERT_EQUAL(control_recording(t), 0);
	CU_ASSERT_EQUAL(control_records, records + 2);
	CU_ASSERT(kept_is(1, 1, first));
	CU_ASSERT(kept_is(0, 0, second));
	/* three: one start, at the first one's time */
	first = toggle_asked();
	toggle_asked();
	toggle_asked();
	records = control_records;
	CU_ASSERT_EQUAL(control_recording(t), 1);
	CU_ASSERT_EQUAL(control_records, records + 1);
	CU_ASSERT(kept_is(0, 1, first));
	/* a stop asked, then the program's own start */
	first = toggle_asked();
	records = control_records;
	call.before_ns = ring_now_ns();
	CU_ASSERT_EQUAL(control_set(t, 1, 0), 1);
	call.after_ns = ring_now_ns();
	CU_ASSERT_EQUAL(control_records, records + 2);
	CU_ASSERT(kept_is(1, 0, first));
	CU_ASSERT(kept_is(0, 1, call));
	CU_ASSERT_EQUAL(atomic_load(&control_word) & CONTROL_TOGGLE, 0);
	CU_ASSERT_EQUAL(control_recording(t), 1);
	CU_ASSERT_EQUAL(control_time_errors, 0);
}

/*
 * A toggle whose bit a thread saw while another held the control lock (a
 * fork, or the program's own start) is applied at that thread's next call
 * once the lock is free; before, the thread kept the word with the bit as
 * seen and never looked again, and an idle single-threaded server could
 * lose a toggle that came between its apply and its reload of the word.
 */
static void test_toggle_after_busy_lock(void)
{
	struct preload_thread *t = &threads[0];
	uint64_t records;

	test_file_make();
	control_configure(0, 0);
	CU_ASSERT_EQUAL(control_recording(t), 1);
	toggle_asked();
	records = control_records;
	control_fork_prepare(); /* the lock is busy */
	CU_ASSERT_EQUAL(control_recording(t), 1);
	control_fork_release();
	CU_ASSERT_EQUAL(control_records, records);
	CU_ASSERT_EQUAL(control_recording(t), 0);
	CU_ASSERT_EQUAL(control_records, records + 1);
	CU_ASSERT_EQUAL(KEPT(0).running, 0);
}

/* Whether sig's disposition is the same as in before (a sanitizer may
 * handle SIGSEGV, SIGBUS and SIGFPE itself). */
static int signal_is_unchanged(int sig, const struct sigaction *before)
{
	struct sigaction sa;

	return sigaction(sig, NULL, &sa) == 0 && sa.sa_flags == before->sa_flags &&
	       sa.sa_handler == before->sa_handler;
}

/* toggle_signal_install refuses every signal but USR1, USR2 and
 * SIGRTMIN..SIGRTMAX (a caught SIGSEGV would hang a crashing program),
 * installs a SA_RESTART handler that asks for a toggle, and leaves a
 * disposition the program chose alone. */
static void test_toggle_signal_install(void)
{
	const int refused[] = { SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT, SIGTRAP, SIGSYS,
				SIGKILL, SIGSTOP, SIGCHLD, SIGCONT, SIGWINCH, SIGPIPE, SIGALRM,
				SIGHUP, SIGURG, SIGTERM, SIGINT, SIGRTMIN - 1, SIGRTMIN - 2,
				SIGRTMAX + 1, 0, -1 };
	const int taken[] = { SIGUSR1, SIGUSR2, SIGRTMIN, SIGRTMIN + 3, SIGRTMAX };
	struct sigaction sa;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int sig = refused[i];

		struct sigaction before;
		int have = sig > 0 && sig < SIGRTMIN - 2 && sigaction(sig, NULL, &before) == 0;

		CU_ASSERT_EQUAL(toggle_signal_install(sig), TOGGLE_SIGNAL_REFUSED);
		if (have)
			CU_ASSERT(signal_is_unchanged(sig, &before));
	}
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		int sig = taken[i];

		CU_ASSERT_EQUAL(toggle_signal_install(sig), 0);
		CU_ASSERT_EQUAL(sigaction(sig, NULL, &sa), 0);
		CU_ASSERT(sa.sa_flags & SA_RESTART);
		CU_ASSERT(sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
		atomic_fetch_and(&control_word, ~(uint64_t)CONTROL_TOGGLE);
		raise(sig);
		CU_ASSERT_EQUAL(atomic_load(&control_word) & CONTROL_TOGGLE, CONTROL_TOGGLE);
		atomic_fetch_and(&control_word, ~(uint64_t)CONTROL_TOGGLE);
		CU_ASSERT_EQUAL(toggle_signal_install(sig), TOGGLE_SIGNAL_TAKEN);
		signal(sig, SIG_DFL);
	}
	signal(SIGUSR1, SIG_IGN);
	CU_ASSERT_EQUAL(toggle_signal_install(SIGUSR1), TOGGLE_SIGNAL_TAKEN);
	CU_ASSERT_EQUAL(signal(SIGUSR1, SIG_DFL), SIG_IGN);
}

/* Writes one 16-byte extended record of the test's own into t's ring. */
static void asleep_record(struct preload_thread *t)
{
	uint8_t *w = ring_reserve(t, 16), *rec = w;

	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	w = record_ext_begin(rec, TEST_REC_ALLOC);
	while (w < rec + 16 - 1)
		*w++ = 0;
	record_ext_end(rec, w);
	ring_commit(t, w);
}

/* The collector's part: takes everything written so far. */
static void asleep_drain(struct preload_thread *t)
{
	atomic_store(&t->slot->read_pos, atomic_load(&t->slot->write_pos));
}

/* Calls ring_time_fresh and checks it wrote nothing when a TIME is still
 * not due since t's last afterwards (it was not in between either); a
 * grain passed in between skips the check. */
static void time_fresh_writes_nothing(struct preload_thread *t)
{
	uint64_t last = t->time_ticks, before = t->write_pos;

	ring_time_fresh(t);
	if (!ring_time_due(last))
		CU_ASSERT_EQUAL(t->write_pos, before);
}

/*
 * The launcher's long idle wait (trace/session.h, time_tick): a ring that
 * fills to a quarter wakes it only while the asleep flag is set, once per
 * eighth of a ring written after that; meanwhile the thread times its
 * events itself, a TIME record when a tick's time passed, and the next
 * bump of the tick clears the flag.
 */
static void test_launcher_asleep(void)
{
	struct preload_thread *t = &threads[0];
	struct session_proc_header *h;
	uint64_t before;
	struct timespec nap = { 0, 2 * (long)(SESSION_TIME_TICK_NS) };

	test_file_make();
	h = preload_proc.hdr;
	atomic_store(&launcher_wakes, 0);
	asleep_drain(t);
	/* awake: a ring filled to a half wakes nobody */
	while (t->write_pos - atomic_load(&t->slot->read_pos) < RING_BYTES / 2)
		asleep_record(t);
	CU_ASSERT_EQUAL(atomic_load(&launcher_wakes), 0);
	/* asleep: the record that fills a quarter wakes it; then the first
	 * one an eighth later */
	asleep_drain(t);
	atomic_fetch_or(&h->time_tick, SESSION_TIME_TICK_ASLEEP);
	while (atomic_load(&launcher_wakes) == 0 &&
	       t->write_pos - atomic_load(&t->slot->read_pos) < RING_BYTES / 2)
		asleep_record(t);
	before = t->write_pos - atomic_load(&t->slot->read_pos);
	CU_ASSERT(before >= RING_BYTES / 4 && before < RING_BYTES / 4 + 16);
	CU_ASSERT_EQUAL(atomic_load(&launcher_wakes), 1);
	before = t->write_pos;
	while (atomic_load(&launcher_wakes) == 1 && t->write_pos - before < RING_BYTES / 2)
		asleep_record(t);
	CU_ASSERT(t->write_pos - before >= RING_BYTES / 8 &&
		  t->write_pos - before < RING_BYTES / 8 + 16);
	CU_ASSERT_EQUAL(atomic_load(&launcher_wakes), 2);
	/* self-timed: no TIME record while the event clock is within a grain
	 * of the last one, one after a nap of 20 ms */
	asleep_drain(t);
	ring_write_time(t);
	time_fresh_writes_nothing(t);
	before = t->write_pos;
	nanosleep(&nap, NULL);
	ring_time_fresh(t);
	CU_ASSERT(t->write_pos > before);
	time_fresh_writes_nothing(t);
	/* awake, the launcher's tick times nothing: a bump alone writes no
	 * TIME record (within a grain of the event clock), a nap one */
	before = t->write_pos;
	atomic_store(&h->time_tick,
		     ((atomic_load(&h->time_tick) & ~SESSION_TIME_TICK_ASLEEP) + 1));
	time_fresh_writes_nothing(t);
	before = t->write_pos;
	nanosleep(&nap, NULL);
	ring_time_fresh(t);
	CU_ASSERT(t->write_pos > before);
	free(test_file);
	test_file = NULL;
	preload_proc.hdr = NULL;
}

static volatile sig_atomic_t own_caught;

static void own_handler(int sig)
{
	(void)sig;
	own_caught++;
}

/* Clears the header's toggle_passing after 50 ms, as a launcher that was
 * passing a toggle on does after its kill. */
static void *passing_clear(void *arg)
{
	struct session_proc_header *h = arg;
	struct timespec pause = { 0, 50000000 };

	nanosleep(&pause, NULL);
	atomic_store(&h->toggle_passing, 0);
	return NULL;
}

/* The program's calls on the toggle signal (toggle_signal_before/after): a
 * read and SIG_DFL keep mprof's handler, which reads as SIG_DFL; a handler
 * of the program's sets TRACE_DIAG_TOGGLE_TAKEN, waits for a launcher
 * passing a toggle on, and takes a toggle still pending as a toggle, so the
 * program's handler never gets it.  Last: the take cannot be undone. */
static void test_toggle_signal_taken(void)
{
	struct toggle_signal_call call;
	struct sigaction act, q;
	struct session_proc_header *h;
	sigset_t only, pending, mask;
	pthread_t clearer;

	test_file_make();
	h = preload_proc.hdr;
	/* the calls are this process's own, not a vfork child's */
	preload_proc.view.ns_pid = (uint32_t)getpid();
	signal(SIGUSR1, SIG_DFL);
	CU_ASSERT_EQUAL(toggle_signal_install(SIGUSR1), 0);
	memset(&act, 0, sizeof(act));
	sigemptyset(&act.sa_mask);
	/* a read, and SIG_DFL: mprof's handler stays, seen as SIG_DFL */
	toggle_signal_before(SIGUSR1, NULL, &call);
	CU_ASSERT(!call.keep && !call.masked);
	act.sa_handler = SIG_DFL;
	toggle_signal_before(SIGUSR1, &act, &call);
	CU_ASSERT(call.keep && !call.masked);
	CU_ASSERT_EQUAL(sigaction(SIGUSR1, NULL, &q), 0);
	CU_ASSERT(q.sa_handler != SIG_DFL);
	toggle_signal_seen_action(&q);
	CU_ASSERT(q.sa_handler == SIG_DFL && q.sa_flags == 0);
	CU_ASSERT_EQUAL(atomic_load(&h->diag_flags), 0);
	/* a handler: a toggle pending (the thread blocks it) and a launcher
	 * passing one on */
	sigemptyset(&only);
	sigaddset(&only, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &only, NULL);
	raise(SIGUSR1);
	atomic_fetch_and(&control_word, ~(uint64_t)CONTROL_TOGGLE);
	atomic_store(&h->toggle_passing, 1);
	CU_ASSERT_EQUAL(pthread_create(&clearer, NULL, passing_clear, h), 0);
	act.sa_handler = own_handler;
	toggle_signal_before(SIGUSR1, &act, &call);
	CU_ASSERT_EQUAL(atomic_load(&h->toggle_passing), 0);
	CU_ASSERT(!call.keep && call.masked);
	CU_ASSERT(atomic_load(&h->diag_flags) & (1u << TRACE_DIAG_TOGGLE_TAKEN));
	CU_ASSERT_EQUAL(atomic_load(&control_word) & CONTROL_TOGGLE, CONTROL_TOGGLE);
	atomic_fetch_and(&control_word, ~(uint64_t)CONTROL_TOGGLE);
	CU_ASSERT_EQUAL(sigaction(SIGUSR1, &act, NULL), 0);
	toggle_signal_after(&call);
	pthread_join(clearer, NULL);
	sigpending(&pending);
	CU_ASSERT(!sigismember(&pending, SIGUSR1));
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	CU_ASSERT(sigismember(&mask, SIGUSR1)); /* the program's mask, put back */
	pthread_sigmask(SIG_UNBLOCK, &only, NULL);
	CU_ASSERT_EQUAL(own_caught, 0);
	/* from now on the signal is the program's */
	act.sa_handler = SIG_DFL;
	toggle_signal_before(SIGUSR1, &act, &call);
	CU_ASSERT(!call.keep && !call.masked);
	signal(SIGUSR1, SIG_DFL);
	free(test_file);
	test_file = NULL;
	preload_proc.hdr = NULL;
}

int main(void)
{
	CU_pSuite s;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("control", NULL, NULL);
	CU_add_test(s, "control_while_threads_record", test_control_while_threads_record);
	CU_add_test(s, "control_set_results", test_control_set_results);
	CU_add_test(s, "toggles_timed_when_asked", test_toggles_timed_when_asked);
	CU_add_test(s, "toggle_after_busy_lock", test_toggle_after_busy_lock);
	CU_add_test(s, "toggle_signal_install", test_toggle_signal_install);
	CU_add_test(s, "launcher_asleep", test_launcher_asleep);
	CU_add_test(s, "toggle_signal_taken", test_toggle_signal_taken);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
