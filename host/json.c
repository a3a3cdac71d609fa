/* SPDX-License-Identifier: MIT */
/* JSON strings for sb-host's output (json.h). */
#include <stdio.h>

#include "json.h"

void
sb_host_json_string (const char *s)
{
  putchar ('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char) *s;
    if (c == '"' || c == '\\')
      printf ("\\%c", c);
    else if (c < 0x20 || c >= 0x7f)
      printf ("\\u%04x", c);
    else
      putchar (c);
  }
  putchar ('"');
}

void
sb_host_json_bool (int b)
{
  fputs (b ? "true" : "false", stdout);
}
