/* SPDX-License-Identifier: MIT */
/* JSON values for the programs' --json output (json.h). */
#include <stdio.h>

#include "json.h"

/* The length of the well-formed UTF-8 sequence at S (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0.
 */
static size_t
utf8_sequence (const unsigned char *s)
{
  size_t n, i;
  unsigned lo = 0x80, hi = 0xbf;

  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    n = 2;
  else if (s[0] >= 0xe0 && s[0] <= 0xef) {
    n = 3;
    if (s[0] == 0xe0)
      lo = 0xa0;
    else if (s[0] == 0xed)
      hi = 0x9f;
  }
  else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
    n = 4;
    if (s[0] == 0xf0)
      lo = 0x90;
    else if (s[0] == 0xf4)
      hi = 0x8f;
  }
  else
    return 0;
  for (i = 1; i < n; i++) {
    if (s[i] < lo || s[i] > hi)
      return 0;
    lo = 0x80, hi = 0xbf;
  }
  return n;
}

void
sb_json_string (FILE *f, const char *text)
{
  const unsigned char *s = (const unsigned char *) text;
  size_t n;

  putc ('"', f);
  while (*s) {
    if (*s == '"' || *s == '\\')
      fprintf (f, "\\%c", *s++);
    else if (*s < 0x20 || *s == 0x7f)
      fprintf (f, "\\u%04x", *s++);
    else if (*s < 0x80)
      putc (*s++, f);
    else if ((n = utf8_sequence (s)) > 0) {
      fwrite (s, 1, n, f);
      s += n;
    }
    else {
      fputs ("\\ufffd", f);
      s++;
    }
  }
  putc ('"', f);
}

void
sb_json_bool (FILE *f, int b)
{
  fputs (b ? "true" : "false", f);
}
