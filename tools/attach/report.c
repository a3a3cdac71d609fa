/* SPDX-License-Identifier: MIT */
/* sockboost attach's messages. */
#include <stdarg.h>
#include <stdio.h>

#include "attach.h"

void
attach_verror (const char *fmt, va_list ap)
{
  fprintf (stderr, "%s: ", ATTACH_PROGRAM);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
}

void
attach_error (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  attach_verror (fmt, ap);
  va_end (ap);
}

void
attach_report (const struct target *t, const char *fmt, ...)
{
  va_list ap;

  printf ("sockboost[%s %d]: ", t->name, (int) t->pid);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
}
