/* SPDX-License-Identifier: MIT */
/* sb-probe: hold unix stream sockets open so that `sockboost doctor` can
 * read, from outside with ss, the send buffer the library gave them.
 *
 *   sb-probe [--tb] [SOCKET-PATH]
 *
 * Makes a socketpair and, given a path, a listening socket it connects to
 * and accepts from, so both the socketpair and the connect/accept hooks
 * are exercised.  With --tb, prints "tb N" for each socket, N its send
 * buffer as getsockopt reads it (ss's tb).  Prints "ready" once every
 * socket exists, then waits to be killed.  It exits by itself after a
 * while so it can never linger.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "escape.h"
#include "report.h"

/* Long enough for a slow, busy machine; short enough not to leak. */
#define PROBE_LIFETIME_SECONDS 60

/* The connected sockets, for --tb. */
static int sockets[4];
static int n_sockets;

static void
make_socketpair (void)
{
  int sv[2];

  if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) == -1)
    sb_die ("socketpair");
  sockets[n_sockets++] = sv[0];
  sockets[n_sockets++] = sv[1];
}

static void
fill_address (struct sockaddr_un *addr, const char *path)
{
  char shown[SB_ESCAPE_SIZE (128)];

  memset (addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  if (strlen (path) >= sizeof addr->sun_path) {
    sb_error ("%s: socket path too long",
              sb_escape_str (shown, sizeof shown, path));
    exit (1);
  }
  strcpy (addr->sun_path, path);
}

/* Connect to our own listener and accept, then drop the listener so that
 * only the two connected ends remain for ss to see.
 */
static void
make_connected_pair (const char *path)
{
  struct sockaddr_un addr;
  int listener, client, accepted;

  fill_address (&addr, path);
  listener = socket (AF_UNIX, SOCK_STREAM, 0);
  if (listener == -1)
    sb_die ("socket");
  if (bind (listener, (struct sockaddr *) &addr, sizeof addr) == -1)
    sb_die ("bind");
  if (listen (listener, 1) == -1)
    sb_die ("listen");
  client = socket (AF_UNIX, SOCK_STREAM, 0);
  if (client == -1)
    sb_die ("socket");
  if (connect (client, (struct sockaddr *) &addr, sizeof addr) == -1)
    sb_die ("connect");
  accepted = accept (listener, NULL, NULL);
  if (accepted == -1)
    sb_die ("accept");
  sockets[n_sockets++] = client;
  sockets[n_sockets++] = accepted;
  close (listener);
  unlink (path);
}

static void
print_send_buffers (void)
{
  for (int i = 0; i < n_sockets; i++) {
    int tb;
    socklen_t len = sizeof tb;

    if (getsockopt (sockets[i], SOL_SOCKET, SO_SNDBUF, &tb, &len) == -1)
      sb_die ("getsockopt");
    printf ("tb %d\n", tb);
  }
}

int
main (int argc, char *argv[])
{
  bool print_tb = argc > 1 && strcmp (argv[1], "--tb") == 0;

  if (print_tb)
    argc--, argv++;
  if (argc > 2) {
    fprintf (stderr, "usage: sb-probe [--tb] [SOCKET-PATH]\n");
    return 2;
  }
  make_socketpair ();
  if (argc == 2)
    make_connected_pair (argv[1]);
  if (print_tb)
    print_send_buffers ();
  printf ("ready\n");
  if (fflush (stdout) == EOF)
    sb_die ("stdout");
  alarm (PROBE_LIFETIME_SECONDS);
  for (;;)
    pause ();
}
