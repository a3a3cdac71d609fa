/* SPDX-License-Identifier: MIT */
/* Test helper: a server whose call after a READ reply's header sends
 * nothing, then waits for the client before it sends the data.
 *
 *   preload-nothing-sent WAY ROUNDS
 *
 * On one tracked TCP connection (simple replies) the client READs 512
 * bytes ROUNDS times.  The server writes each reply's header with
 * send(), which the library corks (the data is to follow), then makes
 * the call WAY, which sends nothing: a send of 0 bytes, or from NULL; a
 * writev or sendmmsg of nothing; sendfile past the end of its file, of
 * 0 bytes, from a socket or at offset -1; splice of 0 bytes, from an
 * empty pipe or from one whose writer is gone (servers move data with
 * sendfile and splice, and a file can be shorter than asked).  It then
 * waits until the client has the header before it writes the data.
 * Plainly the header left at once; held, it waits for the kernel's 200
 * ms cork timer.  The client times each request until it has the
 * header.  WAY "framing-off": before the first header the client sends
 * 28 bytes that are no request after its READ; the server reads them
 * after the header (the library stops following the stream, whose sends
 * then no longer reach it) and sends 0 bytes.
 *
 * Prints "WAY rounds N median-us M max-us X"; exits 0 if every byte
 * arrived intact and every WAY call sent nothing.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>

#include "clock.h"
#include "nbd-pair.h"
#include "pattern.h"

#define DATA 512
#define MAX_ROUNDS 100

static struct nbd_pair pair;
/* The client tells the server it has the header: one byte each time. */
static int got_header[2];

static void
die (const char *what)
{
  fprintf (stderr, "preload-nothing-sent: %s: %s\n", what, strerror (errno));
  exit (1);
}

static const char *const ways[] = {
  "send-zero", "send-null", "writev-none", "sendmmsg-none", "sendfile-eof",
  "sendfile-zero", "sendfile-socket", "sendfile-offset", "splice-zero",
  "splice-empty", "splice-eof", "framing-off",
};

#define WAYS (sizeof ways / sizeof ways[0])

static unsigned way;

/* A file holding one byte, or a pipe: one byte in it for a splice of
 * 0 bytes, nothing for "splice-empty", its writer gone for
 * "splice-eof".
 */
static void
make_source (int src[2])
{
  static const char byte;

  src[0] = src[1] = -1;
  if (strncmp (ways[way], "sendfile", 8) == 0) {
    if ((src[0] = memfd_create ("source", 0)) == -1
        || write (src[0], &byte, 1) != 1)
      die ("memfd");
    return;
  }
  if (strncmp (ways[way], "splice", 6) != 0)
    return;
  if (pipe (src) == -1)
    die ("pipe");
  if (strcmp (ways[way], "splice-zero") == 0 && write (src[1], &byte, 1) != 1)
    die ("pipe write");
  if (strcmp (ways[way], "splice-eof") == 0) {
    close (src[1]);
    src[1] = -1;
  }
}

/* The call WAY on FD, from SRC. */
static long
send_nothing (int fd, const int src[2])
{
  static char byte;
  struct iovec iov = { &byte, 0 };
  struct mmsghdr m = { .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1 } };

  switch (way) {
  case 0: return send (fd, &byte, 0, 0);
  case 1: return send (fd, NULL, DATA, 0);
  case 2: return writev (fd, &iov, 0);
  case 3: return sendmmsg (fd, &m, 0, 0);
  case 4: return sendfile (fd, src[0], &(off_t) { 100 }, DATA);
  case 5: return sendfile (fd, src[0], &(off_t) { 0 }, 0);
  case 6: return sendfile (fd, fd, NULL, DATA);
  case 7: return sendfile (fd, src[0], &(off_t) { -1 }, DATA);
  case 8: return splice (src[0], NULL, fd, NULL, 0, 0);
  case 9: return splice (src[0], NULL, fd, NULL, DATA, SPLICE_F_NONBLOCK);
  case 10: return splice (src[0], NULL, fd, NULL, DATA, 0);
  default: return send (fd, &byte, 0, 0);
  }
}

/* "framing-off": bytes that are no NBD request, after the first READ. */
static bool
junk_after (uint64_t cookie)
{
  return strcmp (ways[way], "framing-off") == 0 && cookie == 1;
}

static void *
server (void *arg)
{
  struct nbd_request q;
  struct nbd_simple_reply r = { .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC) };
  int src[2];
  char token;

  (void) arg;
  make_source (src);
  while (sb_read_full (pair.server, &q, sizeof q) == 0
         && be16toh (q.type) != NBD_CMD_DISC) {
    r.cookie = q.cookie;
    if (send (pair.server, &r, sizeof r, 0) != sizeof r)
      die ("reply header");
    if (junk_after (be64toh (q.cookie))
        && sb_read_full (pair.server, &q, sizeof q) == -1)
      die ("junk");
    if (send_nothing (pair.server, src) > 0)
      die (ways[way]);
    if (sb_read_full (got_header[0], &token, 1) == -1
        || sb_write_full (pair.server, sb_pattern_at (0, DATA), DATA, 0) == -1)
      die ("reply data");
  }
  return NULL;
}

/* One READ: microseconds until the client had the reply's header. */
static double
one_read (uint64_t cookie)
{
  struct nbd_request q = nbd_pair_request (NBD_CMD_READ, cookie, 0, DATA);
  static const char junk[sizeof q] = "no request";
  struct nbd_simple_reply r;
  static char data[DATA];
  uint64_t t0 = sb_monotonic_ns ();
  double us;

  if (send (pair.client, &q, sizeof q, 0) != sizeof q
      || (junk_after (cookie)
          && send (pair.client, junk, sizeof junk, 0) != sizeof junk)
      || sb_read_full (pair.client, &r, sizeof r) == -1
      || be32toh (r.magic) != NBD_SIMPLE_REPLY_MAGIC
      || be64toh (r.cookie) != cookie)
    die ("reply header");
  us = (double) (sb_monotonic_ns () - t0) / 1e3;
  if (write (got_header[1], "", 1) != 1
      || sb_read_full (pair.client, data, DATA) == -1
      || sb_pattern_mismatch (data, 0, DATA) != -1)
    die ("reply data");
  return us;
}

static int
by_value (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

int
main (int argc, char **argv)
{
  static double us[MAX_ROUNDS];
  int n = argc == 3 ? atoi (argv[2]) : 0;
  struct nbd_request disc = nbd_pair_request (NBD_CMD_DISC, 0, 0, 0);
  pthread_t t;

  for (way = 0; argc == 3 && way < WAYS; way++)
    if (strcmp (argv[1], ways[way]) == 0)
      break;
  if (n < 1 || n > MAX_ROUNDS || way == WAYS || argc != 3) {
    fprintf (stderr, "usage: preload-nothing-sent WAY ROUNDS (1 to %d)\n"
             "WAY: send-zero send-null writev-none sendmmsg-none "
             "sendfile-eof sendfile-zero\n     sendfile-socket "
             "sendfile-offset splice-zero splice-empty splice-eof\n"
             "     framing-off\n",
             MAX_ROUNDS);
    return 2;
  }
  if (pipe (got_header) == -1 || nbd_pair_open (&pair, false) == -1)
    die ("setting up the connection");
  pthread_create (&t, NULL, server, NULL);
  for (int i = 0; i < n; i++)
    us[i] = one_read (1 + (uint64_t) i);
  if (send (pair.client, &disc, sizeof disc, 0) != sizeof disc)
    die ("DISC");
  pthread_join (t, NULL);
  qsort (us, (size_t) n, sizeof us[0], by_value);
  printf ("%s rounds %d median-us %.0f max-us %.0f\n", ways[way], n,
          us[n / 2], us[n - 1]);
  return 0;
}
