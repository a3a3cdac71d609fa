/* SPDX-License-Identifier: MIT */
/* The library's only output.  It must never disturb the host: the log file
 * descriptor is moved out of the way (high number, close-on-exec) and
 * dropped as soon as the host closes or reuses that number.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "real.h"

/* Where the log file goes: well above the numbers programs use. */
#define SB_LOG_FD_FLOOR 900

static _Atomic int log_level = SB_LOG_WARN;
static _Atomic int log_fd = -1;

/* Expand %p in TEMPLATE into OUT; return -1 if it does not fit. */
static int
expand_path (const char *template, char *out, size_t size)
{
  size_t n = 0;
  for (const char *p = template; *p; p++) {
    int w;
    if (p[0] == '%' && p[1] == 'p') {
      w = snprintf (out + n, size - n, "%d", (int) getpid ());
      p++;
    }
    else
      w = snprintf (out + n, size - n, "%c", *p);
    if (w < 0 || (size_t) w >= size - n)
      return -1;
    n += (size_t) w;
  }
  return 0;
}

static int
open_log_file (const char *template)
{
  char path[4096];
  int fd, high;

  if (expand_path (template, path, sizeof path) == -1)
    return -1;
  fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd == -1)
    return -1;
  high = fcntl (fd, F_DUPFD_CLOEXEC, SB_LOG_FD_FLOOR);
  if (high == -1)
    return fd;               /* low limit on descriptors: keep it where it is */
  sb_real_bind ();
  if (sb_real.close)
    sb_real.close (fd);
  return high;
}

void
sb_log_setup (int level, const char *file)
{
  int saved = errno;
  atomic_store (&log_level, level);
  if (file && *file)
    atomic_store (&log_fd, open_log_file (file));
  errno = saved;
}

int
sb_log_enabled (int level)
{
  return level <= atomic_load_explicit (&log_level, memory_order_relaxed);
}

void
sb_log (int level, const char *fmt, ...)
{
  char line[1024];
  va_list ap;
  int n, m, fd, saved = errno;

  if (!sb_log_enabled (level))
    return;
  n = snprintf (line, sizeof line, "sockboost[%s %d]: ",
                program_invocation_short_name, (int) getpid ());
  if (n < 0 || (size_t) n >= sizeof line - 1)
    n = 0;
  va_start (ap, fmt);
  m = vsnprintf (line + n, sizeof line - 1 - (size_t) n, fmt, ap);
  va_end (ap);
  if (m < 0)
    m = 0;
  n += m;
  if ((size_t) n > sizeof line - 2)
    n = sizeof line - 2;
  line[n++] = '\n';
  fd = atomic_load (&log_fd);
  sb_real_bind ();
  /* Best effort: there is nowhere else to report a failed log write. */
  if (sb_real.write)
    (void) sb_real.write (fd >= 0 ? fd : STDERR_FILENO, line, (size_t) n);
  errno = saved;
}

void
sb_log_fds_gone (unsigned lo, unsigned hi)
{
  int fd = atomic_load (&log_fd);
  if (fd >= 0 && (unsigned) fd >= lo && (unsigned) fd <= hi)
    atomic_compare_exchange_strong (&log_fd, &fd, -1);
}
