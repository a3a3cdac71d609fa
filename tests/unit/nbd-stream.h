/* SPDX-License-Identifier: MIT */
/* Building NBD byte streams from the wire structs, for the framing unit
 * tests and the fuzz seed generator.
 */
#ifndef SOCKBOOST_TEST_NBD_STREAM_H
#define SOCKBOOST_TEST_NBD_STREAM_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nbd-protocol.h"

struct bytes {
  uint8_t b[1 << 16];
  size_t n;
};

static inline void
put (struct bytes *s, const void *p, size_t n)
{
  memcpy (s->b + s->n, p, n);
  s->n += n;
}

static inline void
put_fill (struct bytes *s, size_t n, uint8_t byte)
{
  memset (s->b + s->n, byte, n);
  s->n += n;
}

static inline void
put_greeting (struct bytes *s, uint16_t gflags)
{
  struct nbd_new_handshake h = {
    htobe64 (NBD_MAGIC), htobe64 (NBD_IHAVEOPT), htobe16 (gflags)
  };
  put (s, &h, sizeof h);
}

static inline void
put_u32 (struct bytes *s, uint32_t v)
{
  v = htobe32 (v);
  put (s, &v, sizeof v);
}

static inline void
put_option (struct bytes *s, uint32_t option, uint32_t len)
{
  struct nbd_option o = { htobe64 (NBD_IHAVEOPT), htobe32 (option),
                          htobe32 (len) };
  put (s, &o, sizeof o);
}

static inline void
put_opt_reply (struct bytes *s, uint32_t option, uint32_t type, uint32_t len)
{
  struct nbd_fixed_new_option_reply r = {
    htobe64 (NBD_REP_MAGIC), htobe32 (option), htobe32 (type), htobe32 (len)
  };
  put (s, &r, sizeof r);
}

static inline void
put_request (struct bytes *s, uint16_t type, uint64_t cookie, uint32_t len)
{
  struct nbd_request r = { htobe32 (NBD_REQUEST_MAGIC), 0, htobe16 (type),
                           htobe64 (cookie), 0, htobe32 (len) };
  put (s, &r, sizeof r);
}

static inline void
put_request_ext (struct bytes *s, uint16_t flags, uint16_t type,
                 uint64_t cookie, uint64_t len)
{
  struct nbd_request_ext r = {
    htobe32 (NBD_EXTENDED_REQUEST_MAGIC), htobe16 (flags), htobe16 (type),
    htobe64 (cookie), 0, htobe64 (len)
  };
  put (s, &r, sizeof r);
}

static inline void
put_simple (struct bytes *s, uint32_t error, uint64_t cookie)
{
  struct nbd_simple_reply r = { htobe32 (NBD_SIMPLE_REPLY_MAGIC),
                                htobe32 (error), htobe64 (cookie) };
  put (s, &r, sizeof r);
}

static inline void
put_chunk (struct bytes *s, uint16_t flags, uint16_t type, uint64_t cookie,
           uint32_t len)
{
  struct nbd_structured_reply r = {
    htobe32 (NBD_STRUCTURED_REPLY_MAGIC), htobe16 (flags), htobe16 (type),
    htobe64 (cookie), htobe32 (len)
  };
  put (s, &r, sizeof r);
}

static inline void
put_ext_reply (struct bytes *s, uint16_t flags, uint16_t type,
               uint64_t cookie, uint64_t len)
{
  struct nbd_extended_reply r = {
    htobe32 (NBD_EXTENDED_REPLY_MAGIC), htobe16 (flags), htobe16 (type),
    htobe64 (cookie), 0, htobe64 (len)
  };
  put (s, &r, sizeof r);
}

/* SET_META_CONTEXT (or LIST) of base:allocation for the default export. */
static inline void
put_meta_option (struct bytes *s, uint32_t option)
{
  uint32_t n = (uint32_t) strlen (NBD_CONTEXT_BASE_ALLOCATION);

  put_option (s, option, 4 + 4 + 4 + n);
  put_u32 (s, 0);
  put_u32 (s, 1);
  put_u32 (s, n);
  put (s, NBD_CONTEXT_BASE_ALLOCATION, n);
}

/* The server's NBD_REP_META_CONTEXT for base:allocation with ID. */
static inline void
put_meta_reply (struct bytes *s, uint32_t option, uint32_t id)
{
  uint32_t n = (uint32_t) strlen (NBD_CONTEXT_BASE_ALLOCATION);

  put_opt_reply (s, option, NBD_REP_META_CONTEXT, 4 + n);
  put_u32 (s, id);
  put (s, NBD_CONTEXT_BASE_ALLOCATION, n);
}

/* A BLOCK_STATUS chunk (compact or extended) with N descriptors of
 * 4 KiB alternating data and hole.
 */
static inline void
put_block_status (struct bytes *s, bool ext, uint64_t cookie, uint32_t n)
{
  uint32_t i;

  if (ext) {
    put_ext_reply (s, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_BLOCK_STATUS_EXT,
                   cookie, 8 + 16 * (uint64_t) n);
    put_u32 (s, 1);
    put_u32 (s, n);
  }
  else {
    put_chunk (s, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_BLOCK_STATUS, cookie,
               4 + 8 * n);
    put_u32 (s, 1);
  }
  for (i = 0; i < n; i++) {
    if (ext)
      put_u32 (s, 0);
    put_u32 (s, 4096);
    if (ext)
      put_u32 (s, 0);
    put_u32 (s, i % 2 ? NBD_STATE_HOLE | NBD_STATE_ZERO : 0);
  }
}

/* An OFFSET_HOLE chunk of LEN bytes at OFF. */
static inline void
put_hole (struct bytes *s, bool ext, uint16_t flags, uint64_t cookie,
          uint64_t off, uint32_t len)
{
  uint64_t o = htobe64 (off);

  if (ext)
    put_ext_reply (s, flags, NBD_REPLY_TYPE_OFFSET_HOLE, cookie, 12);
  else
    put_chunk (s, flags, NBD_REPLY_TYPE_OFFSET_HOLE, cookie, 12);
  put (s, &o, sizeof o);
  put_u32 (s, len);
}

#endif /* SOCKBOOST_TEST_NBD_STREAM_H */
