/* SPDX-License-Identifier: MIT */
/* Which connections may stay: at most max at once, a handshake finished
 * within its time, and a full server makes room by closing the oldest
 * connection still in its handshake, so that clients that never finish
 * one cannot keep a good client out.  A connection past its handshake
 * is never closed here: a VM's disk may rightly be idle for hours.
 *
 * The accept thread does all the closing, with shutdown(2), which wakes
 * the connection's thread wherever it blocks (a slow client trickling a
 * byte at a time cannot stretch a total deadline); that thread alone
 * closes its fd, after leaving the list, so a number reused for another
 * file is never shut down by mistake.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "clock.h"
#include "server.h"

#define NS_PER_SECOND 1000000000u

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Connections in their handshake and not yet cut, oldest first: also
 * earliest deadline first, as every handshake gets the same time.
 */
static struct conn *oldest, *newest;
static unsigned open_count;     /* connection threads alive */
static unsigned cut_count;      /* of those, shut down and on their way out */

static void
unlist (struct conn *c)
{
  if (c->prev != NULL)
    c->prev->next = c->next;
  else
    oldest = c->next;
  if (c->next != NULL)
    c->next->prev = c->prev;
  else
    newest = c->prev;
  c->prev = c->next = NULL;
  c->listed = false;
}

static void
cut (struct conn *c)
{
  unlist (c);
  c->cut = true;
  cut_count++;
  shutdown (c->fd, SHUT_RDWR);
}

/* Room for C: below the limit, or by cutting the oldest handshake.  At
 * most max connections may be on their way out at once besides, so
 * threads stay bounded (2 * max) even under a flood.
 */
static bool
make_room (struct conn *c, unsigned max)
{
  if (open_count - cut_count < max)
    return true;
  if (oldest == NULL || cut_count >= max)
    return false;
  conn_log (oldest, "closed in its handshake to make room for connection %u"
            " (%u connections open)", c->id, max);
  cut (oldest);
  return true;
}

bool
admit (struct conn *c, unsigned max, unsigned handshake_seconds)
{
  bool ok;

  pthread_mutex_lock (&lock);
  ok = make_room (c, max);
  if (ok) {
    c->handshake_by = sb_monotonic_ns ()
      + (uint64_t) handshake_seconds * NS_PER_SECOND;
    c->prev = newest;
    c->next = NULL;
    if (newest != NULL)
      newest->next = c;
    else
      oldest = c;
    newest = c;
    c->listed = true;
    open_count++;
  }
  pthread_mutex_unlock (&lock);
  return ok;
}

void
admit_handshake_over (struct conn *c)
{
  pthread_mutex_lock (&lock);
  if (c->listed)
    unlist (c);
  pthread_mutex_unlock (&lock);
}

void
admit_leave (struct conn *c)
{
  pthread_mutex_lock (&lock);
  if (c->listed)
    unlist (c);
  if (c->cut)
    cut_count--;
  open_count--;
  pthread_mutex_unlock (&lock);
}

int
admit_expire (unsigned handshake_seconds)
{
  uint64_t now = sb_monotonic_ns ();
  int ms = -1;

  pthread_mutex_lock (&lock);
  while (oldest != NULL && oldest->handshake_by <= now) {
    conn_log (oldest, "handshake not finished in %u s: closed",
              handshake_seconds);
    cut (oldest);
  }
  if (oldest != NULL)
    ms = (int) ((oldest->handshake_by - now + 999999) / 1000000);
  pthread_mutex_unlock (&lock);
  return ms;
}
