/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for sb_parse_size: the input's first 8 bytes are the
 * limit, the rest is the text.  Every answer is checked against a second,
 * 128-bit reading of the same text, so a wrong value is a crash too, not
 * only a memory error.  The limit also goes through the writers: its
 * sb_size_format text parses back to it, and the words sb_size_expected
 * gives for it are one printable line that fits.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse-size.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define MAX_TEXT 64

struct expect {
  int err;                      /* 0, EINVAL or ERANGE */
  uint64_t value;
};

static int
shift_of (char c)
{
  const char *suffixes = "kKmMgGtT";
  const char *p = c ? strchr (suffixes, c) : NULL;

  return p ? 10 * (int) ((p - suffixes) / 2 + 1) : -1;
}

/* The grammar read independently: digits, at most one suffix, nothing
 * else; overflow of the digits is reported before a bad suffix is seen,
 * as the parser documents by returning ERANGE for any value it cannot hold.
 */
static struct expect
oracle (const char *s, uint64_t max)
{
  unsigned __int128 v = 0;
  const char *p = s;
  int shift;

  if (*p < '0' || *p > '9')
    return (struct expect) { EINVAL, 0 };
  for (; *p >= '0' && *p <= '9'; p++) {
    v = v * 10 + (unsigned) (*p - '0');
    if (v > UINT64_MAX)
      return (struct expect) { ERANGE, 0 };
  }
  if (*p != '\0') {
    shift = shift_of (*p);
    if (shift < 0 || p[1] != '\0')
      return (struct expect) { EINVAL, 0 };
    v <<= shift;
  }
  if (v > max)
    return (struct expect) { ERANGE, 0 };
  return (struct expect) { 0, (uint64_t) v };
}

/* MAX written, read back; and the words about sizes up to it. */
static void
check_writers (uint64_t max)
{
  char text[SB_SIZE_TEXT_SIZE], words[SB_SIZE_EXPECTED_SIZE];
  uint64_t back = 0;
  size_t n;

  if (sb_parse_size (sb_size_format (max, text, sizeof text), UINT64_MAX,
                     &back) != 0 || back != max)
    abort ();
  n = strlen (sb_size_expected (max & 1, max, words, sizeof words));
  if (n == 0 || n >= sizeof words - 1)
    abort ();
  for (size_t i = 0; i < n; i++)
    if (words[i] < 0x20 || words[i] >= 0x7f)
      abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char text[MAX_TEXT + 1];
  uint64_t max = UINT64_MAX, got = 0xdeadbeef;
  size_t n;
  struct expect want;
  int r;

  if (size >= sizeof max) {
    memcpy (&max, data, sizeof max);
    data += sizeof max;
    size -= sizeof max;
  }
  n = size < MAX_TEXT ? size : MAX_TEXT;
  memcpy (text, data, n);
  text[n] = '\0';

  errno = 0;
  r = sb_parse_size (text, max, &got);
  want = oracle (text, max);
  if (want.err == 0 && (r != 0 || got != want.value))
    abort ();
  if (want.err != 0 && (r != -1 || errno != want.err || got != 0xdeadbeef))
    abort ();
  check_writers (max);
  return 0;
}
