/* SPDX-License-Identifier: MIT */
/* Where the running kernel keeps a task's group leader and name, for
 * the programs to read a process's name (its thread group leader's)
 * rather than the calling thread's: byte offsets in struct task_struct,
 * from the kernel's own BTF, which describes its layout as built
 * (randomized or not).
 */
#ifndef SOCKBOOST_HOST_TASKNAME_H
#define SOCKBOOST_HOST_TASKNAME_H

#include <stddef.h>
#include <stdint.h>

/* The kernel's BTF, where kernels built with CONFIG_DEBUG_INFO_BTF
 * publish it.
 */
#define SB_HOST_VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* Set *GROUP_LEADER and *COMM to the offsets of task_struct's
 * group_leader (a pointer) and comm (16 chars) in the BTF at PATH.
 * Return 0, or -1 with WHY.
 */
extern int sb_host_task_offsets (const char *path, uint32_t *group_leader,
                                 uint32_t *comm, char *why, size_t why_len);

#endif /* SOCKBOOST_HOST_TASKNAME_H */
