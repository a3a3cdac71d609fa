/* SPDX-License-Identifier: MIT */
/* `sbnbd-client map`: the export's base:allocation extents, adjacent ones
 * of the same type merged, as text (offset, length, type, what the type
 * means) or as a JSON array.
 */
#include <stdio.h>

#include "client.h"
#include "nbd-protocol.h"

struct run {
  uint64_t off, len;
  uint32_t type;
  bool json;
  unsigned printed;
};

static const char *
type_name (uint32_t type)
{
  switch (type) {
  case 0: return "data";
  case NBD_STATE_HOLE: return "hole";
  case NBD_STATE_ZERO: return "zero";
  default: return "hole,zero";
  }
}

static void
print_run (struct run *r)
{
  if (r->len == 0)
    return;
  if (r->json)
    printf ("%s{\"offset\": %llu, \"length\": %llu, \"type\": %u, "
            "\"description\": \"%s\"}", r->printed ? ",\n" : "",
            (unsigned long long) r->off, (unsigned long long) r->len,
            r->type, type_name (r->type));
  else
    printf ("%10llu  %10llu  %3u  %s\n", (unsigned long long) r->off,
            (unsigned long long) r->len, r->type, type_name (r->type));
  r->printed++;
}

/* Flags other than HOLE and ZERO mean nothing to base:allocation. */
static void
add_extent (void *opaque, uint64_t len, uint32_t flags)
{
  struct run *r = opaque;
  uint32_t type = flags & (NBD_STATE_HOLE | NBD_STATE_ZERO);

  if (r->len > 0 && type == r->type) {
    r->len += len;
    return;
  }
  print_run (r);
  *r = (struct run) { .off = r->off + r->len, .len = len, .type = type,
                      .json = r->json, .printed = r->printed };
}

int
map_print (struct job *j)
{
  struct run r = { .off = j->start, .json = j->opt->json };

  if (!j->info.allocation) {
    sb_error ("the server does not offer the %s metadata context",
              NBD_CONTEXT_BASE_ALLOCATION);
    return -1;
  }
  if (r.json)
    printf ("[\n");
  if (status_walk (j, j->start, j->end, add_extent, &r) == -1)
    return -1;
  print_run (&r);
  if (r.json)
    printf ("%s]\n", r.printed ? "\n" : "");
  send_disconnect (j->fds[0], j->info.extended);
  return fflush (stdout) == 0 ? 0 : -1;
}
