/* SPDX-License-Identifier: MIT */
/* Test helper: the program closes the library's log descriptor without
 * knowing it, then puts a file of its own on that number.
 *
 *   preload-closefrom closefrom|syscall FILE
 *
 * Run with SOCKBOOST_LOG_FILE and SOCKBOOST_DEBUG=2, so that each tuned
 * socket logs a line.  A socketpair makes the library open its log (on a
 * descriptor at 900 or above).  Then every descriptor from 3 up is closed,
 * by closefrom(3) (glibc closes through the close_range system call,
 * inside libc) or by a raw close_range system call; FILE is opened on the
 * lowest free number at or above 900, the log's old one, and the program
 * writes a line to it before and after a second socketpair, which logs
 * again.  FILE must hold the program's two lines and nothing else.
 *
 * Prints "FILE fd N" and FILE's contents; exits 0 if the writes worked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "close-range.h"

static void
die (const char *what)
{
  fprintf (stderr, "preload-closefrom: %s: %s\n", what, strerror (errno));
  exit (1);
}

static void
pair (void)
{
  int sv[2];

  if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) == -1)
    die ("socketpair");
}

static void
put (int fd, const char *s)
{
  if (write (fd, s, strlen (s)) != (ssize_t) strlen (s))
    die ("write");
}

int
main (int argc, char **argv)
{
  char buf[4096];
  ssize_t n;
  int fd, f;

  if (argc != 3 || (strcmp (argv[1], "closefrom") != 0
                    && strcmp (argv[1], "syscall") != 0)) {
    fprintf (stderr, "usage: preload-closefrom closefrom|syscall FILE\n");
    return 2;
  }
  pair ();
  if (strcmp (argv[1], "closefrom") == 0)
    closefrom (3);
  else if (syscall (SYS_close_range, 3, ~0u, 0) == -1)
    die ("close_range");
  f = open (argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (f == -1 || (fd = fcntl (f, F_DUPFD, 900)) == -1 || close (f) == -1)
    die (argv[2]);
  put (fd, "the program's first line\n");
  pair ();
  put (fd, "the program's second line\n");
  n = pread (fd, buf, sizeof buf - 1, 0);
  if (n == -1)
    die ("pread");
  buf[n] = '\0';
  printf ("FILE fd %d\n%s", fd, buf);
  return 0;
}
