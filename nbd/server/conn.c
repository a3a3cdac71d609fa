/* SPDX-License-Identifier: MIT */
/* One client connection: buffered reading, the payload buffer, logging. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "full-io.h"
#include "nbd-protocol.h"
#include "server.h"

/* Chunk size for throwing away payloads we will not store. */
#define DISCARD_CHUNK 65536
/* A connection that has sent nothing for this long gives its payload
 * buffer (up to 32 MiB) back: a client sending requests back to back
 * never pauses that long, and one gone quiet then costs little memory.
 */
#define BUFFER_IDLE_MS 1000

void
conn_log (const struct conn *c, const char *fmt, ...)
{
  char line[512];
  va_list ap;

  if (!c->ex->verbose)
    return;
  va_start (ap, fmt);
  vsnprintf (line, sizeof line, fmt, ap);
  va_end (ap);
  /* One call per line so that threads do not interleave. */
  sb_error ("connection %u: %s", c->id, line);
}

void
log_unknown_export (const struct conn *c, const void *name, size_t len)
{
  char shown[ESCAPED_VALUE_SIZE];

  if (c->ex->verbose)
    conn_log (c, "unknown export '%s'", sb_escape (shown, sizeof shown,
                                                    name, len));
}

/* Refill rbuf with one recv, which usually brings a whole request header
 * (and sometimes the next ones too).
 */
static int
fill (struct conn *c, size_t want, bool started)
{
  while (c->rlen < want) {
    ssize_t r = recv (c->fd, c->rbuf + c->rlen, CONN_RBUF_SIZE - c->rlen, 0);
    if (r == -1 && errno == EINTR)
      continue;
    if (r == -1)
      return -1;
    if (r == 0) {
      errno = started || c->rlen > 0 ? ECONNRESET : ENODATA;
      return -1;
    }
    c->rlen += (size_t) r;
  }
  return 0;
}

int
conn_recv (struct conn *c, void *dst, size_t len)
{
  uint8_t *d = dst;
  size_t have = c->rlen - c->rpos;

  if (have >= len) {
    memcpy (d, c->rbuf + c->rpos, len);
    c->rpos += len;
    return 0;
  }
  memcpy (d, c->rbuf + c->rpos, have);
  c->rpos = c->rlen = 0;
  d += have;
  len -= have;
  /* Large payloads go straight to their destination. */
  if (len >= CONN_RBUF_SIZE) {
    if (sb_read_full (c->fd, d, len) == 0)
      return 0;
    if (errno == ENODATA && have > 0)
      errno = ECONNRESET;
    return -1;
  }
  if (fill (c, len, have > 0) == -1)
    return -1;
  memcpy (d, c->rbuf, len);
  c->rpos = len;
  return 0;
}

int
conn_discard (struct conn *c, uint64_t len)
{
  uint8_t chunk[DISCARD_CHUNK];
  bool started = false;

  while (len > 0) {
    size_t n = len < DISCARD_CHUNK ? (size_t) len : DISCARD_CHUNK;
    if (conn_recv (c, chunk, n) == -1) {
      if (errno == ENODATA && started)
        errno = ECONNRESET;
      return -1;
    }
    started = true;
    len -= n;
  }
  return 0;
}

/* Mapped rather than malloc'd, so that giving it back returns its pages
 * to the kernel at once, whatever an allocator would keep (ASan's
 * quarantine keeps freed blocks).
 */
uint8_t *
conn_buffer (struct conn *c)
{
  if (c->buf == NULL) {
    void *p = mmap (NULL, NBD_MAX_PAYLOAD, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    c->buf = p == MAP_FAILED ? NULL : p;
  }
  return c->buf;
}

static void
buffer_release (struct conn *c)
{
  if (c->buf != NULL)
    munmap (c->buf, NBD_MAX_PAYLOAD);
  c->buf = NULL;
}

/* The next request is usually there already (pipelined, or queued in
 * the socket): a read that does not wait finds it, and costs no more
 * than the one that would have read it.  Only a client that makes the
 * server wait polls, and gives its buffer back if it stays silent.  The
 * read that follows sees an end of stream again (a reset then reads as
 * the client's disconnection).
 */
void
conn_idle_release (struct conn *c)
{
  struct pollfd p = { .fd = c->fd, .events = POLLIN };
  ssize_t r;

  if (c->buf == NULL || c->rpos < c->rlen)
    return;
  c->rpos = c->rlen = 0;
  r = recv (c->fd, c->rbuf, CONN_RBUF_SIZE, MSG_DONTWAIT);
  if (r > 0)
    c->rlen = (size_t) r;
  else if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)
           && poll (&p, 1, BUFFER_IDLE_MS) == 0)
    buffer_release (c);
}

void
conn_serve (struct conn *c)
{
  int r;

  conn_log (c, "connected");
  r = handshake (c);
  admit_handshake_over (c);
  if (r == 1)
    transmit (c);
  close (c->fd);
  buffer_release (c);
  conn_log (c, "closed");
}
