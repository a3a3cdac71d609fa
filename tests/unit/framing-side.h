/* SPDX-License-Identifier: MIT */
/* Framing unit tests: one tracker fed as a server or as a client, and
 * the handshakes that bring it to the transmission phase.
 */
#ifndef SOCKBOOST_TEST_FRAMING_SIDE_H
#define SOCKBOOST_TEST_FRAMING_SIDE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "nbd-framing.h"
#include "nbd-stream.h"

/* ---- Feeding one side: the same scenario runs as server and client ---- */

struct side {
  struct sb_framing f;
  bool server;
};

static inline void
sent (struct side *s, const void *p, size_t n)
{
  struct iovec iov = { (void *) (uintptr_t) p, n };
  sb_framing_sent (&s->f, &iov, 1, n);
}

static inline void
received (struct side *s, const void *p, size_t n)
{
  struct iovec iov = { (void *) (uintptr_t) p, n };
  sb_framing_received (&s->f, &iov, 1, n);
}

static inline bool
wants (const struct side *s, const void *p, size_t n)
{
  struct iovec iov = { (void *) (uintptr_t) p, n };
  return sb_framing_wants_more (&s->f, &iov, 1);
}

/* Bytes the server sends / the client sends, seen from S. */
static inline void
s2c (struct side *s, const struct bytes *b)
{
  (s->server ? sent : received) (s, b->b, b->n);
}

static inline void
c2s (struct side *s, const struct bytes *b)
{
  (s->server ? received : sent) (s, b->b, b->n);
}

/* A server's table of READs in flight (the library maps one per slot). */
static struct sb_reads side_reads;

static inline void
fresh (struct side *s, bool server)
{
  memset (s, 0, sizeof *s);
  s->server = server;
  if (server)
    sb_framing_attach_reads (&s->f, &side_reads);
}

#define IN_FLIGHT(s) sb_framing_reads_in_flight (&(s)->f)

static inline const char *
who (const struct side *s)
{
  return s->server ? "server" : "client";
}

/* Greeting and client flags, both with NO_ZEROES when asked. */
static inline void
open_handshake (struct side *s, bool no_zeroes)
{
  static struct bytes b;
  uint16_t z = no_zeroes ? NBD_FLAG_NO_ZEROES : 0;

  b.n = 0;
  put_greeting (&b, NBD_FLAG_FIXED_NEWSTYLE | z);
  s2c (s, &b);
  b.n = 0;
  put_u32 (&b, NBD_FLAG_C_FIXED_NEWSTYLE | z);
  c2s (s, &b);
}

/* One option without data and its ACK (or error with a message). */
static inline void
haggle (struct side *s, uint32_t option, uint32_t reply)
{
  static struct bytes b;

  b.n = 0;
  put_option (&b, option, 0);
  c2s (s, &b);
  b.n = 0;
  put_opt_reply (&b, option, reply, reply == NBD_REP_ACK ? 0 : 5);
  if (reply != NBD_REP_ACK)
    put (&b, "nope!", 5);
  s2c (s, &b);
}

/* NBD_OPT_GO for the default export, one NBD_INFO_EXPORT, then ACK. */
static inline void
finish_go (struct side *s)
{
  static struct bytes b;
  struct nbd_fixed_new_option_reply_info_export info = {
    htobe16 (NBD_INFO_EXPORT), htobe64 (1 << 20), 0
  };

  b.n = 0;
  put_option (&b, NBD_OPT_GO, 6);
  put_fill (&b, 6, 0);            /* empty name, no info requests */
  c2s (s, &b);
  b.n = 0;
  put_opt_reply (&b, NBD_OPT_GO, NBD_REP_INFO, sizeof info);
  put (&b, &info, sizeof info);
  s2c (s, &b);
  b.n = 0;
  put_opt_reply (&b, NBD_OPT_GO, NBD_REP_ACK, 0);
  s2c (s, &b);
}

/* LIST or SET base:allocation, answered with the context and ACK. */
static inline void
haggle_meta (struct side *s, uint32_t option)
{
  static struct bytes b;

  b.n = 0;
  put_meta_option (&b, option);
  c2s (s, &b);
  b.n = 0;
  put_meta_reply (&b, option, option == NBD_OPT_SET_META_CONTEXT);
  put_opt_reply (&b, option, NBD_REP_ACK, 0);
  s2c (s, &b);
}

static inline void
handshake_go (struct side *s, bool structured, bool extended)
{
  open_handshake (s, true);
  haggle (s, NBD_OPT_LIST_META_CONTEXT, NBD_REP_ERR_UNSUP);
  if (extended)
    haggle (s, NBD_OPT_EXTENDED_HEADERS, NBD_REP_ACK);
  if (structured)
    haggle (s, NBD_OPT_STRUCTURED_REPLY, NBD_REP_ACK);
  if (structured || extended) {
    haggle_meta (s, NBD_OPT_LIST_META_CONTEXT);
    haggle_meta (s, NBD_OPT_SET_META_CONTEXT);
  }
  finish_go (s);
}

#define ON(s) (!sb_framing_is_off (&(s)->f))

#endif /* SOCKBOOST_TEST_FRAMING_SIDE_H */
