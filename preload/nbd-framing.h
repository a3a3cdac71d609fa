/* SPDX-License-Identifier: MIT */
/* NBD stream framing tracker: where the message boundaries of one socket are.
 *
 * A pure module: no system calls, no allocation, no globals, no locks.  One
 * struct sb_framing per socket follows both directions: the fixed-newstyle
 * handshake, then requests (plus WRITE payloads) one way and replies (plus
 * READ payloads, structured or extended chunks) the other way.  It works out
 * by itself whether this end is the server (it sends NBDMAGIC) or the client
 * (it receives NBDMAGIC).  Anything it does not understand turns it off for
 * good, with a reason; when off it answers "no" to every question.
 *
 * Threads: the functions are not thread safe.  The caller must serialise
 * every call on one struct (sent, received and wants_more alike, since both
 * directions share the negotiated state and the table of outstanding READs),
 * for instance with a per-socket lock, or use the tracker only while one
 * thread is seen sending and receiving on the socket.
 */
#ifndef SOCKBOOST_NBD_FRAMING_H
#define SOCKBOOST_NBD_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* READ requests awaiting their reply that one socket can track. */
#define SB_FRAMING_COOKIES 128
/* Longest header kept while it arrives in pieces (extended headers). */
#define SB_FRAMING_HDR_MAX 32

enum sb_framing_role {
  SB_FRAMING_ROLE_UNKNOWN = 0,
  SB_FRAMING_ROLE_CLIENT,       /* received NBDMAGIC */
  SB_FRAMING_ROLE_SERVER,       /* sent NBDMAGIC */
};

/* Why the tracker turned itself off (sb_framing_off_reason gives text). */
enum sb_framing_off {
  SB_FRAMING_ON = 0,
  SB_FRAMING_OFF_NOT_NBD,       /* first bytes were not an NBD greeting */
  SB_FRAMING_OFF_OLDSTYLE,      /* oldstyle or non-fixed newstyle greeting */
  SB_FRAMING_OFF_BOTH_SPOKE,    /* bytes both ways before a greeting */
  SB_FRAMING_OFF_CLIENT_FLAGS,  /* unknown client flags */
  SB_FRAMING_OFF_BAD_MAGIC,     /* unknown magic at a message boundary */
  SB_FRAMING_OFF_BAD_LENGTH,    /* impossible length in a header */
  SB_FRAMING_OFF_NOT_NEGOTIATED, /* reply or request kind never agreed */
  SB_FRAMING_OFF_STARTTLS,      /* TLS follows: the bytes are opaque */
  SB_FRAMING_OFF_COOKIES_FULL,  /* too many READs in flight */
  SB_FRAMING_OFF_DUP_COOKIE,    /* a READ cookie already in flight */
  SB_FRAMING_OFF_AFTER_DISC,    /* bytes after NBD_CMD_DISC */
  SB_FRAMING_OFF_ABANDONED,     /* its owner gave up on it (state unsure) */
};

/* One direction of the stream: a header being gathered or a payload
 * being skipped.  need == 0 means "at a message boundary".
 */
struct sb_framing_dir {
  uint64_t remaining;           /* payload bytes still to pass */
  uint8_t hdr[SB_FRAMING_HDR_MAX];
  uint8_t have;                 /* header bytes gathered */
  uint8_t need;                 /* header bytes wanted, 0 at a boundary */
  uint8_t kind;                 /* which header (private enum) */
};

/* Plain data: all zero is a fresh tracker; copy or memset freely. */
struct sb_framing {
  struct sb_framing_dir out;    /* bytes this end sent */
  struct sb_framing_dir in;     /* bytes this end received */
  uint8_t role;                 /* enum sb_framing_role */
  uint8_t off;                  /* enum sb_framing_off */
  uint8_t state;                /* private flag bits: negotiated options */
  uint8_t nbd_seen;             /* this end spoke NBD first (see below) */
  uint16_t ncookies;            /* entries used in the table below */
  uint32_t read_len[SB_FRAMING_COOKIES]; /* length of each READ in flight */
  uint64_t cookie[SB_FRAMING_COOKIES];   /* its cookie */
};

/* Bytes that actually went out / came in: the first NBYTES of IOV
 * (NBYTES may be less than the iovecs hold, after a partial write or a
 * short read).  Never feed bytes only peeked at (MSG_PEEK).
 */
extern void sb_framing_sent (struct sb_framing *f, const struct iovec *iov,
                             int iovcnt, size_t nbytes);
extern void sb_framing_received (struct sb_framing *f,
                                 const struct iovec *iov, int iovcnt,
                                 size_t nbytes);

/* True iff, once ALL the bytes of IOV were sent, the outgoing stream would
 * stand inside a message (a header alone, or part of a payload), so that
 * MSG_MORE is right: the rest of that message must follow.  False at a
 * message boundary, when off, and when these bytes would turn the tracker
 * off.  In the handshake it answers the same way (the rest of an option,
 * of a greeting), which is rare and harmless.  Does not change F.
 * Cost: O(iovcnt + headers in IOV); payload bytes are never read.
 */
extern bool sb_framing_wants_more (const struct sb_framing *f,
                                   const struct iovec *iov, int iovcnt);

extern bool sb_framing_is_off (const struct sb_framing *f);

/* Turn F off for good with reason WHY (not SB_FRAMING_ON), whatever its
 * state: for a caller that cannot trust it any more (the process forked
 * while another thread was updating it).  Touches only the off code, so
 * it is safe on a struct left half-updated.
 */
extern void sb_framing_abandon (struct sb_framing *f, enum sb_framing_off why);
extern enum sb_framing_role sb_framing_role (const struct sb_framing *f);

/* This end spoke NBD: it sent NBDMAGIC as a server, or IHAVEOPT as a
 * client.  The signal for SOCKBOOST_SCOPE=nbd; it stays set even if the
 * tracker turns off later.
 */
extern bool sb_framing_nbd_seen (const struct sb_framing *f);

extern enum sb_framing_off sb_framing_off_code (const struct sb_framing *f);
/* A short static text for the log, "" while on. */
extern const char *sb_framing_off_reason (const struct sb_framing *f);

#endif /* SOCKBOOST_NBD_FRAMING_H */
