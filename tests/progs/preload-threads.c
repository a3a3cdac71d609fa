/* SPDX-License-Identifier: MIT */
/* Test helper: many threads writing different sockets at once.
 *
 *   preload-threads STREAMS MIB [hold]
 *
 * STREAMS (even, 2..32) one-way byte streams run at the same time, each
 * with a writer thread on one end of its own socket and a checking reader
 * thread on the other.  The first half are TCP loopback connections that
 * carry NBD: a fixed-newstyle handshake, then WRITE requests whose header
 * and payload leave in separate calls (the payload itself in two pieces,
 * through write, send and writev in turn), then NBD_CMD_DISC, so the
 * library's corking is busy on every one of them.  The other half are
 * AF_UNIX stream sockets, alternately from socketpair() and from
 * connect()/accept(), written in chunks of varying sizes up to EOF.
 * Every stream carries MIB MiB of payload bytes of its own sequence,
 * which the reader checks byte for byte (and every NBD header field).
 *
 * Prints "streams S tcp T unix U bytes-checked B messages M" and exits 0
 * only if every byte checked.  With "hold", it then prints "holding",
 * keeps every socket open and sleeps (at most 30 s) so that a test can
 * look at them with ss before killing it.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "nbd-protocol.h"

#define MAX_STREAMS 32
#define CHUNK_MAX (192 * 1024)  /* largest single write or read */
#define MSG_MAX (64 * 1024)     /* largest NBD WRITE payload */
#define RUN_SECONDS 60          /* the whole run, as a backstop */

enum kind { TCP_NBD, UNIX_PAIR, UNIX_CONNECT };

struct stream {
  int id;
  enum kind kind;
  int tx, rx;                   /* writer's and reader's socket */
  uint64_t total;               /* payload bytes to carry */
  pthread_t writer, reader;
};

static struct stream streams[MAX_STREAMS];
static pthread_barrier_t start;
static atomic_ullong checked, messages;
static atomic_int failures;

static void
failed (struct stream *s, const char *what)
{
  fprintf (stderr, "preload-threads: stream %d: %s: %s\n", s->id, what,
           errno ? strerror (errno) : "data mismatch");
  atomic_fetch_add (&failures, 1);
  /* Unblock the other end. */
  shutdown (s->tx, SHUT_RDWR);
  shutdown (s->rx, SHUT_RDWR);
}

/* Byte K of stream ID's sequence: differs from stream to stream. */
static uint8_t
seq_byte (int id, uint64_t k)
{
  uint64_t x = (k + 1) * (UINT64_C (0x9E3779B97F4A7C15) ^ (uint64_t) id);
  return (uint8_t) (x >> 56);
}

static void
fill (int id, uint64_t off, uint8_t *buf, size_t len)
{
  for (size_t i = 0; i < len; i++)
    buf[i] = seq_byte (id, off + i);
}

static int
matches (int id, uint64_t off, const uint8_t *buf, size_t len)
{
  for (size_t i = 0; i < len; i++)
    if (buf[i] != seq_byte (id, off + i)) {
      fprintf (stderr, "preload-threads: stream %d: byte %llu is 0x%02x, "
               "want 0x%02x\n", id, (unsigned long long) (off + i), buf[i],
               seq_byte (id, off + i));
      return 0;
    }
  return 1;
}

/* A size in 1..MAX that changes with N (no particular distribution). */
static size_t
vary (uint64_t n, size_t max)
{
  return 1 + (size_t) ((n * UINT64_C (2654435761)) % max);
}

/* Write all LEN bytes with write(), send() or writev() (by HOW, and
 * again for what a partial write left).  0, or -1 with errno.
 */
static int
put (int fd, void *buf, size_t len, unsigned how)
{
  char *p = buf;

  while (len > 0) {
    ssize_t n;
    switch (how++ % 3) {
    case 0: n = write (fd, p, len); break;
    case 1: n = send (fd, p, len, MSG_NOSIGNAL); break;
    default: {
      /* Two iovecs, so writev's own splitting is used too. */
      struct iovec iov[2] = { { p, len / 2 },
                              { p + len / 2, len - len / 2 } };
      n = writev (fd, iov, 2);
    }
    }
    if (n == -1 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    p += n;
    len -= (size_t) n;
  }
  return 0;
}

/* Read exactly LEN bytes, with read() or recv() by HOW.  0; -1 with errno
 * (ENODATA: EOF).
 */
static int
get (int fd, void *buf, size_t len, unsigned how)
{
  char *p = buf;

  while (len > 0) {
    ssize_t n = how++ % 2 ? recv (fd, p, len, 0) : read (fd, p, len);
    if (n == -1 && errno == EINTR)
      continue;
    if (n == 0)
      errno = ENODATA;
    if (n <= 0)
      return -1;
    p += n;
    len -= (size_t) n;
  }
  return 0;
}

/* ---- TCP: NBD ---- */

static int
nbd_client_handshake (int fd)
{
  struct nbd_new_handshake g;
  uint32_t cflags = htobe32 (NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES);
  struct nbd_option o = { .version = htobe64 (NBD_IHAVEOPT),
                          .option = htobe32 (NBD_OPT_EXPORT_NAME) };
  struct nbd_new_handshake_finish f;

  if (get (fd, &g, sizeof g, 0) == -1)
    return -1;
  if (be64toh (g.nbdmagic) != NBD_MAGIC || be64toh (g.version) != NBD_IHAVEOPT) {
    errno = EPROTO;
    return -1;
  }
  return put (fd, &cflags, sizeof cflags, 0) || put (fd, &o, sizeof o, 1)
    || get (fd, &f, sizeof f, 1) ? -1 : 0;
}

static int
nbd_server_handshake (int fd)
{
  struct nbd_new_handshake g = {
    .nbdmagic = htobe64 (NBD_MAGIC), .version = htobe64 (NBD_IHAVEOPT),
    .gflags = htobe16 (NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES) };
  struct nbd_new_handshake_finish f = {
    .exportsize = htobe64 (UINT64_C (1) << 40),
    .eflags = htobe16 (NBD_FLAG_HAS_FLAGS) };
  uint32_t cflags;
  struct nbd_option o;

  if (put (fd, &g, sizeof g, 0) || get (fd, &cflags, sizeof cflags, 0)
      || get (fd, &o, sizeof o, 1))
    return -1;
  if (be64toh (o.version) != NBD_IHAVEOPT
      || be32toh (o.option) != NBD_OPT_EXPORT_NAME || o.optlen != 0) {
    errno = EPROTO;
    return -1;
  }
  return put (fd, &f, sizeof f, 1);
}

static void
nbd_header (struct nbd_request *r, uint16_t type, uint64_t seq,
            uint64_t off, uint32_t len)
{
  *r = (struct nbd_request) {
    .magic = htobe32 (NBD_REQUEST_MAGIC), .type = htobe16 (type),
    .cookie = htobe64 (seq), .offset = htobe64 (off), .count = htobe32 (len) };
}

/* WRITE requests: header alone, then the payload in two pieces. */
static void *
tcp_writer (void *arg)
{
  struct stream *s = arg;
  uint8_t *buf = malloc (MSG_MAX);
  struct nbd_request r;
  uint64_t off = 0, seq = 1;

  pthread_barrier_wait (&start);
  if (buf == NULL || nbd_client_handshake (s->tx) == -1) {
    failed (s, "client handshake");
    free (buf);
    return NULL;
  }
  for (; off < s->total; seq++) {
    size_t len = vary (seq, MSG_MAX), first;
    if (len > s->total - off)
      len = (size_t) (s->total - off);
    first = vary (seq * 7, len);
    fill (s->id, off, buf, len);
    nbd_header (&r, NBD_CMD_WRITE, seq, off, (uint32_t) len);
    if (put (s->tx, &r, sizeof r, (unsigned) seq)
        || put (s->tx, buf, first, (unsigned) seq + 1)
        || put (s->tx, buf + first, len - first, (unsigned) seq + 2)) {
      failed (s, "sending a WRITE");
      free (buf);
      return NULL;
    }
    off += len;
  }
  nbd_header (&r, NBD_CMD_DISC, seq, 0, 0);
  if (put (s->tx, &r, sizeof r, 0) == -1)
    failed (s, "sending DISC");
  free (buf);
  return NULL;
}

/* Checks every header field and payload byte, up to DISC. */
static void *
tcp_reader (void *arg)
{
  struct stream *s = arg;
  uint8_t *buf = malloc (MSG_MAX);
  struct nbd_request r;
  uint64_t off = 0, seq = 1;

  pthread_barrier_wait (&start);
  if (buf == NULL || nbd_server_handshake (s->rx) == -1) {
    failed (s, "server handshake");
    free (buf);
    return NULL;
  }
  for (;; seq++) {
    uint32_t len;
    errno = 0;
    if (get (s->rx, &r, sizeof r, (unsigned) seq) == -1) {
      failed (s, "reading a request header");
      break;
    }
    len = be32toh (r.count);
    if (be32toh (r.magic) != NBD_REQUEST_MAGIC || r.flags != 0
        || be64toh (r.cookie) != seq) {
      failed (s, "request header");
      break;
    }
    if (be16toh (r.type) == NBD_CMD_DISC) {
      if (len != 0 || off != s->total)
        failed (s, "early or odd DISC");
      break;
    }
    if (be16toh (r.type) != NBD_CMD_WRITE || be64toh (r.offset) != off
        || len == 0 || len > MSG_MAX) {
      failed (s, "WRITE header");
      break;
    }
    if (get (s->rx, buf, len, (unsigned) seq) == -1
        || !matches (s->id, off, buf, len)) {
      failed (s, "WRITE payload");
      break;
    }
    off += len;
    atomic_fetch_add (&checked, len);
    atomic_fetch_add (&messages, 1);
  }
  free (buf);
  return NULL;
}

/* ---- AF_UNIX: plain bytes up to EOF ---- */

static void *
unix_writer (void *arg)
{
  struct stream *s = arg;
  uint8_t *buf = malloc (CHUNK_MAX);
  uint64_t off = 0, n = 1;

  pthread_barrier_wait (&start);
  if (buf == NULL) {
    failed (s, "malloc");
    return NULL;
  }
  for (; off < s->total; n++) {
    size_t len = vary (n, CHUNK_MAX);
    if (len > s->total - off)
      len = (size_t) (s->total - off);
    fill (s->id, off, buf, len);
    if (put (s->tx, buf, len, (unsigned) n) == -1) {
      failed (s, "sending");
      break;
    }
    off += len;
  }
  /* EOF for the reader; the socket stays open (for ss). */
  shutdown (s->tx, SHUT_WR);
  free (buf);
  return NULL;
}

static void *
unix_reader (void *arg)
{
  struct stream *s = arg;
  uint8_t *buf = malloc (CHUNK_MAX);
  uint64_t off = 0, n = 1;

  pthread_barrier_wait (&start);
  if (buf == NULL) {
    failed (s, "malloc");
    return NULL;
  }
  for (;; n++) {
    size_t want = vary (n * 3, CHUNK_MAX);
    ssize_t got = n % 2 ? recv (s->rx, buf, want, 0) : read (s->rx, buf, want);
    if (got == -1 && errno == EINTR)
      continue;
    if (got == -1) {
      failed (s, "receiving");
      break;
    }
    if (got == 0) {
      if (off != s->total) {
        errno = 0;
        fprintf (stderr, "preload-threads: stream %d: EOF after %llu bytes\n",
                 s->id, (unsigned long long) off);
        failed (s, "short stream");
      }
      break;
    }
    if (off + (uint64_t) got > s->total || !matches (s->id, off, buf, (size_t) got)) {
      errno = 0;
      failed (s, "payload");
      break;
    }
    off += (uint64_t) got;
    atomic_fetch_add (&checked, (unsigned long long) got);
  }
  free (buf);
  return NULL;
}

/* ---- setting up ---- */

static int
tcp_connection (int listener, const struct sockaddr_in *a, struct stream *s)
{
  s->tx = socket (AF_INET, SOCK_STREAM, 0);
  if (s->tx == -1
      || connect (s->tx, (const struct sockaddr *) a, sizeof *a) == -1)
    return -1;
  s->rx = accept (listener, NULL, NULL);
  return s->rx == -1 ? -1 : 0;
}

/* A unix stream connection through an abstract-namespace listener. */
static int
unix_connection (struct stream *s)
{
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  socklen_t alen;
  int l = socket (AF_UNIX, SOCK_STREAM, 0);

  snprintf (a.sun_path + 1, sizeof a.sun_path - 1,
            "sockboost-preload-threads-%ld-%d", (long) getpid (), s->id);
  alen = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1
                      + strlen (a.sun_path + 1));
  if (l == -1 || bind (l, (struct sockaddr *) &a, alen) == -1
      || listen (l, 1) == -1)
    return -1;
  s->tx = socket (AF_UNIX, SOCK_STREAM, 0);
  if (s->tx == -1 || connect (s->tx, (struct sockaddr *) &a, alen) == -1)
    return -1;
  s->rx = accept (l, NULL, NULL);
  return s->rx == -1 ? -1 : close (l);
}

static int
open_streams (int n)
{
  struct sockaddr_in a = { .sin_family = AF_INET,
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t alen = sizeof a;
  int l = socket (AF_INET, SOCK_STREAM, 0);

  if (l == -1 || bind (l, (struct sockaddr *) &a, sizeof a) == -1
      || listen (l, n) == -1
      || getsockname (l, (struct sockaddr *) &a, &alen) == -1)
    return -1;
  for (int i = 0; i < n; i++) {
    struct stream *s = &streams[i];
    int sv[2], r;
    s->id = i;
    if (i < n / 2) {
      s->kind = TCP_NBD;
      r = tcp_connection (l, &a, s);
    } else if ((i - n / 2) % 2 == 0) {
      s->kind = UNIX_PAIR;
      r = socketpair (AF_UNIX, SOCK_STREAM, 0, sv);
      s->tx = sv[0];
      s->rx = sv[1];
    } else {
      s->kind = UNIX_CONNECT;
      r = unix_connection (s);
    }
    if (r == -1)
      return -1;
  }
  return close (l);
}

int
main (int argc, char **argv)
{
  int n = argc >= 3 ? atoi (argv[1]) : 0, mib = argc >= 3 ? atoi (argv[2]) : 0;
  int hold = argc == 4 && strcmp (argv[3], "hold") == 0;

  if (argc < 3 || argc > 4 || (argc == 4 && !hold) || n < 2 || n % 2
      || n > MAX_STREAMS || mib < 1 || mib > 1024) {
    fprintf (stderr, "usage: preload-threads STREAMS MIB [hold]\n");
    return 2;
  }
  signal (SIGPIPE, SIG_IGN);
  alarm (RUN_SECONDS);
  if (open_streams (n) == -1) {
    fprintf (stderr, "preload-threads: setting up sockets: %s\n",
             strerror (errno));
    return 1;
  }
  pthread_barrier_init (&start, NULL, (unsigned) (2 * n));
  for (int i = 0; i < n; i++) {
    struct stream *s = &streams[i];
    s->total = (uint64_t) mib << 20;
    pthread_create (&s->writer, NULL,
                    s->kind == TCP_NBD ? tcp_writer : unix_writer, s);
    pthread_create (&s->reader, NULL,
                    s->kind == TCP_NBD ? tcp_reader : unix_reader, s);
  }
  for (int i = 0; i < n; i++) {
    pthread_join (streams[i].writer, NULL);
    pthread_join (streams[i].reader, NULL);
  }
  printf ("streams %d tcp %d unix %d bytes-checked %llu messages %llu\n",
          n, n / 2, n / 2, (unsigned long long) checked,
          (unsigned long long) messages);
  if (atomic_load (&failures) != 0
      || checked != (unsigned long long) n * ((uint64_t) mib << 20))
    return 1;
  if (hold) {
    printf ("holding\n");
    fflush (stdout);
    alarm (0);
    sleep (30);
  }
  return 0;
}
