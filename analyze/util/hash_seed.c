/*
 * analyze/util/hash_seed.c - the per-process seed of hash_seed.h.
 */
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "analyze/util/hash_seed.h"

uint64_t hash_seed;

void hash_seed_init(void)
{
	uint64_t seed = 0;
	struct timespec ts;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed) && seed)
		goto done;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	seed = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec << 32 ^
	       (uint64_t)getpid();
done:
	hash_seed = seed;
}
