/* SPDX-License-Identifier: MIT */
/* Unit tests for sb_escape: one printable line whatever the input. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "escape.h"

/* Escape LEN bytes of DATA into a buffer of SIZE bytes (at most 64) and
 * compare with EXPECTED; the byte after the buffer must stay untouched.
 */
static void
expect_escape (const char *what, const void *data, size_t len, size_t size,
               const char *expected)
{
  char buf[65];
  const char *r;

  memset (buf, '#', sizeof buf);
  r = sb_escape (buf, size, data, len);
  TAP_OK (r == buf && strcmp (buf, expected) == 0 && buf[size] == '#',
          "%s: \"%s\" (want \"%s\")", what, r, expected);
}

static void
test_every_byte (void)
{
  unsigned char all[256];
  char buf[SB_ESCAPE_SIZE (sizeof all)];
  size_t i;
  int ok = 1;

  for (i = 0; i < sizeof all; i++)
    all[i] = (unsigned char) i;
  sb_escape (buf, sizeof buf, all, sizeof all);
  TAP_OK (tap_printable (buf), "all 256 byte values escape to printable ASCII");
  for (i = 0; i < sizeof all; i++) {
    char one[SB_ESCAPE_SIZE (1)];
    sb_escape (one, sizeof one, &all[i], 1);
    ok &= strlen (one) >= 1 && tap_printable (one);
  }
  TAP_OK (ok, "each byte alone fits SB_ESCAPE_SIZE (1) and is printable");
}

static void
test_truncation (void)
{
  expect_escape ("fits exactly", "abc", 3, 4, "abc");
  expect_escape ("one byte too many", "abcd", 4, 4, "...");
  expect_escape ("cut with mark", "abcdefgh", 8, 7, "abc...");
  expect_escape ("escape never split", "ab\ncd", 5, 6, "ab...");
  expect_escape ("hex escape never split", "a\x1b[31m", 6, 8, "a...");
  expect_escape ("whole escapes then cut", "\x1b\x1b\x1b", 3, 12,
                 "\\x1b\\x1b...");
  expect_escape ("tiny buffer, 3", "abcdef", 6, 3, "..");
  expect_escape ("tiny buffer, 2", "abcdef", 6, 2, ".");
  expect_escape ("tiny buffer, 1", "abcdef", 6, 1, "");
  expect_escape ("empty input, tiny buffer", "", 0, 1, "");
  TAP_OK (strcmp (sb_escape (NULL, 0, "abc", 3), "") == 0,
          "size 0 returns \"\" and writes nothing");
}

/* For every buffer size, the output is the whole escape when it fits,
 * else a prefix ending on an escape boundary followed by (as much as fits
 * of) the mark: never a dangling backslash or half a \xHH.
 */
static void
test_every_size (void)
{
  static const char input[] = "a\n\x1b[0m\\\"z\xff";
  static const char full[] = "a\\n\\x1b[0m\\\\\\\"z\\xff";
  static const size_t boundaries[] = { 0, 1, 3, 7, 8, 9, 10, 12, 14, 15, 19 };
  size_t size, b;
  int ok = 1;

  for (size = 1; size <= sizeof full + 1; size++) {
    char buf[64];
    size_t len, cut = 0;

    sb_escape (buf, size, input, sizeof input - 1);
    len = strlen (buf);
    if (size >= sizeof full) {
      ok &= strcmp (buf, full) == 0;
      continue;
    }
    for (b = 0; b < sizeof boundaries / sizeof *boundaries; b++)
      if (boundaries[b] + 4 <= size)
        cut = boundaries[b];
    ok &= len < size && strncmp (buf, full, cut) == 0
          && strncmp (buf + cut, "...", len - cut) == 0
          && len - cut == (size - 1 - cut < 3 ? size - 1 - cut : 3);
  }
  TAP_OK (ok, "every buffer size cuts on an escape boundary and marks it");
}

int
main (void)
{
  char buf[64];

  expect_escape ("plain text", "bogus", 5, 64, "bogus");
  expect_escape ("empty", "", 0, 64, "");
  expect_escape ("NULL data, length 0", NULL, 0, 64, "");
  expect_escape ("newline", "a\nb", 3, 64, "a\\nb");
  expect_escape ("tab and carriage return", "\t\r", 2, 64, "\\t\\r");
  expect_escape ("terminal escape", "\x1b[2J", 4, 64, "\\x1b[2J");
  expect_escape ("backslash and quotes", "\\'\"", 3, 64, "\\\\\\'\\\"");
  expect_escape ("embedded NUL", "a\0b", 3, 64, "a\\x00b");
  expect_escape ("DEL", "\x7f", 1, 64, "\\x7f");
  expect_escape ("UTF-8 and C1 CSI", "\xc3\xa9\x9b", 3, 64,
                 "\\xc3\\xa9\\x9b");
  expect_escape ("cron line", "x\n* * * * * root sh\n", 20, 64,
                 "x\\n* * * * * root sh\\n");
  test_every_byte ();
  test_truncation ();
  test_every_size ();

  TAP_OK (strcmp (sb_escape_str (buf, sizeof buf, "2M\n"), "2M\\n") == 0,
          "sb_escape_str escapes a C string");
  TAP_OK (strcmp (sb_escape_str (buf, sizeof buf, NULL), "(null)") == 0,
          "sb_escape_str of NULL is (null)");
  errno = 1234;
  sb_escape_str (buf, sizeof buf, "\x01");
  TAP_OK (errno == 1234, "errno is left alone");
  return tap_done ();
}
