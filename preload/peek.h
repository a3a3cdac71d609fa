/* SPDX-License-Identifier: MIT */
/* Reading the program's bytes before the kernel has seen them. */
#ifndef SOCKBOOST_PEEK_H
#define SOCKBOOST_PEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Bytes a window holds: the longest header (32) and the fixed fields a
 * program writes with it (12 at most), with room to spare.
 */
#define SB_PEEK_WINDOW 64

/* The most pieces a planned send may have: a header alone is one or
 * two, and the window's bytes must fit in one read.
 */
#define SB_PEEK_IOV_MAX 16

/* Copy the LEN bytes the program has at SRC into DST.  False, with
 * nothing read past the first bad byte, where a plain load would fault
 * (NULL, unmapped, PROT_NONE, a mapped file's end) or where the kernel
 * will not read for us; errno is kept either way.
 */
extern bool sb_peek (void *dst, const void *src, size_t len);

/* The bytes of one planned send, IOV (the library's copy of the
 * program's iovecs), held a window at a time.  Reading from the window
 * makes no system call: a byte outside it is a miss, noted in WANTED,
 * and sb_peek_fill then reads the window there.
 */
struct sb_peek_window {
  const struct iovec *iov;
  int iovcnt;
  size_t total;                 /* the send's length */
  size_t start, len;            /* the send's bytes held in BUF */
  bool missed;                  /* a read fell outside: WANTED is set */
  size_t wanted;
  uint8_t buf[SB_PEEK_WINDOW];
};

static inline void
sb_peek_window_init (struct sb_peek_window *w, const struct iovec *iov,
                     int iovcnt, size_t total)
{
  w->iov = iov;
  w->iovcnt = iovcnt;
  w->total = total;
  w->start = w->len = 0;
  w->missed = false;
}

/* An sb_framing_read_fn over a struct sb_peek_window (CTX). */
extern bool sb_peek_read (void *ctx, size_t off, void *dst, size_t len);

/* Read W's window at the offset it missed; false if it cannot be read. */
extern bool sb_peek_fill (struct sb_peek_window *w);

#endif /* SOCKBOOST_PEEK_H */
