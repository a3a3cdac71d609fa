/* SPDX-License-Identifier: MIT */
/* connect-bench: what a connection costs a program that is not an NBD
 * program, for host/overhead-bench: COUNT connections to itself (TCP on
 * 127.0.0.1, or a unix stream socket at an abstract address), each
 * connected, accepted, its name asked (as servers do) and closed.
 * Prints one JSON object: seconds of wall time, user and system CPU.
 * overhead-bench runs it in a network namespace of its own.
 *
 *   connect-bench tcp|unix COUNT
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "report.h"

/* One connection to the listener at ADDR: connect, accept, name, close.
 * The client resets it (linger 0): no TIME_WAIT piles up over a run.
 */
static void
one_connection (int listener, const struct sockaddr *addr, socklen_t len)
{
  struct linger reset = { 1, 0 };
  struct sockaddr_storage name;
  socklen_t name_len = sizeof name;
  int client, server;

  client = socket (addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (client == -1 || connect (client, addr, len) == -1)
    sb_die ("connect");
  server = accept4 (listener, NULL, NULL, SOCK_CLOEXEC);
  if (server == -1 || getsockname (server, (struct sockaddr *) &name, &name_len) == -1)
    sb_die ("accept");
  setsockopt (client, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  close (client);
  close (server);
}

static int
listen_on (struct sockaddr *addr, socklen_t *len)
{
  int fd = socket (addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd == -1 || bind (fd, addr, *len) == -1 || listen (fd, 16) == -1 ||
      getsockname (fd, addr, len) == -1)
    sb_die ("listen");
  return fd;
}

int
main (int argc, char **argv)
{
  struct sockaddr_storage addr;
  struct sockaddr_in *in = (struct sockaddr_in *) &addr;
  struct sockaddr_un *un = (struct sockaddr_un *) &addr;
  socklen_t len;
  struct rusage ru;
  long count;
  double t0, seconds;
  int listener;

  if (argc != 3 || (strcmp (argv[1], "tcp") != 0 && strcmp (argv[1], "unix") != 0) ||
      (count = atol (argv[2])) <= 0)
    sb_usage_error ("usage: connect-bench tcp|unix COUNT");
  memset (&addr, 0, sizeof addr);
  if (argv[1][0] == 't') {
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    len = sizeof *in;
  } else {
    un->sun_family = AF_UNIX;
    len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 +
          (size_t) snprintf (un->sun_path + 1, sizeof un->sun_path - 1,
                             "connect-bench.%d", (int) getpid ()));
  }
  listener = listen_on ((struct sockaddr *) &addr, &len);
  t0 = sb_monotonic_seconds ();
  for (long i = 0; i < count; i++)
    one_connection (listener, (struct sockaddr *) &addr, len);
  seconds = sb_monotonic_seconds () - t0;
  if (getrusage (RUSAGE_SELF, &ru) == -1)
    sb_die ("getrusage");
  printf ("{\"kind\": \"%s\", \"count\": %ld, \"seconds\": %.6f, "
          "\"user\": %.6f, \"sys\": %.6f}\n", argv[1], count, seconds,
          sb_timeval_seconds (ru.ru_utime), sb_timeval_seconds (ru.ru_stime));
  return 0;
}
