/* SPDX-License-Identifier: MIT */
/* Hooks for the calls that create connected stream sockets: record what
 * each new descriptor is and tune it (tune.c).  Each hook returns exactly
 * what the real call returned, with its errno.
 */
#include <errno.h>
#include <sys/socket.h>

#include "hooks.h"
#include "real.h"
#include "trace.h"
#include "track.h"
#include "tune.h"

/* Level 3: a failed call on a socket the library knows. */
static void
trace_passed (int fd, const char *call, int r, int err)
{
  uint32_t e = sb_fd_get (fd);

  if (e & SB_FD_KINDS)
    sb_trace_call (fd, e, call, r, err, "passed through");
}

static int
sb_socket (int domain, int type, int protocol)
{
  int fd = SB_REAL_CALL (socket, domain, type, protocol);
  int saved = errno;

  if (fd >= 0) {
    uint32_t e = SB_FD_KNOWN | sb_tune_kind (domain, type, protocol);
    sb_track_set (fd, e);
    if ((e & SB_FD_KINDS) && sb_tracing ())
      sb_trace_call (fd, e, "socket", fd, 0, "noted, tuned once connected "
                     "or accepted");
  }
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
    else if ((e & SB_FD_KINDS) && sb_tracing ())
      sb_trace_call (fd, e, "connect", r, saved, "already tuned");
  }
  else if (sb_tracing ())
    trace_passed (fd, "connect", r, saved);
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
  else if (sb_tracing ())
    trace_passed (fd, "accept", r, saved);
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
  else if (sb_tracing ())
    trace_passed (fd, "accept4", r, saved);
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
