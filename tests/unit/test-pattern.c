/* SPDX-License-Identifier: MIT */
/* Unit tests for the pattern: export's contents. */
#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include "nbd-protocol.h"
#include "pattern.h"

int
main (void)
{
  const uint64_t offsets[] = { 0, 1, 250, 251, 4096, (2 << 20) + 7,
                               UINT64_C(1) << 40 };
  size_t i, j, len = 1 << 20;
  uint8_t *buf = malloc (len);
  int nonzero = 1, match = 1;

  TAP_OK (buf != NULL, "allocate a test buffer");
  for (i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
    const uint8_t *p = sb_pattern_at (offsets[i], len);
    for (j = 0; p && j < len; j++) {
      nonzero &= p[j] != 0;
      match &= p[j] == sb_pattern_byte (offsets[i] + j);
    }
    TAP_OK (p != NULL && match && nonzero,
            "table slice at %llu matches sb_pattern_byte and has no zero",
            (unsigned long long) offsets[i]);
  }
  {
    const uint8_t *p = sb_pattern_at (250, NBD_MAX_PAYLOAD);
    for (j = NBD_MAX_PAYLOAD - 4096, match = 1; p && j < NBD_MAX_PAYLOAD; j++)
      match &= p[j] == sb_pattern_byte (250 + j);
    TAP_OK (p != NULL && match,
            "a maximum-size payload at the last phase fits and ends right");
  }
  TAP_OK (sb_pattern_at (0, NBD_MAX_PAYLOAD + 1) == NULL,
          "a payload over the maximum is refused");

  for (j = 0; j < len; j++)
    buf[j] = sb_pattern_byte (12345 + j);
  TAP_OK (sb_pattern_mismatch (buf, 12345, len) == -1,
          "a correct buffer has no mismatch");
  TAP_OK (sb_pattern_mismatch (buf, 12346, len) == 0,
          "data one byte off is caught at once");
  buf[777777] ^= 0x40;
  TAP_OK (sb_pattern_mismatch (buf, 12345, len) == 777777,
          "a flipped bit is found at its index");
  free (buf);
  return tap_done ();
}
