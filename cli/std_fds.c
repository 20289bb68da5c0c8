/*
 * cli/std_fds.c - holds the launcher's closed standard descriptors with
 * /dev/null (cli/std_fds.h).  A user who runs `mprof run ... 2>&-` meant
 * the program to find stderr closed, not the launcher to write its
 * warnings into the first file it opens after that.  Lets go of the
 * program's input and output when it ends.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli/std_fds.h"

void std_fds_hold(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lowest free number: fd itself, the ones below are open */
		got = open("/dev/null", (fd == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
		if (got >= 0 && got != fd)
			close(got);
	}
}

void std_fds_release_in_out(void)
{
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null_fd < 0)
		return;
	for (int fd = 0; fd <= 1; fd++)
		if (null_fd != fd)
			dup3(null_fd, fd, O_CLOEXEC);
	if (null_fd > 1)
		close(null_fd);
}
