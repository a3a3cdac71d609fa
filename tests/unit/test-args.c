/* SPDX-License-Identifier: MIT */
/* Unit tests for the command-line argument checks. */
#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "args.h"

static void
expect_size_why (const char *text, uint64_t min, uint64_t max,
                 const char *why_expected)
{
  char why[SB_ARG_WHY_SIZE] = "";
  uint64_t v;
  int r = sb_arg_size (text, min, max, &v, why, sizeof why);

  TAP_OK (r == -1 && strcmp (why, why_expected) == 0,
          "size \"%s\": \"%s\" (got \"%s\")", text, why_expected, why);
}

static void
expect_count_why (const char *text, int base, unsigned long min,
                  unsigned long max, const char *why_expected)
{
  char why[SB_ARG_WHY_SIZE] = "";
  unsigned long v;
  int r = sb_arg_count (text, base, min, max, &v, why, sizeof why);

  TAP_OK (r == -1 && strcmp (why, why_expected) == 0,
          "count \"%s\": \"%s\" (got \"%s\")", text, why_expected, why);
}

static void
test_values (void)
{
  char why[SB_ARG_WHY_SIZE];
  uint64_t size = 0;
  unsigned long n = 0;

  TAP_OK (sb_arg_size ("2M", 1, UINT64_MAX, &size, why, sizeof why) == 0
          && size == 2 << 20, "2M is a size");
  TAP_OK (sb_arg_count ("0644", 8, 0, 0777, &n, why, sizeof why) == 0
          && n == 0644, "0644 is an octal mode");
  TAP_OK (sb_arg_count ("64", 10, 1, 64, &n, why, sizeof why) == 0 && n == 64,
          "64 is the largest count allowed");
  TAP_OK (sb_option_count ("--n", "64", 1, 64) == 64,
          "an option's count, within its range");
}

static void
test_complaints (void)
{
  static const char forms[] = "not a size: expected a size such as 2M or "
    "4194304 (K, M, G or T)";

  expect_size_why ("5Q", 0, UINT64_MAX, forms);
  expect_size_why ("", 0, UINT64_MAX, forms);
  expect_size_why ("-1", 0, UINT64_MAX, forms);
  expect_size_why ("2X", 1, 32 << 20, "not a size: expected a size such as "
                   "2M or 4194304 (K or M; from 1 to 32M)");
  expect_size_why ("33M", 1, 32 << 20, "out of range (1 to 32M)");
  expect_size_why ("0", 1, 32 << 20, "out of range (1 to 32M)");
  expect_size_why ("99999999999999999999", 0, 100,
                   "out of range (0 to 100)");
  expect_count_why ("0", 10, 1, 64, "out of range (1 to 64)");
  expect_count_why ("1K", 10, 1, 64, "not a number");
  expect_count_why (" 1", 10, 1, 64, "not a number");
  expect_count_why ("99999999999999999999999", 10, 1, 64,
                    "out of range (1 to 64)");
  expect_count_why ("8", 8, 0, 0777, "not an octal number");
  expect_count_why ("1000", 8, 0, 0777, "out of range (0 to 777)");
}

static const struct option long_options[] = {
  { "port", required_argument, NULL, 'p' },
  { "quiet", no_argument, NULL, 'q' },
  { "json", no_argument, NULL, 256 },
  { NULL, 0, NULL, 0 },
};

/* Run getopt over "prog ARG" and check its complaint. */
static void
expect_getopt (const char *arg, const char *why_expected)
{
  char why[SB_ARG_WHY_SIZE] = "", prog[] = "prog", copy[64];
  char *argv[] = { prog, copy, NULL };
  int c;

  snprintf (copy, sizeof copy, "%s", arg);
  optind = 0;
  opterr = 0;
  while ((c = getopt_long (2, argv, ":p:q", long_options, NULL)) != -1)
    if (c == '?' || c == ':') {
      sb_arg_getopt_complaint (c, argv, ":p:q", why, sizeof why);
      break;
    }
  TAP_OK (strcmp (why, why_expected) == 0, "getopt %s: \"%s\" (got \"%s\")",
          arg, why_expected, why);
}

static void
test_getopt (void)
{
  expect_getopt ("--bogus", "unknown or ambiguous option '--bogus'");
  expect_getopt ("-x", "unknown option '-x'");
  expect_getopt ("-qxq", "unknown option '-x'");
  expect_getopt ("-qp", "option '-p' needs an argument");
  expect_getopt ("--port", "option '--port' needs an argument");
  expect_getopt ("--po", "option '--po' needs an argument");
  expect_getopt ("--quiet=1", "option '--quiet' takes no argument");
  expect_getopt ("--json=x", "option '--json' takes no argument");
}

int
main (void)
{
  test_values ();
  test_complaints ();
  test_getopt ();
  return tap_done ();
}
