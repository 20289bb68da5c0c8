/*
 * trace/file_caps.h - whether executing a file with capabilities
 * (its security.capability extended attribute) puts the new program in
 * secure-execution mode, in which the loader ignores LD_PRELOAD.  Shared by
 * the launcher's check of the programs it starts and names (cli/elf_check.c)
 * and the recorder's check before a posix_spawn or a vfork child's exec
 * (preload/exec_reach.c), so the two agree; header-only, pure: the callers
 * read the attribute and their own capability sets.
 */
#ifndef MPROF_TRACE_FILE_CAPS_H
#define MPROF_TRACE_FILE_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FILE_CAPS_EFFECTIVE 0x000001u /* VFS_CAP_FLAGS_EFFECTIVE in magic_etc */

/* The little-endian 32-bit word at raw[off]. */
static inline uint64_t file_caps_le32(const uint8_t *raw, size_t off)
{
	return (uint64_t)raw[off] | (uint64_t)raw[off + 1] << 8 | (uint64_t)raw[off + 2] << 16 |
	       (uint64_t)raw[off + 3] << 24;
}

/*
 * Whether the kernel runs a file whose security.capability attribute is
 * raw[0..len) (struct vfs_cap_data: le32 magic_etc, then le32 permitted
 * and le32 inheritable for capabilities 0-31, and for 32-63 in revisions 2
 * and 3; len < 0: no attribute) in secure-execution mode, for a caller whose
 * real user ID is root or not (real_root), whose inheritable set is
 * inheritable and whose bounding set is bounding.  As Linux's
 * cap_bprm_creds_from_file decides it: file capabilities clear the ambient
 * set, so for a real user other than root the mode is secure when the file
 * sets its effective bit or the new permitted set
 * (file permitted & bounding) | (file inheritable & inheritable) is not
 * empty; a real root's exec never is (on account of capabilities).
 */
static inline bool file_caps_secure_exec(const uint8_t *raw, long len, bool real_root,
					 uint64_t inheritable, uint64_t bounding)
{
	uint64_t permitted, file_inheritable;

	if (real_root || len < 12)
		return false;
	permitted = file_caps_le32(raw, 4);
	file_inheritable = file_caps_le32(raw, 8);
	if (len >= 20) {
		permitted |= file_caps_le32(raw, 12) << 32;
		file_inheritable |= file_caps_le32(raw, 16) << 32;
	}
	if (file_caps_le32(raw, 0) & FILE_CAPS_EFFECTIVE)
		return true;
	return ((permitted & bounding) | (file_inheritable & inheritable)) != 0;
}

#endif
