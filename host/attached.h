/* SPDX-License-Identifier: MIT */
/* Host mode's programs as the kernel has them attached, whatever the
 * pins say: every cgroup link whose program is host mode's (its tuning,
 * sb_host_*, or its counting, sb_stalls_*), grouped by generation (the
 * settings map its programs read), each generation known by the pin
 * directory its settings name.  So status says what is on, and disable
 * and enable find it, where pins were renamed away or an enable was
 * killed before putting them in place.
 */
#ifndef SOCKBOOST_HOST_ATTACHED_H
#define SOCKBOOST_HOST_ATTACHED_H

#include <stdint.h>
#include <sys/types.h>

#include "host-abi.h"
#include "load.h"

#define SB_HOST_MAX_GENERATIONS 8
#define SB_HOST_MAX_GENERATION_LINKS 16

/* Maps a program may use, looked at. */
#define SB_HOST_MAX_PROG_MAPS 16

struct sb_host_attached_link {
  uint32_t link_id, prog_id;
  uint64_t cgroup_id;
  char name[16];                /* the program's, as the kernel keeps it */
  int joined;                   /* its program reads no settings: it was
                                   put with the generation whose maps it
                                   shares (the counting's sock_ops) */
};

struct sb_host_generation {
  uint32_t map_ids[SB_HOST_NMAPS];  /* by enum sb_host_map, 0 if unknown */
  uint32_t all_map_ids[2 * SB_HOST_MAX_PROG_MAPS];  /* every map its
                                   programs use, 0 after the last */
  struct sb_host_settings settings;
  int nlinks;
  struct sb_host_attached_link links[SB_HOST_MAX_GENERATION_LINKS];
};

/* The identity of the pin directory PATH (open at FD, or -1 when it
 * does not exist), as enable records it in the settings.
 */
extern void sb_host_pin_dir_identity (int fd, const char *path,
                                      struct sb_host_settings *s);

/* The generations attached whose settings name the pin directory of
 * IDENTITY (its device and inode when it exists, else its path), into G
 * (room for MAX); how many.
 */
extern int sb_host_attached_find (const struct sb_host_settings *identity,
                                  struct sb_host_generation *g, int max);

/* Detach every link of G from its cgroup (the links stay, defunct,
 * wherever they are pinned); how many were detached.
 */
extern int sb_host_attached_detach (const struct sb_host_generation *g);

/* Detach the generations of the pin directory IDENTITY but the one whose
 * settings are the map at KEEP_FD; how many programs.  A joined link is
 * left (it may be the new generation's, sharing a map carried over).
 */
extern int sb_host_attached_detach_others (const struct sb_host_settings *identity,
                                           int keep_fd);

#endif /* SOCKBOOST_HOST_ATTACHED_H */
