/* SPDX-License-Identifier: MIT */
/* Big-endian integers read from bytes at any alignment (wire data). */
#ifndef SOCKBOOST_BE_BYTES_H
#define SOCKBOOST_BE_BYTES_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t
sb_get_be16 (const uint8_t *p)
{
  uint16_t v;

  memcpy (&v, p, sizeof v);
  return be16toh (v);
}

static inline uint32_t
sb_get_be32 (const uint8_t *p)
{
  uint32_t v;

  memcpy (&v, p, sizeof v);
  return be32toh (v);
}

static inline uint64_t
sb_get_be64 (const uint8_t *p)
{
  uint64_t v;

  memcpy (&v, p, sizeof v);
  return be64toh (v);
}

#endif /* SOCKBOOST_BE_BYTES_H */
