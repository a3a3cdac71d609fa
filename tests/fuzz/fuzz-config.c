/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the library's environment parser: the input is
 * split at NUL bytes (the one byte an environment value cannot hold) into
 * the values of the SOCKBOOST_* variables, in order (a missing value
 * leaves the variable unset).  Whatever the text, the result must be a
 * usable configuration, and the warning and settings lines made from it
 * one line of printable ASCII.  In secure-execution mode the environment
 * must not even be read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const char *const names[] = {
  "SOCKBOOST_SNDBUF", "SOCKBOOST_FORCE", "SOCKBOOST_NODELAY",
  "SOCKBOOST_CORK", "SOCKBOOST_SCOPE", "SOCKBOOST_DEBUG", "SOCKBOOST_STATS",
  "SOCKBOOST_LOG_FILE",
};
#define NVARS (sizeof names / sizeof names[0])

static char *values[NVARS];

static const char *
lookup (const char *name)
{
  for (size_t i = 0; i < NVARS; i++)
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

  while (i < NVARS && size > 0) {
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

static void
check_secure (void)
{
  struct sb_config c;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];

  if (sb_config_parse (&c, 1, lookup_forbidden, w) != 0 || !c.secure
      || c.debug != SB_LOG_SILENT || c.log_file != NULL || c.stats
      || c.sndbuf != SB_SNDBUF_DEFAULT)
    abort ();
}

static void
check (const struct sb_config *c, const struct sb_config_warning *w, int nw)
{
  if (c->sndbuf > SB_SNDBUF_MAX || c->debug < SB_LOG_SILENT
      || c->debug > SB_LOG_TRACE || (c->nodelay != 0 && c->nodelay != 1)
      || (c->cork != 0 && c->cork != 1) || (c->stats != 0 && c->stats != 1)
      || c->force > SB_FORCE_OFF || c->scope > SB_SCOPE_NBD)
    abort ();
  if (nw < 0 || nw > SB_CONFIG_MAX_WARNINGS)
    abort ();
  for (int i = 0; i < nw; i++) {
    char text[512];
    if (w[i].name == NULL || w[i].value == NULL || w[i].expected == NULL
        || lookup (w[i].name) != w[i].value)
      abort ();
    check_line (sb_config_warning_text (&w[i], text, sizeof text),
                sizeof text);
  }
  if (c->log_file != NULL && c->log_file != values[NVARS - 1])
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct sb_config c;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  char text[512];
  int nw;

  split_values (data, size);
  nw = sb_config_parse (&c, 0, lookup, w);
  check (&c, w, nw);
  check_line (sb_config_describe (&c, text, sizeof text), sizeof text);
  check_secure ();
  for (size_t i = 0; i < NVARS; i++) {
    free (values[i]);
    values[i] = NULL;
  }
  return 0;
}
