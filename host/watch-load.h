/* SPDX-License-Identifier: MIT */
/* One loaded copy of the watcher's kernel programs
 * (sockboost-watch.bpf.c): loaded with host mode's filter maps, attached
 * to a cgroup through links that only this process holds.
 */
#ifndef SOCKBOOST_HOST_WATCH_LOAD_H
#define SOCKBOOST_HOST_WATCH_LOAD_H

#include <stddef.h>

#include "filter.h"
#include "host-abi.h"

enum sb_watch_prog {
  SB_WATCH_PROG_BIND4,
  SB_WATCH_PROG_BIND6,
  SB_WATCH_PROG_CONNECT4,
  SB_WATCH_PROG_CONNECT6,
  SB_WATCH_PROG_ACCEPTED,
  SB_WATCH_NPROGS
};

/* The programs' names as the kernel keeps them (bpftool prog show). */
extern const char *const sb_watch_prog_name[SB_WATCH_NPROGS];

/* The maps the programs use that may be someone else's: host mode's
 * filter (pinned in its generation) and the watcher's counts (pinned
 * there by enable), or -1 for new ones.
 */
struct sb_watch_reuse {
  int settings, programs, ports, counts;
};

struct sockboost_watch;
struct bpf_link;
struct sb_watch_instance {
  struct sockboost_watch *skel;
  struct bpf_link *links[SB_WATCH_NPROGS];
};

/* Load the programs with the maps of R.  Return 0 or -1 with WHY (the
 * kernel's refusal, or no right to load BPF programs).
 */
extern int sb_watch_load (struct sb_watch_instance *in,
                          const struct sb_watch_reuse *r,
                          char *why, size_t why_len);

/* Fill the filter maps of IN, loaded with new ones, with S and F. */
extern int sb_watch_fill_filter (struct sb_watch_instance *in,
                                 const struct sb_host_settings *s,
                                 const struct sb_host_filter_spec *f);

/* Attach the loaded programs to the cgroup open at CGROUP_FD. */
extern int sb_watch_attach (struct sb_watch_instance *in, int cgroup_fd,
                            char *why, size_t why_len);

/* The descriptors of its maps. */
extern int sb_watch_events_fd (const struct sb_watch_instance *in);
extern int sb_watch_marks_fd (const struct sb_watch_instance *in);
extern int sb_watch_counts_fd (const struct sb_watch_instance *in);

/* Close everything: the programs are detached. */
extern void sb_watch_unload (struct sb_watch_instance *in);

#endif /* SOCKBOOST_HOST_WATCH_LOAD_H */
