/* SPDX-License-Identifier: MIT */
/* The transmission phase: decode, check and serve requests one by one. */
#include <endian.h>
#include <errno.h>

#include "nbd-protocol.h"
#include "server.h"

struct request {
  uint16_t flags;               /* NBD_CMD_FLAG_* */
  uint16_t type;                /* NBD_CMD_* */
  uint64_t cookie;              /* wire order, echoed untouched */
  uint64_t off;
  uint32_t len;
};

/* Flags each command may carry; anything else is EINVAL. */
static uint16_t
allowed_flags (uint16_t type)
{
  switch (type) {
  case NBD_CMD_READ: case NBD_CMD_FLUSH:
    return NBD_CMD_FLAG_FUA;
  case NBD_CMD_WRITE: case NBD_CMD_TRIM:
    return NBD_CMD_FLAG_FUA;
  case NBD_CMD_WRITE_ZEROES:
    return NBD_CMD_FLAG_FUA | NBD_CMD_FLAG_NO_HOLE | NBD_CMD_FLAG_FAST_ZERO;
  default:
    return 0;
  }
}

static uint32_t
nbd_error (int err)
{
  switch (err) {
  case EPERM: case EROFS: return NBD_EPERM;
  case ENOMEM: return NBD_ENOMEM;
  case EINVAL: return NBD_EINVAL;
  case ENOSPC: case EFBIG: case EDQUOT: return NBD_ENOSPC;
  case EOVERFLOW: return NBD_EOVERFLOW;
  case ENOTSUP: return NBD_ENOTSUP;
  case ESHUTDOWN: return NBD_ESHUTDOWN;
  default: return NBD_EIO;
  }
}

static bool
is_write_type (uint16_t type)
{
  return type == NBD_CMD_WRITE || type == NBD_CMD_TRIM
    || type == NBD_CMD_WRITE_ZEROES;
}

/* The error this request deserves before touching the backend, or 0. */
static uint32_t
check_request (const struct conn *c, const struct request *r)
{
  uint64_t size = c->ex->be.size;
  bool fits = r->len <= size && r->off <= size - r->len;

  if (r->type > NBD_CMD_WRITE_ZEROES || r->type == NBD_CMD_DISC
      || r->type == NBD_CMD_CACHE)
    return NBD_EINVAL;
  if ((r->flags & ~allowed_flags (r->type)) != 0)
    return NBD_EINVAL;
  if (r->type == NBD_CMD_FLUSH)
    return 0;
  /* Only payloads are bounded; a trim or zero may cover up to 4 GiB. */
  if (r->len == 0 || (r->len > NBD_MAX_PAYLOAD && (r->type == NBD_CMD_READ
                                                   || r->type == NBD_CMD_WRITE)))
    return NBD_EINVAL;
  if (c->ex->read_only && is_write_type (r->type))
    return NBD_EPERM;
  if (!fits)
    return r->type == NBD_CMD_WRITE || r->type == NBD_CMD_WRITE_ZEROES
      ? NBD_ENOSPC : NBD_EINVAL;
  return 0;
}

static void
log_refused (const struct conn *c, const struct request *r, uint32_t error)
{
  conn_log (c, "request type %u flags 0x%x offset %llu length %u: error %u",
            r->type, r->flags, (unsigned long long) r->off, r->len, error);
}

static int
do_read (struct conn *c, const struct request *r)
{
  struct backend *be = &c->ex->be;
  const void *data = NULL;
  void *buf = NULL;
  int err;

  if (be->reads_into_buffer && (buf = conn_buffer (c)) == NULL)
    return reply_error (c, r->cookie, NBD_ENOMEM);
  err = be->ops->read (be, buf, r->off, r->len, &data);
  if (err != 0)
    return reply_error (c, r->cookie, nbd_error (err));
  return reply_read (c, r->cookie, r->off, data, r->len);
}

/* The payload is always consumed, so the stream stays in step. */
static int
do_write (struct conn *c, const struct request *r, uint32_t error)
{
  struct backend *be = &c->ex->be;
  uint8_t *dest;
  int err;

  if (error != 0) {
    log_refused (c, r, error);
    if (conn_discard (c, r->len) == -1)
      return -1;
    return reply_error (c, r->cookie, error);
  }
  dest = be->ops->write_dest (be, r->off);
  if (dest == NULL && (dest = conn_buffer (c)) == NULL) {
    if (conn_discard (c, r->len) == -1)
      return -1;
    return reply_error (c, r->cookie, NBD_ENOMEM);
  }
  if (conn_recv (c, dest, r->len) == -1)
    return -1;
  err = be->ops->write (be, dest, r->off, r->len,
                        (r->flags & NBD_CMD_FLAG_FUA) != 0);
  return err ? reply_error (c, r->cookie, nbd_error (err))
    : reply_simple (c, r->cookie, 0);
}

static int
do_other (struct conn *c, const struct request *r)
{
  struct backend *be = &c->ex->be;
  bool fua = (r->flags & NBD_CMD_FLAG_FUA) != 0;
  int err;

  switch (r->type) {
  case NBD_CMD_FLUSH:
    err = be->ops->flush (be);
    break;
  case NBD_CMD_TRIM:
    err = be->ops->trim (be, r->off, r->len, fua);
    break;
  default:                      /* NBD_CMD_WRITE_ZEROES */
    err = be->ops->zero (be, r->off, r->len,
                         (r->flags & NBD_CMD_FLAG_NO_HOLE) == 0,
                         (r->flags & NBD_CMD_FLAG_FAST_ZERO) != 0, fua);
    break;
  }
  return err ? reply_error (c, r->cookie, nbd_error (err))
    : reply_simple (c, r->cookie, 0);
}

static int
serve_request (struct conn *c, const struct request *r)
{
  uint32_t error = check_request (c, r);

  if (r->type == NBD_CMD_WRITE)
    return do_write (c, r, error);
  if (error != 0) {
    log_refused (c, r, error);
    return reply_error (c, r->cookie, error);
  }
  if (r->type == NBD_CMD_READ)
    return do_read (c, r);
  return do_other (c, r);
}

/* Returns 1 with *R filled, 0 on a clean end of the session, -1 on error. */
static int
next_request (struct conn *c, struct request *r)
{
  struct nbd_request w;

  if (conn_recv (c, &w, sizeof w) == -1) {
    if (errno == ENODATA)
      conn_log (c, "client disconnected without NBD_CMD_DISC");
    else
      conn_log (c, "reading a request: %m");
    return -1;
  }
  if (be32toh (w.magic) != NBD_REQUEST_MAGIC) {
    conn_log (c, "bad request magic 0x%08x", be32toh (w.magic));
    return -1;
  }
  *r = (struct request) { .flags = be16toh (w.flags),
                          .type = be16toh (w.type), .cookie = w.cookie,
                          .off = be64toh (w.offset),
                          .len = be32toh (w.count) };
  return r->type == NBD_CMD_DISC ? 0 : 1;
}

void
transmit (struct conn *c)
{
  struct request r;
  int n;

  while ((n = next_request (c, &r)) == 1) {
    if (serve_request (c, &r) == -1) {
      conn_log (c, "serving a request: %m");
      return;
    }
  }
  if (n == 0)
    conn_log (c, "client sent NBD_CMD_DISC");
}
