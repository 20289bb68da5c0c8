/*
 * pid_file.h - write_pid for the test programs that a test signals: the
 * program's pid written to a file once it is ready, with no allocator call
 * (no stdio stream), so that writing it records nothing.
 */
#ifndef MPROF_TESTS_PID_FILE_H
#define MPROF_TESTS_PID_FILE_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes "PID\n" to path; exits with status 3 when it cannot. */
static void write_pid(const char *path)
{
	char text[32];
	int fd, n = snprintf(text, sizeof(text), "%d\n", (int)getpid());

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, (size_t)n) != n || close(fd) != 0) {
		perror(path);
		exit(3);
	}
}

#endif
