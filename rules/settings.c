/* SPDX-License-Identifier: MIT */
/* The SOCKBOOST_* variables, one table row each: the parser, the warnings,
 * the settings line, the defaults and sb-config's list all read the table.
 * A bad value never stops the host program: it gets one warning and the
 * default.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "parse-size.h"
#include "settings.h"

/* How a variable's value is read. */
enum reader {
  READ_SNDBUF,                  /* a size up to SB_SNDBUF_MAX, or off */
  READ_WORD,                    /* one of WORDS, stored as its VALUE */
  READ_PATH,                    /* any text; empty for none */
};

struct variable {
  const char *name;
  const char *label;            /* its name in the settings line */
  enum reader reader;
  size_t field;                 /* where it goes in struct sb_config */
  const char *default_text;     /* the default, as the environment has it */
  const char *const *words;     /* READ_WORD: NULL-ended */
  const int *values;            /* READ_WORD: each word's value */
  const char *expected;         /* READ_WORD: what a value must be;
                                   READ_PATH: the settings line's word
                                   for none */
};

#define FIELD(f) offsetof (struct sb_config, f)
#define WORDS(...) (const char *const[]) { __VA_ARGS__, NULL }
#define VALUES(...) (const int[]) { __VA_ARGS__ }
#define BOOL WORDS ("0", "1", "off", "on", "no", "yes"), \
    VALUES (0, 1, 0, 1, 0, 1), "1 or 0"

/* In the order of the settings line (and of the warnings). */
static const struct variable variables[] = {
  { "SOCKBOOST_SNDBUF", "sndbuf", READ_SNDBUF, FIELD (sndbuf), "2M",
    NULL, NULL, NULL },
  { "SOCKBOOST_FORCE", "force", READ_WORD, FIELD (force), "auto",
    WORDS ("auto", "on", "off"),
    VALUES (SB_FORCE_AUTO, SB_FORCE_ON, SB_FORCE_OFF), "auto, on or off" },
  { "SOCKBOOST_NODELAY", "nodelay", READ_WORD, FIELD (nodelay), "1", BOOL },
  { "SOCKBOOST_CORK", "cork", READ_WORD, FIELD (cork), "auto",
    WORDS ("auto", "off"), VALUES (1, 0), "auto or off" },
  { "SOCKBOOST_SCOPE", "scope", READ_WORD, FIELD (scope), "all",
    WORDS ("all", "nbd"), VALUES (SB_SCOPE_ALL, SB_SCOPE_NBD), "all or nbd" },
  { "SOCKBOOST_STATS", "stats", READ_WORD, FIELD (stats), "0", BOOL },
  { "SOCKBOOST_DEBUG", "debug", READ_WORD, FIELD (debug), "1",
    WORDS ("0", "1", "2", "3"),
    VALUES (SB_LOG_SILENT, SB_LOG_WARN, SB_LOG_INFO, SB_LOG_TRACE),
    "0, 1, 2 or 3" },
  { "SOCKBOOST_LOG_FILE", "log", READ_PATH, FIELD (log_file), "",
    NULL, NULL, "stderr" },
};
#define NVARIABLES (sizeof variables / sizeof variables[0])
_Static_assert (NVARIABLES <= SB_CONFIG_MAX_WARNINGS,
                "room for a warning about each variable");

static void *
field_of (struct sb_config *c, const struct variable *v)
{
  return (char *) c + v->field;
}

static const void *
const_field_of (const struct sb_config *c, const struct variable *v)
{
  return (const char *) c + v->field;
}

/* What V's value must be, in EXPECTED. */
static void
expectation (const struct variable *v, char *expected)
{
  char size[SB_SIZE_EXPECTED_SIZE];

  if (v->reader == READ_SNDBUF)
    snprintf (expected, SB_EXPECTED_SIZE, "%s, or 0/off",
              sb_size_expected (0, SB_SNDBUF_MAX, size, sizeof size));
  else
    snprintf (expected, SB_EXPECTED_SIZE, "%s",
              v->reader == READ_WORD ? v->expected : "any text");
}

static int
read_sndbuf (const char *text, uint64_t *bytes)
{
  if (strcmp (text, "off") == 0) {
    *bytes = 0;
    return 0;
  }
  return sb_parse_size (text, SB_SNDBUF_MAX, bytes);
}

static int
read_word (const struct variable *v, const char *text, int *value)
{
  for (int i = 0; v->words[i]; i++)
    if (strcmp (text, v->words[i]) == 0) {
      *value = v->values[i];
      return 0;
    }
  return -1;
}

/* Set V in C from TEXT, which is not empty; -1 if TEXT is malformed. */
static int
read_value (struct sb_config *c, const struct variable *v, const char *text)
{
  switch (v->reader) {
  case READ_SNDBUF:
    return read_sndbuf (text, field_of (c, v));
  case READ_WORD:
    return read_word (v, text, field_of (c, v));
  case READ_PATH:
    *(const char **) field_of (c, v) = text;
    return 0;
  }
  return -1;
}

static const struct variable *
variable_named (const char *name)
{
  for (size_t i = 0; i < NVARIABLES; i++)
    if (strcmp (name, variables[i].name) == 0)
      return &variables[i];
  return NULL;
}

int
sb_config_set (struct sb_config *c, const char *name, const char *value,
               char *expected)
{
  const struct variable *v = variable_named (name);

  if (v == NULL) {
    snprintf (expected, SB_EXPECTED_SIZE, "no such variable");
    return -1;
  }
  if (*value == '\0' || read_value (c, v, value) == -1) {
    expectation (v, expected);
    return -1;
  }
  return 0;
}

/* C with every variable at its default. */
static void
set_defaults (struct sb_config *c)
{
  *c = (struct sb_config) { .wmem_max = -1 };
  for (size_t i = 0; i < NVARIABLES; i++)
    if (variables[i].default_text[0] == '\0')
      *(const char **) field_of (c, &variables[i]) = NULL;
    else
      (void) read_value (c, &variables[i], variables[i].default_text);
}

int
sb_config_parse (struct sb_config *c, int secure,
                 const char *(*lookup) (const char *),
                 struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS])
{
  int nw = 0;

  set_defaults (c);
  if (secure) {
    c->secure = 1;
    c->debug = SB_LOG_SILENT;
    return 0;
  }
  for (size_t i = 0; i < NVARIABLES; i++) {
    const struct variable *v = &variables[i];
    const char *text = lookup (v->name);

    if (text == NULL || *text == '\0' || read_value (c, v, text) == 0)
      continue;
    w[nw] = (struct sb_config_warning) { v->name, text, "" };
    expectation (v, w[nw++].expected);
  }
  c->watch_calls = c->stats || c->debug >= SB_LOG_TRACE;
  return nw;
}

const char *
sb_config_warning_text (const struct sb_config_warning *w, char *buf,
                        size_t size)
{
  char value[256];

  snprintf (buf, size, "ignoring %s='%s': expected %s; using the default",
            w->name, sb_escape_str (value, sizeof value, w->value),
            w->expected);
  return buf;
}

/* Append to BUF, which holds *N bytes of SIZE; a line cut short stays a
 * string.
 */
static __attribute__ ((format (printf, 4, 5))) void
append (char *buf, size_t size, size_t *n, const char *fmt, ...)
{
  va_list ap;
  int m;

  if (*n >= size)
    return;
  va_start (ap, fmt);
  m = vsnprintf (buf + *n, size - *n, fmt, ap);
  va_end (ap);
  if (m > 0)
    *n += (size_t) m;
}

/* V's value in C as the settings line shows it, appended to BUF. */
static void
append_value (char *buf, size_t size, size_t *n, const struct sb_config *c,
              const struct variable *v)
{
  const void *field = const_field_of (c, v);
  const char *path;
  char shown[256];
  int i = 0;

  switch (v->reader) {
  case READ_SNDBUF:
    append (buf, size, n, "%llu",
            (unsigned long long) *(const uint64_t *) field);
    return;
  case READ_WORD:
    while (v->words[i + 1] && v->values[i] != *(const int *) field)
      i++;
    append (buf, size, n, "%s", v->words[i]);
    return;
  case READ_PATH:
    path = *(const char *const *) field;
    if (path == NULL)
      append (buf, size, n, "%s", v->expected);
    else
      append (buf, size, n, "'%s'",
              sb_escape_str (shown, sizeof shown, path));
    return;
  }
}

const char *
sb_config_describe (const struct sb_config *c, char *buf, size_t size)
{
  size_t n = 0;

  append (buf, size, &n, "settings:");
  for (size_t i = 0; i < NVARIABLES; i++) {
    append (buf, size, &n, "%s %s ", i ? "," : "", variables[i].label);
    append_value (buf, size, &n, c, &variables[i]);
  }
  append (buf, size, &n, "; net.core.wmem_max %ld", c->wmem_max);
  return buf;
}

int
sb_config_warns (const struct sb_config *c)
{
  return c->debug >= SB_LOG_WARN;
}

const char *
sb_config_variable (size_t i, const char **default_text, char *expected)
{
  if (i >= NVARIABLES)
    return NULL;
  *default_text = variables[i].default_text;
  expectation (&variables[i], expected);
  return variables[i].name;
}
