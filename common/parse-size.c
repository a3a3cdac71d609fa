/* SPDX-License-Identifier: MIT */
/* Size parser; hand-written rather than strtoull because strtoull accepts
 * leading spaces and a minus sign, and reads the locale.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

const char *
sb_size_format (uint64_t size, char *buf, size_t len)
{
  static const char suffixes[] = "TGMK";

  for (int i = 0; size != 0 && i < 4; i++) {
    unsigned shift = 10 * (unsigned) (4 - i);
    if ((size & ((UINT64_C (1) << shift) - 1)) == 0) {
      snprintf (buf, len, "%llu%c", (unsigned long long) (size >> shift),
                suffixes[i]);
      return buf;
    }
  }
  snprintf (buf, len, "%llu", (unsigned long long) size);
  return buf;
}

/* "K, M or G": the suffixes with a unit no larger than MAX (K at least). */
static const char *
suffix_list (uint64_t max)
{
  static const char *const lists[] = { "K", "K or M", "K, M or G",
                                       "K, M, G or T" };
  int n = 1;

  while (n < 4 && max >> (10 * (n + 1)) != 0)
    n++;
  return lists[n - 1];
}

const char *
sb_size_expected (uint64_t min, uint64_t max, char *buf, size_t len)
{
  char lo[SB_SIZE_TEXT_SIZE], hi[SB_SIZE_TEXT_SIZE];
  char range[2 * SB_SIZE_TEXT_SIZE + 16] = "";

  sb_size_format (min, lo, sizeof lo);
  sb_size_format (max, hi, sizeof hi);
  if (min > 0 && max < UINT64_MAX)
    snprintf (range, sizeof range, "; from %s to %s", lo, hi);
  else if (max < UINT64_MAX)
    snprintf (range, sizeof range, "; at most %s", hi);
  else if (min > 0)
    snprintf (range, sizeof range, "; at least %s", lo);
  snprintf (buf, len, "a size such as 2M or 4194304 (%s%s)",
            suffix_list (max), range);
  return buf;
}
