/* SPDX-License-Identifier: MIT */
/* sockboost host enable: check what the kernel can do with a self-test,
 * then load, attach and pin the programs, replacing what was on.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adopt.h"
#include "attached.h"
#include "escape.h"
#include "host.h"
#include "load.h"
#include "parts.h"
#include "pins.h"
#include "plan.h"
#include "report.h"
#include "stalls-load.h"
#include "state.h"
#include "watch-control.h"

/* Host mode cannot run here: say why and what works without it. */
static int
unavailable (const char *why)
{
  sb_error ("enable: host mode cannot run here: %s", why);
  sb_error ("enable: " SB_HOST_INSTEAD);
  return 1;
}

static void
settings_of (const struct sb_host_options *o, const struct sb_host_plan *pl,
             struct sb_host_settings *s)
{
  int with_unix = sb_host_plan_unix (pl);

  memset (s, 0, sizeof *s);
  s->filter = (__u32) o->filter.kind;
  s->sndbuf = with_unix ? o->sndbuf : 0;
  s->sndbuf_granted = with_unix ? (__u32) pl->unix_granted : 0;
  s->parts = pl->parts;
  memcpy (s->part_why, pl->part_why, sizeof s->part_why);
  s->wmem_max = pl->wmem_max < 0 ? 0 : (__u32) pl->wmem_max;
  s->task_group_leader = pl->task_group_leader;
  s->task_comm = pl->task_comm;
  s->observe = o->observe ? 1 : 0;
  s->enabled_at = (__u64) time (NULL);
  s->cgroup_id = pl->cgroup_id;
  memcpy (s->cgroup, pl->cgroup, strlen (pl->cgroup));
  sb_host_first_bytes (&o->filter, (uint64_t *) s->first_bytes);
}

/* Whether the current generation has the filter O asks for: its counts
 * carry over then (a new filter starts with rows of its own entries).
 */
static int
same_filter (const struct sb_host_state *st, const struct sb_host_options *o)
{
  struct sb_host_filter_spec want = o->filter;

  sb_host_filter_sort (&want);
  return st->on && sb_host_filter_equal (&st->filter, &want);
}

/* Whether what is on already is what O asks for. */
static int
same_as_current (const struct sb_host_state *st, const struct sb_host_options *o,
                 const struct sb_host_plan *pl)
{
  int with_unix = sb_host_plan_unix (pl);

  return st->pinned != NULL && strcmp (st->pinned, SB_HOST_CURRENT) == 0 &&
         st->others == 0 && sb_host_state_attached (st) && same_filter (st, o) &&
         sb_host_state_counting (st) &&
         st->settings.observe == (o->observe ? 1u : 0u) &&
         st->settings.parts == pl->parts &&
         st->tcp_by_watcher == pl->tcp_by_watcher &&
         st->settings.cgroup_id == pl->cgroup_id &&
         st->settings.sndbuf == (with_unix ? o->sndbuf : 0) &&
         st->settings.sndbuf_granted == (with_unix ? (__u32) pl->unix_granted : 0) &&
         st->settings.task_group_leader == pl->task_group_leader &&
         st->settings.task_comm == pl->task_comm;
}

/* Attach the loaded IN, pin it as the staging generation, then put that
 * in place of the current one.
 */
static int
put_in_place (struct sb_host_instance *in, struct sb_stalls_instance *counting,
              const struct sb_host_plan *pl, const struct sb_host_pins *pins,
              char *why, size_t why_len)
{
  unsigned attached = sb_host_attach (in, pl->cgroup_fd);

  for (int p = 0; p < SB_HOST_NPARTS; p++)
    if ((pl->parts & ~attached) & SB_HOST_PART_BIT (p)) {
      snprintf (why, why_len, "%s", in->why[p]);
      return -1;
    }
  if (counting->skel != NULL &&
      sb_stalls_attach (counting, pl->cgroup_fd, why, why_len) == -1)
    return -1;
  if (sb_host_pins_make (pins, SB_HOST_STAGING) == -1) {
    snprintf (why, why_len, "cannot make %s: %s", SB_HOST_STAGING,
              strerror (errno));
    return -1;
  }
  if (sb_host_pin (in, pins, SB_HOST_STAGING, why, why_len) == -1)
    return -1;
  if (counting->skel != NULL &&
      sb_stalls_pin (counting, pins, SB_HOST_STAGING, why, why_len) == -1)
    return -1;
  if (pl->tcp_by_watcher &&
      sb_watch_pin_counts (pins, SB_HOST_STAGING, why, why_len) == -1)
    return -1;
  /* The watcher of the generation replaced goes first: the new one is
   * started once this one is in place.
   */
  if (sb_watch_stop_generation (pins, SB_HOST_CURRENT, why, why_len) == -1)
    return -1;
  if (sb_host_pins_clear (pins, SB_HOST_CURRENT) == -1) {
    snprintf (why, why_len, "cannot remove the pins that were on: %s",
              strerror (errno));
    return -1;
  }
  if (sb_host_pins_rename (pins, SB_HOST_STAGING, SB_HOST_CURRENT) == -1) {
    snprintf (why, why_len, "cannot rename %s to %s: %s", SB_HOST_STAGING,
              SB_HOST_CURRENT, strerror (errno));
    return -1;
  }
  return 0;
}

/* Load and attach a new generation beside the current one, then put it
 * in its place: the old one is detached only once the new one is on.
 * A loader killed on the way leaves a staging generation, which the next
 * enable or disable removes.
 */
static int
replace_generation (const struct sb_host_options *o, const struct sb_host_plan *pl,
                    const struct sb_host_pins *pins, const struct sb_host_state *st,
                    struct sb_host_adopted *adopted, char *counting_why,
                    size_t counting_why_len)
{
  struct sb_stalls_instance counting;
  struct sb_host_settings s;
  struct sb_host_instance in;
  int reuse[SB_HOST_NMAPS];
  char why[512];
  int status;

  settings_of (o, pl, &s);
  sb_host_pin_dir_identity (pins->fd, pins->path, &s);
  if (sb_host_pins_clear (pins, SB_HOST_STAGING) == -1) {
    sb_error ("enable: cannot remove the pins of an interrupted enable: %s",
              strerror (errno));
    return 1;
  }
  /* The sockets marked carry over; what was counted, and the tags of
   * the sockets it is counted for, with the same filter only (a new
   * filter starts with rows of its own entries).  --observe: the maps
   * and the counting, no tuning part (the plan has none then).
   */
  for (int m = 0; m < SB_HOST_NMAPS; m++)
    reuse[m] = -1;
  reuse[SB_HOST_MAP_MARKS] = st->marks_fd;
  if (same_filter (st, o)) {
    reuse[SB_HOST_MAP_COUNTS] = st->counts_fd;
    reuse[SB_HOST_MAP_STALL_TAGS] = st->stall_tags_fd;
  }
  if (sb_host_load (&in, &s, &o->filter, pl->parts, reuse,
                    why, sizeof why) == -1) {
    sb_error ("enable: %s", why);
    return 1;
  }
  /* The counting is a part of its own: where the kernel refuses it, the
   * tuning goes on without it (said), --observe fails.  Its process rows
   * carry over with the counts.
   */
  if (sb_stalls_load (&counting, &in,
                      same_filter (st, o) ? st->stall_processes_fd : -1,
                      counting_why, counting_why_len) == -1 && o->observe) {
    sb_error ("enable: %s", counting_why);
    sb_host_unload (&in);
    return 1;
  }
  status = put_in_place (&in, &counting, pl, pins, why, sizeof why);
  /* What is attached for this pin directory and not pinned in it (its
   * pins renamed away) goes now that the new generation is on.
   */
  if (status == 0)
    sb_host_attached_detach_others (&s, sb_host_map_fd (&in, SB_HOST_MAP_SETTINGS));
  if (status == 0 && !o->observe)
    sb_host_adopt (pl->cgroup_fd, &in, &s, adopted);
  sb_stalls_unload (&counting);
  sb_host_unload (&in);
  if (status == -1) {
    sb_error ("enable: %s", why);
    sb_host_pins_clear (pins, SB_HOST_STAGING);
    return 1;
  }
  return 0;
}

/* What enable --observe says: the counting only, nothing changed. */
static void
report_observe (const struct sb_host_options *o, const struct sb_host_plan *pl,
                const char *dir, int already)
{
  char text[2048], cgroup[SB_ESCAPE_SIZE (PATH_MAX)];
  struct sb_host_filter_spec f = o->filter;

  sb_host_filter_sort (&f);
  sb_escape_str (cgroup, sizeof cgroup, pl->cgroup);
  printf ("host mode %s for cgroup %s%s: counting only, no socket is "
          "changed\n", already ? "was observing already" : "observing",
          cgroup, o->cgroup == NULL ? " (the whole host)" : "");
  printf ("  filter: %s\n", sb_host_filter_text (&f, text, sizeof text));
  printf ("  counting: the stalls (delayed ACKs waited for), their time "
          "and the bytes of the TCP connections they make or accept from "
          "now on\n");
  printf ("  pinned in %s; 'sockboost host status' shows the counts, "
          "'sockboost host enable' turns the tuning on, 'disable' turns "
          "it all off\n", dir);
}

/* What the unix parts do (one of them at least is on). */
static void
report_unix (const struct sb_host_plan *pl)
{
  int connect = sb_host_plan_has (pl, SB_HOST_PART_UNIX_CONNECT);
  int accept = sb_host_plan_has (pl, SB_HOST_PART_UNIX_ACCEPT);

  printf ("  unix: send buffer of the stream sockets they %s raised to %d, "
          "never lowered (self-test passed)", connect && accept ?
          "connect or accept" : connect ? "connect" : "accept",
          pl->unix_granted);
  if (!accept)
    printf ("; not of those they accept: %s",
            pl->part_why[SB_HOST_PART_UNIX_ACCEPT]);
  if (!connect)
    printf ("; not of those they connect: %s",
            pl->part_why[SB_HOST_PART_UNIX_CONNECT]);
  printf ("\n");
}

/* What the kernel's TCP parts do, or why not. */
static void
report_tcp (const struct sb_host_plan *pl)
{
  int bind = sb_host_plan_has (pl, SB_HOST_PART_TCP_BIND);
  int connect = sb_host_plan_has (pl, SB_HOST_PART_TCP_CONNECT);

  if (bind && connect)
    printf ("  tcp: TCP_NODELAY on the connections they make, and on their "
            "listeners, which the connections they accept inherit (self-test "
            "passed)\n");
  else if (bind)
    printf ("  tcp: TCP_NODELAY on their listeners, which the connections "
            "they accept inherit (self-test passed); not on the connections "
            "they make: %s\n", pl->part_why[SB_HOST_PART_TCP_CONNECT]);
  else if (connect)
    printf ("  tcp: TCP_NODELAY on the connections they make (self-test "
            "passed); not on their listeners: %s\n",
            pl->part_why[SB_HOST_PART_TCP_BIND]);
  else
    printf ("  tcp: not turned on: %s\n", pl->part_why[SB_HOST_PART_TCP_BIND]);
}

static void
report (const struct sb_host_options *o, const struct sb_host_plan *pl,
        const struct sb_host_pins *pins, int mounted_bpffs, int already,
        const struct sb_host_adopted *adopted, pid_t watcher, int restarted,
        const char *counting_why)
{
  char text[2048], cgroup[SB_ESCAPE_SIZE (PATH_MAX)], dir[SB_ESCAPE_SIZE (PATH_MAX)];
  struct sb_host_filter_spec f = o->filter;

  sb_host_filter_sort (&f);
  sb_escape_str (cgroup, sizeof cgroup, pl->cgroup);
  sb_escape_str (dir, sizeof dir, pins->path);
  if (mounted_bpffs)
    printf ("mounted a BPF file system on /sys/fs/bpf (nothing was mounted there)\n");
  if (o->observe) {
    report_observe (o, pl, dir, already);
    return;
  }
  printf ("host mode %s for cgroup %s%s\n", already ? "was on already" : "on",
          cgroup, o->cgroup == NULL ? " (the whole host)" : "");
  printf ("  filter: %s\n", sb_host_filter_text (&f, text, sizeof text));
  if (pl->task_comm != 0)
    printf ("  names: " SB_HOST_NAMES_PROCESS "\n");
  else
    printf ("  names: " SB_HOST_NAMES_THREAD ": %s\n", pl->names_why);
  sb_host_parts_text ("  ", pl->parts, pl->tcp_by_watcher);
  if (pl->tcp_by_watcher)
    printf ("  tcp: TCP_NODELAY set by the watcher (pid %d) on the "
            "connections they make and on their listeners, which the "
            "connections they accept inherit, as the kernel reports them "
            "(self-test passed); not by the kernel's TCP hooks: %s\n",
            (int) watcher, pl->tcp_why);
  if (already && restarted)
    printf ("  tcp: the watcher was not running: started again\n");
  if (!pl->tcp_by_watcher)
    report_tcp (pl);
  if (sb_host_plan_unix (pl)) {
    report_unix (pl);
    if (pl->unix_granted < 2 * (long long) o->sndbuf)
      printf ("  unix: net.core.wmem_max (%ld) clips the %u requested, and "
              "BPF cannot force it: 'sysctl -w net.core.wmem_max=%u' lets the "
              "kernel grant it (then enable again)\n", pl->wmem_max, o->sndbuf,
              o->sndbuf);
  }
  else if (o->sndbuf == 0)
    printf ("  unix: off (--sndbuf 0)\n");
  else
    printf ("  unix: not turned on: %s\n",
            pl->part_why[SB_HOST_PART_UNIX_CONNECT]);
  if (counting_why[0] == '\0')
    printf ("  counting: the stalls left, their time and the bytes, per "
            "program and process ('sockboost host status')\n");
  else
    printf ("  counting: off: %s\n", counting_why);
  printf ("  pinned in %s; 'sockboost host disable' turns it off\n", dir);
  if (!already)
    printf ("  tcp: listeners that were there already: %d, of %d process%s "
            "the filter takes, got TCP_NODELAY too\n", adopted->listeners,
            adopted->processes, adopted->processes == 1 ? "" : "es");
  if (!already && adopted->refused)
    printf ("  tcp: the listeners of %d process%s were left as they were "
            "(%s)\n", adopted->refused, adopted->refused == 1 ? "" : "es",
            adopted->refused_why);
  if (!already && adopted->cut)
    printf ("  tcp: that stopped at its bound of %d processes and %d sockets "
            "looked at: those beyond were left as they were\n",
            SB_HOST_ADOPT_MAX_PROCESSES, SB_HOST_ADOPT_MAX_SOCKETS);
  printf ("  connections made before now are not changed ('sockboost attach "
          "--watch PID' tunes them)\n");
}

static pid_t
start_watcher (const char *pin_dir)
{
  char why[1024];
  pid_t pid = sb_watch_spawn (pin_dir, why, sizeof why);

  if (pid == -1)
    sb_error ("enable: %s (host mode is on without it: 'sockboost host "
              "enable' tries again, 'disable' turns it off)", why);
  return pid;
}

int
sb_host_enable (const struct sb_host_options *o)
{
  struct sb_host_adopted adopted = { 0 };
  struct sb_host_plan pl;
  struct sb_host_pins pins;
  struct sb_host_state st;
  struct sb_watch_state ws;
  char why[PATH_MAX + 256], counting_why[512] = "";
  int status, already, mounted;
  pid_t watcher = 0;

  status = sb_host_plan_make (o, &pl, why, sizeof why);
  if (status != 0) {
    sb_host_plan_close (&pl);
    if (status == SB_HOST_PLAN_UNAVAILABLE)
      return unavailable (why);
    sb_error ("enable: %s", why);
    return 1;
  }
  /* Observing changes no socket: no watcher, no unix hook. */
  if (o->observe)
    pl.tcp_by_watcher = 0, pl.parts = 0;
  if (sb_host_pins_open (o->pin_dir, 1, &mounted, &pins, why, sizeof why) != 0) {
    sb_error ("enable: %s", why);
    sb_host_plan_close (&pl);
    return 1;
  }
  sb_host_state_read (&pins, &st);
  already = same_as_current (&st, o, &pl) && !st.interrupted;
  status = already ? 0 : replace_generation (o, &pl, &pins, &st, &adopted,
                                                   counting_why,
                                                   sizeof counting_why);
  sb_watch_state_read (&pins, SB_HOST_CURRENT, &ws);
  sb_host_state_close (&st);
  sb_host_pins_close (&pins);
  /* Started with the pins' lock let go: the watcher takes it to read
   * the generation.  One that died is started again.
   */
  if (status == 0 && pl.tcp_by_watcher)
    watcher = ws.running ? ws.pid : start_watcher (o->pin_dir);
  if (status == 0 && watcher == -1)
    status = 1;
  if (status == 0)
    report (o, &pl, &pins, mounted, already, &adopted, watcher,
            pl.tcp_by_watcher && !ws.running, counting_why);
  sb_host_plan_close (&pl);
  return status;
}
