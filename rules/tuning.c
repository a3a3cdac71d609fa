/* SPDX-License-Identifier: MIT */
/* The tuning rules: no state; no calls but getsockopt, open and those
 * the caller passes.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tuning.h"

int
sb_get_int (int fd, int level, int name, int *value)
{
  socklen_t len = sizeof *value;

  return getsockopt (fd, level, name, value, &len);
}

enum sb_socket_kind
sb_socket_kind (int domain, int type, int protocol)
{
  type &= ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (type != SOCK_STREAM)
    return SB_SOCKET_OTHER;
  if (domain == AF_UNIX)
    return SB_SOCKET_UNIX;
  if ((domain == AF_INET || domain == AF_INET6)
      && (protocol == 0 || protocol == IPPROTO_TCP))
    return SB_SOCKET_TCP;
  return SB_SOCKET_OTHER;
}

long long
sb_sndbuf_request (const struct sb_config *c)
{
  return c->sndbuf < SB_SNDBUF_REQUEST_MAX ? (long long) c->sndbuf
    : SB_SNDBUF_REQUEST_MAX;
}

int
sb_sndbuf_raise (int fd, int before, const struct sb_config *c,
                 sb_set_int_fn *set, bool *clipped)
{
  long long want = sb_sndbuf_request (c);
  bool over_max = c->wmem_max >= 0 && want > c->wmem_max;

  *clipped = false;
  if (before >= 2 * want)
    return -1;
  if (c->force == SB_FORCE_ON || (c->force == SB_FORCE_AUTO && over_max)) {
    if (set (fd, SOL_SOCKET, SO_SNDBUFFORCE, (int) want) == 0)
      return SO_SNDBUFFORCE;
  }
  if (over_max) {
    *clipped = true;
    if (before >= 2LL * c->wmem_max)
      return -1;
  }
  return set (fd, SOL_SOCKET, SO_SNDBUF, (int) want) == 0 ? SO_SNDBUF : -1;
}

const char *
sb_sndbuf_clip_warning_text (const struct sb_config *c, char *buf,
                             size_t size)
{
  snprintf (buf, size, "net.core.wmem_max is %ld, below the %llu requested: "
            "run 'sysctl -w net.core.wmem_max=%llu' or give the process "
            "CAP_NET_ADMIN", c->wmem_max, (unsigned long long) c->sndbuf,
            (unsigned long long) c->sndbuf);
  return buf;
}

long
sb_wmem_max (const struct sb_file_calls *calls)
{
  static const struct sb_file_calls libc = { read, close };
  char buf[32];
  ssize_t n;
  long value = 0;
  int fd = open ("/proc/sys/net/core/wmem_max", O_RDONLY | O_CLOEXEC);

  if (fd == -1)
    return -1;
  if (calls == NULL)
    calls = &libc;
  n = calls->read (fd, buf, sizeof buf - 1);
  calls->close (fd);
  if (n <= 0)
    return -1;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
    value = value * 10 + (buf[i] - '0');
  return value;
}
