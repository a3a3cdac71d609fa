/* SPDX-License-Identifier: MIT */
/* The watcher as enable, disable and status see it: started as a process
 * of its own, found and stopped by what the kernel says of it.  No pid
 * file: a generation whose TCP part is the watcher holds the watcher's
 * counts array (pinned as SB_WATCH_PIN), whose slot PID names it; that
 * process is the watcher only if it holds that very array (its fdinfo
 * says so), so a pid used again by another process is never taken for
 * it, and its programs are attached only while it lives.
 */
#ifndef SOCKBOOST_HOST_WATCH_CONTROL_H
#define SOCKBOOST_HOST_WATCH_CONTROL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "watch-abi.h"

/* The name of the counts array's pin in a generation. */
#define SB_WATCH_PIN "watch"

/* The running watcher of the counts array at COUNTS_FD: return a pidfd
 * of it and set *PID, or -1 when none runs.
 */
extern int sb_watch_find (int counts_fd, pid_t *pid);

/* Stop the watcher of the counts array at COUNTS_FD, if one runs (TERM,
 * then KILL after a bounded wait).  Return 0, or -1 with WHY.
 */
extern int sb_watch_stop (int counts_fd, char *why, size_t why_len);

/* Start `sb-host watch --pin-dir PIN_DIR`, detached (its own session,
 * no terminal), and wait a bounded time for the line it prints once it
 * watches, or for why it could not.  Return its pid, or -1 with WHY.
 */
extern pid_t sb_watch_spawn (const char *pin_dir, char *why, size_t why_len);

/* Read the counts array at COUNTS_FD into C. */
extern void sb_watch_read_counts (int counts_fd, uint64_t c[SB_WATCH_NCOUNTS]);

/* ---- in a generation of host mode's pins -------------------------------- */

struct sb_host_pins;

/* Make generation GEN of P one whose TCP part is the watcher: pin a new
 * counts array there.  Return 0, or -1 with WHY.
 */
extern int sb_watch_pin_counts (const struct sb_host_pins *p, const char *gen,
                                char *why, size_t why_len);

/* Stop the watcher of generation GEN of P, if it has one.  Return 0, or
 * -1 with WHY.
 */
extern int sb_watch_stop_generation (const struct sb_host_pins *p,
                                     const char *gen, char *why, size_t why_len);

/* The watcher of a generation, as status says it. */
struct sb_watch_state {
  int present;                  /* the generation's TCP part is the watcher */
  int running;                  /* and it runs */
  pid_t pid;
  uint64_t counts[SB_WATCH_NCOUNTS];
};

extern void sb_watch_state_read (const struct sb_host_pins *p, const char *gen,
                                 struct sb_watch_state *ws);

/* watch-status.c: what status says of it, as text lines or as the value
 * of its "watcher" key (null without one).
 */
extern void sb_watch_status_text (const struct sb_watch_state *ws);
extern void sb_watch_status_json (const struct sb_watch_state *ws);

#endif /* SOCKBOOST_HOST_WATCH_CONTROL_H */
