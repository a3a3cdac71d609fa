/* SPDX-License-Identifier: MIT */
/* One loaded copy of host mode's kernel programs and maps: the maps
 * made and filled for a filter, then each part (host-abi.h) loaded and
 * attached to a cgroup on its own, pinned, or dropped (which detaches
 * whatever is not pinned).
 */
#ifndef SOCKBOOST_HOST_LOAD_H
#define SOCKBOOST_HOST_LOAD_H

#include <stddef.h>

#include "filter.h"
#include "host-abi.h"
#include "pins.h"

/* The programs, each of a part: attached and pinned (their links) under
 * their pin names.
 */
enum sb_host_prog {
  SB_HOST_PROG_BIND4,
  SB_HOST_PROG_BIND6,
  SB_HOST_PROG_CONNECT4,
  SB_HOST_PROG_CONNECT6,
  SB_HOST_PROG_CONNECT_UNIX,
  SB_HOST_PROG_GETSOCKNAME_UNIX,
  SB_HOST_NPROGS
};
struct sb_host_prog_desc {
  const char *pin;              /* "bind4" */
  const char *function;         /* "sb_host_tcp_bind4" */
  int attach_type;              /* enum bpf_attach_type */
  enum sb_host_part part;
};
extern const struct sb_host_prog_desc sb_host_progs[SB_HOST_NPROGS];

/* The parts' names, as enable and status say them ("tcp-bind"). */
extern const char *const sb_host_part_name[SB_HOST_NPARTS];

/* The maps, shared by every part, pinned under these names.  The
 * counting's tags are among them: the TCP parts tag for the counting
 * (stall-tags.bpf.h), which is loaded with this map.
 */
enum sb_host_map {
  SB_HOST_MAP_SETTINGS,
  SB_HOST_MAP_PROGRAMS,
  SB_HOST_MAP_PORTS,
  SB_HOST_MAP_MARKS,
  SB_HOST_MAP_COUNTS,
  SB_HOST_MAP_STALL_TAGS,
  SB_HOST_NMAPS
};
extern const char *const sb_host_map_pin[SB_HOST_NMAPS];

struct sockboost_host;
struct bpf_link;
struct sb_host_instance {
  struct sockboost_host *maps;  /* the maps (no program of it loaded) */
  struct sockboost_host *parts[SB_HOST_NPARTS];  /* a part's programs */
  struct bpf_link *links[SB_HOST_NPROGS];  /* NULL when not attached */
  unsigned loaded;              /* SB_HOST_PART_BIT of the parts loaded */
  char why[SB_HOST_NPARTS][SB_HOST_PART_WHY_LEN];  /* why a part asked
                                   for is not loaded, or not attached */
};

/* Whether this process may load the programs (its effective
 * capabilities): 0, or -1 with WHY.  A kernel that cannot tell leaves
 * the answer to the loading itself.
 */
extern int sb_host_rights (char *why, size_t why_len);

/* Whether this kernel has the unix hooks: 1, or 0 (WHY says what it
 * answered).
 */
extern int sb_host_probe_unix (char *why, size_t why_len);

/* Make the maps and fill them with S and F (the reserved rows of F's
 * entries in "counts" too), then load each of the PARTS
 * (SB_HOST_PART_BIT) on its own: IN->loaded says which the kernel took,
 * IN->why why not the others.  REUSE, when not NULL, has for each map
 * (enum sb_host_map) the pinned map of the generation being replaced
 * that it is to be, or -1: so the sockets it marked or tagged and what
 * it counted carry over.  Return 0, or -1 with WHY when not even the
 * maps can be made.
 */
extern int sb_host_load (struct sb_host_instance *in,
                         const struct sb_host_settings *s,
                         const struct sb_host_filter_spec *f, unsigned parts,
                         const int *reuse, char *why, size_t why_len);

/* Use the map at FD (one of a generation being replaced) for M, of an
 * object not loaded yet, when it has the layout M is loaded with; else
 * M is made anew.
 */
struct bpf_map;
extern void sb_host_reuse_map (struct bpf_map *m, int fd);

/* Attach each loaded part to the cgroup open at CGROUP_FD (links, which
 * go away with the last descriptor unless pinned); a part that cannot
 * be attached is dropped (IN->why says why).  Returns IN->loaded: the
 * parts attached.
 */
extern unsigned sb_host_attach (struct sb_host_instance *in, int cgroup_fd);

/* Pin the links and maps in generation GEN of P. */
extern int sb_host_pin (struct sb_host_instance *in,
                        const struct sb_host_pins *p, const char *gen,
                        char *why, size_t why_len);

/* The descriptor of map M. */
extern int sb_host_map_fd (const struct sb_host_instance *in,
                           enum sb_host_map m);

/* Close everything; what is not pinned is detached and freed. */
extern void sb_host_unload (struct sb_host_instance *in);

#endif /* SOCKBOOST_HOST_LOAD_H */
