/* SPDX-License-Identifier: MIT */
/* Receiving replies: simple replies and structured reply chunks, matched
 * to their request by cookie, in whatever order the server sends them.
 * Nothing the server says is trusted: every length and offset is checked
 * against the request before a byte lands in the slot's buffer.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "be-bytes.h"
#include "client.h"
#include "full-io.h"
#include "nbd-protocol.h"

/* Largest error chunk: error, message length, message, offset. */
#define ERROR_CHUNK_MAX (sizeof (struct nbd_structured_reply_error) + \
                         NBD_MAX_STRING + sizeof (uint64_t))

static const char *
command_name (uint16_t type)
{
  switch (type) {
  case NBD_CMD_READ: return "read";
  case NBD_CMD_WRITE: return "write";
  case NBD_CMD_FLUSH: return "flush";
  case NBD_CMD_BLOCK_STATUS: return "block status";
  default: return "request";
  }
}

/* MID: this read is inside a reply, so any EOF is a broken reply. */
static int
recv_part (struct conn *c, void *buf, size_t len, bool mid)
{
  if (sb_read_full (c->fd, buf, len) == 0)
    return 0;
  if (errno == ENODATA && !mid)
    return job_fail (c->job, "server closed the connection with %u "
                     "request%s in flight", c->inflight,
                     c->inflight == 1 ? "" : "s");
  if (errno == ENODATA || errno == ECONNRESET)
    return job_fail (c->job, "server disconnected in the middle of a reply");
  return job_fail (c->job, "reading reply: %m");
}

static struct slot *
lookup (struct conn *c, uint64_t cookie)
{
  uint32_t index = (uint32_t) cookie;
  struct slot *s;

  if (index >= c->nslots)
    return NULL;
  s = &c->slots[index];
  if (s->state != SLOT_BUSY || s->seq != (uint32_t) (cookie >> 32))
    return NULL;
  return s;
}

static int
unknown_cookie (struct conn *c, uint64_t cookie)
{
  return job_fail (c->job, "protocol error: reply for unknown cookie 0x%llx",
                   (unsigned long long) cookie);
}

/* The server answered S with an error: report it (the first one only)
 * and let the connection wind down in good order.
 */
static void
server_error (struct conn *c, struct slot *s, uint32_t error,
              const char *message)
{
  s->failed = true;
  job_stop (c->job, "%s at offset %llu (%u bytes): server replied %s%s%s",
            command_name (s->type), (unsigned long long) s->offset, s->len,
            nbd_error_name (error), message && *message ? ": " : "",
            message ? message : "");
}

static int
simple_reply (struct conn *c, const struct nbd_simple_reply *h,
              struct slot **done)
{
  uint64_t cookie = be64toh (h->cookie);
  uint32_t error = be32toh (h->error);
  struct slot *s = lookup (c, cookie);

  if (s == NULL)
    return unknown_cookie (c, cookie);
  if (error != NBD_SUCCESS)
    server_error (c, s, error, NULL);
  else if (s->type == NBD_CMD_BLOCK_STATUS)
    return job_fail (c->job, "protocol error: simple reply to a block "
                     "status request");
  else if (s->type == NBD_CMD_READ) {
    if (s->got != 0)
      return job_fail (c->job, "protocol error: simple reply after "
                       "structured chunks");
    if (recv_part (c, s->buf, s->len, true) == -1)
      return -1;
  }
  *done = s;
  return 0;
}

/* Where a data or hole chunk of LEN bytes at OFF lands in S's buffer. */
static int
chunk_place (struct conn *c, struct slot *s, uint64_t off, uint64_t len,
             uint32_t *rel)
{
  if (s->type != NBD_CMD_READ)
    return job_fail (c->job, "protocol error: data chunk for a %s",
                     command_name (s->type));
  if (len == 0 || off < s->offset || off - s->offset > s->len ||
      len > s->len - (off - s->offset))
    return job_fail (c->job, "protocol error: chunk %llu+%llu is outside "
                     "the request %llu+%u", (unsigned long long) off,
                     (unsigned long long) len,
                     (unsigned long long) s->offset, s->len);
  if (len > s->len - s->got)
    return job_fail (c->job, "protocol error: chunks overlap in the reply "
                     "at offset %llu", (unsigned long long) s->offset);
  *rel = (uint32_t) (off - s->offset);
  s->got += (uint32_t) len;
  return 0;
}

static int
offset_data (struct conn *c, struct slot *s, uint32_t length)
{
  struct nbd_structured_reply_offset_data d;
  uint32_t rel;

  if (length <= sizeof d)
    return job_fail (c->job, "protocol error: data chunk of %u bytes",
                     length);
  if (recv_part (c, &d, sizeof d, true) == -1 ||
      chunk_place (c, s, be64toh (d.offset), length - sizeof d, &rel) == -1)
    return -1;
  return recv_part (c, s->buf + rel, length - sizeof d, true);
}

static int
offset_hole (struct conn *c, struct slot *s, uint32_t length)
{
  struct nbd_structured_reply_offset_hole h;
  uint32_t rel;

  if (length != sizeof h)
    return job_fail (c->job, "protocol error: hole chunk of %u bytes",
                     length);
  if (recv_part (c, &h, sizeof h, true) == -1 ||
      chunk_place (c, s, be64toh (h.offset), be32toh (h.length), &rel) == -1)
    return -1;
  memset (s->buf + rel, 0, be32toh (h.length));
  return 0;
}

/* ERROR, ERROR_OFFSET and error types this client does not know. */
static int
error_chunk (struct conn *c, struct slot *s, uint32_t length)
{
  struct nbd_structured_reply_error e;
  char body[ERROR_CHUNK_MAX], msg[ESCAPED_VALUE_SIZE];
  uint32_t error, msglen;

  if (length < sizeof e || length > ERROR_CHUNK_MAX)
    return job_fail (c->job, "protocol error: error chunk of %u bytes",
                     length);
  if (recv_part (c, body, length, true) == -1)
    return -1;
  memcpy (&e, body, sizeof e);
  error = be32toh (e.error);
  msglen = be16toh (e.len);
  if (error == NBD_SUCCESS || msglen > length - sizeof e)
    return job_fail (c->job, "protocol error: malformed error chunk");
  /* The server's words, escaped: they may hold anything. */
  sb_escape (msg, sizeof msg, body + sizeof e, msglen);
  server_error (c, s, error, msg);
  return 0;
}

/* Descriptors read and handed on at a time. */
#define STATUS_BATCH 256

/* Hand N descriptors at P to the connection's extent function.  The
 * lengths so far must stay short of the request's: only the last may
 * reach past it.
 */
static int
status_descriptors (struct conn *c, struct slot *s, const uint8_t *p,
                    unsigned n, uint64_t *covered)
{
  bool ext = c->job->info.extended;
  unsigned i;

  for (i = 0; i < n; i++, p += ext ? 16 : 8) {
    uint64_t len = ext ? sb_get_be64 (p) : sb_get_be32 (p);
    uint32_t flags = (uint32_t) (ext ? sb_get_be64 (p + 8) : sb_get_be32 (p + 4));

    if (len == 0 || *covered >= s->status_len)
      return job_fail (c->job, "protocol error: block status descriptor "
                       "%s at offset %llu", len == 0 ? "of length 0"
                       : "past the requested range",
                       (unsigned long long) (s->offset + *covered));
    c->on_extent (c->extent_opaque, len, flags);
    *covered += len;
  }
  return 0;
}

/* BLOCK_STATUS (compact descriptors) or BLOCK_STATUS_EXT (with a count):
 * one chunk for our one context, in the style negotiated.
 */
static int
status_chunk (struct conn *c, struct slot *s, uint16_t type, uint32_t length)
{
  bool ext = type == NBD_REPLY_TYPE_BLOCK_STATUS_EXT;
  uint32_t head = ext ? 8 : 4, size = ext ? 16 : 8, n, got;
  uint8_t buf[STATUS_BATCH * 16];
  uint64_t covered = 0;

  if (s->type != NBD_CMD_BLOCK_STATUS || ext != c->job->info.extended ||
      s->got != 0 || length < head + size || (length - head) % size != 0 ||
      (length - head) / size > NBD_MAX_BLOCK_DESCRIPTORS)
    return job_fail (c->job, "protocol error: block status chunk type %u "
                     "of %u bytes", type, length);
  n = (length - head) / size;
  if (recv_part (c, buf, head, true) == -1)
    return -1;
  if (sb_get_be32 (buf) != c->job->info.allocation_id ||
      (ext && sb_get_be32 (buf + 4) != n))
    return job_fail (c->job, "protocol error: block status for context %u "
                     "(%u descriptors announced, %u sent)", sb_get_be32 (buf),
                     ext ? sb_get_be32 (buf + 4) : n, n);
  for (; n > 0; n -= got) {
    got = n < STATUS_BATCH ? n : STATUS_BATCH;
    if (recv_part (c, buf, (size_t) got * size, true) == -1 ||
        status_descriptors (c, s, buf, got, &covered) == -1)
      return -1;
  }
  s->got = 1;
  return 0;
}

static int
chunk_body (struct conn *c, struct slot *s, uint16_t type, uint32_t length)
{
  switch (type) {
  case NBD_REPLY_TYPE_OFFSET_DATA:
    return offset_data (c, s, length);
  case NBD_REPLY_TYPE_OFFSET_HOLE:
    return offset_hole (c, s, length);
  case NBD_REPLY_TYPE_BLOCK_STATUS:
  case NBD_REPLY_TYPE_BLOCK_STATUS_EXT:
    return status_chunk (c, s, type, length);
  case NBD_REPLY_TYPE_NONE:
    if (length != 0)
      return job_fail (c->job, "protocol error: NONE chunk with payload");
    return 0;
  default:
    if (NBD_REPLY_TYPE_IS_ERR (type))
      return error_chunk (c, s, length);
    return job_fail (c->job, "protocol error: unexpected chunk type %u",
                     type);
  }
}

/* The chunk just handled said DONE: S is complete, if it is whole. */
static int
chunk_done (struct conn *c, struct slot *s, uint16_t flags,
            struct slot **done)
{
  if (!(flags & NBD_REPLY_FLAG_DONE))
    return 0;
  if (s->type == NBD_CMD_READ && !s->failed && s->got != s->len)
    return job_fail (c->job, "protocol error: server sent %u of %u bytes "
                     "at offset %llu", s->got, s->len,
                     (unsigned long long) s->offset);
  if (s->type == NBD_CMD_BLOCK_STATUS && !s->failed && s->got == 0)
    return job_fail (c->job, "protocol error: block status at offset %llu "
                     "answered without extents",
                     (unsigned long long) s->offset);
  *done = s;
  return 0;
}

static int
structured_reply (struct conn *c, const struct nbd_simple_reply *start,
                  struct slot **done)
{
  struct nbd_structured_reply h;
  struct slot *s;

  /* The first 16 bytes are in; the last 4 (the length) follow. */
  memcpy (&h, start, sizeof *start);
  if (recv_part (c, (char *) &h + sizeof *start, sizeof h - sizeof *start,
                 true) == -1)
    return -1;
  s = lookup (c, be64toh (h.cookie));
  if (s == NULL)
    return unknown_cookie (c, be64toh (h.cookie));
  if (chunk_body (c, s, be16toh (h.type), be32toh (h.length)) == -1)
    return -1;
  return chunk_done (c, s, be16toh (h.flags), done);
}

/* With extended headers every reply is a 32-byte chunk header that
 * repeats the request's offset; no payload we take reaches 4 GiB.
 */
static int
extended_reply (struct conn *c, struct slot **done)
{
  struct nbd_extended_reply h;
  struct slot *s;
  uint64_t length;

  if (recv_part (c, &h, sizeof h, false) == -1)
    return -1;
  if (be32toh (h.magic) != NBD_EXTENDED_REPLY_MAGIC)
    return job_fail (c->job, "protocol error: bad reply magic 0x%08x "
                     "(extended headers were agreed)", be32toh (h.magic));
  s = lookup (c, be64toh (h.cookie));
  if (s == NULL)
    return unknown_cookie (c, be64toh (h.cookie));
  length = be64toh (h.length);
  if (be64toh (h.offset) != s->offset || length > UINT32_MAX)
    return job_fail (c->job, "protocol error: extended reply with offset "
                     "%llu and length %llu to a request at %llu",
                     (unsigned long long) be64toh (h.offset),
                     (unsigned long long) length,
                     (unsigned long long) s->offset);
  if (chunk_body (c, s, be16toh (h.type), (uint32_t) length) == -1)
    return -1;
  return chunk_done (c, s, be16toh (h.flags), done);
}

int
reply_receive (struct conn *c, struct slot **done)
{
  struct nbd_simple_reply h;
  uint32_t magic;

  *done = NULL;
  if (c->job->info.extended)
    return extended_reply (c, done);
  /* A simple reply header is a prefix of a structured one: read that
   * much, then the rest only if the magic says so.
   */
  if (recv_part (c, &h, sizeof h, false) == -1)
    return -1;
  magic = be32toh (h.magic);
  if (magic == NBD_SIMPLE_REPLY_MAGIC)
    return simple_reply (c, &h, done);
  if (magic == NBD_STRUCTURED_REPLY_MAGIC && c->job->info.structured)
    return structured_reply (c, &h, done);
  return job_fail (c->job, "protocol error: bad reply magic 0x%08x", magic);
}
