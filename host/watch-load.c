/* SPDX-License-Identifier: MIT */
/* Loading and attaching the watcher's programs (watch-load.h), through
 * the skeleton bpftool generates from sockboost-watch.bpf.c; only what
 * libbpf 0.3 and 1.x both have.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "watch-load.h"
/* bpftool's skeleton casts its own const bytes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include "sockboost_watch.skel.h"
#pragma GCC diagnostic pop

#define NO_RIGHTS "no right to load BPF programs here (%s): it takes " \
  "CAP_BPF and CAP_NET_ADMIN, or CAP_SYS_ADMIN"

/* The kernel keeps the first 15 bytes of a program's name. */
const char *const sb_watch_prog_name[SB_WATCH_NPROGS] = {
  "sb_watch_bind4", "sb_watch_bind6", "sb_watch_connec", "sb_watch_connec",
  "sb_watch_accept",
};

static struct bpf_program *
prog_of (struct sockboost_watch *skel, enum sb_watch_prog i)
{
  struct bpf_program *all[SB_WATCH_NPROGS] = {
    skel->progs.sb_watch_bind4, skel->progs.sb_watch_bind6,
    skel->progs.sb_watch_connect4, skel->progs.sb_watch_connect6,
    skel->progs.sb_watch_accepted,
  };
  return all[i];
}

static void
reuse (struct bpf_map *m, int fd)
{
  if (fd >= 0)
    bpf_map__reuse_fd (m, fd);
}

int
sb_watch_load (struct sb_watch_instance *in, const struct sb_watch_reuse *r,
               char *why, size_t why_len)
{
  int err;

  memset (in, 0, sizeof *in);
  in->skel = sockboost_watch__open ();
  if (in->skel == NULL) {
    snprintf (why, why_len, "cannot open the watcher's BPF programs: %s",
              strerror (errno));
    return -1;
  }
  reuse (in->skel->maps.settings, r->settings);
  reuse (in->skel->maps.programs, r->programs);
  reuse (in->skel->maps.ports, r->ports);
  reuse (in->skel->maps.watch_counts, r->counts);
  err = sockboost_watch__load (in->skel);
  if (err == -EPERM || err == -EACCES)
    snprintf (why, why_len, NO_RIGHTS, strerror (-err));
  else if (err != 0)
    snprintf (why, why_len, "the kernel refused the watcher's BPF programs: %s",
              strerror (-err));
  if (err != 0) {
    sb_watch_unload (in);
    return -1;
  }
  return 0;
}

int
sb_watch_fill_filter (struct sb_watch_instance *in,
                      const struct sb_host_settings *s,
                      const struct sb_host_filter_spec *f)
{
  struct sb_host_name_key key;
  __u32 zero = 0;
  __u8 yes = 1;

  if (bpf_map_update_elem (bpf_map__fd (in->skel->maps.settings), &zero, s,
                           BPF_ANY) != 0)
    return -1;
  for (int i = 0; i < f->nprograms; i++) {
    sb_host_program_key (&f->programs[i], &key);
    if (bpf_map_update_elem (bpf_map__fd (in->skel->maps.programs), &key,
                             &key, BPF_ANY) != 0)
      return -1;
  }
  for (int i = 0; i < f->nports; i++)
    if (bpf_map_update_elem (bpf_map__fd (in->skel->maps.ports),
                             &f->ports[i], &yes, BPF_ANY) != 0)
      return -1;
  return 0;
}

int
sb_watch_attach (struct sb_watch_instance *in, int cgroup_fd, char *why,
                 size_t why_len)
{
  for (int i = 0; i < SB_WATCH_NPROGS; i++) {
    struct bpf_link *link = bpf_program__attach_cgroup (prog_of (in->skel, i),
                                                        cgroup_fd);
    /* libbpf before 1.0 returns an error pointer, 1.x NULL and errno:
     * libbpf_get_error reads both.
     */
    long err = libbpf_get_error (link);

    if (err != 0) {
      snprintf (why, why_len, "cannot attach the watcher's %s to the "
                "cgroup: %s", bpf_program__name (prog_of (in->skel, i)),
                strerror ((int) -err));
      return -1;
    }
    in->links[i] = link;
  }
  return 0;
}

int
sb_watch_events_fd (const struct sb_watch_instance *in)
{
  return bpf_map__fd (in->skel->maps.events);
}

int
sb_watch_marks_fd (const struct sb_watch_instance *in)
{
  return bpf_map__fd (in->skel->maps.watch_marks);
}

int
sb_watch_counts_fd (const struct sb_watch_instance *in)
{
  return bpf_map__fd (in->skel->maps.watch_counts);
}

void
sb_watch_unload (struct sb_watch_instance *in)
{
  for (int i = 0; i < SB_WATCH_NPROGS; i++) {
    bpf_link__destroy (in->links[i]);
    in->links[i] = NULL;
  }
  sockboost_watch__destroy (in->skel);
  in->skel = NULL;
}
