/* SPDX-License-Identifier: MIT */
/* Test helper: NBD requests sent from a signal handler.
 *
 *   preload-signal-send SECONDS
 *
 * On one tracked TCP connection the main loop sends FLUSH requests, one
 * send() each, while a SIGALRM handler firing every 50 microseconds sends
 * FLUSH requests on the same socket (send() is async-signal-safe).  A
 * reader thread on the other end checks every request and counts them.
 * The handler interrupts the main loop wherever it is, inside the
 * library's hooks too: a hook that waited there for its own thread would
 * never return.
 *
 * Prints "main M handler H received R"; exits 0 if every request arrived
 * intact (R = M + H) and the handler sent some.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "nbd-pair.h"

#define WINDOW 512              /* requests sent but not yet read */

static struct nbd_pair pair;
static atomic_ullong sent_main, sent_handler, received;
static atomic_int failures;

static void
fail (const char *what)
{
  fprintf (stderr, "preload-signal-send: %s: %s\n", what, strerror (errno));
  atomic_fetch_add (&failures, 1);
}

static int
send_request (uint16_t type, uint64_t cookie)
{
  struct nbd_request r = nbd_pair_request (type, cookie, 0, 0);

  return send (pair.client, &r, sizeof r, MSG_NOSIGNAL) == (ssize_t) sizeof r
    ? 0 : -1;
}

static void
on_alarm (int sig)
{
  int saved = errno;

  (void) sig;
  if (send_request (NBD_CMD_FLUSH, 1) == 0)
    atomic_fetch_add (&sent_handler, 1);
  else
    atomic_fetch_add (&failures, 1);
  errno = saved;
}

/* Count well-formed requests up to NBD_CMD_DISC. */
static void *
reader (void *arg)
{
  struct nbd_request r;

  (void) arg;
  while (sb_read_full (pair.server, &r, sizeof r) == 0) {
    if (be32toh (r.magic) != NBD_REQUEST_MAGIC) {
      errno = EPROTO;
      fail ("request magic");
      return NULL;
    }
    if (be16toh (r.type) == NBD_CMD_DISC)
      return NULL;
    atomic_fetch_add (&received, 1);
  }
  fail ("reading requests");
  return NULL;
}

static int
start_alarms (long usec)
{
  struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
  struct itimerval it = { { 0, usec }, { 0, usec } };

  sigemptyset (&sa.sa_mask);
  return sigaction (SIGALRM, &sa, NULL) || setitimer (ITIMER_REAL, &it, NULL);
}

static void
stop_alarms (void)
{
  struct itimerval off = { { 0, 0 }, { 0, 0 } };
  sigset_t set;

  setitimer (ITIMER_REAL, &off, NULL);
  sigemptyset (&set);
  sigaddset (&set, SIGALRM);
  pthread_sigmask (SIG_BLOCK, &set, NULL);
}

/* Send from the main loop for SECONDS, keeping within the window. */
static void
main_loop (double seconds)
{
  struct timespec t0, t;

  clock_gettime (CLOCK_MONOTONIC, &t0);
  do {
    if (atomic_load (&sent_main) + atomic_load (&sent_handler)
        - atomic_load (&received) < WINDOW) {
      if (send_request (NBD_CMD_FLUSH, 2) == -1) {
        fail ("main send");
        return;
      }
      atomic_fetch_add (&sent_main, 1);
    }
    clock_gettime (CLOCK_MONOTONIC, &t);
  } while ((double) (t.tv_sec - t0.tv_sec)
           + (double) (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int
main (int argc, char **argv)
{
  double seconds = argc == 2 ? atof (argv[1]) : 0;
  pthread_t t;
  sigset_t set;

  if (seconds <= 0 || seconds > 60) {
    fprintf (stderr, "usage: preload-signal-send SECONDS\n");
    return 2;
  }
  if (nbd_pair_open (&pair, false) == -1) {
    fail ("setting up the connection");
    return 1;
  }
  /* Only the main thread takes the alarms. */
  sigemptyset (&set);
  sigaddset (&set, SIGALRM);
  pthread_sigmask (SIG_BLOCK, &set, NULL);
  pthread_create (&t, NULL, reader, NULL);
  pthread_sigmask (SIG_UNBLOCK, &set, NULL);
  if (start_alarms (50) == -1)
    fail ("setitimer");
  main_loop (seconds);
  stop_alarms ();
  if (send_request (NBD_CMD_DISC, 3) == -1)
    fail ("sending DISC");
  pthread_join (t, NULL);
  printf ("main %llu handler %llu received %llu\n",
          (unsigned long long) sent_main, (unsigned long long) sent_handler,
          (unsigned long long) received);
  return atomic_load (&failures) == 0 && sent_handler > 0
    && received == sent_main + sent_handler ? 0 : 1;
}
