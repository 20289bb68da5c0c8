/*
 * static_linger.c - sleeps argv[1] milliseconds and exits 0; built
 * statically, it is a program the recorder cannot reach that is still
 * running when the program that started it has ended.
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
	return 0;
}
