/* SPDX-License-Identifier: MIT */
/* libbpf's messages (bpf-log.h): the last verifier log, the last
 * program named and the last warning are kept, and read by
 * verifier-log.c when a load fails.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "bpf-log.h"
#include "escape.h"
#include "verifier-log.h"

static int verbose;
static char *last_log;          /* the last message of several lines */
static char last_program[64];   /* the last program a warning named */
static char last_warning[512];  /* the last warning's last line */

static void
show (const char *message)
{
  char shown[SB_ESCAPE_SIZE (512)];
  const char *line = message;

  while (*line != '\0') {
    size_t len = strcspn (line, "\n");
    if (len > 0)
      fprintf (stderr, "sockboost host: libbpf: %s\n",
               sb_escape (shown, sizeof shown, line, len < 512 ? len : 512));
    line += len + (line[len] == '\n');
  }
}

/* Whether TEXT has a line after its first: a log, not a warning. */
static int
several_lines (const char *text)
{
  const char *newline = strchr (text, '\n');

  return newline != NULL && newline[1] != '\0';
}

static int
message (enum libbpf_print_level level, const char *fmt, va_list ap)
{
  char *text = NULL, program[sizeof last_program];

  if ((level == LIBBPF_DEBUG && verbose < 2) || vasprintf (&text, fmt, ap) < 0)
    return 0;
  if (verbose)
    show (text);
  if (level == LIBBPF_WARN &&
      sb_host_libbpf_program (text, program, sizeof program) == 0)
    memcpy (last_program, program, sizeof last_program);
  if (level == LIBBPF_WARN && several_lines (text)) {
    free (last_log);
    last_log = text;
    return 0;
  }
  if (level == LIBBPF_WARN)
    sb_host_verifier_reason (text, last_warning, sizeof last_warning);
  free (text);
  return 0;
}

void
sb_host_libbpf_messages (int v)
{
  verbose = v;
  libbpf_set_print (message);
}

void
sb_host_bpf_log_reset (void)
{
  free (last_log);
  last_log = NULL;
  last_program[0] = last_warning[0] = '\0';
}

const char *
sb_host_bpf_log_reason (char *buf, size_t size)
{
  if (size == 0)
    return buf;
  if (last_log == NULL || sb_host_verifier_reason (last_log, buf, size) == -1)
    snprintf (buf, size, "%s", last_warning);
  return buf;
}

const char *
sb_host_bpf_log_program (void)
{
  return last_program;
}
