/* SPDX-License-Identifier: MIT */
/* Choose a backend from the command-line spec. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "server.h"

/* Exports larger than this cannot be addressed by NBD offsets safely. */
#define MAX_EXPORT_SIZE (UINT64_C(1) << 62)

#define BACKEND_FORMS "FILE, memory:SIZE, null:SIZE or pattern:SIZE"

static const struct {
  const char *prefix;
  enum backend_kind kind;
} sized[] = {
  { "memory:", BACKEND_MEMORY },
  { "null:", BACKEND_NULL },
  { "pattern:", BACKEND_PATTERN },
};

/* "foo:1M" that is no file is a backend name mistyped, not a file name
 * the user meant: say so rather than "No such file or directory".
 */
static bool
looks_like_backend (const char *text)
{
  size_t n = strspn (text, "abcdefghijklmnopqrstuvwxyz");

  return n > 0 && text[n] == ':' && access (text, F_OK) == -1;
}

bool
extent_add (struct extent_list *l, uint64_t length, uint32_t flags)
{
  if (l->n > 0 && l->e[l->n - 1].flags == flags)
    l->e[l->n - 1].length += length;
  else if (l->n == l->max)
    return false;
  else
    l->e[l->n++] = (struct extent) { .length = length, .flags = flags };
  l->covered += length;
  return true;
}

int
backend_spec_parse (const char *text, struct backend_spec *spec, char *why,
                    size_t why_len)
{
  char size_why[SB_ARG_WHY_SIZE], shown[ESCAPED_VALUE_SIZE];
  size_t i;

  *spec = (struct backend_spec) { .text = text, .kind = BACKEND_FILE };
  for (i = 0; i < sizeof sized / sizeof sized[0]; i++) {
    size_t n = strlen (sized[i].prefix);
    if (strncmp (text, sized[i].prefix, n) != 0)
      continue;
    spec->kind = sized[i].kind;
    if (sb_arg_size (text + n, 0, MAX_EXPORT_SIZE, &spec->size, size_why,
                     sizeof size_why) == 0)
      return 0;
    snprintf (why, why_len, "%s: %s",
              sb_escape_str (shown, sizeof shown, text), size_why);
    return -1;
  }
  if (text[0] == '\0')
    snprintf (why, why_len, "empty BACKEND: expected " BACKEND_FORMS);
  /* The prefix is lower-case letters only: nothing to escape. */
  else if (looks_like_backend (text))
    snprintf (why, why_len, "unknown backend '%.*s' and no such file: "
              "expected " BACKEND_FORMS, (int) strcspn (text, ":") + 1, text);
  else
    return 0;
  return -1;
}

int
backend_open (struct backend *be, const struct backend_spec *spec,
              bool read_only)
{
  be->fd = -1;
  be->mem = NULL;
  be->reads_into_buffer = false;
  switch (spec->kind) {
  case BACKEND_MEMORY: return backend_open_memory (be, spec->size);
  case BACKEND_NULL: return backend_open_null (be, spec->size);
  case BACKEND_PATTERN: return backend_open_pattern (be, spec->size);
  default: return backend_open_file (be, spec->text, read_only);
  }
}
