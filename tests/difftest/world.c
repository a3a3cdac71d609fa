/* SPDX-License-Identifier: MIT */
/* The differential tester's world: the descriptors a sequence uses, how
 * each kind is made (through the hooked calls), and the NBD messages
 * written over the NBD pairs.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "difftest.h"
#include "nbd-protocol.h"

static const char *const kind_names[DT_KINDS] = {
  "tcp", "nbd", "unix", "unix-small", "pipe", "file", "devnull", "udp",
};

const char *
dt_kind_name (enum dt_kind k)
{
  return kind_names[k];
}

void
dt_world_init (struct dt_world *w, const struct dt_calls *x,
               struct dt_source *src, struct dt_trace *t)
{
  memset (w, 0, sizeof *w);
  w->x = x;
  w->src = src;
  w->trace = t;
  w->wait_ms = 500;
  w->timing = true;
  for (unsigned i = 0; i < DT_HANDLES; i++)
    w->h[i].fd[0] = w->h[i].fd[1] = w->h[i].alias[0] = w->h[i].alias[1] = -1;
  w->unmapped = mmap (NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
  if (w->unmapped != MAP_FAILED)
    munmap (w->unmapped, 4096);
  w->prot_none = mmap (NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
}

void
dt_world_free (struct dt_world *w)
{
  for (unsigned i = 0; i < DT_HANDLES; i++)
    dt_handle_close (w, i);
  if (w->prot_none != MAP_FAILED)
    munmap (w->prot_none, 4096);
}

bool
dt_handle_is_socket (const struct dt_handle *h)
{
  return h->kind == DT_TCP || h->kind == DT_NBD || h->kind == DT_UNIX
    || h->kind == DT_UNIX_SMALL || h->kind == DT_UDP;
}

bool
dt_handle_paired (const struct dt_handle *h)
{
  return dt_handle_is_socket (h) && h->fd[0] >= 0 && h->fd[1] >= 0;
}

/* Record the result of a set-up call: they are part of the sequence. */
#define SETUP(w, what, call)                    \
  ({                                            \
    errno = DT_ERRNO_SENTINEL;                  \
    long r_ = (long) (call);                    \
    dt_record ((w), (what), r_, errno);         \
    r_;                                         \
  })

static int
loopback_listener (struct dt_world *w, int type, struct sockaddr_in *a)
{
  socklen_t len = sizeof *a;
  int l = (int) SETUP (w, "socket", w->x->socket (AF_INET, type, 0));

  *a = (struct sockaddr_in) { .sin_family = AF_INET,
                              .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  if (l >= 0 && (bind (l, (struct sockaddr *) a, sizeof *a) == -1
                 || getsockname (l, (struct sockaddr *) a, &len) == -1))
    return -1;
  return l;
}

static void
open_tcp (struct dt_world *w, struct dt_handle *h)
{
  struct linger hard = { 1, 0 };
  int one = 1;
  struct sockaddr_in a;
  int l = loopback_listener (w, SOCK_STREAM, &a);

  if (l < 0 || listen (l, 1) == -1)
    return;
  h->fd[0] = (int) SETUP (w, "socket", w->x->socket (AF_INET, SOCK_STREAM, 0));
  SETUP (w, "connect", w->x->connect (h->fd[0], (struct sockaddr *) &a,
                                      sizeof a));
  if (dt_one_in (w->src, 2))
    h->fd[1] = (int) SETUP (w, "accept", w->x->accept (l, NULL, NULL));
  else
    h->fd[1] = (int) SETUP (w, "accept4 SOCK_CLOEXEC",
                            w->x->accept4 (l, NULL, NULL, SOCK_CLOEXEC));
  SETUP (w, "close listener", w->x->close (l));
  /* A closed end resets its peer at once: what the peer's next send
   * reports then does not depend on whether a segment was held back.
   */
  for (int e = 0; e < 2; e++)
    if (h->fd[e] >= 0) {
      w->x->setsockopt (h->fd[e], SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
      if (w->nodelay)
        w->x->setsockopt (h->fd[e], IPPROTO_TCP, TCP_NODELAY, &one,
                          sizeof one);
    }
}

/* Exactly LEN bytes in or out, as the handshake needs. */
static bool
put (struct dt_world *w, int fd, const void *p, size_t len)
{
  return w->x->write (fd, p, len) == (ssize_t) len;
}

static bool
get (struct dt_world *w, int fd, void *p, size_t len)
{
  size_t got = 0;

  while (got < len) {
    ssize_t r = w->x->read (fd, (char *) p + got, len - got);
    if (r <= 0)
      return false;
    got += (size_t) r;
  }
  return true;
}

/* Fixed newstyle, NO_ZEROES, maybe structured replies, EXPORT_NAME: the
 * library follows both ends into transmission.
 */
static bool
nbd_handshake (struct dt_world *w, struct dt_handle *h)
{
  struct nbd_new_handshake g = {
    .nbdmagic = htobe64 (NBD_MAGIC), .version = htobe64 (NBD_IHAVEOPT),
    .gflags = htobe16 (NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES) };
  uint32_t cflags = htobe32 (NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES);
  struct nbd_option o = { .version = htobe64 (NBD_IHAVEOPT),
                          .option = htobe32 (NBD_OPT_STRUCTURED_REPLY) };
  struct nbd_fixed_new_option_reply ack = {
    .magic = htobe64 (NBD_REP_MAGIC), .option = o.option,
    .reply = htobe32 (NBD_REP_ACK) };
  struct nbd_new_handshake_finish f = {
    .exportsize = htobe64 (UINT64_C (1) << 30),
    .eflags = htobe16 (NBD_FLAG_HAS_FLAGS) };
  uint8_t sink[64];
  int c = h->fd[0], s = h->fd[1];

  if (!put (w, s, &g, sizeof g) || !get (w, c, sink, sizeof g)
      || !put (w, c, &cflags, sizeof cflags) || !get (w, s, sink, 4))
    return false;
  if (h->nbd.structured
      && (!put (w, c, &o, sizeof o) || !get (w, s, sink, sizeof o)
          || !put (w, s, &ack, sizeof ack) || !get (w, c, sink, sizeof ack)))
    return false;
  o.option = htobe32 (NBD_OPT_EXPORT_NAME);
  return put (w, c, &o, sizeof o) && get (w, s, sink, sizeof o)
    && put (w, s, &f, sizeof f) && get (w, c, sink, sizeof f);
}

static void
open_pair (struct dt_world *w, struct dt_handle *h, int domain, int type)
{
  int sv[2];

  if (SETUP (w, "socketpair", w->x->socketpair (domain, type, 0, sv)) == 0) {
    h->fd[0] = sv[0];
    h->fd[1] = sv[1];
  }
}

/* Two UDP sockets connected to each other. */
static void
open_udp (struct dt_world *w, struct dt_handle *h)
{
  struct sockaddr_in a[2];

  for (int e = 0; e < 2; e++)
    h->fd[e] = loopback_listener (w, SOCK_DGRAM, &a[e]);
  for (int e = 0; e < 2; e++)
    if (h->fd[e] >= 0)
      SETUP (w, "connect udp", w->x->connect (h->fd[e], (struct sockaddr *)
                                              &a[!e], sizeof a[!e]));
}

static void
open_kind (struct dt_world *w, struct dt_handle *h)
{
  int p[2], small = 4096;

  switch (h->kind) {
  case DT_NBD:
    h->nbd.structured = dt_one_in (w->src, 2);
    open_tcp (w, h);
    h->nbd_on = h->fd[0] >= 0 && h->fd[1] >= 0 && nbd_handshake (w, h);
    dt_trace_line (w->trace, "  handshake %s: %s", h->nbd.structured
                   ? "structured" : "simple", h->nbd_on ? "done" : "failed");
    break;
  case DT_TCP: open_tcp (w, h); break;
  case DT_UNIX: open_pair (w, h, AF_UNIX, SOCK_STREAM); break;
  case DT_UNIX_SMALL:
    open_pair (w, h, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK);
    /* The program's own buffers: the library never changes them after. */
    for (int e = 0; e < 2; e++)
      SETUP (w, "setsockopt SO_SNDBUF 4096", w->x->setsockopt
             (h->fd[e], SOL_SOCKET, SO_SNDBUF, &small, sizeof small));
    break;
  case DT_PIPE:
    if (pipe (p) == 0) {
      h->fd[0] = p[1];
      h->fd[1] = p[0];
    }
    break;
  case DT_FILE: h->fd[0] = memfd_create ("difftest", 0); break;
  case DT_DEVNULL: h->fd[0] = open ("/dev/null", O_RDWR); break;
  default: break;
  }
  /* NBD requests go to files and pipes too (a log, a relay): where such
   * a descriptor took a followed socket's number unseen, the library
   * must still not change what the write does.
   */
  switch (h->kind) {
  case DT_PIPE: case DT_FILE: case DT_DEVNULL:
    h->nbd_on = dt_one_in (w->src, 2);
    break;
  case DT_UDP: open_udp (w, h); break;
  default: break;
  }
}

void
dt_handle_open (struct dt_world *w, unsigned i, enum dt_kind k)
{
  struct dt_handle *h = &w->h[i];

  dt_handle_close (w, i);
  memset (h, 0, sizeof *h);
  h->used = true;
  h->kind = k;
  h->fd[0] = h->fd[1] = h->alias[0] = h->alias[1] = -1;
  open_kind (w, h);
  dt_trace_line (w->trace, "  handle %u %s: fds %d %d", i, kind_names[k],
                 h->fd[0], h->fd[1]);
}

void
dt_handle_close (struct dt_world *w, unsigned i)
{
  struct dt_handle *h = &w->h[i];

  for (int e = 0; e < 2; e++) {
    if (h->fd[e] >= 0)
      w->x->close (h->fd[e]);
    if (h->alias[e] >= 0)
      w->x->close (h->alias[e]);
    h->fd[e] = h->alias[e] = -1;
  }
  h->used = false;
}

/* ---- NBD messages ---- */

static size_t
put_request (uint8_t *p, uint16_t type, uint64_t cookie, uint32_t len)
{
  struct nbd_request q = {
    .magic = htobe32 (NBD_REQUEST_MAGIC), .type = htobe16 (type),
    .cookie = htobe64 (cookie), .offset = htobe64 (4096 * cookie),
    .count = htobe32 (len) };

  memcpy (p, &q, sizeof q);
  return sizeof q;
}

/* A client's request: READ, WRITE (with its payload), FLUSH or TRIM. */
static void
new_request (struct dt_world *w, struct dt_handle *h, struct dt_message *m)
{
  static const uint16_t types[] = { NBD_CMD_READ, NBD_CMD_WRITE,
                                    NBD_CMD_FLUSH, NBD_CMD_TRIM };
  uint16_t type = types[dt_pick (w->src, 4)];
  uint32_t len = (uint32_t) dt_length (w->src, 4096);

  m->header = put_request (m->bytes, type, ++h->nbd.next_cookie, len);
  m->len = m->header;
  if (type == NBD_CMD_WRITE) {
    dt_fill (w->src, m->bytes + m->len, len);
    m->len += len;
  }
  if (h->nbd.nsent < DT_PENDING)
    h->nbd.sent[h->nbd.nsent++] = (struct dt_request) {
      type, h->nbd.next_cookie, len };
  else
    h->nbd_on = false;          /* more in flight than followed */
}

/* A server's answer to the first request it read: a simple reply (with
 * the data of a READ), or in structured mode an OFFSET_DATA chunk.
 */
static bool
new_reply (struct dt_world *w, struct dt_handle *h, struct dt_message *m)
{
  struct dt_request q;
  uint8_t *p = m->bytes;

  if (h->nbd.nread == 0)
    return false;
  q = h->nbd.read[0];
  memmove (&h->nbd.read[0], &h->nbd.read[1],
           --h->nbd.nread * sizeof h->nbd.read[0]);
  if (h->nbd.structured && q.type == NBD_CMD_READ) {
    struct nbd_structured_reply c = {
      .magic = htobe32 (NBD_STRUCTURED_REPLY_MAGIC),
      .flags = htobe16 (NBD_REPLY_FLAG_DONE),
      .type = htobe16 (NBD_REPLY_TYPE_OFFSET_DATA),
      .cookie = htobe64 (q.cookie), .length = htobe32 (8 + q.len) };
    uint64_t offset = htobe64 (4096 * q.cookie);
    memcpy (p, &c, sizeof c);
    memcpy (p + sizeof c, &offset, sizeof offset);
    m->header = sizeof c + sizeof offset;
  }
  else {
    struct nbd_simple_reply r = { .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC),
                                  .cookie = htobe64 (q.cookie) };
    memcpy (p, &r, sizeof r);
    m->header = sizeof r;
  }
  m->len = m->header;
  if (q.type == NBD_CMD_READ) {
    dt_fill (w->src, p + m->len, q.len);
    m->len += q.len;
  }
  return true;
}

/* The header alone (what the library corks), all of it, or any cut. */
static size_t
cut (struct dt_world *w, const struct dt_message *m, size_t max)
{
  size_t rest = m->len - m->sent, n;

  if (m->sent == 0 && dt_pick (w->src, 3) == 0)
    n = m->header;
  else if (dt_one_in (w->src, 3))
    n = rest;
  else
    n = dt_length (w->src, rest);
  return n < max ? n : max;
}

const uint8_t *
dt_nbd_piece (struct dt_world *w, struct dt_handle *h, int e, size_t max,
              size_t *len)
{
  struct dt_message *m = &h->nbd.out[e];

  if (m->len == 0) {
    m->sent = 0;
    if (e == 0)
      new_request (w, h, m);
    else if (!new_reply (w, h, m))
      return NULL;
  }
  *len = cut (w, m, max);
  return m->bytes + m->sent;
}

void
dt_nbd_sent (struct dt_handle *h, int e, size_t n)
{
  struct dt_message *m = &h->nbd.out[e];

  if (m->len == 0)
    return;
  m->sent += n;
  if (m->sent >= m->len)
    m->len = m->sent = 0;
}

const uint8_t *
dt_nbd_rest (const struct dt_handle *h, int e, size_t *len)
{
  const struct dt_message *m = &h->nbd.out[e];

  *len = m->len - m->sent;
  return m->len && m->sent ? m->bytes + m->sent : NULL;
}

bool
dt_nbd_header_only (const struct dt_handle *h, int e)
{
  const struct dt_message *m = &h->nbd.out[e];

  return h->nbd_on && m->len > m->header && m->sent == m->header;
}

/* The server read N more bytes of requests: each one read whole (its
 * header, and a WRITE's payload) may be answered.
 */
void
dt_nbd_read (struct dt_handle *h, size_t n)
{
  struct dt_nbd *b = &h->nbd;

  while (n > 0 && b->nsent > 0) {
    struct dt_request q = b->sent[0];
    size_t whole = sizeof (struct nbd_request)
      + (q.type == NBD_CMD_WRITE ? q.len : 0);
    size_t take = whole - b->read_pos < n ? whole - b->read_pos : n;
    b->read_pos += take;
    n -= take;
    if (b->read_pos < whole)
      break;
    b->read_pos = 0;
    memmove (&b->sent[0], &b->sent[1], --b->nsent * sizeof b->sent[0]);
    if (b->nread < DT_PENDING)
      b->read[b->nread++] = q;
  }
}

void
dt_sent (struct dt_handle *h, int e, ssize_t n)
{
  if (n > 0)
    h->pending[e] += (size_t) n;
}
