/* SPDX-License-Identifier: MIT */
/* Levelled log: "sockboost[PROGRAM PID]: message" on stderr or a file. */
#ifndef SOCKBOOST_LOG_H
#define SOCKBOOST_LOG_H

#include <stdbool.h>

#include "settings.h"               /* the levels, SB_LOG_* */

/* Set the level and open FILE (NULL for stderr; "%p" becomes the pid).
 * Called once, by the configuration.
 */
extern void sb_log_setup (int level, const char *file);

/* Non-zero when messages of LEVEL are printed. */
extern int sb_log_enabled (int level);

/* Print one line at LEVEL.  No allocation: formats into a stack buffer
 * and writes it with the real write().
 */
extern void sb_log (int level, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* The host closed or replaced the descriptors LO..HI: if the log file's
 * descriptor is among them it is no longer ours, so forget it.
 */
extern void sb_log_fds_gone (unsigned lo, unsigned hi);

/* True if the log file's descriptor is among LO..HI. */
extern bool sb_log_fd_within (unsigned lo, unsigned hi);

#endif /* SOCKBOOST_LOG_H */
