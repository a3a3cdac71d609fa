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

#endif /* SOCKBOOST_TEST_NBD_STREAM_H */
