/*
 * hostile_names.c - a program whose names are hostile, for
 * tests/e2e/hostile-names.sh: usage `hostile_names LIBRARY TITLE COMM
 * MARKER`.  It forks two children; each process (the children first, then
 * the parent) loads LIBRARY with dlopen and, again, with dlmopen into a
 * namespace of its own (so that each process's recorder names the
 * library's path in a diagnostic), calls its
 * hostile_names_run() (five allocations, hostile_names_lib.c) once, the
 * parent twice (so that a diff of a child's trace and the parent's shows the
 * library's sites grown), sets
 * the marker MARKER through mprof.h, names itself COMM with
 * prctl(PR_SET_NAME) and writes TITLE over its argument area, as
 * PostgreSQL retitles its processes.  The parent prints "children: 0 0"
 * (their exit statuses) and returns 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mprof.h"

static char *title_area;
static size_t title_bytes;

/* Writes title over the argument area (argv's strings lie one after the
 * other), cut to fit, the rest zeroed. */
static void title_set(const char *title)
{
	size_t n = strlen(title);

	if (n > title_bytes)
		n = title_bytes;
	memset(title_area, 0, title_bytes);
	memcpy(title_area, title, n);
}

/* What each process does: load, allocate, mark, rename, retitle. */
static int hostile_process(const char *library, const char *title, const char *comm,
			   const char *marker, int runs)
{
	void *h = dlopen(library, RTLD_NOW);
	void (*run)(void);

	if (!h || !dlmopen(LM_ID_NEWLM, library, RTLD_NOW)) {
		fprintf(stderr, "hostile_names: %s\n", dlerror());
		return 1;
	}
	run = (void (*)(void))dlsym(h, "hostile_names_run");
	if (!run)
		return 1;
	for (int i = 0; i < runs; i++)
		run();
	mprof_marker(marker);
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	title_set(title);
	return 0;
}

int main(int argc, char **argv)
{
	int status[2];
	pid_t pid[2];

	if (argc != 5) {
		fprintf(stderr, "usage: hostile_names LIBRARY TITLE COMM MARKER\n");
		return 2;
	}
	title_area = argv[0];
	title_bytes = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
	/* the title is written over the arguments: keep copies */
	char *library = strdup(argv[1]), *title = strdup(argv[2]);
	char *comm = strdup(argv[3]), *marker = strdup(argv[4]);

	if (!library || !title || !comm || !marker)
		return 1;
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			return 1;
		if (pid[i] == 0)
			exit(hostile_process(library, title, comm, marker, 1));
		if (waitpid(pid[i], &status[i], 0) != pid[i])
			return 1;
	}
	if (hostile_process(library, title, comm, marker, 2))
		return 1;
	printf("children: %d %d\n", WEXITSTATUS(status[0]), WEXITSTATUS(status[1]));
	return 0;
}
