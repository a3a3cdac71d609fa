/* SPDX-License-Identifier: MIT */
/* Test helper: a client that writes each WRITE request's header plainly
 * and its payload with MSG_MORE of its own, then sends nothing more for
 * a while (its next request waits for this one's reply).
 *
 *   preload-own-more ROUNDS
 *
 * Plainly the header leaves at once, and while the server has not
 * acknowledged it the kernel sends the payload too (autocorking sets a
 * program's MSG_MORE aside while earlier bytes are unacknowledged; the
 * server here acknowledges late, TCP_QUICKACK off, as it does once a
 * connection is busy).  A library that holds the header for its payload
 * made the payload's MSG_MORE count: both waited for the kernel's 200 ms
 * cork timer.  Times each request until the server has all of it.
 *
 * Prints "own-more rounds N median-us M max-us X"; exits 0 if every byte
 * arrived intact.
 */
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "nbd-pair.h"

#define PAYLOAD 512
#define MAX_ROUNDS 100

static void
die (const char *what)
{
  fprintf (stderr, "preload-own-more: %s: %s\n", what, strerror (errno));
  exit (1);
}

static int
by_value (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* One WRITE: header, then the payload with the program's own MSG_MORE;
 * the server reads both.  Microseconds until it had them.
 */
static double
one_request (const struct nbd_pair *p, uint64_t cookie)
{
  struct nbd_request q = nbd_pair_request (NBD_CMD_WRITE, cookie, 0, PAYLOAD);
  static char payload[PAYLOAD], got[sizeof q + PAYLOAD];
  int off = 0;
  uint64_t t0;

  memset (payload, (int) cookie, sizeof payload);
  /* The server acknowledges late from now on (the kernel may go back to
   * quick acknowledgements by itself, so say it every time).
   */
  setsockopt (p->server, IPPROTO_TCP, TCP_QUICKACK, &off, sizeof off);
  t0 = sb_monotonic_ns ();
  if (write (p->client, &q, sizeof q) != sizeof q
      || send (p->client, payload, sizeof payload, MSG_MORE) != sizeof payload)
    die ("sending the request");
  if (sb_read_full (p->server, got, sizeof got) == -1
      || memcmp (got, &q, sizeof q) != 0
      || memcmp (got + sizeof q, payload, sizeof payload) != 0)
    die ("reading the request");
  return (double) (sb_monotonic_ns () - t0) / 1e3;
}

int
main (int argc, char **argv)
{
  static double us[MAX_ROUNDS];
  int n = argc == 2 ? atoi (argv[1]) : 0;
  struct nbd_pair p;

  if (n < 1 || n > MAX_ROUNDS) {
    fprintf (stderr, "usage: preload-own-more ROUNDS (1 to %d)\n", MAX_ROUNDS);
    return 2;
  }
  if (nbd_pair_open (&p, false) == -1)
    die ("setting up the connection");
  for (int i = 0; i < n; i++)
    us[i] = one_request (&p, 1 + (uint64_t) i);
  qsort (us, (size_t) n, sizeof us[0], by_value);
  printf ("own-more rounds %d median-us %.0f max-us %.0f\n", n, us[n / 2],
          us[n - 1]);
  return 0;
}
