/* SPDX-License-Identifier: MIT */
/* What libbpf 0.3 (Debian 11) leaves to its caller and libbpf 1.x does
 * itself, for sb-host: decided here, at build time, on libbpf's headers.
 * (The rest of host/ keeps to what 0.3 and 1.x share.)
 */
#ifndef SOCKBOOST_HOST_LIBBPF_COMPAT_H
#define SOCKBOOST_HOST_LIBBPF_COMPAT_H

/* Before loading anything.  Kernels before 5.11 charge BPF memory to
 * RLIMIT_MEMLOCK (64 KiB by default, too little for host mode's maps:
 * every load fails with EPERM), and libbpf 1.x raises the limit to
 * infinity there by itself; with an older libbpf this does.  Only this
 * process's limit, and its children's.
 */
void sb_libbpf_setup (void);

#endif /* SOCKBOOST_HOST_LIBBPF_COMPAT_H */
