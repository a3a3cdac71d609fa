/* SPDX-License-Identifier: MIT */
/* Loading, attaching and pinning the counting programs (stalls-load.h),
 * through the skeleton bpftool generates from sockboost-stalls.bpf.c;
 * only what libbpf 0.3 and 1.x both have.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "stalls-load.h"
/* bpftool's skeleton casts its own const bytes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include "sockboost_stalls.skel.h"
#pragma GCC diagnostic pop

const char *const sb_stalls_prog_pin[SB_STALLS_NPROGS] = {
  "stalls_bind4", "stalls_bind6", "stalls_connect4", "stalls_connect6",
  "stalls_sockops",
};

const int sb_stalls_twin[SB_STALLS_NPROGS] = {
  SB_HOST_PROG_BIND4, SB_HOST_PROG_BIND6, SB_HOST_PROG_CONNECT4,
  SB_HOST_PROG_CONNECT6, -1,
};

static struct bpf_program *
prog_of (struct sockboost_stalls *skel, enum sb_stalls_prog i)
{
  struct bpf_program *all[SB_STALLS_NPROGS] = {
    skel->progs.sb_stalls_bind4, skel->progs.sb_stalls_bind6,
    skel->progs.sb_stalls_connect4, skel->progs.sb_stalls_connect6,
    skel->progs.sb_stalls_sockops,
  };
  return all[i];
}

/* Whether HOST has loaded the part of the tuning's program that the tag
 * hook I doubles.
 */
static int
twin_loaded (const struct sb_host_instance *host, int i)
{
  return sb_stalls_twin[i] >= 0 &&
         (host->loaded & SB_HOST_PART_BIT (sb_host_progs[sb_stalls_twin[i]].part));
}

/* Tell HOST's TCP programs to tag for the counting. */
static int
tuning_tags (const struct sb_host_instance *host)
{
  int fd = sb_host_map_fd (host, SB_HOST_MAP_SETTINGS);
  struct sb_host_settings s;
  __u32 zero = 0;

  if (bpf_map_lookup_elem (fd, &zero, &s) != 0)
    return -1;
  s.tag_tcp = 1;
  return bpf_map_update_elem (fd, &zero, &s, BPF_EXIST);
}

int
sb_stalls_load (struct sb_stalls_instance *in,
                const struct sb_host_instance *host, int reuse_processes,
                char *why, size_t why_len)
{
  int err, twins = 0;

  memset (in, 0, sizeof *in);
  in->skel = sockboost_stalls__open ();
  if (in->skel == NULL) {
    snprintf (why, why_len, "cannot open the counting's BPF programs: %s",
              strerror (errno));
    return -1;
  }
  sb_host_reuse_map (in->skel->maps.settings,
                     sb_host_map_fd (host, SB_HOST_MAP_SETTINGS));
  sb_host_reuse_map (in->skel->maps.programs,
                     sb_host_map_fd (host, SB_HOST_MAP_PROGRAMS));
  sb_host_reuse_map (in->skel->maps.ports,
                     sb_host_map_fd (host, SB_HOST_MAP_PORTS));
  sb_host_reuse_map (in->skel->maps.counts,
                     sb_host_map_fd (host, SB_HOST_MAP_COUNTS));
  sb_host_reuse_map (in->skel->maps.stall_tags,
                     sb_host_map_fd (host, SB_HOST_MAP_STALL_TAGS));
  sb_host_reuse_map (in->skel->maps.stall_processes, reuse_processes);
  for (int i = 0; i < SB_STALLS_NPROGS; i++) {
    bpf_program__set_autoload (prog_of (in->skel, i), !twin_loaded (host, i));
    twins += twin_loaded (host, i);
  }
  err = sockboost_stalls__load (in->skel);
  if (err != 0)
    snprintf (why, why_len, "the kernel refused the counting's BPF "
              "programs: %s", strerror (-err));
  else if (twins > 0 && tuning_tags (host) != 0) {
    snprintf (why, why_len, "cannot tell the TCP parts to tag for the "
              "counting: %s", strerror (errno));
    err = -1;
  }
  if (err != 0) {
    sb_stalls_unload (in);
    return -1;
  }
  return 0;
}

int
sb_stalls_attach (struct sb_stalls_instance *in, int cgroup_fd, char *why,
                  size_t why_len)
{
  for (int i = 0; i < SB_STALLS_NPROGS; i++) {
    struct bpf_link *link;
    long err;

    if (bpf_program__fd (prog_of (in->skel, i)) < 0)
      continue;
    link = bpf_program__attach_cgroup (prog_of (in->skel, i), cgroup_fd);
    /* libbpf before 1.0 returns an error pointer, 1.x NULL and errno:
     * libbpf_get_error reads both.
     */
    err = libbpf_get_error (link);

    if (err != 0) {
      snprintf (why, why_len, "cannot attach the counting's %s to the "
                "cgroup: %s", sb_stalls_prog_pin[i], strerror ((int) -err));
      return -1;
    }
    in->links[i] = link;
  }
  return 0;
}

static int
pin (int fd, const struct sb_host_pins *p, const char *gen, const char *name,
     char *why, size_t why_len)
{
  char path[PATH_MAX + 64];

  sb_host_pin_path (p, gen, name, path, sizeof path);
  if (bpf_obj_pin (fd, path) == 0)
    return 0;
  snprintf (why, why_len, "cannot pin %s: %s", name, strerror (errno));
  return -1;
}

int
sb_stalls_pin (struct sb_stalls_instance *in, const struct sb_host_pins *p,
               const char *gen, char *why, size_t why_len)
{
  if (pin (bpf_map__fd (in->skel->maps.stall_processes), p, gen,
           SB_STALLS_PIN_PROCESSES, why, why_len) == -1)
    return -1;
  for (int i = 0; i < SB_STALLS_NPROGS; i++)
    if (in->links[i] != NULL &&
        pin (bpf_link__fd (in->links[i]), p, gen, sb_stalls_prog_pin[i],
             why, why_len) == -1)
      return -1;
  return 0;
}

void
sb_stalls_unload (struct sb_stalls_instance *in)
{
  for (int i = 0; i < SB_STALLS_NPROGS; i++) {
    bpf_link__destroy (in->links[i]);
    in->links[i] = NULL;
  }
  sockboost_stalls__destroy (in->skel);
  in->skel = NULL;
}
