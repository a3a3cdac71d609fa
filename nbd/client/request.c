/* SPDX-License-Identifier: MIT */
/* Sending requests: header and WRITE payload in one sendmsg, or (naive
 * mode, --split-writes) in separate write() calls with no MSG_MORE, the
 * way many simple programs do it.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "client.h"
#include "full-io.h"
#include "nbd-protocol.h"

static int
write_plain (int fd, const void *buf, size_t len)
{
  const char *p = buf;

  while (len > 0) {
    ssize_t r = write (fd, p, len);
    if (r == -1) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    p += r;
    len -= (size_t) r;
  }
  return 0;
}

static uint64_t
slot_cookie (const struct conn *c, const struct slot *s)
{
  return (uint64_t) s->seq << 32 | (uint64_t) (s - c->slots);
}

/* The request header in the negotiated style into BUF; its size.  With
 * extended headers a WRITE says that its length is a payload.
 */
static size_t
encode_request (const struct conn *c, const struct slot *s, void *buf)
{
  uint64_t len = s->type == NBD_CMD_BLOCK_STATUS ? s->status_len : s->len;

  if (c->job->info.extended) {
    struct nbd_request_ext rq = {
      .magic = htobe32 (NBD_EXTENDED_REQUEST_MAGIC),
      .flags = htobe16 (s->type == NBD_CMD_WRITE ? NBD_CMD_FLAG_PAYLOAD_LEN
                        : 0),
      .type = htobe16 (s->type), .cookie = htobe64 (slot_cookie (c, s)),
      .offset = htobe64 (s->offset), .count = htobe64 (len),
    };
    memcpy (buf, &rq, sizeof rq);
    return sizeof rq;
  }
  else {
    /* Compact lengths are below 4 GiB: the status walk keeps them so. */
    struct nbd_request rq = {
      .magic = htobe32 (NBD_REQUEST_MAGIC), .type = htobe16 (s->type),
      .cookie = htobe64 (slot_cookie (c, s)), .offset = htobe64 (s->offset),
      .count = htobe32 ((uint32_t) len),
    };
    memcpy (buf, &rq, sizeof rq);
    return sizeof rq;
  }
}

int
request_send (struct conn *c, struct slot *s)
{
  uint8_t hdr[sizeof (struct nbd_request_ext)];
  size_t hlen = encode_request (c, s, hdr);
  size_t paylen = s->type == NBD_CMD_WRITE ? s->len : 0;
  struct iovec iov[2] = {
    { .iov_base = hdr, .iov_len = hlen },
    { .iov_base = (void *) (uintptr_t) s->payload, .iov_len = paylen },
  };
  int r;

  if (c->job->opt->split_writes) {
    r = write_plain (c->fd, hdr, hlen);
    if (r == 0 && paylen > 0)
      r = write_plain (c->fd, s->payload, paylen);
  }
  else
    r = sb_writev_full (c->fd, iov, paylen > 0 ? 2 : 1, 0);
  if (r == -1)
    return job_fail (c->job, "sending request at offset %llu: %m",
                     (unsigned long long) s->offset);
  return 0;
}

void
send_disconnect (int fd, bool extended)
{
  struct nbd_request rq = { .magic = htobe32 (NBD_REQUEST_MAGIC),
                            .type = htobe16 (NBD_CMD_DISC) };
  struct nbd_request_ext rx = { .magic = htobe32 (NBD_EXTENDED_REQUEST_MAGIC),
                                .type = htobe16 (NBD_CMD_DISC) };

  /* Best effort: the data is already safe and the server may be gone. */
  if (extended)
    sb_write_full (fd, &rx, sizeof rx, 0);
  else
    sb_write_full (fd, &rq, sizeof rq, 0);
}
