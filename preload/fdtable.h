/* SPDX-License-Identifier: MIT */
/* What the library knows about each file descriptor: one atomic word. */
#ifndef SOCKBOOST_FDTABLE_H
#define SOCKBOOST_FDTABLE_H

#include <stdatomic.h>
#include <stdint.h>

/* Descriptors at or above this number are simply not tracked. */
#define SB_FD_MAX 65536

enum {
  SB_FD_KNOWN = 1u << 0,      /* socket family and type are recorded */
  SB_FD_UNIX = 1u << 1,       /* AF_UNIX SOCK_STREAM */
  SB_FD_TCP = 1u << 2,        /* AF_INET/AF_INET6 SOCK_STREAM */
  SB_FD_TUNED = 1u << 3,      /* send buffer / nodelay applied */
  SB_FD_CANDIDATE = 1u << 4,  /* scope=nbd: waiting for a handshake */
  SB_FD_NOFRAME = 1u << 5,    /* framing gave up on this socket */
  SB_FD_SIDE_SHIFT = 6,       /* 2 bits: enum sb_side */
  SB_FD_APPCORK = 1u << 8,    /* the program set TCP_CORK itself */
  SB_FD_APPMORE = 1u << 9,    /* the program passed MSG_MORE itself */
  SB_FD_GEN_SHIFT = 10,       /* 10 bits: the slot's generation */
  SB_FD_NOINPUT = 1u << 20,   /* a client in transmission: what it
                                 receives is not followed */
  SB_FD_SLOT_SHIFT = 21,      /* 11 bits: framing slot + 1, 0 for none */
};

enum sb_side { SB_SIDE_NONE, SB_SIDE_CONNECT, SB_SIDE_ACCEPT, SB_SIDE_PAIR };

#define SB_FD_KINDS (SB_FD_UNIX | SB_FD_TCP)
#define SB_FD_SLOT_MASK (UINT32_C (0x7ff) << SB_FD_SLOT_SHIFT)
#define SB_FD_GEN_MASK (UINT32_C (0x3ff) << SB_FD_GEN_SHIFT)
#define SB_FD_SIDE(e) ((enum sb_side) (((e) >> SB_FD_SIDE_SHIFT) & 3u))
#define SB_FD_SLOT(e) ((int) ((e) >> SB_FD_SLOT_SHIFT) - 1)
#define SB_FD_GEN(e) (((e) & SB_FD_GEN_MASK) >> SB_FD_GEN_SHIFT)
/* The entry bits naming slot I of generation GEN. */
#define SB_FD_WITH_SLOT(i, gen) (((uint32_t) ((i) + 1) << SB_FD_SLOT_SHIFT) \
                                 | ((uint32_t) (gen) << SB_FD_GEN_SHIFT))

/* The table itself, for the inline lookup below; change it only
 * through the functions.
 */
extern _Atomic uint32_t sb_fd_table[SB_FD_MAX];

/* Lock-free read of the entry for FD (0 for untracked or out of range).
 * Inline: it is all an untracked fd costs on the send path.
 */
static inline uint32_t
sb_fd_get (int fd)
{
  if ((unsigned) fd >= SB_FD_MAX)
    return 0;
  return atomic_load_explicit (&sb_fd_table[fd], memory_order_acquire);
}

/* Store VALUE for FD; return the previous entry. */
extern uint32_t sb_fd_swap (int fd, uint32_t value);

/* Replace the entry only if it still holds EXPECTED; return 1 if so. */
extern int sb_fd_update (int fd, uint32_t expected, uint32_t value);

#endif /* SOCKBOOST_FDTABLE_H */
