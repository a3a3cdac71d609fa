/* SPDX-License-Identifier: MIT */
/* One loaded copy of host mode's kernel programs and maps: loaded for
 * a filter, attached to a cgroup, pinned, or dropped (which detaches
 * whatever is not pinned).
 */
#ifndef SOCKBOOST_HOST_LOAD_H
#define SOCKBOOST_HOST_LOAD_H

#include <stddef.h>

#include "filter.h"
#include "host-abi.h"
#include "pins.h"

/* The programs: attached and pinned (their links) under these names. */
enum sb_host_prog {
  SB_HOST_PROG_BIND4,
  SB_HOST_PROG_BIND6,
  SB_HOST_PROG_CONNECT4,
  SB_HOST_PROG_CONNECT6,
  SB_HOST_PROG_CONNECT_UNIX,
  SB_HOST_PROG_GETSOCKNAME_UNIX,
  SB_HOST_NPROGS
};
extern const char *const sb_host_prog_pin[SB_HOST_NPROGS];

/* The maps, pinned under these names. */
enum sb_host_map {
  SB_HOST_MAP_SETTINGS,
  SB_HOST_MAP_PROGRAMS,
  SB_HOST_MAP_PORTS,
  SB_HOST_MAP_MARKS,
  SB_HOST_MAP_COUNTS,
  SB_HOST_NMAPS
};
extern const char *const sb_host_map_pin[SB_HOST_NMAPS];

/* Whether program I is one of the unix hooks (Linux 6.7 and later). */
#define SB_HOST_PROG_IS_UNIX(i) ((i) >= SB_HOST_PROG_CONNECT_UNIX)
/* Whether it is one of the TCP hooks, which the watcher replaces where
 * the kernel's BPF cannot set TCP_NODELAY (watch.h).
 */
#define SB_HOST_PROG_IS_TCP(i) ((i) <= SB_HOST_PROG_CONNECT6)

struct sockboost_host;
struct bpf_link;
struct sb_host_instance {
  struct sockboost_host *skel;
  struct bpf_link *links[SB_HOST_NPROGS];  /* NULL when not attached */
  int with_tcp;
  int with_unix;
};

/* Whether this process may load the programs (its effective
 * capabilities): 0, or -1 with WHY.  A kernel that cannot tell leaves
 * the answer to the loading itself.
 */
extern int sb_host_rights (char *why, size_t why_len);

/* Whether this kernel has the unix hooks: 1, 0 (WHY says what it
 * answered), or -1 when it refuses BPF altogether (WHY says why).
 */
extern int sb_host_probe_unix (char *why, size_t why_len);

/* Load the programs (the TCP hooks only WITH_TCP, the unix hooks only
 * WITH_UNIX) and fill their maps with S and F, making the reserved rows
 * of F's entries in "counts".  REUSE_MARKS and REUSE_COUNTS are pinned
 * maps of the generation being replaced, kept so that sockets it marked
 * and what it counted carry over, or -1.  Return 0 or -1 with WHY.
 */
extern int sb_host_load (struct sb_host_instance *in,
                         const struct sb_host_settings *s,
                         const struct sb_host_filter_spec *f, int with_tcp,
                         int with_unix, int reuse_marks, int reuse_counts,
                         char *why, size_t why_len);

/* Use the map at FD (one of a generation being replaced) for M, of an
 * object not loaded yet, when it has the layout M is loaded with; else
 * M is made anew.
 */
struct bpf_map;
extern void sb_host_reuse_map (struct bpf_map *m, int fd);

/* Attach the loaded programs to the cgroup open at CGROUP_FD (links,
 * which go away with the last descriptor unless pinned).
 */
extern int sb_host_attach (struct sb_host_instance *in, int cgroup_fd,
                           char *why, size_t why_len);

/* Pin the links and maps in generation GEN of P. */
extern int sb_host_pin (struct sb_host_instance *in,
                        const struct sb_host_pins *p, const char *gen,
                        char *why, size_t why_len);

/* The descriptor of map M. */
extern int sb_host_map_fd (const struct sb_host_instance *in,
                           enum sb_host_map m);

/* Close everything; what is not pinned is detached and freed. */
extern void sb_host_unload (struct sb_host_instance *in);

/* With VERBOSE, libbpf's messages go to stderr (twice: its debug
 * messages too).  Its last warning is kept either way, for the message
 * of a load the kernel refuses.
 */
extern void sb_host_libbpf_messages (int verbose);

#endif /* SOCKBOOST_HOST_LOAD_H */
