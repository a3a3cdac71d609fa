/* SPDX-License-Identifier: MIT */
/* The pattern: export's contents, shared by the server (serves it) and the
 * client (verifies it).
 *
 * Byte at offset o is 1 + (o mod 251).  It is never zero (so qemu-img and
 * nbdcopy cannot skip it as a hole), costs nothing to produce, and since
 * 251 is prime and coprime with every power-of-two request size, data
 * placed at the wrong offset is caught unless it moved by a multiple of
 * 251 bytes.  Being periodic, any range of it is a slice of one precomputed
 * table, so the server sends from that table without generating anything.
 */
#ifndef SOCKBOOST_PATTERN_H
#define SOCKBOOST_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#define SB_PATTERN_PERIOD 251

static inline uint8_t
sb_pattern_byte (uint64_t offset)
{
  return (uint8_t) (1 + offset % SB_PATTERN_PERIOD);
}

/* Pointer to LEN bytes (LEN <= NBD_MAX_PAYLOAD) of the pattern as found
 * at OFFSET.  The table is reserved on first use and filled as far as the
 * request needs, thread-safely; returns NULL with errno set if it could
 * not be allocated.  A call whose LEN was asked for before (or is at most
 * 64 KiB - 251) takes no lock, so may be made from a signal handler.
 */
extern const uint8_t *sb_pattern_at (uint64_t offset, size_t len);

/* Index of the first byte of BUF (LEN bytes read from OFFSET) that differs
 * from the pattern, or -1 if all match.
 */
extern int64_t sb_pattern_mismatch (const void *buf, uint64_t offset,
                                    size_t len);

#endif /* SOCKBOOST_PATTERN_H */
