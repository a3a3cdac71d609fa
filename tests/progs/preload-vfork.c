/* SPDX-License-Identifier: MIT */
/* Test helper: a vfork child that closes the parent's tracked sockets.
 *
 *   preload-vfork WRITES
 *
 * On one tracked TCP connection the client sends WRITES WRITE requests,
 * each header and payload in separate write() calls, and a server thread
 * answers them.  Then the process vforks; the child, which shares the
 * parent's memory (the library's tables included) but has its own
 * descriptors, closes both sockets the way children do before exec
 * (dup2 over one, close, close_range) and execs /bin/true.  The parent
 * then sends WRITES more.  Its sockets are still open, so the library
 * must still follow them: every header corked, the counts reported at
 * exit (SOCKBOOST_STATS=1) those of all 2 x WRITES requests.
 *
 * Prints "pid P child status S requests N"; exits 0 if every request was
 * answered and the child exited 0.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "close-range.h"
#include "nbd-pair.h"

#define DATA 1024

static struct nbd_pair pair;
static char data[DATA];

static void
die (const char *what)
{
  fprintf (stderr, "preload-vfork: %s: %s\n", what, strerror (errno));
  exit (1);
}

static void *
server (void *arg)
{
  struct nbd_simple_reply r = { .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC) };
  struct nbd_request q;
  char buf[DATA];

  (void) arg;
  while (sb_read_full (pair.server, &q, sizeof q) == 0
         && be16toh (q.type) == NBD_CMD_WRITE) {
    r.cookie = q.cookie;
    if (sb_read_full (pair.server, buf, DATA) == -1
        || sb_write_full (pair.server, &r, sizeof r, 0) == -1)
      die ("server");
  }
  return NULL;
}

/* N WRITEs, header and payload apart, each answered before the next. */
static void
writes (int n, uint64_t first)
{
  struct nbd_simple_reply r;

  for (int i = 0; i < n; i++) {
    struct nbd_request q = nbd_pair_request (NBD_CMD_WRITE, first + i, 0,
                                             DATA);
    if (write (pair.client, &q, sizeof q) != sizeof q
        || write (pair.client, data, DATA) != DATA
        || sb_read_full (pair.client, &r, sizeof r) == -1)
      die ("client");
  }
}

/* What a child does between vfork and exec: only async-signal-safe calls. */
static void
child (void)
{
  int null = open ("/dev/null", O_RDWR);
  unsigned lo = (unsigned) (pair.client < pair.server ? pair.client
                                                      : pair.server);

  if (null == -1 || dup2 (null, pair.client) != pair.client
      || close (pair.server) != 0
      || close_range (lo, ~0u, 0) != 0)
    _exit (1);
  execl ("/bin/true", "true", (char *) NULL);
  _exit (127);
}

int
main (int argc, char **argv)
{
  int n = argc == 2 ? atoi (argv[1]) : 0, status;
  struct nbd_request disc = nbd_pair_request (NBD_CMD_DISC, 0, 0, 0);
  pthread_t t;
  pid_t pid;

  if (n < 1 || n > 100000) {
    fprintf (stderr, "usage: preload-vfork WRITES\n");
    return 2;
  }
  if (nbd_pair_open (&pair, false) == -1)
    die ("setting up the connection");
  pthread_create (&t, NULL, server, NULL);
  writes (n, 1);
  pid = vfork ();
  if (pid == 0)
    child ();
  if (pid == -1 || waitpid (pid, &status, 0) != pid)
    die ("vfork");
  writes (n, 1 + (uint64_t) n);
  if (write (pair.client, &disc, sizeof disc) != sizeof disc)
    die ("DISC");
  pthread_join (t, NULL);
  printf ("pid %d child status %d requests %d\n", (int) getpid (), status,
          2 * n);
  return status == 0 ? 0 : 1;
}
