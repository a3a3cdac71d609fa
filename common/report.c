/* SPDX-License-Identifier: MIT */
/* The one stderr printer of sbnbd-server, sbnbd-client, sockboost attach
 * and the benchmark helpers (common/report.h says how to call it).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "report.h"

static const char *program_name;

void
sb_set_program_name (const char *name)
{
  program_name = name;
}

const char *
sb_program_name (void)
{
  return program_name ? program_name : program_invocation_short_name;
}

/* Copy IN to OUT (SIZE bytes, SIZE > 0) with each control character,
 * DEL included, escaped as sb_escape does; cut if OUT is too small.
 */
static void
escape_controls (char *out, size_t size, const char *in)
{
  size_t n = 0;

  for (; *in != '\0'; in++) {
    unsigned char byte = (unsigned char) *in;
    char one[SB_ESCAPE_SIZE (1)] = { *in, '\0' };
    size_t len;

    if (byte < 0x20 || byte == 0x7f)
      sb_escape (one, sizeof one, in, 1);
    len = strlen (one);
    if (n + len >= size)
      break;
    memcpy (out + n, one, len);
    n += len;
  }
  out[n] = '\0';
}

const char *
sb_format_message (char *buf, size_t size, const char *fmt, va_list ap)
{
  char raw[SB_MESSAGE_MAX];
  int len = vsnprintf (raw, sizeof raw, fmt, ap);

  if (len < 0)
    snprintf (raw, sizeof raw, "(unprintable message)");
  else if ((size_t) len >= sizeof raw)
    memcpy (raw + sizeof raw - 4, "...", 4);
  if (size > 0)
    escape_controls (buf, size, raw);
  return size > 0 ? buf : "";
}

void
sb_verror (const char *fmt, va_list ap)
{
  char line[SB_MESSAGE_LINE_SIZE];
  int saved = errno;

  sb_format_message (line, sizeof line, fmt, ap);
  /* One call, so that lines from several threads do not interleave. */
  fprintf (stderr, "%s: %s\n", sb_program_name (), line);
  errno = saved;
}

void
sb_error (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  sb_verror (fmt, ap);
  va_end (ap);
}

void
sb_usage_error (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  sb_verror (fmt, ap);
  va_end (ap);
  fprintf (stderr, "Try '%s --help' for more information.\n",
           sb_program_name ());
  exit (2);
}

void
sb_die (const char *what)
{
  sb_error ("%s: %s", what, strerror (errno));
  exit (1);
}
