/* SPDX-License-Identifier: MIT */
/* Our copies of other processes' sockets (pidfd_getfd), let go of
 * without waiting on them.  The last close of a TCP socket with
 * SO_LINGER set waits until its unsent data is acknowledged or the
 * linger time runs out, and the socket's owner chose both: an owner that
 * closes its own descriptor while we hold a copy makes our close the
 * last, and would hold a tool of root's for as long as it likes.  A copy
 * of any socket but a unix one (which never lingers) is kept instead,
 * and the kept ones are closed by sb_let_go_flush in a child process
 * that exits at once: the kernel never lingers for an exiting process.
 */
#ifndef SOCKBOOST_LET_GO_H
#define SOCKBOOST_LET_GO_H

/* Close COPY, or keep it for sb_let_go_flush (flushing first when too
 * many are kept).
 */
extern void sb_let_go (int copy);

/* Close the copies kept, none of them waiting. */
extern void sb_let_go_flush (void);

#endif /* SOCKBOOST_LET_GO_H */
