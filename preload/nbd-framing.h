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
 * What MSG_MORE may be added to (the invariant the library keeps):
 * sb_framing_wants_more says yes only when the bytes of that very send
 * end with a complete NBD header whose magic and fields the tracker
 * checked (or with the fixed fields of its payload, such as a data
 * chunk's offset), and that header announces payload bytes the send does
 * not carry: the program is about to write them.  A send that carries
 * on with a payload announced by an earlier send gets no MSG_MORE, so an
 * earlier count never adds one.  A stream the tracker has lost (bytes it
 * could not see where a header was due, a header that fails its magic
 * check, bytes it could not be fed) turns it off for the rest of the
 * socket's life.  Bytes it could not see but that fall inside a payload
 * (sendfile, splice) are only counted; a boundary it reaches by counting
 * is checked again (magic and all) before it counts for anything.
 *
 * Threads: each direction has one owner at a time.  sb_framing_sent and
 * sb_framing_wants_more touch the outgoing side, sb_framing_received the
 * incoming one; the caller serialises calls per direction (the library
 * claims each direction without waiting, slots.c).  The two directions may
 * run at once: what they share (role, negotiated options, off) is atomic,
 * and in transmission they share nothing else, except on a server in
 * simple-reply mode, where READ lengths pass from the incoming side to
 * the outgoing one through struct sb_reads, one writer and one reader,
 * without a lock.  A client stops following the replies once the
 * handshake is over: its requests carry every length it needs.
 */
#ifndef SOCKBOOST_NBD_FRAMING_H
#define SOCKBOOST_NBD_FRAMING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Longest header kept while it arrives in pieces (extended headers). */
#define SB_FRAMING_HDR_MAX 32

/* READs in flight on a server in simple-reply mode: an open-addressed
 * table, a READ within SB_READS_PROBE cells of its hash.  Up to about half
 * the cells fill before a READ can find no free cell near its hash.
 */
#define SB_READS_CELLS 4096
#define SB_READS_PROBE 64

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
  SB_FRAMING_OFF_COOKIES_FULL,  /* no free cell for a READ in flight */
  SB_FRAMING_OFF_DUP_COOKIE,    /* a READ cookie already in flight */
  SB_FRAMING_OFF_AFTER_DISC,    /* bytes after NBD_CMD_DISC */
  SB_FRAMING_OFF_ABANDONED,     /* its owner gave up on it (state unsure) */
  SB_FRAMING_OFF_UNSEEN,        /* bytes it could not read where a header was due */
  SB_FRAMING_OFF_BUSY,          /* bytes it could not be fed (tracker in use) */
  SB_FRAMING_OFF_NO_TABLE,      /* a READ in flight and no table for it */
  SB_FRAMING_OFF_UNREADABLE,    /* header bytes a descriptor took unread */
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

/* One READ in flight: SEQ is even while the cell is free, odd while it
 * holds COOKIE and LEN.  Only the incoming side makes a cell odd (after
 * writing the cookie and length), only the outgoing side makes it even
 * again; seq 0 means never used since the table was reset.
 */
struct sb_reads_cell {
  uint64_t cookie;
  uint32_t len;
  _Atomic uint32_t seq;
};

struct sb_reads {
  atomic_bool dirty;            /* a READ went in since the last reset */
  struct sb_reads_cell cell[SB_READS_CELLS];
};

/* All zero is a fresh tracker with no READ table. */
struct sb_framing {
  struct sb_framing_dir out;    /* bytes this end sent */
  struct sb_framing_dir in;     /* bytes this end received */
  _Atomic uint8_t role;         /* enum sb_framing_role */
  _Atomic uint8_t off;          /* enum sb_framing_off, the first one */
  _Atomic uint8_t state;        /* private flag bits: negotiated options */
  _Atomic uint8_t spoke;        /* private: which sides began a greeting */
  atomic_bool nbd_seen;         /* this end spoke NBD first (see below) */
  atomic_bool joins;            /* this end sent a header with its payload */
  /* Not the tracker's own: the library's MSG_MORE holds the bytes of
   * the last send (cork.c), read and written with the outgoing side.
   */
  bool out_held;
  struct sb_reads *_Atomic reads; /* READs in flight (server, simple replies) */
};

/* How a pass reads the header bytes of a send it may not load itself
 * (one not made yet, or made with a call that a file or device takes
 * too): copy the LEN bytes at offset OFF of the send into DST, or return
 * false where they cannot be read.  Payload bytes are never asked for.
 */
typedef bool sb_framing_read_fn (void *ctx, size_t off, void *dst,
                                 size_t len);

/* Bytes that actually went out / came in: the first NBYTES of IOV
 * (NBYTES may be less than the iovecs hold, after a partial write or a
 * short read).  Never feed bytes only peeked at (MSG_PEEK).
 */
extern void sb_framing_sent (struct sb_framing *f, const struct iovec *iov,
                             int iovcnt, size_t nbytes);
extern void sb_framing_received (struct sb_framing *f,
                                 const struct iovec *iov, int iovcnt,
                                 size_t nbytes);

/* sb_framing_sent for bytes FROM to NBYTES of IOV whose header bytes may
 * only be read through READ (below).  Returns NBYTES once they are all
 * fed, or the offset of the first byte READ could not give: the caller
 * makes it readable and goes on from there.
 */
extern size_t sb_framing_sent_read (struct sb_framing *f,
                                    const struct iovec *iov, int iovcnt,
                                    size_t from, size_t nbytes,
                                    sb_framing_read_fn *read, void *ctx);

/* NBYTES went out (SENDING) or came in without the tracker seeing them
 * (sendfile, splice): fine inside a payload, which they shorten; where a
 * header was due the stream is lost, and the tracker turns off.
 */
extern void sb_framing_unseen (struct sb_framing *f, bool sending,
                               size_t nbytes);

/* Where a send of all of IOV would leave the outgoing stream. */
enum sb_framing_end {
  SB_FRAMING_END_OFF,           /* off, or these bytes would turn it off */
  SB_FRAMING_END_BOUNDARY,      /* at a message boundary */
  SB_FRAMING_END_INSIDE,        /* inside a message, not right after a header */
  SB_FRAMING_END_HEADER,        /* right after a header: MSG_MORE is right */
  SB_FRAMING_END_UNKNOWN,       /* too many READs answered in one send to
                                   follow ahead of it */
  SB_FRAMING_END_UNREADABLE,    /* header bytes that READ could not read */
};

/* Where a send of all of IOV would end.  Does not change F.  IOV gives
 * the lengths; the header bytes come from READ (with CTX), or straight
 * from IOV's buffers when READ is NULL.  Cost: O(iovcnt + headers in
 * IOV); payload bytes are never read, so a send that stays inside a
 * payload reads nothing at all.
 */
extern enum sb_framing_end sb_framing_send_ends (const struct sb_framing *f,
                                                 const struct iovec *iov,
                                                 int iovcnt,
                                                 sb_framing_read_fn *read,
                                                 void *ctx);

/* True iff MSG_MORE is right for a send of all of IOV (it would end
 * right after a header): the invariant above.
 */
extern bool sb_framing_wants_more (const struct sb_framing *f,
                                   const struct iovec *iov, int iovcnt);

/* False once received bytes no longer matter: off, or a client in the
 * transmission phase.  Answered without owning either side.
 */
extern bool sb_framing_wants_input (const struct sb_framing *f);

extern bool sb_framing_is_off (const struct sb_framing *f);

/* Turn F off for good with reason WHY (not SB_FRAMING_ON), whatever its
 * state, from any thread, even while another one owns a side: for a
 * caller that cannot trust it any more.  The first reason stays.
 */
extern void sb_framing_abandon (struct sb_framing *f, enum sb_framing_off why);
extern enum sb_framing_role sb_framing_role (const struct sb_framing *f);

/* This end spoke NBD: it sent NBDMAGIC as a server, or IHAVEOPT as a
 * client.  The signal for SOCKBOOST_SCOPE=nbd; it stays set even if the
 * tracker turns off later.
 */
extern bool sb_framing_nbd_seen (const struct sb_framing *f);

/* In transmission this end sent a header and the data of a READ or a
 * WRITE (past the fixed fields that go with the header) in one send: a
 * program that writes whole messages, which MSG_MORE would not help.
 * It stays set.
 */
extern bool sb_framing_joins (const struct sb_framing *f);

/* A server follows READ lengths in simple-reply mode only with a table:
 * true while F is a server that has none yet.
 */
extern bool sb_framing_needs_reads (const struct sb_framing *f);

/* Give F the table T (emptied first if an earlier socket used it).  Call
 * while owning the outgoing side, before the client can send a request.
 */
extern void sb_framing_attach_reads (struct sb_framing *f, struct sb_reads *t);

/* READs in flight in F's table (for tests: it walks the whole table). */
extern unsigned sb_framing_reads_in_flight (const struct sb_framing *f);

extern enum sb_framing_off sb_framing_off_code (const struct sb_framing *f);
/* A short static text for the log, "" while on. */
extern const char *sb_framing_off_reason (const struct sb_framing *f);

#endif /* SOCKBOOST_NBD_FRAMING_H */
