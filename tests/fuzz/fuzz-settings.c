/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the library's settings parser (rules/settings.c):
 * the input is split at NUL bytes (the one byte an environment value
 * cannot hold) into the values of the SOCKBOOST_* variables, in the
 * parser's own order (a missing value leaves the variable unset).  Whatever the text, the result must be a
 * usable configuration, and the warning and settings lines made from it
 * one line of printable ASCII.  In secure-execution mode the environment
 * must not even be read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define MAX_VARS 32

static size_t nvars;
static const char *names[MAX_VARS];
static char *values[MAX_VARS];

/* The parser's variables, as it lists them. */
static void
list_names (void)
{
  char expected[SB_EXPECTED_SIZE];
  const char *default_text;

  while ((names[nvars] = sb_config_variable (nvars, &default_text,
                                             expected)) != NULL)
    if (++nvars == MAX_VARS)
      abort ();
}

static const char *
lookup (const char *name)
{
  for (size_t i = 0; i < nvars; i++)
    if (strcmp (name, names[i]) == 0)
      return values[i];
  /* The parser must ask only for its own variables. */
  abort ();
}

static const char *
lookup_forbidden (const char *name)
{
  (void) name;
  abort ();
}

/* Each value in its own allocation, so ASan sees a read past its end. */
static void
split_values (const uint8_t *data, size_t size)
{
  size_t i = 0;

  while (i < nvars && size > 0) {
    const uint8_t *end = memchr (data, '\0', size);
    size_t n = end ? (size_t) (end - data) : size;
    values[i] = strndup ((const char *) data, n);
    if (values[i] == NULL)
      abort ();
    i++;
    data += end ? n + 1 : n;
    size -= end ? n + 1 : n;
  }
}

/* TEXT is one line of printable ASCII, shorter than its buffer. */
static void
check_line (const char *text, size_t size)
{
  size_t n = strlen (text);

  if (n == 0 || n >= size)
    abort ();
  for (size_t i = 0; i < n; i++)
    if ((unsigned char) text[i] < 0x20 || (unsigned char) text[i] >= 0x7f)
      abort ();
}

/* Secure execution: the defaults of an empty environment, silent. */
static void
check_secure (void)
{
  struct sb_config c, defaults;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];

  for (size_t i = 0; i < nvars; i++)
    values[i] = NULL;
  if (sb_config_parse (&defaults, 0, lookup, w) != 0)
    abort ();
  if (sb_config_parse (&c, 1, lookup_forbidden, w) != 0 || !c.secure
      || c.debug != SB_LOG_SILENT || c.log_file != NULL || c.stats
      || c.sndbuf != defaults.sndbuf || c.force != defaults.force
      || c.nodelay != defaults.nodelay || c.cork != defaults.cork
      || c.scope != defaults.scope)
    abort ();
}

static void
check (const struct sb_config *c, const struct sb_config_warning *w, int nw)
{
  if (c->sndbuf > SB_SNDBUF_MAX || c->debug < SB_LOG_SILENT
      || c->debug > SB_LOG_TRACE || (c->nodelay != 0 && c->nodelay != 1)
      || (c->cork != 0 && c->cork != 1) || (c->stats != 0 && c->stats != 1)
      || c->force < SB_FORCE_AUTO || c->force > SB_FORCE_OFF
      || c->scope < SB_SCOPE_ALL || c->scope > SB_SCOPE_NBD)
    abort ();
  if (nw < 0 || nw > SB_CONFIG_MAX_WARNINGS)
    abort ();
  for (int i = 0; i < nw; i++) {
    char text[512];
    if (w[i].name == NULL || w[i].value == NULL
        || lookup (w[i].name) != w[i].value)
      abort ();
    check_line (w[i].expected, sizeof w[i].expected);
    check_line (sb_config_warning_text (&w[i], text, sizeof text),
                sizeof text);
  }
  if (c->log_file != NULL && c->log_file != lookup ("SOCKBOOST_LOG_FILE"))
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct sb_config c;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  char text[512];
  int nw;

  if (nvars == 0)
    list_names ();
  split_values (data, size);
  nw = sb_config_parse (&c, 0, lookup, w);
  check (&c, w, nw);
  check_line (sb_config_describe (&c, text, sizeof text), sizeof text);
  for (size_t i = 0; i < nvars; i++)
    free (values[i]);
  check_secure ();
  return 0;
}
