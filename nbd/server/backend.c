/* SPDX-License-Identifier: MIT */
/* Choose a backend from the command-line spec. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parse-size.h"
#include "server.h"

/* Exports larger than this cannot be addressed by NBD offsets safely. */
#define MAX_EXPORT_SIZE (UINT64_C(1) << 62)

static int
parse_export_size (const char *spec, const char *text, uint64_t *size)
{
  if (sb_parse_size (text, MAX_EXPORT_SIZE, size) == -1) {
    fprintf (stderr, "%s: bad size in '%s': %s\n", PROGRAM, spec,
             strerror (errno));
    return -1;
  }
  return 0;
}

int
backend_open (struct backend *be, const char *spec, bool read_only)
{
  static const struct {
    const char *prefix;
    int (*open) (struct backend *, uint64_t);
  } sized[] = {
    { "memory:", backend_open_memory },
    { "null:", backend_open_null },
    { "pattern:", backend_open_pattern },
  };
  size_t i;
  uint64_t size;

  be->fd = -1;
  be->mem = NULL;
  be->reads_into_buffer = false;
  for (i = 0; i < sizeof sized / sizeof sized[0]; i++) {
    size_t n = strlen (sized[i].prefix);
    if (strncmp (spec, sized[i].prefix, n) == 0) {
      if (parse_export_size (spec, spec + n, &size) == -1)
        return -1;
      return sized[i].open (be, size);
    }
  }
  return backend_open_file (be, spec, read_only);
}
