/*
 * trace/file_caps.h - whether executing a file puts the new program in
 * secure-execution mode, in which the loader ignores LD_PRELOAD: by its
 * set-user-ID and set-group-ID bits and the caller's IDs, or by its
 * capabilities (its security.capability extended attribute).  Shared by
 * the launcher's check of the programs it starts and names (cli/elf_check.c)
 * and the recorder's check before a posix_spawn or a vfork child's exec
 * (preload/exec_reach.c), so the two agree; header-only, pure: the callers
 * stat the file, read the attribute and their own IDs and capability sets.
 */
#ifndef MPROF_TRACE_FILE_CAPS_H
#define MPROF_TRACE_FILE_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

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

/* The caller's real and effective user and group IDs (getuid, geteuid,
 * getgid, getegid). */
struct file_exec_ids {
	uid_t real_uid, effective_uid;
	gid_t real_gid, effective_gid;
};

/* What puts an exec in secure-execution mode on account of IDs. */
enum file_setid_secure {
	FILE_SETID_NONE = 0,  /* the IDs leave the mode off */
	FILE_SETID_USER,      /* a set-user-ID file owned by another user than the real one */
	FILE_SETID_GROUP,     /* a set-group-ID file of another group than the real one */
	FILE_SETID_MIXED_IDS, /* the caller's effective ID, kept by the exec, is not its real one */
};

/*
 * Whether executing a file of mode mode (st_mode), owned by file_uid and
 * file_gid, on a file system mounted nosuid or not, by a caller with IDs
 * ids runs in secure-execution mode, and why.  The kernel's rule: after the
 * exec the effective user or group ID is not the real one, where the exec
 * sets the effective user ID to the file's owner for a set-user-ID file and
 * the group's for a set-group-ID file (S_ISGID with group execute; without
 * it the bit means mandatory locking), except on a nosuid mount, and keeps
 * the caller's otherwise.  The set-user-ID reason comes first, then the
 * set-group-ID one.
 */
static inline enum file_setid_secure file_setid_secure_exec(mode_t mode, uid_t file_uid,
							    gid_t file_gid, bool nosuid,
							    const struct file_exec_ids *ids)
{
	bool setuid = !nosuid && (mode & S_ISUID);
	bool setgid = !nosuid && (mode & S_ISGID) && (mode & S_IXGRP);

	if (setuid && file_uid != ids->real_uid)
		return FILE_SETID_USER;
	if (setgid && file_gid != ids->real_gid)
		return FILE_SETID_GROUP;
	if ((!setuid && ids->effective_uid != ids->real_uid) ||
	    (!setgid && ids->effective_gid != ids->real_gid))
		return FILE_SETID_MIXED_IDS;
	return FILE_SETID_NONE;
}

#endif
