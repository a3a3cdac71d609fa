/* SPDX-License-Identifier: MIT */
/* Reading host mode's pins back (state.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "state.h"
#include "watch-control.h"

static int
get_pin (const struct sb_host_pins *p, const char *name)
{
  char path[PATH_MAX + 64];

  sb_host_pin_path (p, SB_HOST_CURRENT, name, path, sizeof path);
  return bpf_obj_get (path);
}

static void
close_pin (int fd)
{
  if (fd >= 0)
    close (fd);
}

static void
read_link (const struct sb_host_pins *p, const char *name,
           struct sb_host_link_state *l)
{
  struct bpf_link_info info;
  __u32 len = sizeof info;
  int fd = get_pin (p, name);

  memset (l, 0, sizeof *l);
  if (fd < 0)
    return;
  l->pinned = 1;
  memset (&info, 0, sizeof info);
  if (bpf_obj_get_info_by_fd (fd, &info, &len) == 0 &&
      info.type == BPF_LINK_TYPE_CGROUP) {
    l->link_id = info.id;
    l->prog_id = info.prog_id;
    l->cgroup_id = info.cgroup.cgroup_id;
  }
  close (fd);
}

static int
read_programs (int fd, struct sb_host_filter_spec *f)
{
  struct sb_host_name_key key, next;
  void *prev = NULL;

  while (f->nprograms < SB_HOST_MAX_PROGRAMS &&
         bpf_map_get_next_key (fd, prev, &next) == 0) {
    if (sb_host_program_from_key (&next, &f->programs[f->nprograms]) == 0)
      f->nprograms++;
    key = next;
    prev = &key;
  }
  return 0;
}

static int
read_ports (int fd, struct sb_host_filter_spec *f)
{
  __u16 key, next;
  void *prev = NULL;

  while (f->nports < SB_HOST_MAX_PORTS &&
         bpf_map_get_next_key (fd, prev, &next) == 0) {
    f->ports[f->nports++] = next;
    key = next;
    prev = &key;
  }
  return 0;
}

/* The settings and the filter, from their maps. */
static int
read_filter (const struct sb_host_pins *p, struct sb_host_state *st)
{
  int settings = get_pin (p, sb_host_map_pin[SB_HOST_MAP_SETTINGS]);
  int programs = get_pin (p, sb_host_map_pin[SB_HOST_MAP_PROGRAMS]);
  int ports = get_pin (p, sb_host_map_pin[SB_HOST_MAP_PORTS]);
  __u32 zero = 0;
  int status = -1;

  if (settings >= 0 && programs >= 0 && ports >= 0 &&
      bpf_map_lookup_elem (settings, &zero, &st->settings) == 0) {
    st->filter.kind = (enum sb_host_filter) st->settings.filter;
    read_programs (programs, &st->filter);
    read_ports (ports, &st->filter);
    sb_host_filter_sort (&st->filter);
    status = 0;
  }
  close_pin (settings);
  close_pin (programs);
  close_pin (ports);
  return status;
}

void
sb_host_state_read (const struct sb_host_pins *p, struct sb_host_state *st)
{
  int fd;

  memset (st, 0, sizeof *st);
  st->counts_fd = st->marks_fd = -1;
  st->stall_tags_fd = st->stall_processes_fd = -1;
  st->interrupted = sb_host_pins_has (p, SB_HOST_STAGING);
  st->on = sb_host_pins_has (p, SB_HOST_CURRENT);
  if (!st->on)
    return;
  if (read_filter (p, st) == -1)
    snprintf (st->problem, sizeof st->problem, "its settings cannot be read: %s",
              strerror (errno));
  for (int i = 0; i < SB_HOST_NPROGS; i++)
    read_link (p, sb_host_progs[i].pin, &st->links[i]);
  for (int i = 0; i < SB_STALLS_NPROGS; i++)
    read_link (p, sb_stalls_prog_pin[i], &st->stalls_links[i]);
  st->stall_tags_fd = get_pin (p, SB_STALLS_PIN_TAGS);
  st->stall_processes_fd = get_pin (p, SB_STALLS_PIN_PROCESSES);
  st->counts_fd = get_pin (p, sb_host_map_pin[SB_HOST_MAP_COUNTS]);
  st->marks_fd = get_pin (p, sb_host_map_pin[SB_HOST_MAP_MARKS]);
  fd = get_pin (p, SB_WATCH_PIN);
  st->tcp_by_watcher = fd >= 0;
  close_pin (fd);
}

void
sb_host_state_close (struct sb_host_state *st)
{
  if (st->counts_fd >= 0)
    close (st->counts_fd);
  if (st->marks_fd >= 0)
    close (st->marks_fd);
  close_pin (st->stall_tags_fd);
  close_pin (st->stall_processes_fd);
  st->counts_fd = st->marks_fd = -1;
  st->stall_tags_fd = st->stall_processes_fd = -1;
}

int
sb_host_state_attached (const struct sb_host_state *st)
{
  if (!st->on || st->problem[0] != '\0')
    return 0;
  for (int i = 0; i < SB_HOST_NPROGS; i++) {
    if (!(st->settings.parts & SB_HOST_PART_BIT (sb_host_progs[i].part)))
      continue;
    if (st->links[i].cgroup_id == 0 ||
        st->links[i].cgroup_id != st->settings.cgroup_id)
      return 0;
  }
  return 1;
}

int
sb_host_state_counting (const struct sb_host_state *st)
{
  if (!st->on || st->problem[0] != '\0')
    return 0;
  for (int i = 0; i < SB_STALLS_NPROGS; i++)
    if (st->stalls_links[i].cgroup_id == 0 ||
        st->stalls_links[i].cgroup_id != st->settings.cgroup_id)
      return 0;
  return 1;
}
