/* SPDX-License-Identifier: MIT */
/* Reading host mode's state back (state.h): its pins, and what the
 * kernel has attached (attached.h), never a file of our own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "state.h"
#include "watch-control.h"

/* Where a generation is read from: its pins in GEN of P, or, when GEN
 * is NULL, the kernel's ids of FOUND.
 */
struct source {
  const struct sb_host_pins *p;
  const char *gen;
  const struct sb_host_generation *found;
};

static int
get_pin (const struct source *src, const char *name)
{
  char path[PATH_MAX + 64];

  if (src->gen == NULL)
    return -1;
  sb_host_pin_path (src->p, src->gen, name, path, sizeof path);
  return bpf_obj_get (path);
}

static int
get_map (const struct source *src, enum sb_host_map m)
{
  if (src->gen != NULL)
    return get_pin (src, sb_host_map_pin[m]);
  return src->found->map_ids[m] ? bpf_map_get_fd_by_id (src->found->map_ids[m])
                                : -1;
}

static void
close_pin (int fd)
{
  if (fd >= 0)
    close (fd);
}

static void
read_link (const struct source *src, const char *name,
           struct sb_host_link_state *l)
{
  struct bpf_link_info info;
  __u32 len = sizeof info;
  int fd = get_pin (src, name);

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

/* The links of FOUND, which nothing pins where they should be, by the
 * names of their programs.
 */
static void
found_links (const struct sb_host_generation *found, struct sb_host_state *st)
{
  for (int k = 0; k < found->nlinks; k++)
    for (int i = 0; i < SB_HOST_NPROGS; i++)
      if (strncmp (found->links[k].name, sb_host_progs[i].function,
                   sizeof found->links[k].name - 1) == 0 &&
          st->links[i].link_id == 0) {
        st->links[i].link_id = found->links[k].link_id;
        st->links[i].prog_id = found->links[k].prog_id;
        st->links[i].cgroup_id = found->links[k].cgroup_id;
        break;
      }
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
read_filter (const struct source *src, struct sb_host_state *st)
{
  int settings = get_map (src, SB_HOST_MAP_SETTINGS);
  int programs = get_map (src, SB_HOST_MAP_PROGRAMS);
  int ports = get_map (src, SB_HOST_MAP_PORTS);
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

/* The generation of SRC, into ST. */
static void
read_generation (const struct source *src, struct sb_host_state *st)
{
  int fd;

  if (read_filter (src, st) == -1)
    snprintf (st->problem, sizeof st->problem, "its settings cannot be read: %s",
              strerror (errno));
  for (int i = 0; i < SB_HOST_NPROGS; i++)
    read_link (src, sb_host_progs[i].pin, &st->links[i]);
  if (src->gen == NULL)
    found_links (src->found, st);
  for (int i = 0; i < SB_STALLS_NPROGS; i++)
    read_link (src, sb_stalls_prog_pin[i], &st->stalls_links[i]);
  st->stall_tags_fd = get_map (src, SB_HOST_MAP_STALL_TAGS);
  st->stall_processes_fd = get_pin (src, SB_STALLS_PIN_PROCESSES);
  st->counts_fd = get_map (src, SB_HOST_MAP_COUNTS);
  st->marks_fd = get_map (src, SB_HOST_MAP_MARKS);
  fd = get_pin (src, SB_WATCH_PIN);
  st->tcp_by_watcher = fd >= 0;
  close_pin (fd);
}

uint32_t
sb_host_pinned_settings_id (const struct sb_host_pins *p, const char *gen)
{
  struct source src = { p, gen, NULL };
  struct bpf_map_info info;
  __u32 len = sizeof info;
  int fd = get_map (&src, SB_HOST_MAP_SETTINGS);

  memset (&info, 0, sizeof info);
  if (fd < 0 || bpf_obj_get_info_by_fd (fd, &info, &len) != 0)
    info.id = 0;
  close_pin (fd);
  return info.id;
}

/* Which of ST's attached generations is pinned in GEN of P: its index,
 * or -1.
 */
static int
pinned_in (const struct sb_host_pins *p, const char *gen,
           const struct sb_host_state *st)
{
  uint32_t id = sb_host_pinned_settings_id (p, gen);

  for (int i = 0; id != 0 && i < st->nattached; i++)
    if (st->attached[i].map_ids[SB_HOST_MAP_SETTINGS] == id)
      return i;
  return -1;
}

void
sb_host_state_read (const struct sb_host_pins *p, struct sb_host_state *st)
{
  struct sb_host_settings identity;
  struct source src = { p, NULL, NULL };
  int read = -1;

  memset (st, 0, sizeof *st);
  st->counts_fd = st->marks_fd = -1;
  st->stall_tags_fd = st->stall_processes_fd = -1;
  st->interrupted = sb_host_pins_has (p, SB_HOST_STAGING);
  sb_host_pin_dir_identity (p->fd, p->path, &identity);
  st->nattached = sb_host_attached_find (&identity, st->attached,
                                         SB_HOST_MAX_GENERATIONS);
  if (sb_host_pins_has (p, SB_HOST_CURRENT)) {
    src.gen = st->pinned = SB_HOST_CURRENT;
    read = pinned_in (p, SB_HOST_CURRENT, st);
  }
  else if (st->interrupted && (read = pinned_in (p, SB_HOST_STAGING, st)) >= 0)
    src.gen = st->pinned = SB_HOST_STAGING;
  else if (st->nattached > 0)
    src.found = &st->attached[read = 0];
  st->on = src.gen != NULL || src.found != NULL;
  st->others = st->nattached - (read >= 0);
  if (st->on)
    read_generation (&src, st);
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

static int
link_attached (const struct sb_host_state *st, const struct sb_host_link_state *l)
{
  return l->cgroup_id != 0 && l->cgroup_id == st->settings.cgroup_id;
}

int
sb_host_state_attached (const struct sb_host_state *st)
{
  if (!st->on || st->problem[0] != '\0')
    return 0;
  for (int i = 0; i < SB_HOST_NPROGS; i++)
    if ((st->settings.parts & SB_HOST_PART_BIT (sb_host_progs[i].part)) &&
        !link_attached (st, &st->links[i]))
      return 0;
  return 1;
}

/* Whether the counting's program I runs, or the tuning's twin of it
 * tags for it.
 */
static int
counting_runs (const struct sb_host_state *st, int i)
{
  int twin = sb_stalls_twin[i];

  return link_attached (st, &st->stalls_links[i]) ||
         (twin >= 0 && st->settings.tag_tcp &&
          link_attached (st, &st->links[twin]));
}

int
sb_host_state_counting (const struct sb_host_state *st)
{
  if (!st->on || st->problem[0] != '\0')
    return 0;
  for (int i = 0; i < SB_STALLS_NPROGS; i++)
    if (!counting_runs (st, i))
      return 0;
  return 1;
}
