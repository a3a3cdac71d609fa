/* SPDX-License-Identifier: MIT */
/* sockboost host status: what is attached, where, with which filter,
 * since when, and how many sockets each program had tuned; as text or
 * as JSON (--json) for doctor and status to read.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "counts.h"
#include "escape.h"
#include "host.h"
#include "json.h"
#include "parts.h"
#include "plan.h"
#include "report.h"
#include "stalls-status.h"
#include "state.h"
#include "tuning.h"
#include "watch-control.h"

/* Whether the settings' cgroup is the root of the cgroup2 file system. */
static int
whole_host (const struct sb_host_settings *s)
{
  char mount[PATH_MAX], path[PATH_MAX], why[PATH_MAX + 256];
  uint64_t id = 0;
  int fd;

  if (sb_host_cgroup2_mount (mount, sizeof mount) == -1)
    return 0;
  fd = sb_host_cgroup_open (mount, NULL, path, sizeof path, why, sizeof why);
  if (fd >= 0) {
    id = sb_host_cgroup_id (fd);
    close (fd);
  }
  return id != 0 && id == s->cgroup_id;
}

static const char *
when (uint64_t seconds, char *buf, size_t size)
{
  time_t t = (time_t) seconds;
  struct tm tm;

  if (localtime_r (&t, &tm) == NULL ||
      strftime (buf, size, "%Y-%m-%d %H:%M:%S %z", &tm) == 0)
    snprintf (buf, size, "%llu", (unsigned long long) seconds);
  return buf;
}

/* Whether net.core.wmem_max differs from what the unix grant was
 * measured under.
 */
static int
wmem_max_changed (const struct sb_host_settings *s)
{
  return sb_wmem_max (NULL) != (long) s->wmem_max;
}

/* ---- text ----------------------------------------------------------- */

/* The rows of the counts map of ST that counted something, into ROWS
 * (SB_HOST_MAX_COUNT_ROWS); how many.
 */
static int
count_rows (const struct sb_host_state *st, struct sb_host_count_row *rows)
{
  return st->counts_fd < 0 ? 0 :
    sb_host_counts_read (st->counts_fd, rows, SB_HOST_MAX_COUNT_ROWS);
}

static void
print_counts (const struct sb_host_state *st)
{
  static struct sb_host_count_row rows[SB_HOST_MAX_COUNT_ROWS];
  char entry[SB_ESCAPE_SIZE (SB_HOST_COMM_LEN) + 8], uid[16];
  int n = count_rows (st, rows), others = 0;

  printf ("sockets tuned so far, by filter entry and user (TCP servers' "
          "connections inherit their listener's TCP_NODELAY):\n"
          "  %-16s %10s %10s %10s %10s\n", "program", "uid", "tcp bound",
          "tcp conn.", "unix");
  for (int i = 0; i < n; i++) {
    const struct sb_host_counts *c = &rows[i].counts;
    if (rows[i].key.uid == SB_HOST_UID_OTHERS)
      others = 1;
    snprintf (uid, sizeof uid, "%u", rows[i].key.uid);
    printf ("  %-16s %10s %10llu %10llu %10llu\n",
            sb_host_entry_text (&rows[i].key.entry, entry, sizeof entry),
            rows[i].key.uid == SB_HOST_UID_OTHERS ? "others" : uid,
            (unsigned long long) c->tcp_bind,
            (unsigned long long) c->tcp_connect,
            (unsigned long long) c->unix_sndbuf);
  }
  if (others)
    printf ("  (others: users who came after the table's %d rows were "
            "taken, counted together)\n", SB_HOST_MAX_COUNT_ROWS);
}

static void
print_link (const struct sb_host_state *st, const char *name,
            const struct sb_host_link_state *l)
{
  if (l->pinned)
    printf ("  %-16s program %u, link %u, %s\n", name, l->prog_id,
            l->link_id, l->cgroup_id == st->settings.cgroup_id ? "attached" :
            "detached (its cgroup is gone)");
}

static void
print_links (const struct sb_host_state *st)
{
  for (int i = 0; i < SB_HOST_NPROGS; i++)
    print_link (st, sb_host_progs[i].pin, &st->links[i]);
  for (int i = 0; i < SB_STALLS_NPROGS; i++)
    print_link (st, sb_stalls_prog_pin[i], &st->stalls_links[i]);
}

/* Whether every part of host mode that is on works: the programs are
 * attached, and the watcher, if it is the TCP part, runs.
 */
static int
whole (const struct sb_host_state *st, const struct sb_watch_state *ws)
{
  return sb_host_state_attached (st) &&
         (!st->settings.observe || sb_host_state_counting (st)) &&
         (!ws->present || ws->running);
}

/* Why part P of the settings S is off, as enable found. */
static const char *
why_off (const struct sb_host_settings *s, enum sb_host_part p)
{
  static char why[SB_HOST_PART_WHY_LEN + 1];

  memcpy (why, s->part_why[p], SB_HOST_PART_WHY_LEN);
  why[SB_HOST_PART_WHY_LEN] = '\0';
  return why[0] ? why : "off";
}

/* What the kernel's TCP parts of S do, or why not. */
static void
print_tcp (const struct sb_host_settings *s)
{
  int bind = (s->parts & SB_HOST_PART_BIT (SB_HOST_PART_TCP_BIND)) != 0;
  int connect = (s->parts & SB_HOST_PART_BIT (SB_HOST_PART_TCP_CONNECT)) != 0;

  if (bind && connect)
    printf ("tcp: TCP_NODELAY on the connections they make and on their "
            "listeners (which the connections they accept inherit)\n");
  else if (bind)
    printf ("tcp: TCP_NODELAY on their listeners (which the connections "
            "they accept inherit); not on the connections they make: %s\n",
            why_off (s, SB_HOST_PART_TCP_CONNECT));
  else if (connect)
    printf ("tcp: TCP_NODELAY on the connections they make; not on their "
            "listeners: %s\n", why_off (s, SB_HOST_PART_TCP_BIND));
  else
    printf ("tcp: off: %s\n", why_off (s, SB_HOST_PART_TCP_BIND));
}

/* What the unix parts of S do (one of them at least is on). */
static void
print_unix (const struct sb_host_settings *s)
{
  int connect = (s->parts & SB_HOST_PART_BIT (SB_HOST_PART_UNIX_CONNECT)) != 0;
  int accept = (s->parts & SB_HOST_PART_BIT (SB_HOST_PART_UNIX_ACCEPT)) != 0;

  printf ("unix: send buffer request %u on the stream sockets they %s, "
          "granted %u (net.core.wmem_max %u); those with as much are left "
          "alone", s->sndbuf, connect && accept ? "connect or accept" :
          connect ? "connect" : "accept", s->sndbuf_granted, s->wmem_max);
  if (!accept)
    printf ("; not those they accept: %s",
            why_off (s, SB_HOST_PART_UNIX_ACCEPT));
  if (!connect)
    printf ("; not those they connect: %s",
            why_off (s, SB_HOST_PART_UNIX_CONNECT));
  printf ("\n");
}

/* "host mode: on", and what is odd: where its pins are, whether it is
 * whole, other generations still attached.
 */
static void
print_headline (const struct sb_host_state *st, const struct sb_watch_state *ws,
                const char *dir)
{
  printf ("host mode: %s", st->settings.observe ? "observing" : "on");
  if (st->pinned == NULL)
    printf (", not pinned: its pins are not in %s (renamed or removed); "
            "'sockboost host disable' detaches it, 'enable' replaces it", dir);
  else if (strcmp (st->pinned, SB_HOST_STAGING) == 0)
    printf (", pinned as staging: an enable was interrupted before putting "
            "it in place ('sockboost host enable' does, 'disable' removes "
            "it)");
  else if (!whole (st, ws))
    printf (", but not whole (run 'sockboost host enable' again)");
  else if (st->settings.observe)
    printf (" (counting only: no socket is changed)");
  printf ("\n");
  if (st->others > 0)
    printf ("also attached: %d other generation%s of host mode for %s, "
            "which 'sockboost host enable' or 'disable' removes\n",
            st->others, st->others == 1 ? "" : "s", dir);
}

static void
print_text (const struct sb_host_pins *p, const struct sb_host_state *st,
            const struct sb_watch_state *ws)
{
  char text[2048], dir[SB_ESCAPE_SIZE (PATH_MAX)], cgroup[SB_ESCAPE_SIZE (SB_HOST_CGROUP_PATH_LEN)];
  int with_unix = st->settings.sndbuf != 0 && !st->settings.observe;

  sb_escape_str (dir, sizeof dir, p->path);
  print_headline (st, ws, dir);
  printf ("since: %s\n", when (st->settings.enabled_at, text, sizeof text));
  printf ("cgroup: %s%s\n",
          sb_escape_str (cgroup, sizeof cgroup, st->settings.cgroup),
          whole_host (&st->settings) ? " (the whole host)" : "");
  printf ("filter: %s\n", sb_host_filter_text (&st->filter, text, sizeof text));
  printf ("names: %s\n", st->settings.task_comm != 0 ? SB_HOST_NAMES_PROCESS :
          SB_HOST_NAMES_THREAD " ('sockboost host check' says why)");
  sb_host_parts_text ("", st->settings.parts, ws->present);
  if (st->settings.observe)
    printf ("tcp: not tuned ('sockboost host enable' tunes them)\n");
  else if (ws->present)
    sb_watch_status_text (ws);
  else
    print_tcp (&st->settings);
  if (st->settings.observe)
    printf ("unix: not tuned ('sockboost host enable' raises their send "
            "buffers)\n");
  else if (with_unix)
    print_unix (&st->settings);
  else
    printf ("unix: off: %s\n", why_off (&st->settings, SB_HOST_PART_UNIX_CONNECT));
  if (with_unix && wmem_max_changed (&st->settings))
    printf ("unix: net.core.wmem_max is %ld now: the grant no longer holds, "
            "and a socket between the two may be lowered or left below it "
            "(run 'sockboost host enable' again)\n", sb_wmem_max (NULL));
  if (st->pinned != NULL)
    printf ("pins: %s/%s\n", dir, st->pinned);
  else
    printf ("pins: none in %s\n", dir);
  print_links (st);
  if (!st->settings.observe)
    print_counts (st);
  sb_stalls_text (st);
}

/* ---- JSON ----------------------------------------------------------- */

static void
json_counts (const struct sb_host_state *st)
{
  static struct sb_host_count_row rows[SB_HOST_MAX_COUNT_ROWS];
  char entry[SB_ESCAPE_SIZE (SB_HOST_COMM_LEN) + 8];
  int n = count_rows (st, rows);

  printf ("[");
  for (int i = 0; i < n; i++) {
    const struct sb_host_counts *c = &rows[i].counts;
    printf ("%s{\"program\": ", i ? ", " : "");
    sb_json_string (stdout, sb_host_entry_text (&rows[i].key.entry, entry,
                                                sizeof entry));
    if (rows[i].key.uid == SB_HOST_UID_OTHERS)
      printf (", \"uid\": null");
    else
      printf (", \"uid\": %u", rows[i].key.uid);
    printf (", \"tcp_bind\": %llu, \"tcp_connect\": %llu, \"unix\": %llu",
            (unsigned long long) c->tcp_bind,
            (unsigned long long) c->tcp_connect,
            (unsigned long long) c->unix_sndbuf);
    sb_stalls_json_fields (c);
    printf ("}");
  }
  printf ("]");
}

static void
json_filter (const struct sb_host_filter_spec *f)
{
  char item[SB_ESCAPE_SIZE (SB_HOST_COMM_LEN) + 8];

  printf ("{\"kind\": \"%s\", \"programs\": [",
          f->kind == SB_HOST_FILTER_PROGRAMS ? "programs" :
          f->kind == SB_HOST_FILTER_PORTS ? "ports" : "all");
  for (int i = 0; i < f->nprograms; i++) {
    printf ("%s", i ? ", " : "");
    sb_json_string (stdout, sb_host_program_text (&f->programs[i], item, sizeof item));
  }
  printf ("], \"ports\": [");
  for (int i = 0; i < f->nports; i++)
    printf ("%s%u", i ? ", " : "", f->ports[i]);
  printf ("]}");
}

static void
json_link (const struct sb_host_state *st, const char *name,
           const struct sb_host_link_state *l, int *first)
{
  if (!l->pinned)
    return;
  printf ("%s{\"name\": \"%s\", \"program_id\": %u, \"link_id\": %u, "
          "\"attached\": %s}", *first ? "" : ", ", name, l->prog_id,
          l->link_id, l->cgroup_id == st->settings.cgroup_id ? "true" : "false");
  *first = 0;
}

static void
json_links (const struct sb_host_state *st)
{
  int first = 1;

  printf ("[");
  for (int i = 0; i < SB_HOST_NPROGS; i++)
    json_link (st, sb_host_progs[i].pin, &st->links[i], &first);
  for (int i = 0; i < SB_STALLS_NPROGS; i++)
    json_link (st, sb_stalls_prog_pin[i], &st->stalls_links[i], &first);
  printf ("]");
}

static void
print_json (const char *pin_dir, const struct sb_host_state *st,
            const struct sb_watch_state *ws)
{
  int with_unix = st->settings.sndbuf != 0 && !st->settings.observe;
  int tcp_by_kernel = (st->settings.parts & SB_HOST_PARTS_TCP) == SB_HOST_PARTS_TCP;

  printf ("{\"on\": %s, \"whole\": %s, \"pin_dir\": ", st->on ? "true" : "false",
          whole (st, ws) ? "true" : "false");
  sb_json_string (stdout, pin_dir);
  printf (", \"interrupted\": %s, \"pinned\": ",
          st->interrupted ? "true" : "false");
  if (st->pinned != NULL)
    printf ("\"%s\"", st->pinned);
  else
    printf ("null");
  printf (", \"others\": %d", st->others);
  if (st->on) {
    printf (", \"since\": %llu, \"cgroup\": ",
            (unsigned long long) st->settings.enabled_at);
    sb_json_string (stdout, st->settings.cgroup);
    printf (", \"cgroup_id\": %llu, \"whole_host\": %s, \"filter\": ",
            (unsigned long long) st->settings.cgroup_id,
            whole_host (&st->settings) ? "true" : "false");
    json_filter (&st->filter);
    printf (", \"names\": \"%s\", \"parts\": ",
            st->settings.task_comm != 0 ? "process" : "thread");
    sb_host_parts_json (st->settings.parts,
                        (const char (*)[SB_HOST_PART_WHY_LEN]) st->settings.part_why);
    printf (", \"tcp_nodelay\": %s, \"tcp_by\": %s, \"watcher\": ",
            ws->present ? (ws->running ? "true" : "false") :
            tcp_by_kernel ? "true" : "false",
            ws->present ? "\"watcher\"" : tcp_by_kernel ? "\"kernel\"" : "null");
    sb_watch_status_json (ws);
    printf (", \"unix_sndbuf\": %u, "
            "\"unix_granted\": %u, \"wmem_max\": %u, \"wmem_max_changed\": %s, "
            "\"links\": ", st->settings.sndbuf, st->settings.sndbuf_granted,
            st->settings.wmem_max,
            with_unix && wmem_max_changed (&st->settings) ? "true" : "false");
    json_links (st);
    printf (", \"tuned\": ");
    json_counts (st);
    printf (", \"observe\": %s, \"counting\": %s, \"processes\": ",
            st->settings.observe ? "true" : "false",
            sb_host_state_counting (st) ? "true" : "false");
    sb_stalls_json_processes (st);
  }
  printf ("}\n");
}

int
sb_host_status (const struct sb_host_options *o)
{
  char why[PATH_MAX + 256];
  struct sb_host_pins pins;
  struct sb_host_state st;
  struct sb_watch_state ws;
  int mounted, r;

  r = sb_host_pins_open (o->pin_dir, 0, &mounted, &pins, why, sizeof why);
  if (r == -1) {
    sb_error ("status: %s", why);
    return 1;
  }
  memset (&st, 0, sizeof st);
  memset (&ws, 0, sizeof ws);
  st.counts_fd = st.marks_fd = -1;
  st.stall_tags_fd = st.stall_processes_fd = -1;
  /* A pin directory that is not there is looked for in the kernel by
   * its path: pins renamed with it away keep their programs attached.
   */
  sb_host_state_read (&pins, &st);
  if (r == 0)
    sb_watch_state_read (&pins, SB_HOST_CURRENT, &ws);
  if (st.on)
    sb_stalls_prune (&st);
  if (o->json)
    print_json (o->pin_dir, &st, &ws);
  else if (st.on && st.problem[0] == '\0')
    print_text (&pins, &st, &ws);
  else if (st.on)
    printf ("host mode: broken: %s (run 'sockboost host enable' or "
            "'disable')\n", st.problem);
  else
    printf ("host mode: off%s\n", st.interrupted ?
            " (an interrupted enable left pins: 'sockboost host disable' "
            "removes them)" : "");
  sb_host_state_close (&st);
  if (r == 0)
    sb_host_pins_close (&pins);
  return 0;
}
