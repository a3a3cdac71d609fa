/* SPDX-License-Identifier: MIT */
/* The send and receive paths: follow the NBD framing of tracked sockets,
 * decide when MSG_MORE is right, apply scope=nbd tuning, count stats.
 */
#ifndef SOCKBOOST_CORK_H
#define SOCKBOOST_CORK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "config.h"
#include "fdtable.h"

struct sb_send_plan {
  uint32_t entry;               /* the fd's table entry before the call */
  int more;                     /* the library adds MSG_MORE */
};

/* The fast path of every send hook: true for an fd the library does
 * nothing more with (untracked, a file, a socket with no framing tracker
 * when SOCKBOOST_STATS is off), which then costs one inline table load
 * before the plain call.
 */
static inline bool
sb_cork_ignores (int fd)
{
  uint32_t e = sb_fd_get (fd);

  if (SB_FD_SLOT (e) >= 0)
    return false;
  return !(e & SB_FD_TUNED) || !sb_config ()->stats;
}

/* Plan a send of IOV with the caller's FLAGS on FD.  Returns 0 for an
 * fd the library does not follow: make the plain call and nothing else.
 */
extern int sb_cork_plan (int fd, const struct iovec *iov, int iovcnt,
                         int flags, struct sb_send_plan *p);

/* The planned send returned R: feed the tracker, count, follow up. */
extern void sb_cork_sent (int fd, const struct sb_send_plan *p,
                          const struct iovec *iov, int iovcnt, ssize_t r);

/* A receive with FLAGS on FD returned R bytes into IOV. */
extern void sb_cork_received (int fd, const struct iovec *iov, int iovcnt,
                              ssize_t r, int flags);

/* FD, thought to be a socket, is not one (ENOTSOCK): forget it. */
extern void sb_cork_not_socket (int fd);

/* The program set TCP_CORK on FD to ON (so the library adds nothing). */
extern void sb_cork_app_cork (int fd, int on);

#endif /* SOCKBOOST_CORK_H */
