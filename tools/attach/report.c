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

/* What N sockets left alone for each reason are, in the singular and the
 * plural.
 */
static const char *const left_alone_text[LEFT_REASONS][2] = {
  [LEFT_UNIX_LISTENING] = {
    "listening unix socket left alone (accepted sockets do not inherit "
    "its send buffer: use --watch)",
    "listening unix sockets left alone (accepted sockets do not inherit "
    "their send buffer: use --watch)" },
  [LEFT_NOT_CONNECTED] = {
    "socket not connected yet (use --watch)",
    "sockets not connected yet (use --watch)" },
  [LEFT_SNDBUF_KEPT] = {
    "unix socket whose send buffer is as large as attach makes it already",
    "unix sockets whose send buffer is as large as attach makes it already" },
  [LEFT_NODELAY_SET] = {
    "TCP socket with TCP_NODELAY already set",
    "TCP sockets with TCP_NODELAY already set" },
  [LEFT_TUNING_OFF] = {
    "socket whose tuning is turned off",
    "sockets whose tuning is turned off" },
  [LEFT_OTHER_KIND] = {
    "socket of a kind not tuned (neither unix stream nor TCP)",
    "sockets of a kind not tuned (neither unix stream nor TCP)" },
};

void
attach_report_unchanged (const struct target *t)
{
  char line[1024] = "";
  size_t len = 0;
  unsigned left = 0;

  for (int why = 0; why < LEFT_REASONS; why++) {
    unsigned n = t->found.left[why];
    left += n;
    if (n > 0 && len < sizeof line)
      len += (size_t) snprintf (line + len, sizeof line - len, "%s%u %s",
                                len ? ", " : "", n,
                                left_alone_text[why][n != 1]);
  }
  /* The rest failed, and a warning said so. */
  if (t->found.sockets > left && len < sizeof line)
    snprintf (line + len, sizeof line - len, "%s%u not tuned after an error",
              len ? ", " : "", t->found.sockets - left);
  attach_report (t, "nothing to change: %s", line);
}
