/* SPDX-License-Identifier: MIT */
/* One loaded copy of the counting programs (sockboost-stalls.bpf.c):
 * loaded with the filter and "counts" maps of a host mode instance,
 * attached to its cgroup and pinned in its generation beside it.
 */
#ifndef SOCKBOOST_HOST_STALLS_LOAD_H
#define SOCKBOOST_HOST_STALLS_LOAD_H

#include <stddef.h>

#include "load.h"
#include "pins.h"

enum sb_stalls_prog {
  SB_STALLS_PROG_BIND4,
  SB_STALLS_PROG_BIND6,
  SB_STALLS_PROG_CONNECT4,
  SB_STALLS_PROG_CONNECT6,
  SB_STALLS_PROG_SOCKOPS,
  SB_STALLS_NPROGS
};
/* The pins of their links in a generation. */
extern const char *const sb_stalls_prog_pin[SB_STALLS_NPROGS];

/* The tuning's program (enum sb_host_prog) that each tag hook doubles,
 * hooked to the same call, or -1: where its part is loaded, it tags the
 * sockets for the counting, whose own hook is then not loaded.
 */
extern const int sb_stalls_twin[SB_STALLS_NPROGS];

/* The pin of its own map, the processes' rows (the sockets' tags are a
 * map of the tuning's: SB_HOST_MAP_STALL_TAGS).
 */
#define SB_STALLS_PIN_PROCESSES "stall_processes"

struct sockboost_stalls;
struct bpf_link;
struct sb_stalls_instance {
  struct sockboost_stalls *skel;
  struct bpf_link *links[SB_STALLS_NPROGS];
};

/* Load the programs with the settings, filter, counts and tags maps of
 * HOST (loaded), and the process rows of the generation being replaced
 * (REUSE_PROCESSES, or -1).  A tag hook whose twin's part HOST has
 * loaded is not: that part's programs tag instead, told so in HOST's
 * settings (tag_tcp).  Return 0 or -1 with WHY.
 */
extern int sb_stalls_load (struct sb_stalls_instance *in,
                           const struct sb_host_instance *host,
                           int reuse_processes, char *why, size_t why_len);

/* Attach those loaded to the cgroup open at CGROUP_FD. */
extern int sb_stalls_attach (struct sb_stalls_instance *in, int cgroup_fd,
                             char *why, size_t why_len);

/* Pin the links and the map of their own in generation GEN of P. */
extern int sb_stalls_pin (struct sb_stalls_instance *in,
                          const struct sb_host_pins *p, const char *gen,
                          char *why, size_t why_len);

/* Close everything; what is not pinned is detached and freed. */
extern void sb_stalls_unload (struct sb_stalls_instance *in);

#endif /* SOCKBOOST_HOST_STALLS_LOAD_H */
