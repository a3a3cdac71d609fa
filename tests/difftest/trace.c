/* SPDX-License-Identifier: MIT */
/* The differential tester's trace: text lines in shared memory. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "difftest.h"

int
dt_trace_open (struct dt_trace *t, size_t cap)
{
  t->buf = mmap (NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                 -1, 0);
  if (t->buf == MAP_FAILED)
    return -1;
  t->cap = cap;
  dt_trace_reset (t);
  return 0;
}

void
dt_trace_close (struct dt_trace *t)
{
  munmap (t->buf, t->cap);
}

/* The length lives in the shared page too, so that a fork child's lines
 * count in the parent: it is kept in the first bytes.
 */
struct shared_head {
  size_t len;
  int overflow;
};

void
dt_trace_reset (struct dt_trace *t)
{
  struct shared_head *h = (struct shared_head *) (void *) t->buf;

  h->len = sizeof *h;
  h->overflow = 0;
  t->buf[sizeof *h] = '\0';
}

void
dt_trace_line (struct dt_trace *t, const char *fmt, ...)
{
  struct shared_head *h = (struct shared_head *) (void *) t->buf;
  size_t room = t->cap - h->len - 1;
  va_list ap;
  int n;

  if (h->overflow)
    return;
  va_start (ap, fmt);
  n = vsnprintf (t->buf + h->len, room, fmt, ap);
  va_end (ap);
  if (n < 0 || (size_t) n + 1 >= room) {
    h->overflow = 1;
    return;
  }
  h->len += (size_t) n;
  t->buf[h->len++] = '\n';
  t->buf[h->len] = '\0';
}

/* The trace's text, NUL-terminated. */
const char *
dt_trace_text (const struct dt_trace *t)
{
  return t->buf + sizeof (struct shared_head);
}

bool
dt_trace_overflowed (const struct dt_trace *t)
{
  return ((const struct shared_head *) (const void *) t->buf)->overflow;
}

const char *
dt_result (char *buf, size_t size, long r, int err)
{
  const char *name = strerrorname_np (err);

  if (r < 0)
    snprintf (buf, size, "%ld %s", r, name ? name : "?");
  else if (err != DT_ERRNO_SENTINEL)
    snprintf (buf, size, "%ld, errno changed to %s", r, name ? name : "?");
  else
    snprintf (buf, size, "%ld", r);
  return buf;
}
