/* SPDX-License-Identifier: MIT */
/* A shared library whose constructor connects a unix socket and accepts it
 * before main() — possibly before libsockboost's own constructor has run.
 * Built by tests/churn-ctor-connect.bats; prints what it saw on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int
sndbuf (int fd)
{
  int v = -1;
  socklen_t len = sizeof v;

  getsockopt (fd, SOL_SOCKET, SO_SNDBUF, &v, &len);
  return v;
}

__attribute__((constructor)) static void
connect_early (void)
{
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  const char *path = getenv ("CTOR_SOCKET");
  char msg[4096], got[sizeof msg];
  int l, c, s;

  memset (msg, 'c', sizeof msg);
  if (path == NULL || strlen (path) >= sizeof a.sun_path)
    return;
  strcpy (a.sun_path, path);
  l = socket (AF_UNIX, SOCK_STREAM, 0);
  c = socket (AF_UNIX, SOCK_STREAM, 0);
  if (l == -1 || c == -1
      || bind (l, (struct sockaddr *) &a, sizeof a) == -1 || listen (l, 1) == -1
      || connect (c, (struct sockaddr *) &a, sizeof a) == -1
      || (s = accept (l, NULL, NULL)) == -1
      || write (c, msg, sizeof msg) != (ssize_t) sizeof msg
      || recv (s, got, sizeof got, MSG_WAITALL) != (ssize_t) sizeof got) {
    perror ("ctor");
    return;
  }
  printf ("ctor: connect tb %d accept tb %d data %s\n", sndbuf (c),
          sndbuf (s), memcmp (msg, got, sizeof msg) == 0 ? "ok" : "BAD");
  fflush (stdout);
  close (s);
  close (c);
  close (l);
}
