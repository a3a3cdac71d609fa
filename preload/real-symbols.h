/* SPDX-License-Identifier: MIT */
/* The list of hooked symbols, read by the library and its export map. */
#ifndef SOCKBOOST_REAL_SYMBOLS_H
#define SOCKBOOST_REAL_SYMBOLS_H

/* Every symbol the library interposes on, with its prototype: X (NAME,
 * RETURN TYPE, (PARAMETER TYPES)).  The one list: real.c binds each
 * with dlsym, struct sb_real (real.h) holds them, and the GNUmakefile
 * makes the export map from it (libsockboost.syms.in), which
 * tests/preload-exports.bats checks against nm -D.  Only <features.h>
 * here, which declares nothing: the map is made by the preprocessor
 * alone.
 */
#include <features.h>

/* close_range and closefrom came with glibc 2.34.  Built against an
 * older one, the library neither hooks nor exports them: a program that
 * looks for them (a weak reference, dlsym) must not find ours, and take
 * a call that its C library does not have.
 */
#if __GLIBC_PREREQ(2, 34)
#define SB_HOOKS_CLOSE_RANGE 1
#define SB_REAL_SYMBOLS_CLOSE_RANGE(X)                                     \
  X (close_range, int, (unsigned, unsigned, int))                          \
  X (closefrom, void, (int))
#else
#define SB_HOOKS_CLOSE_RANGE 0
#define SB_REAL_SYMBOLS_CLOSE_RANGE(X)
#endif

#define SB_REAL_SYMBOLS(X)                                                 \
  X (socket, int, (int, int, int))                                         \
  X (socketpair, int, (int, int, int, int[2]))                             \
  X (connect, int, (int, const struct sockaddr *, socklen_t))              \
  X (accept, int, (int, struct sockaddr *, socklen_t *))                   \
  X (accept4, int, (int, struct sockaddr *, socklen_t *, int))             \
  X (setsockopt, int, (int, int, int, const void *, socklen_t))           \
  X (close, int, (int))                                                    \
  X (dup2, int, (int, int))                                                \
  X (dup3, int, (int, int, int))                                           \
  SB_REAL_SYMBOLS_CLOSE_RANGE (X)                                          \
  X (send, ssize_t, (int, const void *, size_t, int))                     \
  X (sendto, ssize_t, (int, const void *, size_t, int,                     \
                       const struct sockaddr *, socklen_t))                \
  X (sendmsg, ssize_t, (int, const struct msghdr *, int))                  \
  X (write, ssize_t, (int, const void *, size_t))                          \
  X (writev, ssize_t, (int, const struct iovec *, int))                    \
  X (sendmmsg, int, (int, struct mmsghdr *, unsigned, int))                \
  X (sendfile, ssize_t, (int, int, off_t *, size_t))                      \
  X (sendfile64, ssize_t, (int, int, off64_t *, size_t))                  \
  X (splice, ssize_t, (int, off64_t *, int, off64_t *, size_t, unsigned))  \
  X (recv, ssize_t, (int, void *, size_t, int))                            \
  X (recvfrom, ssize_t, (int, void *, size_t, int, struct sockaddr *,      \
                         socklen_t *))                                     \
  X (recvmsg, ssize_t, (int, struct msghdr *, int))                        \
  X (read, ssize_t, (int, void *, size_t))                                 \
  X (readv, ssize_t, (int, const struct iovec *, int))                     \
  X (recvmmsg, int, (int, struct mmsghdr *, unsigned, int,                 \
                     struct timespec *))                                   \
  X (__read_chk, ssize_t, (int, void *, size_t, size_t))                   \
  X (__recv_chk, ssize_t, (int, void *, size_t, size_t, int))              \
  X (__recvfrom_chk, ssize_t, (int, void *, size_t, size_t, int,           \
                               struct sockaddr *, socklen_t *))

#endif /* SOCKBOOST_REAL_SYMBOLS_H */
