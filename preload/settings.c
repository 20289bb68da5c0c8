/*
 * preload/settings.c - the shim's settings, read once per process image from
 * the environment (MPROF_SESSION, MPROF_MAX_FRAMES, MPROF_RING_KIB,
 * MPROF_NO_CHILDREN, MPROF_ROOT_PID, MPROF_LAUNCHER_PID, MPROF_LAUNCHER_PIDNS,
 * MPROF_SAMPLE_RATE, MPROF_SAMPLE_SEED, MPROF_PAUSED, MPROF_TOGGLE_SIGNAL).
 *
 * Owns nothing.  Must not allocate: it runs inside the first malloc call.
 * Malformed numbers fall back to the defaults, out-of-range ones are clamped.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "preload/settings.h"
#include "preload/mem.h"
#include "preload/sys.h"

#define CONFIG_MAX_FRAMES_LIMIT 1024u
#define CONFIG_RING_MIN_BYTES (64u << 10)
#define CONFIG_RING_MAX_BYTES SESSION_RING_MAX_BYTES

/* The process's initial environment, as the kernel laid it out: NAME=VALUE
 * strings, each ended by a NUL (read from /proc/self/environ once; a static
 * buffer, as the shim may not allocate).  Variables past its end are not
 * seen.  A mapping made at the first look, not a static array, as the
 * bootstrap arena is (bootstrap.c): a conservative collector scans the
 * library's writable segment.  Empty when the kernel refuses the mapping. */
static char *initial_env = "";
static size_t initial_env_bytes;
static int initial_env_read;

static void initial_env_load(void)
{
	void *p = mmap(NULL, SETTINGS_ENV_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ssize_t n;

	initial_env_read = 1;
	if (p == MAP_FAILED)
		return;
	initial_env = p;
	n = sys_read_file("/proc/self/environ", initial_env, SETTINGS_ENV_BYTES - 1);
	initial_env_bytes = n > 0 ? (size_t)n : 0;
	initial_env[initial_env_bytes] = '\0';
	preload_mem_count_static((int64_t)preload_mem_round(initial_env_bytes + 1));
}

const char *preload_getenv(const char *name)
{
	size_t len = strlen(name);

	if (environ)
		return getenv(name);
	if (!initial_env_read)
		initial_env_load();
	for (size_t i = 0; i < initial_env_bytes; i += strlen(initial_env + i) + 1)
		if (strncmp(initial_env + i, name, len) == 0 && initial_env[i + len] == '=')
			return initial_env + i + len + 1;
	return NULL;
}

/* Parses the decimal number (0 to 2^64 - 1) in the environment variable
 * name into *out; returns 0, leaving *out alone, when it is unset or
 * malformed. */
static int config_env_get_u64(const char *name, uint64_t *out)
{
	const char *s = preload_getenv(name);
	uint64_t v = 0;

	if (!s || !*s)
		return 0;
	for (; *s; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (*s < '0' || *s > '9' || v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*out = v;
	return 1;
}

/* config_env_get_u64's number, or dflt when unset or malformed. */
static uint64_t config_env_u64(const char *name, uint64_t dflt)
{
	uint64_t v = dflt;

	config_env_get_u64(name, &v);
	return v;
}

static uint32_t config_clamp(uint64_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

uint32_t preload_settings_slots(uint64_t as_limit_bytes, uint32_t ring_bytes)
{
	uint64_t n;

	if (as_limit_bytes == RLIM_INFINITY)
		return SESSION_DEFAULT_SLOTS;
	n = as_limit_bytes / SETTINGS_RINGS_LIMIT_SHARE / ring_bytes;
	return config_clamp(n, SETTINGS_SLOTS_MIN, SESSION_DEFAULT_SLOTS);
}

static uint32_t config_slots(uint32_t ring_bytes)
{
	struct rlimit as;

	if (getrlimit(RLIMIT_AS, &as) != 0)
		return SESSION_DEFAULT_SLOTS;
	return preload_settings_slots(as.rlim_cur, ring_bytes);
}

void preload_settings_unrecordable(struct preload_config *cfg)
{
	cfg->nslots = SETTINGS_SLOTS_MIN;
	cfg->ring_bytes = CONFIG_RING_MIN_BYTES;
}

int preload_settings_is_root(const struct preload_config *cfg, const struct pidns_view *view)
{
	return cfg->root_pid == 0 || cfg->root_pid == view->pid;
}

int preload_settings_read(struct preload_config *cfg)
{
	const char *dir = preload_getenv(SESSION_ENV);
	const char *no_children = preload_getenv(SESSION_ENV_NO_CHILDREN);
	uint64_t ring_kib, delay_ms;

	if (!dir || dir[0] != '/' || strlen(dir) >= sizeof(cfg->session_dir) - 64)
		return 0;
	if (getauxval(AT_SECURE))
		return 0;
	cfg->record_children = !(no_children && strcmp(no_children, "1") == 0);
	cfg->root_pid = config_env_u64(SESSION_ENV_ROOT_PID, 0);
	pidns_launcher_parse(preload_getenv(SESSION_ENV_LAUNCHER_PIDNS), &cfg->launcher_pidns);
	strcpy(cfg->session_dir, dir);
	cfg->max_frames = config_clamp(config_env_u64(SESSION_ENV_MAX_FRAMES,
						      SESSION_DEFAULT_MAX_FRAMES),
				       1, CONFIG_MAX_FRAMES_LIMIT);
	ring_kib = config_env_u64(SESSION_ENV_RING_KIB, SESSION_DEFAULT_RING_BYTES >> 10);
	cfg->ring_bytes = (uint32_t)preload_mem_round(
		config_clamp(ring_kib > UINT32_MAX ? UINT32_MAX : ring_kib << 10,
			     CONFIG_RING_MIN_BYTES, CONFIG_RING_MAX_BYTES));
	cfg->nslots = config_slots(cfg->ring_bytes);
	delay_ms = config_env_u64(PRELOAD_ENV_TEST_START_DELAY, 0);
	cfg->test_start_delay_ms =
		delay_ms <= PRELOAD_TEST_START_DELAY_MAX_MS ? (uint32_t)delay_ms : 0;
	cfg->sample_interval_bytes = config_env_u64(SESSION_ENV_SAMPLE_RATE, 0);
	if (cfg->sample_interval_bytes > SESSION_SAMPLE_RATE_MAX_BYTES)
		cfg->sample_interval_bytes = SESSION_SAMPLE_RATE_MAX_BYTES;
	cfg->have_sample_seed = config_env_get_u64(SESSION_ENV_SAMPLE_SEED, &cfg->sample_seed);
	cfg->paused = config_env_u64(SESSION_ENV_PAUSED, 0) == 1;
	/* past 64: 65, which toggle_signal_install refuses with a diagnostic */
	cfg->toggle_signal = (int)config_clamp(config_env_u64(SESSION_ENV_TOGGLE_SIGNAL, 0), 0, 65);
	cfg->launcher_pid = (pid_t)config_env_u64(PRELOAD_ENV_LAUNCHER_PID, 0);
	if (cfg->launcher_pid == 0)
		cfg->launcher_pid = getppid();
	return 1;
}
