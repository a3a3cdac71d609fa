/* SPDX-License-Identifier: MIT */
/* A unix stream echo server and its client, for the sockboost attach
 * tests.  The tests link it with -static, so that LD_PRELOAD cannot reach
 * it and only attach can tune its sockets.
 *
 *   attach-echo serve PATH    accept on PATH, echo every connection back;
 *                             prints "listening", then "accepted N"
 *   attach-echo client PATH   copy stdin to PATH and what comes back to
 *                             stdout; shuts its side down at end of input
 *
 * Both exit by themselves after a while, so they can never linger.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define LIFETIME_SECONDS 300
#define MAX_CONNECTIONS 16

static char buf[65536];

static void
die (const char *what)
{
  fprintf (stderr, "attach-echo: %s: %s\n", what, strerror (errno));
  exit (1);
}

static int
write_all (int fd, const char *p, size_t n)
{
  while (n > 0) {
    ssize_t w = write (fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t) w;
  }
  return 0;
}

/* Copy what FROM has now to TO; 0 at end of stream, -1 on error. */
static int
copy_some (int from, int to)
{
  ssize_t n = read (from, buf, sizeof buf);

  if (n < 0 && errno == EINTR)
    return 1;
  if (n <= 0)
    return (int) n;
  return write_all (to, buf, (size_t) n) == 0 ? 1 : -1;
}

static struct sockaddr_un
address (const char *path)
{
  struct sockaddr_un a = { .sun_family = AF_UNIX };

  if (strlen (path) >= sizeof a.sun_path) {
    fprintf (stderr, "attach-echo: %s: path too long\n", path);
    exit (1);
  }
  strcpy (a.sun_path, path);
  return a;
}

static int
listen_on (const char *path)
{
  struct sockaddr_un a = address (path);
  int fd = socket (AF_UNIX, SOCK_STREAM, 0);

  if (fd == -1)
    die ("socket");
  if (bind (fd, (struct sockaddr *) &a, sizeof a) == -1)
    die ("bind");
  if (listen (fd, MAX_CONNECTIONS) == -1)
    die ("listen");
  return fd;
}

static void
serve (const char *path)
{
  struct pollfd p[MAX_CONNECTIONS + 1];
  int n = 1, accepted = 0;

  p[0] = (struct pollfd) { .fd = listen_on (path), .events = POLLIN };
  printf ("listening\n");
  fflush (stdout);
  for (;;) {
    if (poll (p, (nfds_t) n, -1) == -1 && errno != EINTR)
      die ("poll");
    for (int i = n - 1; i >= 1; i--)
      if (p[i].revents && copy_some (p[i].fd, p[i].fd) <= 0) {
        close (p[i].fd);
        p[i] = p[--n];
      }
    if ((p[0].revents & POLLIN) && n <= MAX_CONNECTIONS) {
      int fd = accept (p[0].fd, NULL, NULL);
      if (fd == -1)
        die ("accept");
      p[n++] = (struct pollfd) { .fd = fd, .events = POLLIN };
      printf ("accepted %d\n", ++accepted);
      fflush (stdout);
    }
  }
}

static void
client (const char *path)
{
  struct sockaddr_un a = address (path);
  struct pollfd p[2] = { { .fd = 0, .events = POLLIN },
                         { .events = POLLIN } };
  int r;

  p[1].fd = socket (AF_UNIX, SOCK_STREAM, 0);
  if (p[1].fd == -1)
    die ("socket");
  if (connect (p[1].fd, (struct sockaddr *) &a, sizeof a) == -1)
    die ("connect");
  for (;;) {
    if (poll (p, 2, -1) == -1 && errno != EINTR)
      die ("poll");
    if (p[1].revents) {
      if ((r = copy_some (p[1].fd, 1)) < 0)
        die ("echo");
      if (r == 0)
        return;
    }
    if (p[0].revents) {
      if ((r = copy_some (0, p[1].fd)) < 0)
        die ("send");
      if (r == 0) {
        shutdown (p[1].fd, SHUT_WR);
        p[0].fd = -1;
      }
    }
  }
}

int
main (int argc, char **argv)
{
  alarm (LIFETIME_SECONDS);
  if (argc == 3 && strcmp (argv[1], "serve") == 0)
    serve (argv[2]);
  else if (argc == 3 && strcmp (argv[1], "client") == 0)
    client (argv[2]);
  else {
    fprintf (stderr, "usage: attach-echo serve|client PATH\n");
    return 2;
  }
  return 0;
}
