/* SPDX-License-Identifier: MIT */
/* Test helper: 16 threads churn descriptors under the library — socketpairs,
 * TCP loopback connections, files, dup2/dup3 of sockets onto files and back,
 * fork — and check every byte that goes through them.  Exit 0 only if
 * every byte arrived as sent and every call behaved.
 *
 *   churn-sockets [ROUNDS]      (default 100 rounds per thread)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "full-io.h"

#define THREADS 16
#define MAX_MSG 32768           /* fits a default socket buffer whole */
#define HEADER 28               /* an NBD request header's size */

struct worker {
  int id;
  unsigned seed;
  int listener;                 /* this thread's own TCP listener */
  struct sockaddr_in addr;
  uint8_t out[MAX_MSG], in[MAX_MSG];
};

static atomic_ullong bytes_checked;
static atomic_int failures;

static void
fail (const struct worker *w, const char *what)
{
  fprintf (stderr, "churn-sockets: thread %d: %s: %s\n", w->id, what,
           strerror (errno));
  atomic_fetch_add (&failures, 1);
}

/* Fill the first LEN bytes of w->out with a pattern this round owns. */
static size_t
make_message (struct worker *w)
{
  size_t len = HEADER + (size_t) rand_r (&w->seed) % (MAX_MSG - HEADER);
  uint8_t base = (uint8_t) rand_r (&w->seed);

  for (size_t i = 0; i < len; i++)
    w->out[i] = (uint8_t) (base + i * 131 + (i >> 8));
  return len;
}

/* Send a message from A (header and payload in separate writes, as naive
 * NBD programs do) and read it back whole from B.
 */
static int
exchange (struct worker *w, int a, int b)
{
  size_t len = make_message (w);

  if (sb_write_full (a, w->out, HEADER, 0) == -1
      || sb_write_full (a, w->out + HEADER, len - HEADER, 0) == -1
      || sb_read_full (b, w->in, len) == -1)
    return -1;
  if (memcmp (w->out, w->in, len) != 0) {
    errno = EBADMSG;
    return -1;
  }
  atomic_fetch_add (&bytes_checked, len);
  return 0;
}

static int
op_socketpair (struct worker *w)
{
  int sv[2], r;

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
    return -1;
  r = exchange (w, sv[0], sv[1]) == 0 && exchange (w, sv[1], sv[0]) == 0
    ? 0 : -1;
  close (sv[0]);
  close (sv[1]);
  return r;
}

static int
op_tcp (struct worker *w)
{
  int c = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), s = -1, r = -1;

  if (c != -1
      && connect (c, (struct sockaddr *) &w->addr, sizeof w->addr) == 0
      && (s = accept4 (w->listener, NULL, NULL, SOCK_CLOEXEC)) != -1)
    r = exchange (w, c, s) == 0 && exchange (w, s, c) == 0 ? 0 : -1;
  if (s != -1)
    close (s);
  if (c != -1)
    close (c);
  return r;
}

/* Write through FD and read back what the file got. */
static int
file_roundtrip (struct worker *w, int fd)
{
  size_t len = make_message (w);

  if (ftruncate (fd, 0) == -1
      || sb_write_full (fd, w->out, len, 0) == -1
      || pread (fd, w->in, len, 0) != (ssize_t) len)
    return -1;
  if (memcmp (w->out, w->in, len) != 0) {
    errno = EBADMSG;
    return -1;
  }
  atomic_fetch_add (&bytes_checked, len);
  return 0;
}

/* A socket's fd number becomes a file and a file's becomes a socket: the
 * library must treat each number by what it is now.
 */
static int
op_dup2 (struct worker *w)
{
  int a[2] = { -1, -1 }, b[2] = { -1, -1 }, r = -1;
  int f = memfd_create ("churn", MFD_CLOEXEC);

  if (f != -1
      && socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, a) == 0
      && socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, b) == 0
      && exchange (w, a[0], a[1]) == 0
      && dup3 (f, a[0], O_CLOEXEC) == a[0]        /* socket number -> file */
      && file_roundtrip (w, a[0]) == 0
      && dup2 (b[0], f) == f                      /* file number -> socket */
      && exchange (w, f, b[1]) == 0 && exchange (w, b[1], f) == 0)
    r = 0;
  for (int i = 0; i < 2; i++) {
    if (a[i] != -1)
      close (a[i]);
    if (b[i] != -1)
      close (b[i]);
  }
  if (f != -1)
    close (f);
  return r;
}

static int
op_fork (struct worker *w)
{
  int st;
  pid_t pid = fork ();

  if (pid == -1)
    return -1;
  if (pid == 0)
    _exit (op_socketpair (w) == 0 && op_dup2 (w) == 0 ? 0 : 1);
  if (waitpid (pid, &st, 0) == -1)
    return -1;
  if (!WIFEXITED (st) || WEXITSTATUS (st) != 0) {
    errno = ECHILD;
    return -1;
  }
  return 0;
}

static int
listen_loopback (struct worker *w)
{
  socklen_t len = sizeof w->addr;

  w->addr = (struct sockaddr_in) { .sin_family = AF_INET,
                                   .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  w->listener = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (w->listener == -1
      || bind (w->listener, (struct sockaddr *) &w->addr, sizeof w->addr) == -1
      || listen (w->listener, 4) == -1
      || getsockname (w->listener, (struct sockaddr *) &w->addr, &len) == -1)
    return -1;
  return 0;
}

static long rounds = 100;

static void *
run_worker (void *arg)
{
  static const struct { const char *name; int (*fn) (struct worker *); }
  ops[] = {
    { "socketpair", op_socketpair }, { "tcp", op_tcp },
    { "dup2", op_dup2 }, { "fork", op_fork },
  };
  struct worker *w = arg;

  if (listen_loopback (w) == -1) {
    fail (w, "listening on loopback");
    return NULL;
  }
  for (long r = 0; r < rounds && atomic_load (&failures) == 0; r++) {
    unsigned i = (unsigned) rand_r (&w->seed) % 4;
    /* Forks are the slow part: one round in eight. */
    if (i == 3 && r % 8 != 0)
      i = 0;
    if (ops[i].fn (w) == -1)
      fail (w, ops[i].name);
  }
  close (w->listener);
  return NULL;
}

int
main (int argc, char **argv)
{
  static struct worker workers[THREADS];
  pthread_t t[THREADS];

  if (argc > 1 && (rounds = strtol (argv[1], NULL, 10)) <= 0) {
    fprintf (stderr, "usage: churn-sockets [ROUNDS]\n");
    return 2;
  }
  for (int i = 0; i < THREADS; i++) {
    workers[i] = (struct worker) { .id = i, .seed = 1234u + (unsigned) i };
    if (pthread_create (&t[i], NULL, run_worker, &workers[i]) != 0) {
      fprintf (stderr, "churn-sockets: pthread_create failed\n");
      return 1;
    }
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join (t[i], NULL);
  printf ("churn: %d threads x %ld rounds, %llu bytes checked, %d failures\n",
          THREADS, rounds, (unsigned long long) atomic_load (&bytes_checked),
          atomic_load (&failures));
  return atomic_load (&failures) == 0 ? 0 : 1;
}
