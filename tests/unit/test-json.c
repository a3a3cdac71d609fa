/* SPDX-License-Identifier: MIT */
/* Unit tests for sb_json_string and sb_json_bool: valid JSON, UTF-8 kept. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "json.h"

/* Print S with sb_json_string and compare with EXPECTED. */
static void
expect_json (const char *what, const char *s, const char *expected)
{
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&out, &len);

  if (f == NULL) {
    TAP_OK (0, "%s: open_memstream failed", what);
    return;
  }
  sb_json_string (f, s);
  fclose (f);
  TAP_OK (strcmp (out, expected) == 0, "%s: %s (want %s)", what, out, expected);
  free (out);
}

int
main (void)
{
  char *out = NULL;
  size_t len = 0;
  FILE *f;

  expect_json ("plain ASCII", "/sys/fs/cgroup/machine.slice",
               "\"/sys/fs/cgroup/machine.slice\"");
  expect_json ("quote and backslash", "a\"b\\c", "\"a\\\"b\\\\c\"");
  expect_json ("controls and DEL", "a\nb\tc\x7f", "\"a\\u000ab\\u0009c\\u007f\"");
  expect_json ("UTF-8 kept as it is", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe",
               "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe\"");
  expect_json ("a lone high byte", "a\xe9z", "\"a\\ufffdz\"");
  expect_json ("an overlong form", "\xc0\xaf", "\"\\ufffd\\ufffd\"");
  expect_json ("a surrogate", "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
  expect_json ("above U+10FFFF", "\xf4\x90\x80\x80",
               "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
  expect_json ("a sequence cut short", "\xe2\x82", "\"\\ufffd\\ufffd\"");
  expect_json ("empty", "", "\"\"");

  f = open_memstream (&out, &len);
  if (f != NULL) {
    sb_json_bool (f, 1);
    fputc (' ', f);
    sb_json_bool (f, 0);
    fclose (f);
    TAP_OK (strcmp (out, "true false") == 0, "booleans: %s", out);
    free (out);
  }
  return tap_done ();
}
