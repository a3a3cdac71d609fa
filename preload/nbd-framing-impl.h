/* SPDX-License-Identifier: MIT */
/* Private to the NBD framing tracker: shared by its source files. */
#ifndef SOCKBOOST_NBD_FRAMING_IMPL_H
#define SOCKBOOST_NBD_FRAMING_IMPL_H

#include "nbd-framing.h"

/* The header a direction is gathering (struct sb_framing_dir.kind). */
enum sb_framing_kind {
  K_NONE = 0,
  K_GREETING,                   /* s2c: NBDMAGIC IHAVEOPT gflags */
  K_CLIENT_FLAGS,               /* c2s: u32 flags */
  K_OPTION,                     /* c2s: IHAVEOPT option length, data */
  K_OPT_REPLY,                  /* s2c: magic option type length, data */
  K_EXPORT_FINISH,              /* s2c: size flags, maybe zeroes */
  K_REQUEST,                    /* c2s: compact request, maybe data */
  K_REQUEST_EXT,                /* c2s: extended request, maybe data */
  K_REPLY_MAGIC,                /* s2c: 4 bytes telling the reply kind */
  K_SIMPLE,                     /* s2c: simple reply, maybe READ data */
  K_STRUCTURED,                 /* s2c: structured chunk, data */
  K_EXTENDED,                   /* s2c: extended reply, data */
};

/* struct sb_framing.state bits. */
enum {
  ST_SERVER_NO_ZEROES = 1 << 0,
  ST_CLIENT_NO_ZEROES = 1 << 1,
  ST_CLIENT_FLAGS = 1 << 2,     /* client flags went by */
  ST_EXPORT_NAME = 1 << 3,      /* NBD_OPT_EXPORT_NAME went by */
  ST_TRANSMISSION = 1 << 4,     /* handshake over (GO acked, or finish) */
  ST_STRUCTURED = 1 << 5,
  ST_EXTENDED = 1 << 6,
  ST_DISC = 1 << 7,             /* NBD_CMD_DISC went by */
};

/* READs a dry run may answer before it gives up (and says no). */
#define SB_FRAMING_DRY_ANSWERS 16

/* One pass of bytes through one direction.  W is NULL for a dry run
 * (sb_framing_wants_more): then only *D and this context change, and the
 * context remembers what the pass would have changed in F (state, role,
 * READs answered) so that a dry run ends where a real one would.
 */
struct sb_framing_ctx {
  const struct sb_framing *f;
  struct sb_framing *w;
  struct sb_framing_dir *d;
  bool s2c;                     /* D carries server-to-client bytes */
  bool sending;                 /* D is (a copy of) F's outgoing side */
  uint8_t off;                  /* enum sb_framing_off, once surprised */
  uint8_t state;                /* F's state bits as of now */
  uint8_t role;                 /* F's role as of now */
  /* MSG_MORE: a checked header ended in this pass and announced a
   * payload; it stays right while at least MORE_MIN of it remains (the
   * fixed fields that belong with the header may follow in the pass).
   */
  bool header_ended;
  uint64_t more_min;
  bool data_payload;            /* that payload is a READ's or WRITE's data */
  unsigned nanswered;           /* dry run: READ cells it answered */
  int answered[SB_FRAMING_DRY_ANSWERS];
  bool gave_up;                 /* dry run: more READs answered than that */
  /* Dry run: where header bytes come from (NULL: the iovecs themselves),
   * the offset in the send of the bytes at hand, and whether a read
   * failed (the pass stops there, with no answer).
   */
  sb_framing_read_fn *read;
  void *read_ctx;
  size_t pos;
  bool unreadable;
};

static inline void
sb_framing_set_state (struct sb_framing_ctx *c, uint8_t bits)
{
  c->state |= bits;
  if (c->w)
    atomic_fetch_or_explicit (&c->w->state, bits, memory_order_acq_rel);
}

/* No simple reply carries data once structured replies or extended
 * headers are agreed (NBD spec): only simple-reply mode needs the READs.
 */
static inline bool
sb_framing_simple_mode (uint8_t state)
{
  return !(state & (ST_STRUCTURED | ST_EXTENDED));
}

/* Header bytes a kind needs (the first 4 for K_REPLY_MAGIC). */
extern uint8_t sb_framing_header_size (uint8_t kind);

/* The header in c->d is complete: check it, apply its effects, and set
 * up its payload or the rest of the header.  Returns enum sb_framing_off.
 */
extern uint8_t sb_framing_header_done (struct sb_framing_ctx *c);

/* READs in flight (nbd-framing-reads.c).  Record one as the server reads
 * its request; look one up as the server answers it with a simple reply
 * (the length of its data, 0 if none), forgetting it in a real pass.
 */
extern uint8_t sb_framing_reads_add (struct sb_framing_ctx *c, uint64_t cookie,
                                     uint32_t len);
extern uint8_t sb_framing_reads_answer (struct sb_framing_ctx *c,
                                        uint64_t cookie, uint64_t *len);

#endif /* SOCKBOOST_NBD_FRAMING_IMPL_H */
