/* SPDX-License-Identifier: MIT */
/* Trace lines: numbers and the library's own words only, nothing taken
 * from the program or the peer.
 */
#include <stdio.h>
#include <string.h>

#include "trace.h"

/* R as the line shows it: the count, or "-1 ENAME". */
static const char *
result_text (ssize_t r, int err, char *buf, size_t size)
{
  const char *name = strerrorname_np (err);

  if (r >= 0)
    snprintf (buf, size, "%zd", r);
  else
    snprintf (buf, size, "%zd %s", r, name ? name : "?");
  return buf;
}

void
sb_trace_call (int fd, uint32_t e, const char *call, ssize_t r, int err,
               const char *what)
{
  char result[48];

  sb_log (SB_LOG_TRACE, "fd %d %s %s -> %s: %s", fd, sb_kind_name (e), call,
          result_text (r, err, result, sizeof result), what);
}

void
sb_trace_io (int fd, uint32_t e, const char *call, size_t len, ssize_t r,
             int err, const char *what)
{
  char result[48];

  sb_log (SB_LOG_TRACE, "fd %d %s %s %zu bytes -> %s: %s", fd,
          sb_kind_name (e), call, len,
          result_text (r, err, result, sizeof result), what);
}
