/* SPDX-License-Identifier: MIT */
/* What newer C libraries declare and this code uses, for a build
 * against an older one (Debian 11: glibc 2.31, Linux 5.10's headers).
 * The GNUmakefile puts it before every file (-include), so that no file
 * has to remember it; with a new enough glibc it declares nothing.
 *
 * The hooks of functions an old glibc lacks (close_range, closefrom:
 * 2.34) are not here: the library leaves them out on such a glibc
 * (preload/real-symbols.h), since a program must not find, through the
 * library, a call its C library does not have.
 */
#ifndef SOCKBOOST_GLIBC_COMPAT_H
#define SOCKBOOST_GLIBC_COMPAT_H

#include <features.h>
#include <sys/syscall.h>

/* glibc 2.32: errno's and signals' names, without locale or allocation. */
#if !__GLIBC_PREREQ(2, 32)
const char *sb_compat_strerrorname_np (int errnum);
const char *sb_compat_strerrordesc_np (int errnum);
const char *sb_compat_sigabbrev_np (int sig);
#define strerrorname_np sb_compat_strerrorname_np
#define strerrordesc_np sb_compat_strerrordesc_np
#define sigabbrev_np sb_compat_sigabbrev_np
#endif

/* System calls newer than the glibc: their numbers from the kernel's
 * headers (<asm/unistd.h>, which <sys/syscall.h> includes).
 */
#if !defined SYS_pidfd_open && defined __NR_pidfd_open
#define SYS_pidfd_open __NR_pidfd_open
#endif
#if !defined SYS_pidfd_getfd && defined __NR_pidfd_getfd
#define SYS_pidfd_getfd __NR_pidfd_getfd
#endif
#if !defined SYS_close_range && defined __NR_close_range
#define SYS_close_range __NR_close_range
#endif
#if !defined SYS_openat2 && defined __NR_openat2
#define SYS_openat2 __NR_openat2
#endif

/* close_range's flag from Linux 5.11 (<linux/close_range.h>): a program
 * may pass it where the headers were older than the kernel, and the
 * library must know it then too.
 */
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

#endif /* SOCKBOOST_GLIBC_COMPAT_H */
