/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for sbnbd-client's handshake and reply parsing: the
 * input is what a server sends.  The client's own code runs in-process on
 * one end of a socketpair (handshake, then one connection reading or
 * verifying the first 256 KiB); the other end (socket-peer.c) sends the
 * input and drains the client's options and requests.  The first byte
 * picks structured replies (bit 0), extended headers (bit 4), queue
 * depth and read or verify; a read maps the range with block status
 * first, as sbnbd-client read does.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "client.h"
#include "socket-peer.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define RANGE (256 * 1024)
#define REQUEST_SIZE (64 * 1024)

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  FILE *devnull = fopen ("/dev/null", "w");

  (void) argc; (void) argv;
  if (devnull == NULL)
    abort ();
  /* The client's error messages (server data in them) are formatted but
   * not shown; sanitizer reports go to fd 2 directly and still show.
   */
  stderr = devnull;
  signal (SIGPIPE, SIG_IGN);
  return 0;
}

static void
options_for (uint8_t selector, struct options *o)
{
  *o = (struct options) {
    .op = (selector & 8) ? OP_VERIFY : OP_READ,
    .request_size = REQUEST_SIZE,
    .queue_depth = 1 + ((selector >> 1) & 3),
    .connections = 1,
    .structured = (selector & 1) != 0,
    .extended = (selector & 0x10) != 0,
  };
}

/* One connection over the first RANGE bytes, as job_run would start it. */
static void
transfer (int fd, const struct export_info *info, const struct options *opt)
{
  struct options o = *opt;
  struct job j = {
    .opt = &o, .info = *info, .file_fd = -1, .connections = 1,
    .sink = o.op == OP_VERIFY ? SINK_VERIFY : SINK_DISCARD,
    .request_size = REQUEST_SIZE, .start = 0,
    .end = info->size < RANGE ? info->size : RANGE, .fds = &fd,
    .mismatch_lock = PTHREAD_MUTEX_INITIALIZER, .mismatch_offset = UINT64_MAX,
  };
  struct conn c = { .job = &j, .fd = fd, .id = 0 };

  atomic_store (&j.next, 0);
  atomic_store (&j.first_unfinished, UINT64_MAX);
  if (o.op != OP_READ || sparse_plan (&j) == 0)
    conn_run (&c);
  free (j.data);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct export_info info;
  struct socket_peer p;
  struct options o;

  if (size < 1)
    return 0;
  options_for (data[0], &o);
  socket_peer_start (&p, data + 1, size - 1);
  if (handshake (p.fds[0], "", &o, &info) == 0)
    transfer (p.fds[0], &info, &o);
  close (p.fds[0]);
  socket_peer_finish (&p);
  return 0;
}
