/*
 * cli/exec_target.h - why a program that a recorded process image
 * executed was not recorded (no process file of it appeared).
 */
#ifndef MPROF_CLI_EXEC_TARGET_H
#define MPROF_CLI_EXEC_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a program started where mprof's session directory cannot be seen
 * runs unrecorded. */
#define EXEC_TARGET_UNSEEN_WHY                                                          \
	"the process had changed its root directory (chroot) or mounted over "          \
	"mprof's session directory in a mount namespace of its own, where the "      \
	"recorder cannot create a process file"

/*
 * Writes into why[size] the reason the program at path (as the exec call
 * named it: absolute, relative to process pid's working directory, or a
 * name looked up in $PATH) ran unrecorded when process pid executed it:
 * its environment dropped the recorder (env_dropped), it is statically
 * linked, it is a 32-bit program or one for another machine (whose loader
 * cannot load the recorder: preload/exec_watch.c takes the recorder out of
 * its LD_PRELOAD), it runs in secure-execution mode, it is built with a
 * sanitizer whose runtime must come first (the same is done), the process no longer saw
 * mprof's session directory (session_unseen: a chroot, a mount over its
 * parent), the process had changed its
 * effective user ID to exec_euid, neither root nor mprof's own, so the
 * recorder cannot write in mprof's session directory, the process still
 * runs (it executed the program as the recording ended), or else the
 * recorder did not start in it.  Returns why.
 */
const char *exec_target_why(unsigned pid, const char *path, bool env_dropped,
			    bool session_unseen, uint32_t exec_euid, char *why, size_t size);

#endif
