/* SPDX-License-Identifier: MIT */
/* What the client tells the user: errors and the closing summary. */
#include <stdarg.h>
#include <stdio.h>

#include "client.h"
#include "nbd-protocol.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

void
report_error (const char *fmt, ...)
{
  va_list ap;
  char line[1024];

  /* One fprintf so lines from several threads do not interleave. */
  va_start (ap, fmt);
  vsnprintf (line, sizeof line, fmt, ap);
  va_end (ap);
  fprintf (stderr, "%s: %s\n", PROGRAM, line);
}

const char *
nbd_error_name (uint32_t error)
{
  switch (error) {
  case NBD_EPERM: return "EPERM (operation not permitted)";
  case NBD_EIO: return "EIO (input/output error)";
  case NBD_ENOMEM: return "ENOMEM (out of memory)";
  case NBD_EINVAL: return "EINVAL (invalid argument)";
  case NBD_ENOSPC: return "ENOSPC (no space left on device)";
  case NBD_EOVERFLOW: return "EOVERFLOW (value too large)";
  case NBD_ENOTSUP: return "ENOTSUP (operation not supported)";
  case NBD_ESHUTDOWN: return "ESHUTDOWN (server shutting down)";
  default: return "an unknown error number";
  }
}

static const char *
operation_name (enum operation op)
{
  switch (op) {
  case OP_READ: return "read";
  case OP_WRITE: return "write";
  case OP_VERIFY: return "verify";
  default: return "info";
  }
}

/* JSON goes to stdout unless the data itself does. */
static FILE *
json_stream (const struct job *j)
{
  return j->sink == SINK_STREAM && j->file_fd == 1 ? stderr : stdout;
}

/* Holes count as done (the output has them) but were never read. */
static const char *
holes_note (const struct job *j)
{
  static char note[64];

  if (j->hole_bytes == 0)
    return "";
  snprintf (note, sizeof note, ", %llu bytes of holes not read",
            (unsigned long long) j->hole_bytes);
  return note;
}

void
report_summary (const struct job *j, double seconds)
{
  uint64_t bytes = atomic_load (&j->bytes_done);
  uint64_t requests = atomic_load (&j->requests);
  double rate = seconds > 0 ? (double) bytes / seconds : 0;

  if (j->opt->json) {
    fprintf (json_stream (j),
             "{\"operation\": \"%s\", \"bytes\": %llu, \"seconds\": %.6f, "
             "\"bytes_per_second\": %.0f, \"gib_per_second\": %.4f, "
             "\"requests\": %llu, \"connections\": %u, \"queue_depth\": %u, "
             "\"request_size\": %u, \"structured_replies\": %s, "
             "\"extended_headers\": %s, \"hole_bytes\": %llu}\n",
             operation_name (j->opt->op), (unsigned long long) bytes, seconds,
             rate, rate / GIB, (unsigned long long) requests, j->connections,
             j->opt->queue_depth, j->request_size,
             j->info.structured ? "true" : "false",
             j->info.extended ? "true" : "false",
             (unsigned long long) j->hole_bytes);
    return;
  }
  if (j->opt->quiet)
    return;
  fprintf (stderr, "%s: %s %llu bytes in %.3f s: %.2f GiB/s "
           "(%llu requests, %u connection%s, queue depth %u, "
           "request size %u%s)\n", PROGRAM, operation_name (j->opt->op),
           (unsigned long long) bytes, seconds, rate / GIB,
           (unsigned long long) requests, j->connections,
           j->connections == 1 ? "" : "s", j->opt->queue_depth,
           j->request_size, holes_note (j));
}
