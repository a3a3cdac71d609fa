/* SPDX-License-Identifier: MIT */
/* What the client tells the user: errors and the closing summary. */
#include <stdarg.h>
#include <stdio.h>

#include "client.h"
#include "nbd-protocol.h"
#include "pattern.h"

#define KIB 1024.0

void
report_verbose (const struct options *o, const char *fmt, ...)
{
  va_list ap;

  if (!o->verbose)
    return;
  va_start (ap, fmt);
  sb_verror (fmt, ap);
  va_end (ap);
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

const char *
operation_name (enum operation op)
{
  switch (op) {
  case OP_READ: return "read";
  case OP_WRITE: return "write";
  case OP_VERIFY: return "verify";
  case OP_MAP: return "map";
  default: return "info";
  }
}

void
report_negotiated (const struct options *o, const struct sb_nbd_uri *uri,
                   const struct export_info *info)
{
  char name[ESCAPED_VALUE_SIZE];

  if (!o->verbose)
    return;
  sb_escape_str (name, sizeof name, uri->name);
  report_verbose (o, "export '%s': %llu bytes, flags 0x%04x, %s replies%s%s, "
                  "by %s", name, (unsigned long long) info->size,
                  info->eflags, info->structured ? "structured" : "simple",
                  info->extended ? ", extended headers" : "",
                  info->allocation ? ", base:allocation" : "",
                  info->used_go ? "NBD_OPT_GO" : "NBD_OPT_EXPORT_NAME");
  if (info->have_block_size)
    report_verbose (o, "block sizes: minimum %u, preferred %u, maximum %u",
                    info->min_block, info->pref_block, info->max_block);
}

void
report_mismatch (const struct job *j)
{
  uint64_t offset = j->mismatch_offset;
  unsigned expected = sb_pattern_byte (offset), found = j->mismatch_found;

  sb_error ("verify: first mismatch at offset %llu: expected 0x%02x, "
            "found 0x%02x", (unsigned long long) offset, expected, found);
  if (j->opt->json)
    printf ("{\"operation\": \"verify\", \"result\": \"mismatch\", "
            "\"offset\": %llu, \"expected\": %u, \"found\": %u}\n",
            (unsigned long long) offset, expected, found);
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

/* What a summary says, worked out once for both forms. */
struct figures {
  uint64_t bytes, requests;
  double seconds;
  double bytes_per_second, requests_per_second;
  double mean_latency;          /* seconds from request sent to reply */
};

static struct figures
figures_of (const struct job *j, double seconds)
{
  struct figures f = {
    .bytes = atomic_load (&j->bytes_done),
    .requests = atomic_load (&j->requests),
    .seconds = seconds,
  };

  if (seconds > 0) {
    f.bytes_per_second = (double) f.bytes / seconds;
    f.requests_per_second = (double) f.requests / seconds;
  }
  if (f.requests > 0)
    f.mean_latency = (double) atomic_load (&j->latency_ns) / 1e9
      / (double) f.requests;
  return f;
}

/* A rate in the largest binary unit that keeps it at 1 or more, so that
 * a small transfer does not show as 0.00 GiB/s.
 */
static void
format_rate (double bytes_per_second, char *buf, size_t len)
{
  static const char *const units[] = { "B/s", "KiB/s", "MiB/s", "GiB/s" };
  unsigned u = 0;

  while (u < 3 && bytes_per_second >= KIB) {
    bytes_per_second /= KIB;
    u++;
  }
  snprintf (buf, len, "%.2f %s", bytes_per_second, units[u]);
}

static void
print_json_summary (const struct job *j, const struct figures *f)
{
  fprintf (json_stream (j),
           "{\"operation\": \"%s\", \"bytes\": %llu, \"seconds\": %.6f, "
           "\"bytes_per_second\": %.0f, \"gib_per_second\": %.4f, "
           "\"requests\": %llu, \"requests_per_second\": %.1f, "
           "\"mean_latency_seconds\": %.9f, \"connections\": %u, "
           "\"queue_depth\": %u, \"request_size\": %u, "
           "\"structured_replies\": %s, \"extended_headers\": %s, "
           "\"hole_bytes\": %llu}\n",
           operation_name (j->opt->op), (unsigned long long) f->bytes,
           f->seconds, f->bytes_per_second,
           f->bytes_per_second / (KIB * KIB * KIB),
           (unsigned long long) f->requests, f->requests_per_second,
           f->mean_latency, j->connections, j->opt->queue_depth,
           j->request_size, j->info.structured ? "true" : "false",
           j->info.extended ? "true" : "false",
           (unsigned long long) j->hole_bytes);
}

void
report_summary (const struct job *j, double seconds)
{
  struct figures f = figures_of (j, seconds);
  char rate[32];

  if (j->opt->json) {
    print_json_summary (j, &f);
    return;
  }
  if (j->opt->quiet)
    return;
  format_rate (f.bytes_per_second, rate, sizeof rate);
  sb_error ("%s %llu bytes in %.3f s: %s, %.0f requests/s, mean latency "
            "%.3f ms (%llu request%s, %u connection%s, queue depth %u, "
            "request size %u%s)", operation_name (j->opt->op),
            (unsigned long long) f.bytes, f.seconds, rate,
            f.requests_per_second, f.mean_latency * 1e3,
            (unsigned long long) f.requests, f.requests == 1 ? "" : "s",
            j->connections, j->connections == 1 ? "" : "s",
            j->opt->queue_depth, j->request_size, holes_note (j));
}
