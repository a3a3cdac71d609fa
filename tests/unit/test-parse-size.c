/* SPDX-License-Identifier: MIT */
/* Unit tests for sb_parse_size. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "parse-size.h"

static void
expect_value (const char *text, uint64_t max, uint64_t expected)
{
  uint64_t got = 12345;
  int r = sb_parse_size (text, max, &got);
  TAP_OK (r == 0 && got == expected, "\"%s\" parses as %llu", text,
          (unsigned long long) expected);
}

static void
expect_error (const char *text, uint64_t max, int expected_errno)
{
  uint64_t got = 12345;
  int r;

  errno = 0;
  r = sb_parse_size (text, max, &got);
  TAP_OK (r == -1 && errno == expected_errno && got == 12345,
          "\"%s\" is refused with %s", text,
          expected_errno == EINVAL ? "EINVAL" : "ERANGE");
}

static void
expect_format (uint64_t size, const char *expected)
{
  char buf[SB_SIZE_TEXT_SIZE];

  sb_size_format (size, buf, sizeof buf);
  TAP_OK (strcmp (buf, expected) == 0, "%llu is written %s (got %s)",
          (unsigned long long) size, expected, buf);
}

static void
expect_words (uint64_t min, uint64_t max, const char *expected)
{
  char buf[SB_SIZE_EXPECTED_SIZE];

  sb_size_expected (min, max, buf, sizeof buf);
  TAP_OK (strcmp (buf, expected) == 0, "sizes %llu to %llu: \"%s\" (got "
          "\"%s\")", (unsigned long long) min, (unsigned long long) max,
          expected, buf);
}

/* The size message's words, the same for every range. */
static void
test_expected (void)
{
  expect_format (32 << 20, "32M");
  expect_format (UINT64_C (1) << 62, "4194304T");
  expect_format (1000, "1000");
  expect_format (0, "0");
  expect_words (0, UINT64_C (1) << 30,
                "a size such as 2M or 4194304 (K, M or G; at most 1G)");
  expect_words (1, UINT64_MAX,
                "a size such as 2M or 4194304 (K, M, G or T; at least 1)");
  expect_words (1, 32 << 20,
                "a size such as 2M or 4194304 (K or M; from 1 to 32M)");
  expect_words (0, UINT64_MAX, "a size such as 2M or 4194304 (K, M, G or T)");
  expect_words (0, UINT64_C (1) << 62,
                "a size such as 2M or 4194304 (K, M, G or T; at most "
                "4194304T)");
  expect_words (4096, 100000, "a size such as 2M or 4194304 (K; from 4K to "
                "100000)");
}

int
main (void)
{
  test_expected ();
  expect_value ("0", UINT64_MAX, 0);
  expect_value ("4096", UINT64_MAX, 4096);
  expect_value ("2M", UINT64_MAX, 2 << 20);
  expect_value ("2m", UINT64_MAX, 2 << 20);
  expect_value ("64K", UINT64_MAX, 64 << 10);
  expect_value ("1G", UINT64_MAX, UINT64_C(1) << 30);
  expect_value ("3T", UINT64_MAX, UINT64_C(3) << 40);
  expect_value ("18446744073709551615", UINT64_MAX, UINT64_MAX);
  expect_value ("1024", 1024, 1024);

  expect_error ("", UINT64_MAX, EINVAL);
  expect_error ("abc", UINT64_MAX, EINVAL);
  expect_error ("-5", UINT64_MAX, EINVAL);
  expect_error ("+5", UINT64_MAX, EINVAL);
  expect_error (" 5", UINT64_MAX, EINVAL);
  expect_error ("5 ", UINT64_MAX, EINVAL);
  expect_error ("2Q", UINT64_MAX, EINVAL);
  expect_error ("2MB", UINT64_MAX, EINVAL);
  expect_error ("M", UINT64_MAX, EINVAL);
  expect_error ("0x10", UINT64_MAX, EINVAL);
  expect_error ("18446744073709551616", UINT64_MAX, ERANGE);
  expect_error ("99999999999999999999", UINT64_MAX, ERANGE);
  expect_error ("16777216T", UINT64_MAX, ERANGE);
  expect_error ("1025", 1024, ERANGE);
  expect_error ("99999999999999", INT32_MAX, ERANGE);

  TAP_OK (sb_parse_size (NULL, 1, &(uint64_t){0}) == -1 && errno == EINVAL,
          "NULL is refused with EINVAL");
  return tap_done ();
}
