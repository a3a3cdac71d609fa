/* SPDX-License-Identifier: MIT */
/* Hooks for the receive paths, which the framing needs to know what the
 * peer asked for (the length of a READ reply, the handshake).  Only fds
 * with a framing tracker do anything beyond the plain call.  The _chk
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

/* Feed R bytes received into BUF to FD's tracker; keep errno.  Only
 * sockets with a tracker need it: the rest skip the call.
 */
static ssize_t
fed (int fd, void *buf, ssize_t r, int flags)
{
  int saved;

  if (r <= 0 || SB_FD_SLOT (sb_fd_get (fd)) < 0)
    return r;
  saved = errno;
  struct iovec iov = { buf, r > 0 ? (size_t) r : 0 };
  sb_cork_received (fd, &iov, 1, r, flags);
  errno = saved;
  return r;
}

static ssize_t
fedv (int fd, const struct iovec *iov, int iovcnt, ssize_t r, int flags)
{
  int saved;

  if (r <= 0 || SB_FD_SLOT (sb_fd_get (fd)) < 0)
    return r;
  saved = errno;
  sb_cork_received (fd, iov, iovcnt, r, flags);
  errno = saved;
  return r;
}

SB_EXPORT ssize_t
recv (int fd, void *buf, size_t len, int flags)
{
  return fed (fd, buf, SB_REAL_CALL (recv, fd, buf, len, flags), flags);
}

SB_EXPORT ssize_t
recvfrom (int fd, void *buf, size_t len, int flags, struct sockaddr *addr,
          socklen_t *alen)
{
  return fed (fd, buf, SB_REAL_CALL (recvfrom, fd, buf, len, flags, addr,
                                     alen), flags);
}

SB_EXPORT ssize_t
recvmsg (int fd, struct msghdr *msg, int flags)
{
  ssize_t r = SB_REAL_CALL (recvmsg, fd, msg, flags);
  if (r <= 0 || msg == NULL)
    return r;
  return fedv (fd, msg->msg_iov, (int) msg->msg_iovlen, r, flags);
}

SB_EXPORT ssize_t
read (int fd, void *buf, size_t len)
{
  return fed (fd, buf, SB_REAL_CALL (read, fd, buf, len), 0);
}

SB_EXPORT ssize_t
readv (int fd, const struct iovec *iov, int iovcnt)
{
  return fedv (fd, iov, iovcnt, SB_REAL_CALL (readv, fd, iov, iovcnt), 0);
}

SB_EXPORT ssize_t
__read_chk (int fd, void *buf, size_t len, size_t buflen)
{
  return fed (fd, buf, SB_REAL_CALL (__read_chk, fd, buf, len, buflen), 0);
}

SB_EXPORT ssize_t
__recv_chk (int fd, void *buf, size_t len, size_t buflen, int flags)
{
  return fed (fd, buf, SB_REAL_CALL (__recv_chk, fd, buf, len, buflen, flags),
              flags);
}

SB_EXPORT ssize_t
__recvfrom_chk (int fd, void *buf, size_t len, size_t buflen, int flags,
                struct sockaddr *addr, socklen_t *alen)
{
  return fed (fd, buf, SB_REAL_CALL (__recvfrom_chk, fd, buf, len, buflen,
                                     flags, addr, alen), flags);
}
