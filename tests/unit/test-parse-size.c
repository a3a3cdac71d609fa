/* SPDX-License-Identifier: MIT */
/* Unit tests for sb_parse_size. */
#include <errno.h>
#include <stdint.h>

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

int
main (void)
{
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
