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
#include "peek.h"

struct msghdr;

/* A send exactly as the program passed it: one buffer (send, sendto,
 * write), an iovec array (writev) or a msghdr (sendmsg).  Nothing it
 * points to is trusted: the plan reads it through sb_peek, and after the
 * call only what the kernel accepted is read.
 */
enum sb_send_form { SB_SEND_BUF, SB_SEND_IOV, SB_SEND_MSG };

struct sb_send_args {
  enum sb_send_form form;
  const void *buf;              /* SB_SEND_BUF */
  size_t len;
  const struct iovec *iov;      /* SB_SEND_IOV */
  int iovcnt;
  const struct msghdr *msg;     /* SB_SEND_MSG */
  /* write() or writev(): a file or device takes them too, and may report
   * bytes sent that it never read (/dev/null), so what they sent is read
   * only through the kernel as well.
   */
  bool any_fd;
};

struct sb_send_plan {
  uint32_t entry;               /* the fd's table entry before the call */
  int more;                     /* the library adds MSG_MORE */
  const char *call;             /* the hook's name, for the trace */
  const char *why;              /* why MSG_MORE is added or not */
  /* The library's copy of the send's iovecs, once read (iovcnt > 0),
   * and the bytes it read of them.
   */
  int iovcnt;
  size_t total;
  struct iovec iov[SB_PEEK_IOV_MAX];
  struct sb_peek_window window;
};

/* The fast path of every send and receive hook: true for an fd the library does
 * nothing more with (untracked, a file, a socket with no framing tracker
 * when neither SOCKBOOST_STATS nor the trace is on), which then costs one
 * inline table load before the plain call.
 */
static inline bool
sb_cork_ignores_entry (uint32_t e)
{
  if (SB_FD_SLOT (e) >= 0)
    return false;
  return !(e & SB_FD_TUNED) || !sb_config ()->watch_calls;
}

/* The same for a receive: a client past its handshake follows only what
 * it sends.
 */
static inline bool
sb_cork_ignores_input (uint32_t e)
{
  if (SB_FD_SLOT (e) >= 0 && !(e & SB_FD_NOINPUT))
    return false;
  return !(e & SB_FD_TUNED) || !sb_config ()->watch_calls;
}

static inline bool
sb_cork_ignores (int fd)
{
  return sb_cork_ignores_entry (sb_fd_get (fd));
}

/* Plan the send A with the caller's FLAGS on FD by the hook CALL.
 * Returns 0 for an fd the library does not follow: make the plain call
 * and nothing else.  MSG_MORE is planned only for a send that the
 * library could read (sb_peek) and that both forms of the call would
 * answer alike: 1 to SB_PEEK_IOV_MAX pieces, a length above 0, no
 * flags but MSG_NOSIGNAL and MSG_DONTWAIT.  errno is kept.
 */
extern int sb_cork_plan (int fd, const char *call,
                         const struct sb_send_args *a, int flags,
                         struct sb_send_plan *p);

/* The same for a call the library never adds MSG_MORE to (sendmmsg):
 * the plan only notes a MSG_MORE the program passes itself.
 */
extern int sb_cork_plan_plain (int fd, const char *call, int flags,
                               struct sb_send_plan *p);

/* The planned send A returned R: feed the tracker, count, follow up;
 * a send that sent nothing (R <= 0) lets go of a header the library
 * held.  A is read only where the kernel accepted it (R > 0), or not at
 * all (NULL: a call that failed before it had one).
 */
extern void sb_cork_sent (int fd, struct sb_send_plan *p,
                          const struct sb_send_args *a, ssize_t r);

/* A receive by the hook CALL with FLAGS on FD, whose entry is E (tuned or
 * with a framing slot), returned R (errno ERR) into IOV.
 */
extern void sb_cork_received (int fd, uint32_t e, const char *call,
                              const struct iovec *iov, int iovcnt,
                              ssize_t r, int err, int flags);

/* CALL (sendfile, splice) moved R bytes out of (SENDING) or into FD
 * without the library seeing them: counted inside a payload, the end of
 * the tracker anywhere else.  Sending nothing (R <= 0), it lets go of a
 * header the library held.
 */
extern void sb_cork_unseen (int fd, const char *call, bool sending,
                            ssize_t r);

/* FD, thought to be a socket, is not one (ENOTSOCK) for the hook CALL:
 * forget it.
 */
extern void sb_cork_not_socket (int fd, const char *call);

/* The program set TCP_CORK on FD to ON (so the library adds nothing). */
extern void sb_cork_app_cork (int fd, int on);

#endif /* SOCKBOOST_CORK_H */
