/* SPDX-License-Identifier: MIT */
/* The cgroups host mode attaches to: the cgroup v2 file system, found
 * in the mount table; a cgroup named on the command line; a private
 * child for the self-test.
 */
#ifndef SOCKBOOST_HOST_CGROUP_H
#define SOCKBOOST_HOST_CGROUP_H

#include <stddef.h>
#include <stdint.h>

/* Set MOUNT (SIZE bytes) to where the first cgroup2 file system of this
 * mount namespace is mounted (/sys/fs/cgroup, /sys/fs/cgroup/unified).
 * Return 0, or -1 when there is none (errno ENOENT) or the mount table
 * cannot be read.
 */
extern int sb_host_cgroup2_mount (char *mount, size_t size);

/* Open the cgroup ARG: an absolute path, or one relative to MOUNT (say
 * "machine.slice"); NULL is MOUNT itself.  It must be a directory of a
 * cgroup2 file system.  Set PATH to its absolute path.  Return the
 * directory's descriptor, or -1 with WHY.
 */
extern int sb_host_cgroup_open (const char *mount, const char *arg,
                                char *path, size_t size,
                                char *why, size_t why_len);

/* The id of the cgroup open at FD (what the kernel reports as a
 * link's cgroup_id), or 0 when it cannot be told.
 */
extern uint64_t sb_host_cgroup_id (int fd);

/* Make the empty child cgroup NAME of PARENT_FD, removing a stale one
 * of that name first; return its descriptor or -1 (errno).
 */
extern int sb_host_cgroup_make_child (int parent_fd, const char *name);

/* Remove the child cgroup NAME of PARENT_FD once its last process is
 * gone (bounded wait).  Return 0 or -1 (errno).
 */
extern int sb_host_cgroup_remove_child (int parent_fd, const char *name);

/* Remove the children of PARENT_FD named PREFIX followed by the pid of
 * a process that no longer exists: left by a self-test whose loader was
 * killed (its process died with it).  Best effort.
 */
extern void sb_host_cgroup_remove_stale (int parent_fd, const char *prefix);

#endif /* SOCKBOOST_HOST_CGROUP_H */
