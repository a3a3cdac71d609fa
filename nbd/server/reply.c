/* SPDX-License-Identifier: MIT */
/* Transmission replies: simple, or structured chunks when negotiated.
 * Cookies are echoed exactly as received (wire byte order).
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <sys/uio.h>
#include <unistd.h>

#include "full-io.h"
#include "nbd-protocol.h"
#include "server.h"

struct error_chunk {
  struct nbd_structured_reply h;
  struct nbd_structured_reply_error e;
} NBD_PACKED;

struct data_chunk {
  struct nbd_structured_reply h;
  struct nbd_structured_reply_offset_data d;
} NBD_PACKED;

int
reply_simple (struct conn *c, uint64_t cookie, uint32_t error)
{
  struct nbd_simple_reply r = {
    .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC), .error = htobe32 (error),
    .cookie = cookie,
  };
  return sb_write_full (c->fd, &r, sizeof r, 0);
}

int
reply_error (struct conn *c, uint64_t cookie, uint32_t error)
{
  struct error_chunk r = {
    .h = { .magic = htobe32 (NBD_STRUCTURED_REPLY_MAGIC),
           .flags = htobe16 (NBD_REPLY_FLAG_DONE),
           .type = htobe16 (NBD_REPLY_TYPE_ERROR), .cookie = cookie,
           .length = htobe32 (sizeof r.e) },
    .e = { .error = htobe32 (error), .len = 0 },
  };

  if (!c->structured)
    return reply_simple (c, cookie, error);
  return sb_write_full (c->fd, &r, sizeof r, 0);
}

/* What a naive server does: two write()s, nothing telling the kernel
 * that more follows.
 */
static int
write_all (int fd, const void *buf, size_t len)
{
  const uint8_t *p = buf;

  while (len > 0) {
    ssize_t r = write (fd, p, len);
    if (r == -1 && errno == EINTR)
      continue;
    if (r == -1)
      return -1;
    p += r;
    len -= (size_t) r;
  }
  return 0;
}

static int
send_header_and_data (struct conn *c, const void *hdr, size_t hlen,
                      const void *data, uint32_t len)
{
  struct iovec iov[2] = {
    { .iov_base = (void *) (uintptr_t) hdr, .iov_len = hlen },
    { .iov_base = (void *) (uintptr_t) data, .iov_len = len },
  };

  if (c->ex->split_replies) {
    if (write_all (c->fd, hdr, hlen) == -1)
      return -1;
    return write_all (c->fd, data, len);
  }
  /* One sendmsg: header and data leave together, no userspace copy. */
  return sb_writev_full (c->fd, iov, 2, 0);
}

int
reply_read (struct conn *c, uint64_t cookie, uint64_t off, const void *data,
            uint32_t len)
{
  struct nbd_simple_reply s = {
    .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC), .error = 0, .cookie = cookie,
  };
  struct data_chunk d = {
    .h = { .magic = htobe32 (NBD_STRUCTURED_REPLY_MAGIC),
           .flags = htobe16 (NBD_REPLY_FLAG_DONE),
           .type = htobe16 (NBD_REPLY_TYPE_OFFSET_DATA), .cookie = cookie,
           .length = htobe32 ((uint32_t) sizeof d.d + len) },
    .d = { .offset = htobe64 (off) },
  };

  if (c->structured)
    return send_header_and_data (c, &d, sizeof d, data, len);
  return send_header_and_data (c, &s, sizeof s, data, len);
}
