/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for sbnbd-server's handshake and request parsing: the
 * input is what a client sends.  The server's own connection handler
 * (conn_serve) runs in-process on one end of a socketpair; the other end
 * (socket-peer.c) sends the input, half-closes, and drains the answers.
 * The first byte picks the export: backend kind and read-only.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbd-protocol.h"
#include "server.h"
#include "socket-peer.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Small, so that reads and writes in range stay cheap. */
#define EXPORT_SIZE (1024 * 1024)

enum { KIND_MEMORY, KIND_PATTERN, KIND_NULL, NKINDS };

static struct backend backends[NKINDS];

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
  struct socket_peer p;
  struct conn *c;

  if (size < 1)
    return 0;
  export_setup (&ex, data[0]);
  socket_peer_start (&p, data + 1, size - 1);
  c = calloc (1, sizeof *c);
  if (c == NULL)
    abort ();
  *c = (struct conn) { .fd = p.fds[0], .ex = &ex, .id = 1 };
  conn_serve (c);               /* closes fds[0] */
  free (c);
  socket_peer_finish (&p);
  return 0;
}
