/* SPDX-License-Identifier: MIT */
/* Raw socketpair reference for the benchmark: the ceiling any NBD program
 * could reach on this machine.  A server thread answers 28-byte NBD READ
 * requests with a 16-byte simple reply and the payload; the main thread
 * keeps QUEUE-DEPTH requests in flight and counts the read() calls each
 * reply costs (the number a bigger send buffer brings down).
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "clock.h"
#include "escape.h"
#include "full-io.h"
#include "nbd-protocol.h"
#include "pattern.h"
#include "report.h"
#include "settings.h"
#include "tuning.h"

#define PROGRAM "sb-socketpair-bench"
/* ':' first: a missing value is told apart from an unknown option. */
#define SHORT_OPTIONS ":h"

struct options {
  uint64_t sndbuf;              /* 0: leave the socket as created */
  uint64_t request_size;
  uint64_t total;
  unsigned queue_depth;
  int json;
};

struct result {
  uint64_t replies;
  uint64_t reads;
  double seconds;
  double user, sys;
  int sndbuf_granted;
};

static void
usage (void)
{
  printf ("usage: " PROGRAM " [--sndbuf SIZE] [--queue-depth N]\n"
          "       [--request-size SIZE] [--total SIZE] [--json]\n"
          "Moves TOTAL bytes (default 4G) as NBD READ replies of\n"
          "REQUEST-SIZE (default 2M) over a socketpair, QUEUE-DEPTH\n"
          "(default 1) requests in flight.  --sndbuf raises the send\n"
          "buffer of both ends as libsockboost would (forced past\n"
          "net.core.wmem_max when the process may); default: leave it\n"
          "alone, e.g. for libsockboost.\n");
  exit (0);
}

static const struct option long_options[] = {
  { "sndbuf", required_argument, NULL, 's' },
  { "queue-depth", required_argument, NULL, 'q' },
  { "request-size", required_argument, NULL, 'r' },
  { "total", required_argument, NULL, 't' },
  { "json", no_argument, NULL, 'j' },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 }
};

/* Apply option C with ARG to O. */
static void
apply_option (struct options *o, int c, const char *arg, char **argv)
{
  char why[SB_ARG_WHY_SIZE];

  switch (c) {
  case 's': o->sndbuf = sb_option_size ("--sndbuf", arg, SB_SNDBUF_MAX); break;
  case 'q':
    o->queue_depth = (unsigned) sb_option_count ("--queue-depth", arg, 1, 64);
    break;
  case 'r':
    o->request_size = sb_option_size ("--request-size", arg, NBD_MAX_PAYLOAD);
    break;
  case 't': o->total = sb_option_size ("--total", arg, UINT64_MAX); break;
  case 'j': o->json = 1; break;
  case 'h': usage (); break;
  default:
    sb_arg_getopt_complaint (c, argv, SHORT_OPTIONS, why, sizeof why);
    sb_usage_error ("%s", why);
  }
}

static void
parse_args (int argc, char **argv, struct options *o)
{
  char shown[SB_ESCAPE_SIZE (64)];
  int c;

  opterr = 0;
  *o = (struct options) { .request_size = 2 << 20,
                          .total = UINT64_C(4) << 30, .queue_depth = 1 };
  while ((c = getopt_long (argc, argv, SHORT_OPTIONS, long_options,
                           NULL)) != -1)
    apply_option (o, c, optarg, argv);
  if (optind != argc)
    sb_usage_error ("unexpected argument '%s'",
                    sb_escape_str (shown, sizeof shown, argv[optind]));
}

/* ---- the server thread ---- */

struct server {
  int fd;
  uint32_t length;
};

static int
send_reply (int fd, const struct nbd_request *req, const uint8_t *payload)
{
  struct nbd_simple_reply reply = {
    .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC),
    .error = htobe32 (NBD_SUCCESS),
    .cookie = req->cookie,
  };
  /* One sendmsg for header and data, as QEMU sends its replies. */
  struct iovec iov[2] = {
    { .iov_base = &reply, .iov_len = sizeof reply },
    { .iov_base = (void *) (uintptr_t) payload,
      .iov_len = be32toh (req->count) },
  };

  return sb_writev_full (fd, iov, 2, 0);
}

static void *
serve (void *arg)
{
  const struct server *s = arg;
  const uint8_t *payload = sb_pattern_at (0, s->length);
  struct nbd_request req;

  if (payload == NULL)
    sb_die ("allocating the payload");
  for (;;) {
    if (sb_read_full (s->fd, &req, sizeof req) == -1)
      sb_die ("server: reading a request");
    if (be16toh (req.type) == NBD_CMD_DISC)
      return NULL;
    if (be32toh (req.magic) != NBD_REQUEST_MAGIC
        || be16toh (req.type) != NBD_CMD_READ || be32toh (req.count) > s->length) {
      errno = EPROTO;
      sb_die ("server: unexpected request");
    }
    if (send_reply (s->fd, &req, payload) == -1)
      sb_die ("server: sending a reply");
  }
}

/* ---- the client side ---- */

static void
send_request (int fd, uint16_t type, uint64_t cookie, uint32_t length)
{
  struct nbd_request req = {
    .magic = htobe32 (NBD_REQUEST_MAGIC),
    .type = htobe16 (type),
    .cookie = htobe64 (cookie),
    .offset = htobe64 (cookie * length),
    .count = htobe32 (length),
  };

  if (sb_write_full (fd, &req, sizeof req, 0) == -1)
    sb_die ("client: sending a request");
}

/* Read exactly LEN bytes and return how many read() calls that took. */
static uint64_t
read_counted (int fd, uint8_t *buf, size_t len)
{
  uint64_t calls = 0;
  size_t done = 0;

  while (done < len) {
    ssize_t r = read (fd, buf + done, len - done);
    calls++;
    if (r == -1 && errno == EINTR)
      continue;
    if (r == -1)
      sb_die ("client: reading a reply");
    if (r == 0) {
      errno = ECONNRESET;
      sb_die ("client: reading a reply");
    }
    done += (size_t) r;
  }
  return calls;
}

/* Header and payload are read as one buffer, so a reply that arrives
 * whole costs exactly one read.
 */
static uint64_t
receive_reply (int fd, uint8_t *buf, size_t len, uint64_t cookie)
{
  const struct nbd_simple_reply *reply = (const void *) buf;
  uint64_t calls = read_counted (fd, buf, sizeof *reply + len);

  if (be32toh (reply->magic) != NBD_SIMPLE_REPLY_MAGIC
      || reply->error != 0 || be64toh (reply->cookie) != cookie) {
    errno = EPROTO;
    sb_die ("client: unexpected reply");
  }
  return calls;
}

static void
run_requests (int fd, const struct options *o, struct result *res)
{
  uint32_t len = (uint32_t) o->request_size;
  uint64_t n = (o->total + len - 1) / len, issued = 0, done;
  uint8_t *buf = malloc (sizeof (struct nbd_simple_reply) + len);

  if (buf == NULL)
    sb_die ("allocating the reply buffer");
  while (issued < o->queue_depth && issued < n)
    send_request (fd, NBD_CMD_READ, issued++, len);
  for (done = 0; done < n; done++) {
    res->reads += receive_reply (fd, buf, len, done);
    if (issued < n)
      send_request (fd, NBD_CMD_READ, issued++, len);
  }
  send_request (fd, NBD_CMD_DISC, n, 0);
  res->replies = n;
  free (buf);
}

/* ---- set-up and measurement ---- */

static int
get_sndbuf (int fd)
{
  int v = 0;
  socklen_t len = sizeof v;

  if (getsockopt (fd, SOL_SOCKET, SO_SNDBUF, &v, &len) == -1)
    sb_die ("getsockopt SO_SNDBUF");
  return v;
}

static int
setsockopt_int (int fd, int level, int name, int value)
{
  return setsockopt (fd, level, name, &value, sizeof value);
}

/* SIZE (a size SOCKBOOST_SNDBUF takes) applied by the library's own rule
 * (SO_SNDBUFFORCE when wmem_max would clip and the process may), so that
 * the ceiling is measured at the buffer the library gives, not at one
 * wmem_max clipped where the library forces.  What the kernel granted is
 * read back and reported, whatever the rule did.
 */
static void
raise_sndbuf (int fd, uint64_t size)
{
  struct sb_config c = { .sndbuf = size, .force = SB_FORCE_AUTO,
                         .wmem_max = sb_wmem_max (NULL) };
  bool clipped;

  (void) sb_sndbuf_raise (fd, get_sndbuf (fd), &c, setsockopt_int, &clipped);
}

/* getrusage(RUSAGE_SELF) covers both threads. */
static void
cpu_seconds (double *user, double *sys)
{
  struct rusage ru;

  if (getrusage (RUSAGE_SELF, &ru) == -1)
    sb_die ("getrusage");
  *user = sb_timeval_seconds (ru.ru_utime);
  *sys = sb_timeval_seconds (ru.ru_stime);
}

static void
measure (const struct options *o, struct result *res)
{
  int sv[2];
  struct server srv = { .length = (uint32_t) o->request_size };
  pthread_t thread;
  double t0, u0, s0;

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
    sb_die ("socketpair");
  if (o->sndbuf) {
    raise_sndbuf (sv[0], o->sndbuf);
    raise_sndbuf (sv[1], o->sndbuf);
  }
  res->sndbuf_granted = get_sndbuf (sv[1]);
  srv.fd = sv[1];
  /* Build the payload table before the clock starts. */
  if (sb_pattern_at (0, srv.length) == NULL)
    sb_die ("allocating the payload");
  if ((errno = pthread_create (&thread, NULL, serve, &srv)) != 0)
    sb_die ("pthread_create");
  cpu_seconds (&u0, &s0);
  t0 = sb_monotonic_seconds ();
  run_requests (sv[0], o, res);
  if ((errno = pthread_join (thread, NULL)) != 0)
    sb_die ("pthread_join");
  res->seconds = sb_monotonic_seconds () - t0;
  cpu_seconds (&res->user, &res->sys);
  res->user -= u0;
  res->sys -= s0;
  close (sv[0]);
  close (sv[1]);
}

static void
report (const struct options *o, const struct result *r)
{
  double bytes = (double) r->replies * (double) o->request_size;
  double rate = bytes / r->seconds;
  double reads = (double) r->reads / (double) r->replies;

  if (o->json)
    printf ("{\"bytes\": %.0f, \"seconds\": %.6f, \"throughput\": %.0f, "
            "\"reads_per_reply\": %.3f, \"user\": %.3f, \"sys\": %.3f, "
            "\"sndbuf\": %d, \"queue_depth\": %u, \"request_size\": %llu}\n",
            bytes, r->seconds, rate, reads, r->user, r->sys,
            r->sndbuf_granted, o->queue_depth,
            (unsigned long long) o->request_size);
  else
    printf ("sndbuf %d, queue depth %u: %.2f GiB/s, %.2f reads per reply, "
            "%.3f s, user %.3f s, sys %.3f s\n",
            r->sndbuf_granted, o->queue_depth, rate / (1 << 30), reads,
            r->seconds, r->user, r->sys);
}

int
main (int argc, char **argv)
{
  struct options o;
  struct result r = { 0 };

  parse_args (argc, argv, &o);
  measure (&o, &r);
  report (&o, &r);
  return 0;
}
