/* SPDX-License-Identifier: MIT */
/* The next definitions of the hooked libc functions, bound once. */
#ifndef SOCKBOOST_REAL_H
#define SOCKBOOST_REAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

/* Every symbol the library interposes on, with its prototype.  Kept in
 * one list so that binding, the struct and the exports cannot drift.
 */
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
  X (close_range, int, (unsigned, unsigned, int))                          \
  X (closefrom, void, (int))                                               \
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

#define SB_REAL_FIELD(name, ret, args) ret (*name) args;
struct sb_real {
  SB_REAL_SYMBOLS (SB_REAL_FIELD)
};
#undef SB_REAL_FIELD

extern struct sb_real sb_real;

/* Bind every pointer in sb_real (once, thread-safe).  A symbol that
 * cannot be found stays NULL; callers check before use.
 */
extern void sb_real_bind (void);

/* Set once every pointer is bound: a hook then pays one load, not a call
 * to pthread_once.
 */
extern atomic_bool sb_real_bound;

static inline void
sb_real_ready (void)
{
  if (!atomic_load_explicit (&sb_real_bound, memory_order_acquire))
    sb_real_bind ();
}

/* Call the real NAME, or fail with ENOSYS when it could not be bound.
 * Only for use inside hook functions returning int or ssize_t.
 */
#define SB_REAL_CALL(name, ...)                                            \
  (sb_real_ready (),                                                       \
   sb_real.name ? sb_real.name (__VA_ARGS__) : sb_real_missing ())

/* Set errno to ENOSYS and return -1. */
extern int sb_real_missing (void);

#endif /* SOCKBOOST_REAL_H */
