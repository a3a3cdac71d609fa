/* SPDX-License-Identifier: MIT */
/* Transmission replies: simple replies, or structured or extended chunks
 * as negotiated.  Cookies are echoed exactly as received (wire byte
 * order).  Every reply leaves in one sendmsg, data included, unless the
 * naive --split-replies mode asks for separate writes.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "full-io.h"
#include "nbd-protocol.h"
#include "server.h"

/* A chunk header with the fixed part of its payload (an offset, or an
 * offset and a hole length) behind it.
 */
struct chunk_head {
  uint8_t bytes[sizeof (struct nbd_extended_reply)
                + sizeof (struct nbd_structured_reply_offset_hole)];
  size_t len;
};

/* Start a chunk of TYPE carrying PAYLOAD bytes, in the negotiated style. */
static void
chunk_begin (const struct conn *c, const struct request *r, uint16_t flags,
             uint16_t type, uint64_t payload, struct chunk_head *h)
{
  if (c->extended) {
    struct nbd_extended_reply x = {
      .magic = htobe32 (NBD_EXTENDED_REPLY_MAGIC), .flags = htobe16 (flags),
      .type = htobe16 (type), .cookie = r->cookie,
      .offset = htobe64 (r->off), .length = htobe64 (payload),
    };
    memcpy (h->bytes, &x, sizeof x);
    h->len = sizeof x;
  }
  else {
    /* Compact requests bound every payload below 4 GiB. */
    struct nbd_structured_reply s = {
      .magic = htobe32 (NBD_STRUCTURED_REPLY_MAGIC), .flags = htobe16 (flags),
      .type = htobe16 (type), .cookie = r->cookie,
      .length = htobe32 ((uint32_t) payload),
    };
    memcpy (h->bytes, &s, sizeof s);
    h->len = sizeof s;
  }
}

static void
chunk_append (struct chunk_head *h, const void *p, size_t n)
{
  memcpy (h->bytes + h->len, p, n);
  h->len += n;
}

/* What a naive server does: a write() per piece, nothing telling the
 * kernel that more follows.
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
send_iov (struct conn *c, struct iovec *iov, int n)
{
  int i;

  if (!c->ex->split_replies)
    return sb_writev_full (c->fd, iov, n, 0);
  for (i = 0; i < n; i++)
    if (write_all (c->fd, iov[i].iov_base, iov[i].iov_len) == -1)
      return -1;
  return 0;
}

static int
reply_simple (struct conn *c, const struct request *r, uint32_t error,
              const void *data, size_t len)
{
  struct nbd_simple_reply s = {
    .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC), .error = htobe32 (error),
    .cookie = r->cookie,
  };
  struct iovec iov[2] = {
    { .iov_base = &s, .iov_len = sizeof s },
    { .iov_base = (void *) (uintptr_t) data, .iov_len = len },
  };

  if (len == 0)
    return sb_writev_full (c->fd, iov, 1, 0);
  return send_iov (c, iov, 2);
}

/* Extended headers forbid simple replies: success is a NONE chunk. */
int
reply_ok (struct conn *c, const struct request *r)
{
  struct chunk_head h;
  struct iovec iov;

  if (!c->extended)
    return reply_simple (c, r, NBD_SUCCESS, NULL, 0);
  chunk_begin (c, r, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_NONE, 0, &h);
  iov = (struct iovec) { .iov_base = h.bytes, .iov_len = h.len };
  return sb_writev_full (c->fd, &iov, 1, 0);
}

int
reply_error (struct conn *c, const struct request *r, uint32_t error)
{
  struct nbd_structured_reply_error e = { .error = htobe32 (error) };
  struct chunk_head h;
  struct iovec iov;

  if (!c->structured)
    return reply_simple (c, r, error, NULL, 0);
  chunk_begin (c, r, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_ERROR, sizeof e, &h);
  chunk_append (&h, &e, sizeof e);
  iov = (struct iovec) { .iov_base = h.bytes, .iov_len = h.len };
  return sb_writev_full (c->fd, &iov, 1, 0);
}

/* One content chunk: its header in H, its data (if any) into IOV. */
static int
content_chunk (const struct conn *c, const struct request *r,
               const struct read_chunk *k, bool last, struct chunk_head *h,
               struct iovec *iov)
{
  uint16_t flags = last ? NBD_REPLY_FLAG_DONE : 0;
  uint64_t off = htobe64 (k->off);
  int n = 1;

  if (k->data != NULL) {
    chunk_begin (c, r, flags, NBD_REPLY_TYPE_OFFSET_DATA,
                 sizeof (struct nbd_structured_reply_offset_data) + k->len, h);
    chunk_append (h, &off, sizeof off);
    iov[1] = (struct iovec) { .iov_base = (void *) (uintptr_t) k->data,
                              .iov_len = k->len };
    n = 2;
  }
  else {
    /* A hole of a READ is at most NBD_MAX_PAYLOAD bytes: it fits. */
    uint32_t len = htobe32 ((uint32_t) k->len);
    chunk_begin (c, r, flags, NBD_REPLY_TYPE_OFFSET_HOLE,
                 sizeof (struct nbd_structured_reply_offset_hole), h);
    chunk_append (h, &off, sizeof off);
    chunk_append (h, &len, sizeof len);
  }
  iov[0] = (struct iovec) { .iov_base = h->bytes, .iov_len = h->len };
  return n;
}

int
reply_read (struct conn *c, const struct request *r,
            const struct read_chunk *chunks, unsigned n)
{
  struct chunk_head heads[READ_CHUNKS_MAX];
  struct iovec iov[2 * READ_CHUNKS_MAX];
  unsigned i;
  int k = 0;

  if (!c->structured)
    return reply_simple (c, r, NBD_SUCCESS, chunks[0].data, chunks[0].len);
  for (i = 0; i < n; i++)
    k += content_chunk (c, r, &chunks[i], i == n - 1, &heads[i], &iov[k]);
  return send_iov (c, iov, k);
}

/* Compact descriptors for structured replies, extended ones (with a
 * count) for extended headers.  BODY holds BLOCK_STATUS_MAX_EXTENTS.
 */
static size_t
encode_status (const struct conn *c, const struct extent_list *l,
               uint8_t *body)
{
  uint32_t id = htobe32 (META_ID_BASE_ALLOCATION), count = htobe32 (l->n);
  size_t at = 0;
  unsigned i;

  memcpy (body, &id, sizeof id);
  at += sizeof id;
  if (c->extended) {
    memcpy (body + at, &count, sizeof count);
    at += sizeof count;
  }
  for (i = 0; i < l->n; i++) {
    if (c->extended) {
      struct nbd_block_descriptor_ext d = {
        .length = htobe64 (l->e[i].length),
        .status_flags = htobe64 (l->e[i].flags),
      };
      memcpy (body + at, &d, sizeof d);
      at += sizeof d;
    }
    else {
      /* Extents never exceed a compact request's 32-bit length. */
      struct nbd_block_descriptor_32 d = {
        .length = htobe32 ((uint32_t) l->e[i].length),
        .status_flags = htobe32 (l->e[i].flags),
      };
      memcpy (body + at, &d, sizeof d);
      at += sizeof d;
    }
  }
  return at;
}

int
reply_block_status (struct conn *c, const struct request *r,
                    const struct extent_list *l)
{
  uint8_t body[sizeof (struct nbd_structured_reply_block_status_ext_hdr)
               + BLOCK_STATUS_MAX_EXTENTS
               * sizeof (struct nbd_block_descriptor_ext)];
  size_t len = encode_status (c, l, body);
  struct chunk_head h;
  struct iovec iov[2];

  chunk_begin (c, r, NBD_REPLY_FLAG_DONE,
               c->extended ? NBD_REPLY_TYPE_BLOCK_STATUS_EXT
               : NBD_REPLY_TYPE_BLOCK_STATUS, len, &h);
  iov[0] = (struct iovec) { .iov_base = h.bytes, .iov_len = h.len };
  iov[1] = (struct iovec) { .iov_base = body, .iov_len = len };
  return sb_writev_full (c->fd, iov, 2, 0);
}
