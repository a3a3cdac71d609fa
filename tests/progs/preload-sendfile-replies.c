/* SPDX-License-Identifier: MIT */
/* Test helper: a server that sends READ data with sendfile, splice or
 * sendmmsg, then answers FLUSHes.
 *
 *   preload-sendfile-replies sendfile|splice|sendmmsg FLUSHES
 *
 * On one tracked TCP connection (simple replies) the client READs 4 KiB;
 * the server writes the reply header with send() and the data by MODE
 * (servers use sendfile and splice to save a copy).  Then the client
 * sends FLUSHES FLUSH requests one at a time and times each reply.  A
 * library that missed the data would think it still to come and cork the
 * 16-byte FLUSH replies, each then held about 200 ms by the kernel.
 *
 * Prints "MODE flushes N median-us M max-us X"; exits 0 if every byte
 * arrived intact.
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
#include <time.h>

#include "nbd-pair.h"
#include "pattern.h"

#define DATA 4096
#define MAX_FLUSHES 1000

static struct nbd_pair pair;
static const char *mode;

static void
die (const char *what)
{
  fprintf (stderr, "preload-sendfile-replies: %s: %s\n", what,
           strerror (errno));
  exit (1);
}

/* The READ data by MODE, from a memory file or a pipe. */
static int
send_data (int fd)
{
  const uint8_t *data = sb_pattern_at (0, DATA);
  int p[2], mf;

  if (strcmp (mode, "sendmmsg") == 0) {
    struct iovec iov = { (void *) (uintptr_t) data, DATA };
    struct mmsghdr m = { .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1 } };
    return sendmmsg (fd, &m, 1, 0) == 1 && m.msg_len == DATA ? 0 : -1;
  }
  if (strcmp (mode, "splice") == 0) {
    if (pipe (p) == -1 || write (p[1], data, DATA) != DATA
        || splice (p[0], NULL, fd, NULL, DATA, 0) != DATA)
      return -1;
    return close (p[0]) | close (p[1]);
  }
  mf = memfd_create ("payload", 0);
  if (mf == -1 || write (mf, data, DATA) != DATA
      || sendfile (fd, mf, &(off_t) { 0 }, DATA) != DATA)
    return -1;
  return close (mf);
}

static void *
server (void *arg)
{
  struct nbd_request q;
  struct nbd_simple_reply r = { .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC) };

  (void) arg;
  while (sb_read_full (pair.server, &q, sizeof q) == 0
         && be16toh (q.type) != NBD_CMD_DISC) {
    r.cookie = q.cookie;
    if (send (pair.server, &r, sizeof r, 0) != sizeof r)
      die ("reply header");
    if (be16toh (q.type) == NBD_CMD_READ && send_data (pair.server) == -1)
      die (mode);
  }
  return NULL;
}

static double
now_us (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec * 1e6 + (double) t.tv_nsec / 1e3;
}

/* Send a request and read its reply (and DATA bytes of data). */
static void
round_trip (uint16_t type, uint64_t cookie, size_t data)
{
  struct nbd_request q = nbd_pair_request (type, cookie, 0,
                                           type == NBD_CMD_READ ? DATA : 0);
  struct nbd_simple_reply r;
  static char buf[DATA];

  if (send (pair.client, &q, sizeof q, 0) != sizeof q
      || sb_read_full (pair.client, &r, sizeof r) == -1
      || be32toh (r.magic) != NBD_SIMPLE_REPLY_MAGIC
      || be64toh (r.cookie) != cookie
      || sb_read_full (pair.client, buf, data) == -1
      || (data && sb_pattern_mismatch (buf, 0, DATA) != -1))
    die ("round trip");
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
  static double us[MAX_FLUSHES];
  int n = argc == 3 ? atoi (argv[2]) : 0;
  struct nbd_request disc = nbd_pair_request (NBD_CMD_DISC, 0, 0, 0);
  pthread_t t;

  mode = argc == 3 ? argv[1] : "";
  if (n < 1 || n > MAX_FLUSHES || (strcmp (mode, "sendfile") != 0
      && strcmp (mode, "splice") != 0 && strcmp (mode, "sendmmsg") != 0)) {
    fprintf (stderr, "usage: preload-sendfile-replies "
             "sendfile|splice|sendmmsg FLUSHES\n");
    return 2;
  }
  if (nbd_pair_open (&pair, false) == -1)
    die ("setting up the connection");
  pthread_create (&t, NULL, server, NULL);
  round_trip (NBD_CMD_READ, 1, DATA);
  for (int i = 0; i < n; i++) {
    double t0 = now_us ();
    round_trip (NBD_CMD_FLUSH, 2 + (uint64_t) i, 0);
    us[i] = now_us () - t0;
  }
  if (send (pair.client, &disc, sizeof disc, 0) != sizeof disc)
    die ("DISC");
  pthread_join (t, NULL);
  qsort (us, (size_t) n, sizeof us[0], by_value);
  printf ("%s flushes %d median-us %.0f max-us %.0f\n", mode, n, us[n / 2],
          us[n - 1]);
  return 0;
}
