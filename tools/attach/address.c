/* SPDX-License-Identifier: MIT */
/* Where a socket is, for the verbose lines: a unix path or a TCP
 * address, escaped, since the process chose it.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "attach.h"

static const char *
unix_name (const struct sockaddr_un *a, socklen_t len, char *buf, size_t size)
{
  size_t n = len > offsetof (struct sockaddr_un, sun_path)
    ? len - offsetof (struct sockaddr_un, sun_path) : 0;

  if (n == 0)
    return NULL;
  if (a->sun_path[0] == '\0') {         /* abstract: no file, no NUL end */
    buf[0] = '@';
    sb_escape (buf + 1, size - 1, a->sun_path + 1, n - 1);
    return buf;
  }
  return sb_escape (buf, size, a->sun_path, strnlen (a->sun_path, n));
}

static const char *
inet_name (const struct sockaddr_storage *a, char *buf, size_t size)
{
  char host[INET6_ADDRSTRLEN];
  const struct sockaddr_in *v4 = (const struct sockaddr_in *) a;
  const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *) a;

  if (a->ss_family == AF_INET
      && inet_ntop (AF_INET, &v4->sin_addr, host, sizeof host))
    snprintf (buf, size, "%s:%u", host, (unsigned) ntohs (v4->sin_port));
  else if (a->ss_family == AF_INET6
           && inet_ntop (AF_INET6, &v6->sin6_addr, host, sizeof host))
    snprintf (buf, size, "[%s]:%u", host, (unsigned) ntohs (v6->sin6_port));
  else
    return NULL;
  return buf;
}

/* The name of socket FD, or of its peer if it has none, or "unnamed". */
const char *
attach_describe (int fd, char *buf, size_t size)
{
  int (*const ask[]) (int, struct sockaddr *, socklen_t *) =
    { getsockname, getpeername };
  const char *name = NULL;

  for (size_t i = 0; i < 2 && name == NULL; i++) {
    struct sockaddr_storage a;
    socklen_t len = sizeof a;

    if (ask[i] (fd, (struct sockaddr *) &a, &len) == -1)
      continue;
    if (a.ss_family == AF_UNIX)
      name = unix_name ((const struct sockaddr_un *) &a, len, buf, size);
    else
      name = inet_name (&a, buf, size);
  }
  return name ? name : "unnamed";
}
