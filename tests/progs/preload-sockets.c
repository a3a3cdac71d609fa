/* SPDX-License-Identifier: MIT */
/* Test helper: make one kind of socket, report what the kernel says about
 * it (SO_SNDBUF, TCP_NODELAY), then hold it open until killed so that ss
 * can look at the live process.
 *
 *   preload-sockets pair stream|dgram|seqpacket
 *   preload-sockets unix-server PATH accept|accept4
 *   preload-sockets unix-client PATH [presize BYTES]
 *   preload-sockets tcp-server 4|6 accept|accept4     (prints "port N")
 *   preload-sockets tcp-client 4|6 PORT block|nonblock
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void
die (const char *what)
{
  fprintf (stderr, "preload-sockets: %s: %s\n", what, strerror (errno));
  exit (1);
}

static int
get_opt (int fd, int level, int name)
{
  int v = -1;
  socklen_t len = sizeof v;
  getsockopt (fd, level, name, &v, &len);
  return v;
}

static void
report (const char *what, int fd)
{
  printf ("%s fd %d sndbuf %d", what, fd, get_opt (fd, SOL_SOCKET, SO_SNDBUF));
  if (get_opt (fd, SOL_SOCKET, SO_DOMAIN) != AF_UNIX)
    printf (" nodelay %d", get_opt (fd, IPPROTO_TCP, TCP_NODELAY));
  printf ("\n");
  fflush (stdout);
}

static void
hold (void)
{
  printf ("holding\n");
  fflush (stdout);
  for (;;)
    pause ();
}

static int
pair (const char *kind)
{
  int type = strcmp (kind, "dgram") == 0 ? SOCK_DGRAM
    : strcmp (kind, "seqpacket") == 0 ? SOCK_SEQPACKET : SOCK_STREAM;
  int sv[2];
  if (socketpair (AF_UNIX, type | SOCK_CLOEXEC, 0, sv) == -1)
    die ("socketpair");
  report ("pair", sv[0]);
  report ("pair", sv[1]);
  hold ();
  return 0;
}

static struct sockaddr_un
unix_addr (const char *path)
{
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  if (strlen (path) >= sizeof a.sun_path) {
    errno = ENAMETOOLONG;
    die (path);
  }
  strcpy (a.sun_path, path);
  return a;
}

static int
accept_one (int lfd, const char *how)
{
  int fd = strcmp (how, "accept4") == 0
    ? accept4 (lfd, NULL, NULL, SOCK_CLOEXEC) : accept (lfd, NULL, NULL);
  if (fd == -1)
    die (how);
  return fd;
}

static int
unix_server (const char *path, const char *how)
{
  struct sockaddr_un a = unix_addr (path);
  int lfd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (lfd == -1 || bind (lfd, (struct sockaddr *) &a, sizeof a) == -1
      || listen (lfd, 8) == -1)
    die ("listen");
  printf ("listening\n");
  fflush (stdout);
  report (how, accept_one (lfd, how));
  hold ();
  return 0;
}

static int
unix_client (const char *path, const char *presize)
{
  struct sockaddr_un a = unix_addr (path);
  int fd = socket (AF_UNIX, SOCK_STREAM, 0);
  if (fd == -1)
    die ("socket");
  if (presize) {
    int v = atoi (presize);
    if (setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v) == -1)
      die ("setsockopt");
  }
  if (connect (fd, (struct sockaddr *) &a, sizeof a) == -1)
    die ("connect");
  report ("connect", fd);
  hold ();
  return 0;
}

/* Loopback address of FAMILY ("4" or "6") with PORT. */
static socklen_t
tcp_addr (const char *family, int port, struct sockaddr_storage *ss)
{
  memset (ss, 0, sizeof *ss);
  if (strcmp (family, "6") == 0) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *) ss;
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_loopback;
    a->sin6_port = htons ((uint16_t) port);
    return sizeof *a;
  }
  struct sockaddr_in *a = (struct sockaddr_in *) ss;
  a->sin_family = AF_INET;
  a->sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  a->sin_port = htons ((uint16_t) port);
  return sizeof *a;
}

static int
tcp_server (const char *family, const char *how)
{
  struct sockaddr_storage ss;
  socklen_t len = tcp_addr (family, 0, &ss);
  int lfd = socket (ss.ss_family, SOCK_STREAM, 0);
  if (lfd == -1 || bind (lfd, (struct sockaddr *) &ss, len) == -1
      || listen (lfd, 8) == -1 || getsockname (lfd, (struct sockaddr *) &ss,
                                                &len) == -1)
    die ("listen");
  printf ("port %d\n", ntohs (((struct sockaddr_in *) &ss)->sin_port));
  fflush (stdout);
  report (how, accept_one (lfd, how));
  hold ();
  return 0;
}

static int
tcp_client (const char *family, const char *port, const char *mode)
{
  struct sockaddr_storage ss;
  socklen_t len = tcp_addr (family, atoi (port), &ss);
  int nb = strcmp (mode, "nonblock") == 0 ? SOCK_NONBLOCK : 0;
  int fd = socket (ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | nb, 0);
  if (fd == -1)
    die ("socket");
  if (connect (fd, (struct sockaddr *) &ss, len) == -1) {
    struct pollfd p = { .fd = fd, .events = POLLOUT };
    if (errno != EINPROGRESS)
      die ("connect");
    printf ("connect returned EINPROGRESS\n");
    if (poll (&p, 1, 10000) != 1 || get_opt (fd, SOL_SOCKET, SO_ERROR) != 0)
      die ("poll");
  }
  report ("connect", fd);
  hold ();
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc >= 3 && strcmp (argv[1], "pair") == 0)
    return pair (argv[2]);
  if (argc >= 4 && strcmp (argv[1], "unix-server") == 0)
    return unix_server (argv[2], argv[3]);
  if (argc >= 3 && strcmp (argv[1], "unix-client") == 0)
    return unix_client (argv[2], argc >= 5 ? argv[4] : NULL);
  if (argc >= 4 && strcmp (argv[1], "tcp-server") == 0)
    return tcp_server (argv[2], argv[3]);
  if (argc >= 5 && strcmp (argv[1], "tcp-client") == 0)
    return tcp_client (argv[2], argv[3], argv[4]);
  fprintf (stderr, "usage: preload-sockets pair|unix-server|unix-client|"
           "tcp-server|tcp-client ARGS\n");
  return 2;
}
