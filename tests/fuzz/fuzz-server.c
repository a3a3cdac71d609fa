/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for sbnbd-server's handshake and request parsing: the
 * input is what a client sends.  The server's own connection handler
 * (conn_serve) runs in-process on one end of a socketpair; a helper thread
 * writes the input into the other end, then half-closes it, and drains
 * whatever the server answers.  The first byte picks the export: backend
 * kind and read-only.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nbd-protocol.h"
#include "server.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Small, so that reads and writes in range stay cheap. */
#define EXPORT_SIZE (1024 * 1024)

enum { KIND_MEMORY, KIND_PATTERN, KIND_NULL, NKINDS };

static struct backend backends[NKINDS];

struct peer {
  int fd;
  const uint8_t *data;
  size_t size;
};

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  FILE *devnull = fopen ("/dev/null", "w");

  (void) argc; (void) argv;
  if (devnull == NULL
      || backend_open_memory (&backends[KIND_MEMORY], EXPORT_SIZE) == -1
      || backend_open_pattern (&backends[KIND_PATTERN], EXPORT_SIZE) == -1
      || backend_open_null (&backends[KIND_NULL], EXPORT_SIZE) == -1)
    abort ();
  /* The server's log lines (verbose: client data in them) are formatted
   * but not shown; sanitizer reports go to fd 2 directly and still show.
   */
  stderr = devnull;
  signal (SIGPIPE, SIG_IGN);
  return 0;
}

/* Write the input, half-close, and read until the server closes its end:
 * one thread, poll on both directions, so neither side can block the other.
 */
static void *
peer_run (void *arg)
{
  struct peer *p = arg;
  static uint8_t sink[1 << 16];
  size_t sent = 0;

  if (p->size == 0)
    shutdown (p->fd, SHUT_WR);
  for (;;) {
    struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
    if (sent < p->size)
      pfd.events |= POLLOUT;
    if (poll (&pfd, 1, -1) == -1 && errno != EINTR)
      abort ();
    if (pfd.revents & POLLOUT) {
      ssize_t n = send (p->fd, p->data + sent, p->size - sent,
                        MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0)
        sent += (size_t) n;
      else if (n == -1 && errno != EAGAIN)
        sent = p->size;         /* the server stopped reading: fine */
      if (sent == p->size)
        shutdown (p->fd, SHUT_WR);
    }
    if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = recv (p->fd, sink, sizeof sink, MSG_DONTWAIT);
      if (n == 0 || (n == -1 && errno != EAGAIN))
        break;
    }
  }
  return NULL;
}

static void
export_setup (struct export *ex, uint8_t selector)
{
  bool ro = (selector & 1) != 0;

  *ex = (struct export) {
    .be = backends[(selector >> 1) % NKINDS],
    .name = "fuzz",
    .eflags = NBD_FLAG_HAS_FLAGS | NBD_FLAG_SEND_FLUSH
      | (ro ? NBD_FLAG_READ_ONLY : NBD_FLAG_SEND_FUA | NBD_FLAG_SEND_TRIM
         | NBD_FLAG_SEND_WRITE_ZEROES),
    .read_only = ro,
    .split_replies = (selector & 0x10) != 0,
    .verbose = (selector & 0x20) != 0,
  };
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct export ex;
  struct conn *c;
  struct peer p;
  pthread_t t;
  int sv[2];

  if (size < 1)
    return 0;
  export_setup (&ex, data[0]);
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
    abort ();
  p = (struct peer) { .fd = sv[1], .data = data + 1, .size = size - 1 };
  if (pthread_create (&t, NULL, peer_run, &p) != 0)
    abort ();
  c = calloc (1, sizeof *c);
  if (c == NULL)
    abort ();
  *c = (struct conn) { .fd = sv[0], .ex = &ex, .id = 1 };
  conn_serve (c);               /* closes sv[0] */
  free (c);
  pthread_join (t, NULL);
  close (sv[1]);
  return 0;
}
