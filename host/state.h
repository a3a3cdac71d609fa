/* SPDX-License-Identifier: MIT */
/* What host mode's pins say is on: read back from the kernel (the
 * pinned maps and links), never from a file of our own.
 */
#ifndef SOCKBOOST_HOST_STATE_H
#define SOCKBOOST_HOST_STATE_H

#include <stdint.h>

#include "filter.h"
#include "attached.h"
#include "host-abi.h"
#include "load.h"
#include "pins.h"
#include "stalls-load.h"

struct sb_host_link_state {
  int pinned;                   /* its pin exists */
  uint32_t link_id, prog_id;
  uint64_t cgroup_id;           /* 0 once its cgroup is gone */
};

struct sb_host_state {
  int on;                       /* a generation is pinned as current, or
                                   attached (the kernel's view) */
  const char *pinned;           /* where the generation read is pinned:
                                   SB_HOST_CURRENT, SB_HOST_STAGING, or
                                   NULL when it is found attached only */
  int interrupted;              /* a staging generation was left behind */
  struct sb_host_settings settings;
  struct sb_host_filter_spec filter;  /* sorted */
  struct sb_host_link_state links[SB_HOST_NPROGS];
  int counts_fd;                /* the pinned "counts" map, or -1 */
  int marks_fd;                 /* the pinned "marks" map, or -1 */
  struct sb_host_link_state stalls_links[SB_STALLS_NPROGS];  /* counting's */
  int stall_tags_fd;            /* the counting's maps, or -1 */
  int stall_processes_fd;
  int tcp_by_watcher;           /* the watcher is its TCP part (watch.h) */
  char problem[256];            /* why the current generation is unusable */
  struct sb_host_generation attached[SB_HOST_MAX_GENERATIONS];  /* the
                                   generations of this pin directory the
                                   kernel has attached */
  int nattached;
  int others;                   /* how many of them are not the one read */
};

/* Read the state of the pin directory P into ST: the generation pinned
 * as current; else one pinned as staging that is attached (a killed
 * enable); else one the kernel has attached whose settings name P (its
 * pins renamed away).  ST->problem is set when it cannot be read whole.
 * Close with sb_host_state_close.
 */
extern void sb_host_state_read (const struct sb_host_pins *p,
                                struct sb_host_state *st);
extern void sb_host_state_close (struct sb_host_state *st);

/* The id of the settings map pinned in generation GEN of P, or 0: it
 * names the generation (attached.h).
 */
extern uint32_t sb_host_pinned_settings_id (const struct sb_host_pins *p,
                                            const char *gen);

/* Whether the counting is on: each of its links pinned and attached,
 * but the tag hooks that the tuning's TCP programs stand in for.
 */
extern int sb_host_state_counting (const struct sb_host_state *st);

/* Whether every program of the parts the settings turned on is attached
 * to its cgroup (none when they observe: no part is on).
 */
extern int sb_host_state_attached (const struct sb_host_state *st);

#endif /* SOCKBOOST_HOST_STATE_H */
