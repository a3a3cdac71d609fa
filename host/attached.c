/* SPDX-License-Identifier: MIT */
/* Host mode's programs as the kernel has them attached (attached.h):
 * every BPF link is looked at once, through the kernel's ids; only root
 * can list them, and only root loads programs, so a program named as
 * host mode's names its is host mode's.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "attached.h"

/* Links looked at, at most: more than a host holds. */
#define MAX_LINKS 65536

void
sb_host_pin_dir_identity (int fd, const char *path, struct sb_host_settings *s)
{
  struct stat st;

  s->pin_dir_dev = s->pin_dir_ino = 0;
  if (fd >= 0 && fstat (fd, &st) == 0) {
    s->pin_dir_dev = (__u64) st.st_dev;
    s->pin_dir_ino = (__u64) st.st_ino;
  }
  memset (s->pin_dir, 0, sizeof s->pin_dir);
  strncpy (s->pin_dir, path, sizeof s->pin_dir - 1);
}

static int
ours (const char *name)
{
  return strncmp (name, "sb_host_", 8) == 0 ||
         strncmp (name, "sb_stalls_", 10) == 0;
}

/* The maps the program PROG_ID uses: all of them into USED (N of them),
 * and those of host mode's names into IDS; 0, or -1 when it cannot be
 * read.
 */
static int
map_ids_of (uint32_t prog_id, uint32_t ids[SB_HOST_NMAPS],
            uint32_t used[SB_HOST_MAX_PROG_MAPS], uint32_t *n)
{
  struct bpf_prog_info info;
  __u32 len = sizeof info;
  int fd = bpf_prog_get_fd_by_id (prog_id), status = -1;

  if (fd < 0)
    return -1;
  memset (&info, 0, sizeof info);
  info.nr_map_ids = SB_HOST_MAX_PROG_MAPS;
  info.map_ids = (__u64) (unsigned long) used;
  if (bpf_obj_get_info_by_fd (fd, &info, &len) == 0) {
    *n = info.nr_map_ids < SB_HOST_MAX_PROG_MAPS ? info.nr_map_ids :
      SB_HOST_MAX_PROG_MAPS;
    for (__u32 i = 0; i < *n; i++) {
      struct bpf_map_info m;
      __u32 mlen = sizeof m;
      int mfd = bpf_map_get_fd_by_id (used[i]);
      memset (&m, 0, sizeof m);
      if (mfd >= 0 && bpf_obj_get_info_by_fd (mfd, &m, &mlen) == 0)
        for (int k = 0; k < SB_HOST_NMAPS; k++)
          if (strcmp (m.name, sb_host_map_pin[k]) == 0)
            ids[k] = m.id;
      if (mfd >= 0)
        close (mfd);
    }
    status = 0;
  }
  close (fd);
  return status;
}

/* Add the N maps USED to those of GEN. */
static void
add_maps (struct sb_host_generation *gen, const uint32_t *used, uint32_t n)
{
  const size_t room = sizeof gen->all_map_ids / sizeof gen->all_map_ids[0];

  for (uint32_t i = 0; i < n; i++) {
    size_t k = 0;
    while (k < room && gen->all_map_ids[k] != 0 && gen->all_map_ids[k] != used[i])
      k++;
    if (k < room)
      gen->all_map_ids[k] = used[i];
  }
}

/* Whether GEN uses one of the N maps USED. */
static int
shares_a_map (const struct sb_host_generation *gen, const uint32_t *used,
              uint32_t n)
{
  const size_t room = sizeof gen->all_map_ids / sizeof gen->all_map_ids[0];

  for (uint32_t i = 0; i < n; i++)
    for (size_t k = 0; k < room && gen->all_map_ids[k] != 0; k++)
      if (gen->all_map_ids[k] == used[i])
        return 1;
  return 0;
}

static int
read_settings (uint32_t id, struct sb_host_settings *s)
{
  struct bpf_map_info info;
  __u32 len = sizeof info, zero = 0;
  int fd = bpf_map_get_fd_by_id (id), status = -1;

  if (fd < 0)
    return -1;
  memset (&info, 0, sizeof info);
  if (bpf_obj_get_info_by_fd (fd, &info, &len) == 0 &&
      info.value_size == sizeof *s && info.max_entries == 1 &&
      bpf_map_lookup_elem (fd, &zero, s) == 0)
    status = 0;
  close (fd);
  return status;
}

static int
names (const struct sb_host_settings *identity, const struct sb_host_settings *s)
{
  if (identity->pin_dir_ino != 0)
    return s->pin_dir_dev == identity->pin_dir_dev &&
           s->pin_dir_ino == identity->pin_dir_ino;
  return s->pin_dir_ino != 0 &&
         strncmp (s->pin_dir, identity->pin_dir, sizeof s->pin_dir) == 0;
}

/* The generation of G (N of them) that the program PROG_ID belongs to:
 * the one of its settings map, made when new and its settings name
 * IDENTITY's directory; else, for a program that reads no settings, the
 * one it shares a map with (*JOINED set); NULL when none.
 */
static struct sb_host_generation *
generation_of (const struct sb_host_settings *identity, uint32_t prog_id,
               struct sb_host_generation *g, int *n, int max, int *joined)
{
  struct sb_host_generation *gen = &g[*n];
  uint32_t ids[SB_HOST_NMAPS], used[SB_HOST_MAX_PROG_MAPS], nused = 0;

  memset (ids, 0, sizeof ids);
  *joined = 0;
  if (map_ids_of (prog_id, ids, used, &nused) == -1)
    return NULL;
  for (int i = 0; i < *n; i++)
    if (ids[SB_HOST_MAP_SETTINGS] != 0 ?
        g[i].map_ids[SB_HOST_MAP_SETTINGS] == ids[SB_HOST_MAP_SETTINGS] :
        (*joined = shares_a_map (&g[i], used, nused))) {
      add_maps (&g[i], used, nused);
      return &g[i];
    }
  if (*n == max || ids[SB_HOST_MAP_SETTINGS] == 0)
    return NULL;
  memset (gen, 0, sizeof *gen);
  if (read_settings (ids[SB_HOST_MAP_SETTINGS], &gen->settings) == -1 ||
      !names (identity, &gen->settings))
    return NULL;
  memcpy (gen->map_ids, ids, sizeof ids);
  add_maps (gen, used, nused);
  (*n)++;
  return gen;
}

/* The link at FD, when it is a cgroup link of host mode's, into L. */
static int
read_link (int fd, struct sb_host_attached_link *l)
{
  struct bpf_link_info info;
  struct bpf_prog_info prog;
  __u32 len = sizeof info, plen = sizeof prog;
  int pfd;

  memset (&info, 0, sizeof info);
  if (bpf_obj_get_info_by_fd (fd, &info, &len) != 0 ||
      info.type != BPF_LINK_TYPE_CGROUP || info.cgroup.cgroup_id == 0)
    return -1;
  pfd = bpf_prog_get_fd_by_id (info.prog_id);
  if (pfd < 0)
    return -1;
  memset (&prog, 0, sizeof prog);
  if (bpf_obj_get_info_by_fd (pfd, &prog, &plen) != 0 || !ours (prog.name)) {
    close (pfd);
    return -1;
  }
  close (pfd);
  l->link_id = info.id;
  l->prog_id = info.prog_id;
  l->cgroup_id = info.cgroup.cgroup_id;
  memcpy (l->name, prog.name, sizeof l->name);
  l->name[sizeof l->name - 1] = '\0';
  return 0;
}

/* One pass over every link: those whose programs read settings
 * (JOINING 0), or those whose programs read none (JOINING 1), which are
 * put with a generation found by the first pass.
 */
static void
pass (const struct sb_host_settings *identity, struct sb_host_generation *g,
      int *n, int max, int joining)
{
  struct sb_host_attached_link l;
  struct sb_host_generation *gen;
  __u32 id = 0;
  int joined;

  for (int seen = 0; seen < MAX_LINKS && bpf_link_get_next_id (id, &id) == 0;
       seen++) {
    int fd = bpf_link_get_fd_by_id (id);
    if (fd < 0)
      continue;
    if (read_link (fd, &l) == 0 &&
        (gen = generation_of (identity, l.prog_id, g, n, max, &joined)) != NULL &&
        joined == joining && gen->nlinks < SB_HOST_MAX_GENERATION_LINKS) {
      l.joined = joined;
      gen->links[gen->nlinks++] = l;
    }
    close (fd);
  }
}

int
sb_host_attached_find (const struct sb_host_settings *identity,
                       struct sb_host_generation *g, int max)
{
  int n = 0;

  pass (identity, g, &n, max, 0);
  pass (identity, g, &n, max, 1);
  return n;
}

/* Detach the link ID: 1, or 0 when it is gone or cannot be. */
static int
detach_link (uint32_t id)
{
  int fd = bpf_link_get_fd_by_id (id), done;

  if (fd < 0)
    return 0;
  done = bpf_link_detach (fd) == 0;
  close (fd);
  return done;
}

int
sb_host_attached_detach_others (const struct sb_host_settings *identity,
                                int keep_fd)
{
  static struct sb_host_generation g[SB_HOST_MAX_GENERATIONS];
  struct bpf_map_info info;
  __u32 len = sizeof info;
  int n, detached = 0;

  memset (&info, 0, sizeof info);
  if (bpf_obj_get_info_by_fd (keep_fd, &info, &len) != 0)
    return 0;
  n = sb_host_attached_find (identity, g, SB_HOST_MAX_GENERATIONS);
  for (int i = 0; i < n; i++)
    if (g[i].map_ids[SB_HOST_MAP_SETTINGS] != info.id)
      for (int k = 0; k < g[i].nlinks; k++)
        detached += !g[i].links[k].joined && detach_link (g[i].links[k].link_id);
  return detached;
}

int
sb_host_attached_detach (const struct sb_host_generation *g)
{
  int detached = 0;

  for (int i = 0; i < g->nlinks; i++)
    detached += detach_link (g->links[i].link_id);
  return detached;
}
