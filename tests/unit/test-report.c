/* SPDX-License-Identifier: MIT */
/* Unit tests for the programs' one stderr printer: "PROGRAM: MESSAGE" as
 * one line whatever the message holds, errno kept.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "report.h"

static const char *
format (char *buf, size_t size, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  sb_format_message (buf, size, fmt, ap);
  va_end (ap);
  return buf;
}

static void
test_controls_escaped (void)
{
  char buf[SB_MESSAGE_LINE_SIZE];

  format (buf, sizeof buf, "open %s: %s", "a\nb\033[2J\x7f", "gone");
  TAP_OK (strcmp (buf, "open a\\nb\\x1b[2J\\x7f: gone") == 0,
          "control characters and DEL are escaped: \"%s\"", buf);
  format (buf, sizeof buf, "already escaped: %s", "a\\x1b 'q' \xc3\xa9");
  TAP_OK (strcmp (buf, "already escaped: a\\x1b 'q' \xc3\xa9") == 0,
          "text without control characters is kept as it is");
  format (buf, 8, "%s", "tab\there");
  TAP_OK (strcmp (buf, "tab\\the") == 0,
          "a small buffer cuts after a whole escape: \"%s\"", buf);
}

static void
test_long_message_cut (void)
{
  char buf[SB_MESSAGE_LINE_SIZE], *big = malloc (3 * SB_MESSAGE_MAX);
  size_t len;

  memset (big, '\n', 3 * SB_MESSAGE_MAX - 1);
  big[3 * SB_MESSAGE_MAX - 1] = '\0';
  format (buf, sizeof buf, "%s", big);
  len = strlen (buf);
  TAP_OK (len == 2 * (SB_MESSAGE_MAX - 4) + 3
          && strcmp (buf + len - 3, "...") == 0 && tap_printable (buf),
          "a message past SB_MESSAGE_MAX is cut and ends in \"...\" "
          "(%zu bytes)", len);
  free (big);
}

/* What sb_error writes to stderr, read back from a temporary file. */
static void
test_line_and_errno (void)
{
  FILE *f = tmpfile ();
  int saved = dup (2);
  char line[256] = "";

  sb_set_program_name ("prog name");
  dup2 (fileno (f), 2);
  errno = EPIPE;
  sb_error ("%s: %m", "write");
  TAP_OK (errno == EPIPE, "sb_error keeps errno");
  sb_error ("second");
  dup2 (saved, 2);
  close (saved);
  rewind (f);
  TAP_OK (fgets (line, sizeof line, f) != NULL
          && strcmp (line, "prog name: write: Broken pipe\n") == 0,
          "one line, PROGRAM first, %%m from the caller's errno");
  TAP_OK (fgets (line, sizeof line, f) != NULL
          && strcmp (line, "prog name: second\n") == 0
          && fgets (line, sizeof line, f) == NULL, "one line per call");
  fclose (f);
}

static void
test_default_name (void)
{
  sb_set_program_name (NULL);
  TAP_OK (strcmp (sb_program_name (), "test-report") == 0,
          "without a name set, the name the program was run by: \"%s\"",
          sb_program_name ());
}

int
main (void)
{
  test_default_name ();
  test_controls_escaped ();
  test_long_message_cut ();
  test_line_and_errno ();
  return tap_done ();
}
