/* SPDX-License-Identifier: MIT */
/* Test helper: a naive NBD server and client with 1024 READs in flight.
 *
 *   preload-pipeline simple|structured ROUNDS
 *
 * On one tracked TCP connection (simple or structured replies) the client
 * sends, each round, 1024 READs of 4 KiB and then 64 WRITEs, each WRITE's
 * header and data in separate write() calls, before it reads a reply.
 * The server reads every request of the round first (so 1024 READs are
 * in flight at once), answers the WRITEs, then the READs in reverse
 * order, each reply's header (with a data chunk's offset) and its data in
 * separate write() calls, with TCP_NODELAY set as servers do.  It starts
 * each reply once the one before has left (nothing unsent in its socket),
 * so that the kernel does not merge replies queued behind a full window:
 * then a reply is one segment if its header was corked, two if not.
 * Every data byte is checked.
 *
 * Prints "replies R server-segments S writes W"; exits 0 if all is well.
 * S is the server socket's data segments (TCP_INFO), so S/R is what the
 * library's corking saves; W is the WRITEs sent.
 */
#include <endian.h>
#include <errno.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "nbd-pair.h"
#include "pattern.h"

#define READS 1024
#define WRITES 64
#define DATA 4096

static struct nbd_pair pair;
static int structured, rounds;

static void
die (const char *what)
{
  fprintf (stderr, "preload-pipeline: %s: %s\n", what, strerror (errno));
  exit (1);
}

/* One write() per piece, as a naive program does. */
static void
put (int fd, const void *p, size_t n, const char *what)
{
  if (sb_write_full (fd, p, n, 0) == -1)
    die (what);
}

/* Wait (at most about 10 s) until nothing is left unsent on FD. */
static void
wait_sent (int fd)
{
  struct timespec pause = { 0, 20000 };
  int unsent;

  for (int i = 0; i < 500000; i++) {
    if (ioctl (fd, SIOCOUTQNSD, &unsent) == -1)
      die ("SIOCOUTQNSD");
    if (unsent == 0)
      return;
    nanosleep (&pause, NULL);
  }
  errno = ETIMEDOUT;
  die ("waiting for the socket to drain");
}

static void
reply_read (uint64_t cookie)
{
  struct nbd_simple_reply s = { .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC),
                                .cookie = htobe64 (cookie) };
  struct {
    struct nbd_structured_reply h;
    uint64_t offset;
  } NBD_PACKED c = {
    { .magic = htobe32 (NBD_STRUCTURED_REPLY_MAGIC),
      .flags = htobe16 (NBD_REPLY_FLAG_DONE),
      .type = htobe16 (NBD_REPLY_TYPE_OFFSET_DATA), .cookie = htobe64 (cookie),
      .length = htobe32 (8 + DATA) }, 0 };

  wait_sent (pair.server);
  if (structured)
    put (pair.server, &c, sizeof c, "chunk header");
  else
    put (pair.server, &s, sizeof s, "reply header");
  put (pair.server, sb_pattern_at (0, DATA), DATA, "reply data");
}

/* Read one round's requests, then answer them. */
static int
serve_round (void)
{
  static uint64_t reads[READS];
  struct nbd_simple_reply ok = { .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC) };
  static char buf[DATA];
  struct nbd_request q;
  int nr = 0, nw = 0;

  while (nr < READS || nw < WRITES) {
    if (sb_read_full (pair.server, &q, sizeof q) == -1)
      die ("reading a request");
    if (be16toh (q.type) == NBD_CMD_DISC)
      return -1;
    if (be16toh (q.type) == NBD_CMD_READ)
      reads[nr++] = be64toh (q.cookie);
    else if (sb_read_full (pair.server, buf, DATA) == -1
             || sb_pattern_mismatch (buf, 0, DATA) != -1)
      die ("WRITE data");
    else {
      ok.cookie = q.cookie;
      put (pair.server, &ok, sizeof ok, "WRITE reply");
      nw++;
    }
  }
  while (nr > 0)
    reply_read (reads[--nr]);
  return 0;
}

static void *
server (void *arg)
{
  int one = 1;

  (void) arg;
  setsockopt (pair.server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  while (serve_round () == 0)
    ;
  return NULL;
}

static void
send_round (int round)
{
  uint64_t base = (uint64_t) round * (READS + WRITES);

  for (int i = 0; i < READS; i++) {
    struct nbd_request q = nbd_pair_request (NBD_CMD_READ, base + i,
                                             0, DATA);
    put (pair.client, &q, sizeof q, "READ");
  }
  for (int i = 0; i < WRITES; i++) {
    struct nbd_request q = nbd_pair_request (NBD_CMD_WRITE,
                                             base + READS + i, 0, DATA);
    put (pair.client, &q, sizeof q, "WRITE header");
    put (pair.client, sb_pattern_at (0, DATA), DATA, "WRITE data");
  }
}

/* One reply: its header, by its magic, and a READ's data, checked. */
static void
read_reply (void)
{
  static char buf[8 + DATA];
  struct nbd_structured_reply h;
  uint32_t magic;

  if (sb_read_full (pair.client, &h, 4) == -1)
    die ("reading a reply");
  magic = be32toh (h.magic);
  if (magic == NBD_SIMPLE_REPLY_MAGIC) {
    if (sb_read_full (pair.client, (char *) &h + 4, 12) == -1)
      die ("reading a reply");
    if (be64toh (h.cookie) % (READS + WRITES) >= READS)
      return;                   /* a WRITE's */
    if (sb_read_full (pair.client, buf + 8, DATA) == -1)
      die ("reading data");
  }
  else if (magic != NBD_STRUCTURED_REPLY_MAGIC
           || sb_read_full (pair.client, (char *) &h + 4, sizeof h - 4) == -1
           || sb_read_full (pair.client, buf, 8 + DATA) == -1)
    die ("reading a chunk");
  if (sb_pattern_mismatch (buf + 8, 0, DATA) != -1) {
    errno = EILSEQ;
    die ("READ data");
  }
}

static unsigned
data_segs_out (int fd)
{
  struct tcp_info ti;
  socklen_t len = sizeof ti;

  if (getsockopt (fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == -1)
    die ("TCP_INFO");
  return ti.tcpi_data_segs_out;
}

int
main (int argc, char **argv)
{
  struct nbd_request disc = nbd_pair_request (NBD_CMD_DISC, 0, 0, 0);
  pthread_t t;
  unsigned before;

  rounds = argc == 3 ? atoi (argv[2]) : 0;
  structured = argc == 3 && strcmp (argv[1], "structured") == 0;
  if (rounds < 1 || (!structured && strcmp (argv[1], "simple") != 0)) {
    fprintf (stderr, "usage: preload-pipeline simple|structured ROUNDS\n");
    return 2;
  }
  if (nbd_pair_open (&pair, structured) == -1)
    die ("setting up the connection");
  before = data_segs_out (pair.server);
  pthread_create (&t, NULL, server, NULL);
  for (int r = 0; r < rounds; r++) {
    send_round (r);
    for (int i = 0; i < READS + WRITES; i++)
      read_reply ();
  }
  put (pair.client, &disc, sizeof disc, "DISC");
  pthread_join (t, NULL);
  printf ("replies %d server-segments %u writes %d\n",
          rounds * (READS + WRITES), data_segs_out (pair.server) - before,
          rounds * WRITES);
  return 0;
}
