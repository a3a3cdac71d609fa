/* SPDX-License-Identifier: MIT */
/* Connecting to the server named by a URI. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client.h"

static int
connect_unix (const char *path)
{
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd == -1) {
    sb_error ("socket: %m");
    return -1;
  }
  /* The URI parser has checked that the path fits. */
  strncpy (sun.sun_path, path, sizeof sun.sun_path - 1);
  if (connect (fd, (struct sockaddr *) &sun, sizeof sun) == -1) {
    char shown[ESCAPED_VALUE_SIZE];

    sb_error ("connect to unix socket %s: %m",
              sb_escape_str (shown, sizeof shown, path));
    close (fd);
    return -1;
  }
  return fd;
}

/* The host as decoded from the URI (%XX may have made anything of it),
 * escaped into SHOWN (ESCAPED_VALUE_SIZE bytes); the port is digits.
 */
static const char *
shown_host (const struct sb_nbd_uri *uri, char *shown)
{
  return sb_escape_str (shown, ESCAPED_VALUE_SIZE, uri->host);
}

/* Try each address in turn; the error printed is the last one's. */
static int
connect_addrinfo (const struct addrinfo *list, const struct sb_nbd_uri *uri)
{
  const struct addrinfo *ai;
  char shown[ESCAPED_VALUE_SIZE];
  int err = 0;

  for (ai = list; ai != NULL; ai = ai->ai_next) {
    int fd = socket (ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
                     ai->ai_protocol);
    if (fd == -1) {
      err = errno;
      continue;
    }
    if (connect (fd, ai->ai_addr, ai->ai_addrlen) == 0)
      return fd;
    err = errno;
    close (fd);
  }
  sb_error ("connect to %s port %s: %s", shown_host (uri, shown),
            uri->port, strerror (err));
  return -1;
}

static int
connect_tcp (const struct sb_nbd_uri *uri, bool nodelay)
{
  struct addrinfo hints = { .ai_family = AF_UNSPEC,
                            .ai_socktype = SOCK_STREAM,
                            .ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV };
  struct addrinfo *list;
  int r = getaddrinfo (uri->host, uri->port, &hints, &list);
  int fd, one = 1;

  if (r != 0) {
    char shown[ESCAPED_VALUE_SIZE];

    sb_error ("cannot resolve %s: %s", shown_host (uri, shown),
              r == EAI_SYSTEM ? strerror (errno) : gai_strerror (r));
    return -1;
  }
  fd = connect_addrinfo (list, uri);
  freeaddrinfo (list);
  /* Best effort: a request header must not wait for an ACK.  The
   * naive mode (--no-nodelay) leaves Nagle on so tests can show it.
   */
  if (fd != -1 && nodelay)
    setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

int
client_connect (const struct sb_nbd_uri *uri, bool nodelay)
{
  if (uri->transport == SB_NBD_UNIX)
    return connect_unix (uri->socket);
  return connect_tcp (uri, nodelay);
}
