/* SPDX-License-Identifier: MIT */
/* sockboost attach's report of what it did to each socket. */
#include <stdarg.h>
#include <stdio.h>

#include "attach.h"

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
