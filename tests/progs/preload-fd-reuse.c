/* SPDX-License-Identifier: MIT */
/* Test helper: the number of a tracked TCP socket, a server's that sent
 * its NBD greeting and one option reply (its header corked), comes back
 * as a file in four ways: close, dup2 of a file onto it, close_range, and
 * a raw syscall(SYS_close) the library never sees.  Each file then gets
 * what the socket would go on with, an option reply header (which the
 * library would cork), and the case's name as its data, in two write()
 * calls; the file must hold exactly that.
 *
 *   preload-fd-reuse DIR
 *
 * Prints "CASE fd N content ok" per case; exit 0 if every file is exact.
 * Run under strace: only the raw-close case may show a send (ENOTSOCK).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "close-range.h"
#include "nbd-protocol.h"

static const char *dir;
static int listener, peers[8], npeers;
static struct sockaddr_in addr;

static void
die (const char *what)
{
  fprintf (stderr, "preload-fd-reuse: %s: %s\n", what, strerror (errno));
  exit (1);
}

static void
listen_loopback (void)
{
  socklen_t len = sizeof addr;

  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  listener = socket (AF_INET, SOCK_STREAM, 0);
  if (listener == -1
      || bind (listener, (struct sockaddr *) &addr, sizeof addr) == -1
      || listen (listener, 8) == -1
      || getsockname (listener, (struct sockaddr *) &addr, &len) == -1)
    die ("listen");
}

/* The header of an option reply carrying LEN bytes. */
static struct nbd_fixed_new_option_reply
reply_header (uint32_t len)
{
  return (struct nbd_fixed_new_option_reply) {
    .magic = htobe64 (NBD_REP_MAGIC), .option = htobe32 (NBD_OPT_LIST),
    .reply = htobe32 (NBD_REP_SERVER), .replylen = htobe32 (len) };
}

/* An accepted TCP socket that sent a greeting and an option reply, in
 * three writes: greeting, reply header, its 3 bytes of data.
 */
static int
primed_socket (void)
{
  struct nbd_new_handshake g = {
    .nbdmagic = htobe64 (NBD_MAGIC), .version = htobe64 (NBD_IHAVEOPT),
    .gflags = htobe16 (NBD_FLAG_FIXED_NEWSTYLE) };
  struct nbd_fixed_new_option_reply r = reply_header (3);
  int c = socket (AF_INET, SOCK_STREAM, 0), s;

  if (c == -1 || connect (c, (struct sockaddr *) &addr, sizeof addr) == -1)
    die ("connect");
  s = accept (listener, NULL, NULL);
  if (s == -1 || write (s, &g, sizeof g) != sizeof g
      || write (s, &r, sizeof r) != sizeof r || write (s, "abc", 3) != 3)
    die ("accept/greeting");
  peers[npeers++] = c;
  return s;
}

static int
open_file (const char *name)
{
  char path[4096];
  int fd;

  snprintf (path, sizeof path, "%s/%s", dir, name);
  fd = open (path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd == -1)
    die (path);
  return fd;
}

/* Write an option reply header and NAME to FD (a file now) and check
 * the file holds them.
 */
static void
write_and_check (const char *name, int fd, int expected_fd)
{
  struct nbd_fixed_new_option_reply h;
  size_t hn = sizeof h, n;
  char want[64], got[64];
  ssize_t r;

  if (fd != expected_fd) {
    fprintf (stderr, "preload-fd-reuse: %s: got fd %d, not %d\n", name, fd,
             expected_fd);
    exit (1);
  }
  n = hn + (size_t) snprintf (want + hn, sizeof want - hn, "%s\n", name);
  h = reply_header ((uint32_t) (n - hn));
  memcpy (want, &h, hn);
  if (write (fd, want, hn) != (ssize_t) hn
      || write (fd, want + hn, n - hn) != (ssize_t) (n - hn))
    die (name);
  r = pread (fd, got, sizeof got, 0);
  if (r != (ssize_t) n || memcmp (got, want, n) != 0) {
    fprintf (stderr, "preload-fd-reuse: %s: file holds %zd bytes, not the "
             "%zu written\n", name, r, n);
    exit (1);
  }
  printf ("%s fd %d content ok\n", name, fd);
}

static void
case_close (void)
{
  int s = primed_socket ();

  close (s);
  write_and_check ("close", open_file ("close"), s);
  close (s);
}

static void
case_dup2 (void)
{
  int s = primed_socket (), f = open_file ("dup2");

  if (dup2 (f, s) != s)
    die ("dup2");
  close (f);
  write_and_check ("dup2", s, s);
  close (s);
}

static void
case_close_range (void)
{
  int lo = primed_socket (), hi = primed_socket ();

  if (hi != lo + 2)             /* each peer sits between: c1 s1 c2 s2 */
    die ("unexpected fd layout");
  npeers -= 2;                  /* the peers between go with the range */
  if (close_range ((unsigned) lo - 1, (unsigned) hi, 0) == -1)
    die ("close_range");
  /* Lowest numbers first: the peers' numbers come back as files too. */
  int files[4] = { open_file ("close_range-peer1"), open_file ("close_range-1"),
                   open_file ("close_range-peer2"), open_file ("close_range-2") };
  write_and_check ("close_range-1", files[1], lo);
  write_and_check ("close_range-2", files[3], hi);
  for (int i = 0; i < 4; i++)
    close (files[i]);
}

/* Closed behind the library's back: it still thinks S is the socket,
 * tries send(MSG_MORE) for the header, gets ENOTSOCK and falls back.
 */
static void
case_raw_close (void)
{
  int s = primed_socket ();

  if (syscall (SYS_close, s) != 0)
    die ("raw close");
  write_and_check ("raw-close", open_file ("raw-close"), s);
  close (s);
}

int
main (int argc, char **argv)
{
  if (argc != 2) {
    fprintf (stderr, "usage: preload-fd-reuse DIR\n");
    return 2;
  }
  dir = argv[1];
  /* Whatever the caller left open (bats keeps fds 3 and up) would make
   * holes that break "the lowest free number comes back".
   */
  close_range (3, ~0u, 0);
  listen_loopback ();
  case_close ();
  case_dup2 ();
  case_close_range ();
  case_raw_close ();
  for (int i = 0; i < npeers; i++)
    close (peers[i]);
  return close (listener) == 0 ? 0 : 1;
}
