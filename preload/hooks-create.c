/* SPDX-License-Identifier: MIT */
/* Hooks for the calls that create connected stream sockets: record what
 * each new descriptor is and tune it (tune.c).  Each hook returns exactly
 * what the real call returned, with its errno.
 */
#include <errno.h>
#include <sys/socket.h>

#include "hooks.h"
#include "real.h"
#include "track.h"
#include "tune.h"

static int
sb_socket (int domain, int type, int protocol)
{
  int fd = SB_REAL_CALL (socket, domain, type, protocol);
  int saved = errno;

  if (fd >= 0)
    sb_track_set (fd, SB_FD_KNOWN | sb_tune_kind (domain, type, protocol));
  errno = saved;
  return fd;
}

static int
sb_socketpair (int domain, int type, int protocol, int sv[2])
{
  int r = SB_REAL_CALL (socketpair, domain, type, protocol, sv);
  int saved = errno;

  if (r == 0) {
    uint32_t kind = sb_tune_kind (domain, type, protocol);
    sb_tune_new (sv[0], kind, SB_SIDE_PAIR);
    sb_tune_new (sv[1], kind, SB_SIDE_PAIR);
  }
  errno = saved;
  return r;
}

static int
sb_connect (int fd, const struct sockaddr *addr, socklen_t len)
{
  int r = SB_REAL_CALL (connect, fd, addr, len);
  int saved = errno;

  if (r == 0 || saved == EINPROGRESS) {
    uint32_t e = sb_tune_known (fd);
    if ((e & SB_FD_KINDS) && !(e & (SB_FD_TUNED | SB_FD_CANDIDATE)))
      sb_tune_new (fd, e & SB_FD_KINDS, SB_SIDE_CONNECT);
  }
  errno = saved;
  return r;
}

/* NEWFD came from accepting on LISTENER: it has the listener's kind. */
static void
accepted (int listener, int newfd)
{
  uint32_t l = sb_tune_known (listener);

  if (l & SB_FD_KNOWN) {
    sb_tune_new (newfd, l & SB_FD_KINDS, SB_SIDE_ACCEPT);
    return;
  }
  sb_track_set (newfd, 0);
  sb_tune_new (newfd, sb_tune_known (newfd) & SB_FD_KINDS, SB_SIDE_ACCEPT);
}

static int
sb_accept (int fd, struct sockaddr *addr, socklen_t *len)
{
  int r = SB_REAL_CALL (accept, fd, addr, len);
  int saved = errno;

  if (r >= 0)
    accepted (fd, r);
  errno = saved;
  return r;
}

static int
sb_accept4 (int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
  int r = SB_REAL_CALL (accept4, fd, addr, len, flags);
  int saved = errno;

  if (r >= 0)
    accepted (fd, r);
  errno = saved;
  return r;
}

SB_EXPORT int
socket (int domain, int type, int protocol)
{
  return sb_socket (domain, type, protocol);
}

SB_EXPORT int
socketpair (int domain, int type, int protocol, int sv[2])
{
  return sb_socketpair (domain, type, protocol, sv);
}

SB_EXPORT int
connect (int fd, const struct sockaddr *addr, socklen_t len)
{
  return sb_connect (fd, addr, len);
}

SB_EXPORT int
accept (int fd, struct sockaddr *addr, socklen_t *len)
{
  return sb_accept (fd, addr, len);
}

SB_EXPORT int
accept4 (int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
  return sb_accept4 (fd, addr, len, flags);
}
