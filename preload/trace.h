/* SPDX-License-Identifier: MIT */
/* SOCKBOOST_DEBUG=3: one line per hooked call on a socket the library
 * tuned or follows, saying what the call returned and what the library
 * did about it.  Called only from slow paths.
 */
#ifndef SOCKBOOST_TRACE_H
#define SOCKBOOST_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fdtable.h"
#include "log.h"

static inline int
sb_tracing (void)
{
  return sb_log_enabled (SB_LOG_TRACE);
}

/* "unix" or "tcp" for a table entry of either kind. */
static inline const char *
sb_kind_name (uint32_t e)
{
  return (e & SB_FD_UNIX) ? "unix" : "tcp";
}

/* "fd FD KIND CALL -> R: WHAT", with ERR's name when R is -1. */
extern void sb_trace_call (int fd, uint32_t e, const char *call, ssize_t r,
                           int err, const char *what);

/* The same for a send or receive of LEN bytes:
 * "fd FD KIND CALL LEN bytes -> R: WHAT".
 */
extern void sb_trace_io (int fd, uint32_t e, const char *call, size_t len,
                         ssize_t r, int err, const char *what);

#endif /* SOCKBOOST_TRACE_H */
