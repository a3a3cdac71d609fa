/* SPDX-License-Identifier: MIT */
/* Every line sbnbd-server writes to stderr goes through here. */
#include <stdarg.h>
#include <stdio.h>

#include "server.h"

/* Room for the longest message: an export name of NBD_MAX_STRING bytes
 * is cut, never split over lines.
 */
#define LINE_MAX_BYTES 1024

void
message_v (const char *fmt, va_list ap)
{
  char line[LINE_MAX_BYTES];

  vsnprintf (line, sizeof line, fmt, ap);
  /* One call per line so that threads do not interleave. */
  fprintf (stderr, "%s: %s\n", PROGRAM, line);
}

void
message (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  message_v (fmt, ap);
  va_end (ap);
}
