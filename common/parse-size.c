/* SPDX-License-Identifier: MIT */
/* Size parser; hand-written rather than strtoull because strtoull accepts
 * leading spaces and a minus sign, and reads the locale.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "parse-size.h"

static int
suffix_shift (char c)
{
  switch (c) {
  case 'k': case 'K': return 10;
  case 'm': case 'M': return 20;
  case 'g': case 'G': return 30;
  case 't': case 'T': return 40;
  default: return -1;
  }
}

int
sb_parse_size (const char *str, uint64_t max, uint64_t *size)
{
  uint64_t value = 0;
  const char *p = str;
  int shift = 0;

  if (str == NULL || *str < '0' || *str > '9') {
    errno = EINVAL;
    return -1;
  }
  for (; *p >= '0' && *p <= '9'; p++) {
    unsigned digit = (unsigned) (*p - '0');
    if (value > (UINT64_MAX - digit) / 10) {
      errno = ERANGE;
      return -1;
    }
    value = value * 10 + digit;
  }
  if (*p != '\0') {
    shift = suffix_shift (*p);
    if (shift < 0 || p[1] != '\0') {
      errno = EINVAL;
      return -1;
    }
    if (value > (UINT64_MAX >> shift)) {
      errno = ERANGE;
      return -1;
    }
    value <<= shift;
  }
  if (value > max) {
    errno = ERANGE;
    return -1;
  }
  *size = value;
  return 0;
}
