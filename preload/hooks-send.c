/* SPDX-License-Identifier: MIT */
/* Hooks for the send paths.  An fd the library does not follow costs one
 * table lookup.  On a followed TCP socket a write that ends right after an
 * NBD header gets MSG_MORE; write/writev then become send/sendmsg, and
 * fall back to the plain call if the fd turns out not to be a socket.
 * The bytes are read ahead of the call only through the kernel (peek.c).
 * sendmmsg is followed message by message and never corked; sendfile and
 * splice move bytes the library cannot read, which it counts.
 */
#undef _FORTIFY_SOURCE
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cork.h"
#include "hooks.h"
#include "real.h"
#include "trace.h"

/* The logic of each hook is kept out of line: inlined, it would make the
 * exported function save registers and build its iovec before the fast
 * path's test, which then costs about twice as many instructions.
 */
#define SB_SLOW_PATH static __attribute__ ((noinline))

/* Finish the planned send A that returned R: keep errno as the call
 * left it.
 */
static ssize_t
finish (int fd, struct sb_send_plan *p, const struct sb_send_args *a,
        ssize_t r)
{
  int saved = errno;

  sb_cork_sent (fd, p, a, r);
  errno = saved;
  return r;
}

SB_SLOW_PATH ssize_t
sb_send (int fd, const void *buf, size_t len, int flags)
{
  struct sb_send_args a = { .form = SB_SEND_BUF, .buf = buf, .len = len };
  struct sb_send_plan p;

  if (!sb_cork_plan (fd, "send", &a, flags, &p))
    return SB_REAL_CALL (send, fd, buf, len, flags);
  return finish (fd, &p, &a, SB_REAL_CALL (send, fd, buf, len,
                                           flags | (p.more ? MSG_MORE : 0)));
}

SB_SLOW_PATH ssize_t
sb_sendto (int fd, const void *buf, size_t len, int flags,
           const struct sockaddr *addr, socklen_t alen)
{
  struct sb_send_args a = { .form = SB_SEND_BUF, .buf = buf, .len = len };
  struct sb_send_plan p;

  if (!sb_cork_plan (fd, "sendto", &a, flags, &p))
    return SB_REAL_CALL (sendto, fd, buf, len, flags, addr, alen);
  return finish (fd, &p, &a,
                 SB_REAL_CALL (sendto, fd, buf, len,
                               flags | (p.more ? MSG_MORE : 0), addr, alen));
}

SB_SLOW_PATH ssize_t
sb_sendmsg (int fd, const struct msghdr *msg, int flags)
{
  struct sb_send_args a = { .form = SB_SEND_MSG, .msg = msg };
  struct sb_send_plan p;

  if (!sb_cork_plan (fd, "sendmsg", &a, flags, &p))
    return SB_REAL_CALL (sendmsg, fd, msg, flags);
  return finish (fd, &p, &a, SB_REAL_CALL (sendmsg, fd, msg,
                                           flags | (p.more ? MSG_MORE : 0)));
}

/* The corked form of write() or writev() (send or sendmsg with
 * MSG_MORE) failed with ENOTSOCK: the descriptor is no longer the socket
 * the library knew (closed by a call it cannot see, its number reused).
 * Forget it and make the plain call, with the program's errno back.
 */
static void
not_a_socket (int fd, const char *call, int caller_errno)
{
  sb_cork_not_socket (fd, call);
  errno = caller_errno;
}

SB_SLOW_PATH ssize_t
sb_write (int fd, const void *buf, size_t len)
{
  struct sb_send_args a = { .form = SB_SEND_BUF, .buf = buf, .len = len,
                            .any_fd = true };
  struct sb_send_plan p;
  int caller_errno = errno;
  ssize_t r;

  if (!sb_cork_plan (fd, "write", &a, 0, &p))
    return SB_REAL_CALL (write, fd, buf, len);
  if (!p.more)
    return finish (fd, &p, &a, SB_REAL_CALL (write, fd, buf, len));
  r = SB_REAL_CALL (send, fd, buf, len, MSG_MORE);
  if (r >= 0 || errno != ENOTSOCK)
    return finish (fd, &p, &a, r);
  not_a_socket (fd, "write", caller_errno);
  return SB_REAL_CALL (write, fd, buf, len);
}

/* A writev planned for MSG_MORE has 1 to SB_PEEK_IOV_MAX pieces (far
 * below IOV_MAX), so sendmsg answers it as writev would.
 */
SB_SLOW_PATH ssize_t
sb_writev (int fd, const struct iovec *iov, int iovcnt)
{
  struct sb_send_args a = { .form = SB_SEND_IOV, .iov = iov,
                            .iovcnt = iovcnt, .any_fd = true };
  struct sb_send_plan p;
  struct msghdr m;
  int caller_errno = errno;
  ssize_t r;

  if (!sb_cork_plan (fd, "writev", &a, 0, &p))
    return SB_REAL_CALL (writev, fd, iov, iovcnt);
  if (!p.more)
    return finish (fd, &p, &a, SB_REAL_CALL (writev, fd, iov, iovcnt));
  m = (struct msghdr) { .msg_iov = (struct iovec *) (uintptr_t) iov,
                        .msg_iovlen = (size_t) iovcnt };
  r = SB_REAL_CALL (sendmsg, fd, &m, MSG_MORE);
  if (r >= 0 || errno != ENOTSOCK)
    return finish (fd, &p, &a, r);
  not_a_socket (fd, "writev", caller_errno);
  return SB_REAL_CALL (writev, fd, iov, iovcnt);
}

/* Each message that went out is fed in turn; the call adds no MSG_MORE. */
SB_SLOW_PATH int
sb_sendmmsg (int fd, struct mmsghdr *vec, unsigned vlen, int flags)
{
  struct sb_send_plan p;
  int r, saved;

  if (!sb_cork_plan_plain (fd, "sendmmsg", flags, &p))
    return SB_REAL_CALL (sendmmsg, fd, vec, vlen, flags);
  if (p.why == NULL)
    p.why = "passed through (sendmmsg: never corked)";
  r = SB_REAL_CALL (sendmmsg, fd, vec, vlen, flags);
  saved = errno;
  if (r <= 0)
    sb_cork_sent (fd, &p, NULL, r);
  /* The kernel wrote each msg_len: the first R entries are readable. */
  for (int i = 0; i < r; i++) {
    struct sb_send_args a = { .form = SB_SEND_IOV,
                              .iov = vec[i].msg_hdr.msg_iov,
                              .iovcnt = (int) vec[i].msg_hdr.msg_iovlen };
    sb_cork_sent (fd, &p, &a, vec[i].msg_len);
  }
  errno = saved;
  return r;
}

/* Bytes moved out of (or, for splice, into) a socket unseen: counted. */
static ssize_t
moved (int out, int in, const char *call, ssize_t r)
{
  int saved = errno;

  if (out >= 0 && !sb_cork_ignores (out))
    sb_cork_unseen (out, call, true, r);
  if (in >= 0 && !sb_cork_ignores_input (sb_fd_get (in)))
    sb_cork_unseen (in, call, false, r);
  errno = saved;
  return r;
}

SB_SLOW_PATH ssize_t
sb_sendfile (int out, int in, off_t *offset, size_t count)
{
  return moved (out, -1, "sendfile",
                SB_REAL_CALL (sendfile, out, in, offset, count));
}

SB_SLOW_PATH ssize_t
sb_sendfile64 (int out, int in, off64_t *offset, size_t count)
{
  return moved (out, -1, "sendfile64",
                SB_REAL_CALL (sendfile64, out, in, offset, count));
}

SB_SLOW_PATH ssize_t
sb_splice (int in, off64_t *in_off, int out, off64_t *out_off, size_t len,
           unsigned flags)
{
  return moved (out, in, "splice", SB_REAL_CALL (splice, in, in_off, out,
                                                 out_off, len, flags));
}

/* Level 3: the program's own option on a socket the library tracks. */
SB_SLOW_PATH void
trace_setsockopt (int fd, int level, int name, int r, int err, int cork)
{
  uint32_t e = sb_fd_get (fd);
  char what[80];

  if (!(e & SB_FD_KINDS))
    return;
  snprintf (what, sizeof what, "level %d option %d passed through%s", level,
            name, cork == 1 ? " (the program corks: nothing added while set)"
            : cork == 0 ? " (the program uncorked)" : "");
  sb_trace_call (fd, e, "setsockopt", r, err, what);
}

static int
sb_setsockopt (int fd, int level, int name, const void *val, socklen_t len)
{
  int r = SB_REAL_CALL (setsockopt, fd, level, name, val, len);
  int saved = errno, cork = -1;

  if (r == 0 && level == IPPROTO_TCP && name == TCP_CORK
      && val && len >= (socklen_t) sizeof (int)) {
    int on;
    memcpy (&on, val, sizeof on);
    cork = on != 0;
    sb_cork_app_cork (fd, cork);
  }
  if (sb_tracing ())
    trace_setsockopt (fd, level, name, r, saved, cork);
  errno = saved;
  return r;
}

SB_EXPORT ssize_t
send (int fd, const void *buf, size_t len, int flags)
{
  if (sb_cork_ignores (fd))
    return SB_REAL_CALL (send, fd, buf, len, flags);
  return sb_send (fd, buf, len, flags);
}

SB_EXPORT ssize_t
sendto (int fd, const void *buf, size_t len, int flags,
        const struct sockaddr *addr, socklen_t alen)
{
  if (sb_cork_ignores (fd))
    return SB_REAL_CALL (sendto, fd, buf, len, flags, addr, alen);
  return sb_sendto (fd, buf, len, flags, addr, alen);
}

SB_EXPORT ssize_t
sendmsg (int fd, const struct msghdr *msg, int flags)
{
  if (sb_cork_ignores (fd))
    return SB_REAL_CALL (sendmsg, fd, msg, flags);
  return sb_sendmsg (fd, msg, flags);
}

SB_EXPORT ssize_t
write (int fd, const void *buf, size_t len)
{
  if (sb_cork_ignores (fd))
    return SB_REAL_CALL (write, fd, buf, len);
  return sb_write (fd, buf, len);
}

SB_EXPORT ssize_t
writev (int fd, const struct iovec *iov, int iovcnt)
{
  if (sb_cork_ignores (fd))
    return SB_REAL_CALL (writev, fd, iov, iovcnt);
  return sb_writev (fd, iov, iovcnt);
}

SB_EXPORT int
sendmmsg (int fd, struct mmsghdr *vec, unsigned vlen, int flags)
{
  if (sb_cork_ignores (fd))
    return SB_REAL_CALL (sendmmsg, fd, vec, vlen, flags);
  return sb_sendmmsg (fd, vec, vlen, flags);
}

SB_EXPORT ssize_t
sendfile (int out, int in, off_t *offset, size_t count)
{
  if (sb_cork_ignores (out))
    return SB_REAL_CALL (sendfile, out, in, offset, count);
  return sb_sendfile (out, in, offset, count);
}

SB_EXPORT ssize_t
sendfile64 (int out, int in, off64_t *offset, size_t count)
{
  if (sb_cork_ignores (out))
    return SB_REAL_CALL (sendfile64, out, in, offset, count);
  return sb_sendfile64 (out, in, offset, count);
}

SB_EXPORT ssize_t
splice (int in, off64_t *in_off, int out, off64_t *out_off, size_t len,
        unsigned flags)
{
  if (sb_cork_ignores (out) && sb_cork_ignores_input (sb_fd_get (in)))
    return SB_REAL_CALL (splice, in, in_off, out, out_off, len, flags);
  return sb_splice (in, in_off, out, out_off, len, flags);
}

SB_EXPORT int
setsockopt (int fd, int level, int name, const void *val, socklen_t len)
{
  return sb_setsockopt (fd, level, name, val, len);
}
