/* SPDX-License-Identifier: MIT */
/* Test helper: fork while threads run NBD traffic on tracked TCP sockets.
 *
 *   preload-fork-threads CONNECTIONS FORKS
 *
 * Each connection is a loopback TCP pair inside this process.  On the
 * server side one thread reads requests and another answers with the
 * reply header and the READ data in separate write() calls, so the
 * socket's framing lock is taken from two threads at once.  On the client
 * side a sender thread writes each WRITE's header and payload separately
 * and a receiver thread reads the replies.
 * Meanwhile the main thread forks FORKS times; each child touches every
 * inherited socket's framing lock with a zero-byte send, moves data over
 * a fresh socketpair, and exits.  Every byte is checked.  A child stuck on
 * a lock is killed by its alarm and counted as a failure.
 *
 * Prints "requests N bytes-checked B children-ok C/FORKS"; exit 0 if all
 * is well.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "full-io.h"
#include "nbd-pair.h"
#include "nbd-protocol.h"
#include "pattern.h"

#define MAX_CONNECTIONS 16
#define DEPTH 4                 /* requests in flight per connection */
#define MAX_LEN 8192
#define CHILD_SECONDS 5         /* a child past this is stuck: alarm */

struct conn {
  int client, server;
  int queue[2];                 /* server: requests from reader to replier */
  sem_t window;                 /* client: free request slots */
  pthread_t threads[4];
};

static struct conn conns[MAX_CONNECTIONS];
static atomic_bool stop;
static atomic_ullong requests, checked;
static atomic_int failures;

static void
fail (const char *what)
{
  fprintf (stderr, "preload-fork-threads: %s: %s\n", what, strerror (errno));
  atomic_fetch_add (&failures, 1);
}

/* What request number SEQ is: odd ones READ, even ones WRITE. */
static uint16_t
seq_type (uint64_t seq)
{
  return seq % 2 ? NBD_CMD_READ : NBD_CMD_WRITE;
}

static uint32_t
seq_len (uint64_t seq)
{
  return (uint32_t) (1 + (seq * 2654435761u) % MAX_LEN);
}

static uint64_t
seq_offset (uint64_t seq)
{
  return (seq % 100000) * MAX_LEN;
}

/* Send request SEQ: header, then a WRITE's payload in its own write(). */
static int
send_request (int fd, uint64_t seq, uint16_t type)
{
  struct nbd_request r = {
    .magic = htobe32 (NBD_REQUEST_MAGIC), .type = htobe16 (type),
    .cookie = htobe64 (seq), .offset = htobe64 (seq_offset (seq)),
    .count = htobe32 (type == NBD_CMD_DISC ? 0 : seq_len (seq)),
  };

  if (write (fd, &r, sizeof r) != (ssize_t) sizeof r)
    return -1;
  if (type != NBD_CMD_WRITE)
    return 0;
  return sb_write_full (fd, sb_pattern_at (seq_offset (seq), seq_len (seq)),
                        seq_len (seq), 0);
}

static void *
client_sender (void *arg)
{
  struct conn *c = arg;
  uint64_t seq = 1;

  for (; !atomic_load (&stop); seq++) {
    sem_wait (&c->window);
    if (send_request (c->client, seq, seq_type (seq)) == -1) {
      fail ("client send");
      return NULL;
    }
  }
  for (int i = 0; i < DEPTH; i++)
    sem_wait (&c->window);
  if (send_request (c->client, seq, NBD_CMD_DISC) == -1)
    fail ("client send DISC");
  return NULL;
}

/* Check LEN bytes of the pattern at OFFSET arriving on FD. */
static int
read_checked (int fd, uint64_t offset, uint32_t len)
{
  static _Thread_local char buf[MAX_LEN];

  if (sb_read_full (fd, buf, len) == -1)
    return -1;
  if (sb_pattern_mismatch (buf, offset, len) != -1) {
    errno = EILSEQ;
    return -1;
  }
  atomic_fetch_add (&checked, len);
  return 0;
}

static void *
client_receiver (void *arg)
{
  struct conn *c = arg;
  struct nbd_simple_reply r;

  while (sb_read_full (c->client, &r, sizeof r) == 0) {
    uint64_t seq = be64toh (r.cookie);
    if (be32toh (r.magic) != NBD_SIMPLE_REPLY_MAGIC || r.error != 0) {
      errno = EPROTO;
      fail ("client reply header");
      return NULL;
    }
    if (seq_type (seq) == NBD_CMD_READ
        && read_checked (c->client, seq_offset (seq), seq_len (seq)) == -1) {
      fail ("client READ data");
      return NULL;
    }
    atomic_fetch_add (&requests, 1);
    sem_post (&c->window);
  }
  if (errno != ENODATA)
    fail ("client receive");
  return NULL;
}

/* Reply to request Q: header and READ data in separate writes. */
static int
reply (int fd, const struct nbd_request *q)
{
  struct nbd_simple_reply r = { .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC),
                                .cookie = q->cookie };
  uint64_t offset = be64toh (q->offset);
  uint32_t len = be32toh (q->count);

  if (write (fd, &r, sizeof r) != (ssize_t) sizeof r)
    return -1;
  if (be16toh (q->type) != NBD_CMD_READ)
    return 0;
  return sb_write_full (fd, sb_pattern_at (offset, len), len, 0);
}

/* The server reads requests (checking WRITE data) in one thread and hands
 * them to the replying thread through a pipe, so its socket is received
 * on and sent on at once, as a multi-threaded server does.
 */
static void *
server_reader (void *arg)
{
  struct conn *c = arg;
  struct nbd_request q;

  do {
    if (sb_read_full (c->server, &q, sizeof q) == -1
        || (be16toh (q.type) == NBD_CMD_WRITE
            && read_checked (c->server, be64toh (q.offset),
                             be32toh (q.count)) == -1)) {
      fail ("server receive");
      q.type = htobe16 (NBD_CMD_DISC);
    }
    if (sb_write_full (c->queue[1], &q, sizeof q, 0) == -1)
      fail ("server queue");
  } while (be16toh (q.type) != NBD_CMD_DISC);
  return NULL;
}

static void *
server_replier (void *arg)
{
  struct conn *c = arg;
  struct nbd_request q;

  while (sb_read_full (c->queue[0], &q, sizeof q) == 0
         && be16toh (q.type) != NBD_CMD_DISC) {
    if (reply (c->server, &q) == -1) {
      fail ("server reply");
      break;
    }
  }
  close (c->server);
  return NULL;
}

/* The handshake of nbd-pair.h: enough for the library's tracker to
 * follow both ends into the transmission phase.
 */
static int
handshake (const struct conn *c)
{
  struct nbd_pair p = { .client = c->client, .server = c->server };

  return nbd_pair_handshake (&p, false);
}

static int
tcp_pair (int listener, struct sockaddr_in *a, struct conn *c)
{
  c->client = socket (AF_INET, SOCK_STREAM, 0);
  if (c->client == -1
      || connect (c->client, (struct sockaddr *) a, sizeof *a) == -1)
    return -1;
  c->server = accept (listener, NULL, NULL);
  return c->server == -1 ? -1 : 0;
}

static int
open_connections (int n)
{
  struct sockaddr_in a = { .sin_family = AF_INET,
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  int l = socket (AF_INET, SOCK_STREAM, 0);

  if (l == -1 || bind (l, (struct sockaddr *) &a, sizeof a) == -1
      || listen (l, n) == -1
      || getsockname (l, (struct sockaddr *) &a, &len) == -1)
    return -1;
  for (int i = 0; i < n; i++)
    if (tcp_pair (l, &a, &conns[i]) == -1 || handshake (&conns[i]) == -1
        || pipe (conns[i].queue) == -1)
      return -1;
  return close (l);
}

/* In a child: take each inherited socket's framing lock (a zero-byte send
 * puts nothing on the wire), then use a fresh tracked socket.
 */
static int
child (int n)
{
  char out[MAX_LEN], in[MAX_LEN];
  int sv[2];

  alarm (CHILD_SECONDS);
  for (int i = 0; i < n; i++) {
    if (send (conns[i].client, out, 0, MSG_DONTWAIT | MSG_NOSIGNAL) != 0
        || send (conns[i].server, out, 0, MSG_DONTWAIT | MSG_NOSIGNAL) != 0)
      return 1;
  }
  memcpy (out, sb_pattern_at (0, sizeof out), sizeof out);
  if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) == -1
      || sb_write_full (sv[0], out, sizeof out, 0) == -1
      || sb_read_full (sv[1], in, sizeof in) == -1
      || memcmp (in, out, sizeof out) != 0)
    return 1;
  return close (sv[0]) || close (sv[1]);
}

/* Fork FORKS times while the threads run; the number of healthy children. */
static int
fork_children (int n, int forks)
{
  int ok = 0, status;

  for (int i = 0; i < forks; i++) {
    pid_t pid = fork ();
    if (pid == 0)
      _exit (child (n));
    if (pid == -1 || waitpid (pid, &status, 0) != pid)
      fail ("fork/waitpid");
    else if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
      ok++;
    else
      fprintf (stderr, "preload-fork-threads: child %d: status 0x%x\n",
               i, (unsigned) status);
  }
  return ok;
}

static void
start_threads (struct conn *c)
{
  sem_init (&c->window, 0, DEPTH);
  pthread_create (&c->threads[0], NULL, server_reader, c);
  pthread_create (&c->threads[1], NULL, server_replier, c);
  pthread_create (&c->threads[2], NULL, client_receiver, c);
  pthread_create (&c->threads[3], NULL, client_sender, c);
}

int
main (int argc, char **argv)
{
  int n = argc == 3 ? atoi (argv[1]) : 0, forks = argc == 3 ? atoi (argv[2]) : 0;
  int ok;

  if (n < 1 || n > MAX_CONNECTIONS || forks < 0) {
    fprintf (stderr, "usage: preload-fork-threads CONNECTIONS FORKS\n");
    return 2;
  }
  if (open_connections (n) == -1) {
    fail ("setting up connections");
    return 1;
  }
  for (int i = 0; i < n; i++)
    start_threads (&conns[i]);
  ok = fork_children (n, forks);
  atomic_store (&stop, true);
  for (int i = 0; i < n; i++)
    for (int t = 0; t < 4; t++)
      pthread_join (conns[i].threads[t], NULL);
  printf ("requests %llu bytes-checked %llu children-ok %d/%d\n",
          (unsigned long long) requests, (unsigned long long) checked,
          ok, forks);
  return ok == forks && atomic_load (&failures) == 0 ? 0 : 1;
}
