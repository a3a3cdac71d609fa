/* SPDX-License-Identifier: MIT */
/* Socket tuning: a bigger send buffer on AF_UNIX streams, TCP_NODELAY on
 * TCP.  Best effort: errno is left as found, failures are only logged.
 */
#ifndef SOCKBOOST_TUNE_H
#define SOCKBOOST_TUNE_H

#include <stdint.h>

#include "fdtable.h"
#include "tuning.h"

/* The table's kind bits (SB_FD_UNIX, SB_FD_TCP or 0) for a socket of
 * DOMAIN, TYPE, PROTOCOL, by the rules' sb_socket_kind.
 */
extern uint32_t sb_tune_kind (int domain, int type, int protocol);

/* The table entry describing what FD is, asking the kernel only when the
 * table does not know yet.  Records the answer.
 */
extern uint32_t sb_tune_known (int fd);

/* FD was just connected, accepted or made by socketpair (SIDE); KIND is
 * from sb_tune_kind.  Tune it now, or with SOCKBOOST_SCOPE=nbd mark it as
 * a candidate for later.  Stores the new table entry.
 */
extern void sb_tune_new (int fd, uint32_t kind, enum sb_side side);

/* Apply the tuning to FD whose table entry is ENTRY, and mark it tuned. */
extern void sb_tune_apply (int fd, uint32_t entry);

#endif /* SOCKBOOST_TUNE_H */
