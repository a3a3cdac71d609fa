/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for sbnbd-client's handshake and reply parsing: the
 * input is what a server sends.  The client's own code runs in-process on
 * one end of a socketpair (handshake, then one connection reading or
 * verifying the first 256 KiB); the other end (socket-peer.c) sends the
 * input and drains the client's options and requests.  The first byte
 * picks structured replies, queue depth and read or verify.
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

/* One connection over the first RANGE bytes, as job_run would start it. */
static void
transfer (int fd, const struct export_info *info, uint8_t selector)
{
  struct options o = {
    .op = (selector & 8) ? OP_VERIFY : OP_READ,
    .request_size = REQUEST_SIZE,
    .queue_depth = 1 + ((selector >> 1) & 3),
    .connections = 1,
    .structured = (selector & 1) != 0,
  };
  struct job j = {
    .opt = &o, .info = *info, .file_fd = -1, .connections = 1,
    .sink = o.op == OP_VERIFY ? SINK_VERIFY : SINK_DISCARD,
    .request_size = REQUEST_SIZE, .start = 0,
    .end = info->size < RANGE ? info->size : RANGE, .fds = &fd,
  };
  struct conn c = { .job = &j, .fd = fd, .id = 0 };

  atomic_store (&j.next, 0);
  atomic_store (&j.first_mismatch, UINT64_MAX);
  conn_run (&c);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct export_info info;
  struct socket_peer p;

  if (size < 1)
    return 0;
  socket_peer_start (&p, data + 1, size - 1);
  if (handshake (p.fds[0], "", (data[0] & 1) != 0, &info) == 0)
    transfer (p.fds[0], &info, data[0]);
  close (p.fds[0]);
  socket_peer_finish (&p);
  return 0;
}
