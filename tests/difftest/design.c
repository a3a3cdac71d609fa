/* SPDX-License-Identifier: MIT */
/* The differences the library makes by design: the one place they are
 * declared.  Every other difference between a plain run and a run with
 * the library is a defect.
 *
 *  1. sndbuf   SO_SNDBUF of an AF_UNIX stream socket the library tuned:
 *              raised (SOCKBOOST_SNDBUF), never lowered.
 *  2. nodelay  TCP_NODELAY of a TCP socket the library tuned: set.  So
 *     what Nagle holds plainly (until an ACK, 40 to 200 ms) leaves at
 *     once with the library.
 *     late     a receiver waited over DT_LATE_MS for bytes already sent:
 *              with the library never when it did not wait plainly (a
 *              stall); plainly it may, where Nagle held them.
 *  3. A header held for its payload.  An NBD header that announces a
 *     payload goes out with MSG_MORE: the kernel holds it until the
 *     payload follows (or for 200 ms), or until the program's next send
 *     on that descriptor, even one that sends nothing (the library then
 *     lets it go).  So the tester never has the other end read, or go
 *     away, while such a header may be held: it finishes the message
 *     first (dt_design_may_hold says where).  A peer closed with a
 *     header held closes cleanly where it would plainly have had unread
 *     bytes, so the sender would see EPIPE where it saw ECONNRESET.
 *  4. The program's own holds.  What a program corks itself (TCP_CORK,
 *     or MSG_MORE with nothing after it) the kernel holds for 200 ms,
 *     unless earlier bytes are still unacknowledged (autocorking): how
 *     long depends on when ACKs came, which TCP_NODELAY changes.  So
 *     the program uncorks before the other end reads (ops-send.c), and a
 *     hold left then is the library's.
 *
 * Not observed at all: how the bytes are cut into segments, and how
 * long they take under DT_LATE_MS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "difftest.h"

struct rule {
  const char *name;
  bool (*agree) (long plain, long boosted);
};

static bool
at_least (long plain, long boosted)
{
  return boosted >= plain;
}

static bool
set_or_same (long plain, long boosted)
{
  return boosted == plain || boosted == 1;
}

static bool
same (long plain, long boosted)
{
  return plain == boosted;
}

static bool
no_later (long plain, long boosted)
{
  return boosted <= plain;
}

static const struct rule rules[] = {
  { "sndbuf", at_least },
  { "nodelay", set_or_same },
  { "late", no_later },
  { "same", same },
};

const char *
dt_by_design (char *buf, size_t size, const char *rule, long value)
{
  snprintf (buf, size, "{%s:%ld}", rule, value);
  return buf;
}

bool
dt_design_may_hold (const struct dt_handle *h, int e)
{
  size_t len;

  return h->nbd_on && dt_nbd_rest (h, e, &len) != NULL
    && !h->sent_nothing[e];
}

/* Compare one "{rule:value}" at P and Q; advance both past it. */
static bool
token_agrees (const char **p, const char **q)
{
  const char *pc = strchr (*p, ':'), *qc = strchr (*q, ':');
  char *pe, *qe;
  long a, b;

  if (!pc || !qc || pc - *p != qc - *q || strncmp (*p, *q, (size_t) (pc - *p)))
    return false;
  a = strtol (pc + 1, &pe, 10);
  b = strtol (qc + 1, &qe, 10);
  if (*pe != '}' || *qe != '}')
    return false;
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (strncmp (*p + 1, rules[i].name, (size_t) (pc - *p - 1)) == 0
        && rules[i].name[pc - *p - 1] == '\0') {
      *p = pe + 1;
      *q = qe + 1;
      return rules[i].agree (a, b);
    }
  return false;
}

/* Do the lines at P and Q (up to their newlines) agree? */
static bool
lines_agree (const char *p, const char *q)
{
  while (*p && *p != '\n' && *q && *q != '\n') {
    if (*p == '{' && *q == '{') {
      if (!token_agrees (&p, &q))
        return false;
      continue;
    }
    if (*p++ != *q++)
      return false;
  }
  return (*p == '\0' || *p == '\n') && (*q == '\0' || *q == '\n');
}

static const char *
next_line (const char *p)
{
  const char *nl = strchr (p, '\n');

  return nl ? nl + 1 : p + strlen (p);
}

long
dt_compare (const char *plain, const char *boosted)
{
  long line = 1;

  while (*plain || *boosted) {
    if (!*plain || !*boosted || !lines_agree (plain, boosted))
      return line;
    plain = next_line (plain);
    boosted = next_line (boosted);
    line++;
  }
  return -1;
}
