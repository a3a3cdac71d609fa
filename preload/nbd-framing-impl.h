/* SPDX-License-Identifier: MIT */
/* Private to the NBD framing tracker: shared by its two source files. */
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

/* One pass of bytes through one direction.  W is NULL for a dry run
 * (sb_framing_wants_more): then only *D and this context change, and the
 * context remembers what the pass would have changed in F (state, role,
 * READs answered) so that a dry run ends where a real one would.
 */
struct sb_framing_ctx {
  const struct sb_framing *f;
  struct sb_framing *w;
  struct sb_framing_dir *d;
  const struct sb_framing_dir *other; /* the opposite direction */
  bool s2c;                     /* D carries server-to-client bytes */
  bool sending;                 /* D is (a copy of) F's outgoing side */
  uint8_t off;                  /* enum sb_framing_off, once surprised */
  uint8_t state;                /* F's state bits as of now */
  uint8_t role;                 /* F's role as of now */
  uint64_t gone[SB_FRAMING_COOKIES / 64]; /* dry run: entries answered */
};

static inline void
sb_framing_set_state (struct sb_framing_ctx *c, uint8_t bits)
{
  c->state |= bits;
  if (c->w)
    c->w->state |= bits;
}

/* Header bytes a kind needs (the first 4 for K_REPLY_MAGIC). */
extern uint8_t sb_framing_header_size (uint8_t kind);

/* The header in c->d is complete: check it, apply its effects, and set
 * up its payload or the rest of the header.  Returns enum sb_framing_off.
 */
extern uint8_t sb_framing_header_done (struct sb_framing_ctx *c);

#endif /* SOCKBOOST_NBD_FRAMING_IMPL_H */
