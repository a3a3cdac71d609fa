/* SPDX-License-Identifier: MIT */
/* Hooks for the receive paths, which the framing needs to know what the
 * peer asked for (the length of a READ reply, the handshake).  Only fds
 * with a framing tracker (and tuned ones while tracing) do anything
 * beyond the plain call.  The _chk
 * variants are what programs built with _FORTIFY_SOURCE call.
 */
#undef _FORTIFY_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cork.h"
#include "fdtable.h"
#include "hooks.h"
#include "real.h"

/* Declared by glibc only when the caller builds with _FORTIFY_SOURCE. */
extern ssize_t __read_chk (int, void *, size_t, size_t);
extern ssize_t __recv_chk (int, void *, size_t, size_t, int);
extern ssize_t __recvfrom_chk (int, void *, size_t, size_t, int,
                               struct sockaddr *, socklen_t *);

/* Out of line: the inlined test above is all an untracked fd pays. */
static __attribute__ ((noinline)) ssize_t
fedv (int fd, uint32_t e, const char *call, const struct iovec *iov,
      int iovcnt, ssize_t r, int flags)
{
  int saved = errno;

  sb_cork_received (fd, e, call, iov, iovcnt, r, saved, flags);
  errno = saved;
  return r;
}

/* Feed R bytes received into BUF by CALL to FD's tracker; keep errno. */
static inline ssize_t
fed (int fd, const char *call, void *buf, ssize_t r, int flags)
{
  uint32_t e = sb_fd_get (fd);
  struct iovec iov;

  if (sb_cork_ignores_input (e))
    return r;
  iov = (struct iovec) { buf, r > 0 ? (size_t) r : 0 };
  return fedv (fd, e, call, &iov, 1, r, flags);
}

SB_EXPORT ssize_t
recv (int fd, void *buf, size_t len, int flags)
{
  return fed (fd, "recv", buf, SB_REAL_CALL (recv, fd, buf, len, flags),
              flags);
}

SB_EXPORT ssize_t
recvfrom (int fd, void *buf, size_t len, int flags, struct sockaddr *addr,
          socklen_t *alen)
{
  return fed (fd, "recvfrom", buf, SB_REAL_CALL (recvfrom, fd, buf, len,
                                                 flags, addr, alen), flags);
}

SB_EXPORT ssize_t
recvmsg (int fd, struct msghdr *msg, int flags)
{
  ssize_t r = SB_REAL_CALL (recvmsg, fd, msg, flags);
  uint32_t e = sb_fd_get (fd);

  if (sb_cork_ignores_input (e))
    return r;
  return fedv (fd, e, "recvmsg", r > 0 && msg ? msg->msg_iov : NULL,
               r > 0 && msg ? (int) msg->msg_iovlen : 0, r, flags);
}

/* Each message that came in is fed in turn. */
static __attribute__ ((noinline)) int
fed_mmsg (int fd, uint32_t e, struct mmsghdr *vec, int r, int flags)
{
  int saved = errno;

  if (r < 0)
    sb_cork_received (fd, e, "recvmmsg", NULL, 0, r, saved, flags);
  for (int i = 0; i < r; i++)
    sb_cork_received (fd, e, "recvmmsg", vec[i].msg_hdr.msg_iov,
                      (int) vec[i].msg_hdr.msg_iovlen, vec[i].msg_len, 0,
                      flags);
  errno = saved;
  return r;
}

SB_EXPORT int
recvmmsg (int fd, struct mmsghdr *vec, unsigned vlen, int flags,
          struct timespec *timeout)
{
  int r = SB_REAL_CALL (recvmmsg, fd, vec, vlen, flags, timeout);
  uint32_t e = sb_fd_get (fd);

  if (sb_cork_ignores_input (e) || vec == NULL)
    return r;
  return fed_mmsg (fd, e, vec, r, flags);
}

SB_EXPORT ssize_t
read (int fd, void *buf, size_t len)
{
  return fed (fd, "read", buf, SB_REAL_CALL (read, fd, buf, len), 0);
}

SB_EXPORT ssize_t
readv (int fd, const struct iovec *iov, int iovcnt)
{
  ssize_t r = SB_REAL_CALL (readv, fd, iov, iovcnt);
  uint32_t e = sb_fd_get (fd);

  if (sb_cork_ignores_input (e))
    return r;
  return fedv (fd, e, "readv", r > 0 ? iov : NULL, r > 0 ? iovcnt : 0, r, 0);
}

SB_EXPORT ssize_t
__read_chk (int fd, void *buf, size_t len, size_t buflen)
{
  return fed (fd, "read", buf, SB_REAL_CALL (__read_chk, fd, buf, len, buflen),
              0);
}

SB_EXPORT ssize_t
__recv_chk (int fd, void *buf, size_t len, size_t buflen, int flags)
{
  return fed (fd, "recv", buf, SB_REAL_CALL (__recv_chk, fd, buf, len, buflen,
                                             flags), flags);
}

SB_EXPORT ssize_t
__recvfrom_chk (int fd, void *buf, size_t len, size_t buflen, int flags,
                struct sockaddr *addr, socklen_t *alen)
{
  return fed (fd, "recvfrom", buf, SB_REAL_CALL (__recvfrom_chk, fd, buf,
                                                 len, buflen, flags, addr,
                                                 alen), flags);
}
