/* SPDX-License-Identifier: MIT */
/* Command-line argument checks that explain themselves. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "escape.h"
#include "parse-size.h"
#include "report.h"

/* An option quoted in a complaint is cut (and marked "...") beyond this
 * many bytes: enough to recognise it, short enough for one line.
 */
#define QUOTE_MAX 64

int
sb_arg_size (const char *text, uint64_t min, uint64_t max, uint64_t *value,
             char *why, size_t why_len)
{
  char lo[SB_SIZE_TEXT_SIZE], hi[SB_SIZE_TEXT_SIZE];
  char expected[SB_SIZE_EXPECTED_SIZE];

  if (sb_parse_size (text, max, value) == 0 && *value >= min)
    return 0;
  if (sb_parse_size (text, UINT64_MAX, value) == -1 && errno == EINVAL) {
    snprintf (why, why_len, "not a size: expected %s",
              sb_size_expected (min, max, expected, sizeof expected));
    return -1;
  }
  snprintf (why, why_len, "out of range (%s to %s)",
            sb_size_format (min, lo, sizeof lo),
            sb_size_format (max, hi, sizeof hi));
  return -1;
}

int
sb_arg_count (const char *text, int base, unsigned long min,
              unsigned long max, unsigned long *value, char *why,
              size_t why_len)
{
  const char *digits = base == 8 ? "01234567" : "0123456789";
  size_t n = strspn (text, digits);
  bool ranged;

  if (n == 0 || text[n] != '\0') {
    snprintf (why, why_len, "not a%s number", base == 8 ? "n octal" : "");
    return -1;
  }
  errno = 0;
  *value = strtoul (text, NULL, base);
  ranged = errno == 0 && *value >= min && *value <= max;
  if (ranged)
    return 0;
  snprintf (why, why_len, base == 8 ? "out of range (%lo to %lo)"
            : "out of range (%lu to %lu)", min, max);
  return -1;
}

unsigned long
sb_option_count (const char *option, const char *text, unsigned long min,
                 unsigned long max)
{
  char why[SB_ARG_WHY_SIZE], shown[SB_ESCAPE_SIZE (QUOTE_MAX)];
  unsigned long v;

  if (sb_arg_count (text, 10, min, max, &v, why, sizeof why) == -1)
    sb_usage_error ("%s %s: %s", option,
                    sb_escape_str (shown, sizeof shown, text), why);
  return v;
}

uint64_t
sb_option_size (const char *option, const char *text, uint64_t max)
{
  char shown[SB_ESCAPE_SIZE (QUOTE_MAX)], expected[SB_SIZE_EXPECTED_SIZE];
  uint64_t v;

  if (sb_parse_size (text, max, &v) == -1 || v == 0)
    sb_usage_error ("%s: invalid size '%s': expected %s", option,
                    sb_escape_str (shown, sizeof shown, text),
                    sb_size_expected (1, max, expected, sizeof expected));
  return v;
}

/* The option as the user typed it, escaped: "--name" without "=value",
 * or "-c".
 */
static void
typed_option (const char *elem, int opt, char *buf, size_t len)
{
  char c = (char) opt;

  if (strncmp (elem, "--", 2) == 0) {
    sb_escape (buf, len, elem, strcspn (elem, "="));
    return;
  }
  buf[0] = '-';
  sb_escape (buf + 1, len - 1, &c, 1);
}

void
sb_arg_getopt_complaint (int c, char *const *argv, const char *optstring,
                         char *why, size_t why_len)
{
  /* After an error getopt has moved optind past the bad element, except
   * for an unknown short option inside a cluster, where optopt says it.
   */
  const char *elem = argv[optind - 1];
  char name[SB_ESCAPE_SIZE (QUOTE_MAX)];
  bool known = optopt >= 256
    || (optopt > 0 && optopt != ':' && strchr (optstring, optopt) != NULL);

  if (c == ':') {
    typed_option (elem, optopt, name, sizeof name);
    snprintf (why, why_len, "option '%s' needs an argument", name);
  }
  else if (optopt == 0) {
    sb_escape_str (name, sizeof name, elem);
    snprintf (why, why_len, "unknown or ambiguous option '%s'", name);
  }
  else if (known) {
    typed_option (elem, optopt, name, sizeof name);
    snprintf (why, why_len, "option '%s' takes no argument", name);
  }
  else {
    typed_option ("-", optopt, name, sizeof name);
    snprintf (why, why_len, "unknown option '%s'", name);
  }
}
