/* SPDX-License-Identifier: MIT */
/* sb-host watch: the watcher's process (watch.h), which enable starts
 * when the generation it puts in place has the watcher as its TCP part.
 * It takes what it needs from that generation's pins under their lock,
 * attaches its programs to the generation's cgroup, sweeps the cgroup,
 * prints "watching: pid N ..." and then reads events until SIGTERM or
 * SIGINT; its programs go with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cgroup.h"
#include "escape.h"
#include "host.h"
#include "load.h"
#include "pins.h"
#include "report.h"
#include "watch-control.h"
#include "watch-load.h"
#include "watch-loop.h"

/* What the watcher takes from the current generation. */
struct generation {
  struct sb_watch_maps maps;
  struct sb_watch_reuse reuse;
  int cgroup_fd;
};

static int
get_pin (const struct sb_host_pins *p, const char *name)
{
  char path[PATH_MAX + 64];

  sb_host_pin_path (p, SB_HOST_CURRENT, name, path, sizeof path);
  return bpf_obj_get (path);
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

static void
generation_close (struct generation *g)
{
  close_fd (&g->reuse.settings);
  close_fd (&g->reuse.programs);
  close_fd (&g->reuse.ports);
  close_fd (&g->reuse.counts);
  close_fd (&g->maps.marks);
  close_fd (&g->maps.counts);
  close_fd (&g->cgroup_fd);
}

/* The generation's cgroup, opened by the path its settings keep and
 * checked against the id they keep.
 */
static int
open_cgroup (struct generation *g, char *why, size_t why_len)
{
  char mount[PATH_MAX], path[PATH_MAX];

  if (sb_host_cgroup2_mount (mount, sizeof mount) == -1) {
    snprintf (why, why_len, "no cgroup v2 file system is mounted");
    return -1;
  }
  g->cgroup_fd = sb_host_cgroup_open (mount, g->maps.settings.cgroup, path,
                                      sizeof path, why, why_len);
  if (g->cgroup_fd == -1)
    return -1;
  if (sb_host_cgroup_id (g->cgroup_fd) != g->maps.settings.cgroup_id) {
    snprintf (why, why_len, "the cgroup host mode was enabled for is gone");
    return -1;
  }
  return 0;
}

static int
read_generation (const struct sb_host_pins *p, struct generation *g,
                 char *why, size_t why_len)
{
  __u32 zero = 0;

  g->reuse.settings = get_pin (p, sb_host_map_pin[SB_HOST_MAP_SETTINGS]);
  g->reuse.programs = get_pin (p, sb_host_map_pin[SB_HOST_MAP_PROGRAMS]);
  g->reuse.ports = get_pin (p, sb_host_map_pin[SB_HOST_MAP_PORTS]);
  g->reuse.counts = get_pin (p, SB_WATCH_PIN);
  g->maps.marks = get_pin (p, sb_host_map_pin[SB_HOST_MAP_MARKS]);
  g->maps.counts = get_pin (p, sb_host_map_pin[SB_HOST_MAP_COUNTS]);
  g->maps.programs = g->reuse.programs;
  g->maps.ports = g->reuse.ports;
  if (g->reuse.counts < 0) {
    snprintf (why, why_len, "host mode is not on with the watcher%s",
              sb_host_pins_has (p, SB_HOST_CURRENT) ? "" : " (it is off)");
    return -1;
  }
  if (g->reuse.settings < 0 || g->reuse.programs < 0 || g->reuse.ports < 0 ||
      bpf_map_lookup_elem (g->reuse.settings, &zero, &g->maps.settings) != 0) {
    snprintf (why, why_len, "host mode's settings cannot be read: %s",
              strerror (errno));
    return -1;
  }
  return open_cgroup (g, why, why_len);
}

static void
set_slot (int counts_fd, enum sb_watch_count slot, uint64_t value)
{
  __u32 key = slot;

  bpf_map_update_elem (counts_fd, &key, &value, BPF_ANY);
}

/* The watcher leaves: its pid goes from the counts, if it is still
 * there (a watcher that replaced it is not forgotten).
 */
static void
clear_pid (int counts_fd)
{
  __u32 key = SB_WATCH_COUNT_PID;
  uint64_t pid;

  if (bpf_map_lookup_elem (counts_fd, &key, &pid) == 0 &&
      pid == (uint64_t) getpid ())
    set_slot (counts_fd, SB_WATCH_COUNT_PID, 0);
}

/* Under the pins' lock: read the generation, check that no watcher runs
 * for it, load and attach the programs, and say who watches.  Return 0,
 * 1 when a watcher runs already (*OTHER), or -1 with WHY.
 */
static int
start (const struct sb_host_options *o, struct generation *g,
       struct sb_watch_instance *in, pid_t *other, char *why, size_t why_len)
{
  struct sb_host_pins pins;
  int mounted, status = -1, running;

  if (sb_host_pins_open (o->pin_dir, 0, &mounted, &pins, why, why_len) != 0) {
    if (pins.fd == -1 && why[0] == '\0')
      snprintf (why, why_len, "host mode is off");
    return -1;
  }
  if (read_generation (&pins, g, why, why_len) == 0) {
    running = sb_watch_find (g->reuse.counts, other);
    if (running >= 0) {
      close (running);
      status = 1;
    }
    else if (sb_watch_load (in, &g->reuse, why, why_len) == 0) {
      g->maps.watch_marks = sb_watch_marks_fd (in);
      if (sb_watch_attach (in, g->cgroup_fd, why, why_len) == 0) {
        set_slot (g->reuse.counts, SB_WATCH_COUNT_PID, (uint64_t) getpid ());
        set_slot (g->reuse.counts, SB_WATCH_COUNT_STARTED, (uint64_t) time (NULL));
        status = 0;
      }
      else
        sb_watch_unload (in);
    }
  }
  sb_host_pins_close (&pins);
  return status;
}

/* ---- leaving with the generation ---------------------------------------- */

/* The watcher serves one generation: the one whose counts array it
 * holds.  When the pin directory changes (enable replacing the
 * generation, disable, the pins removed by hand, the file system
 * unmounted), it looks whether that array is still the current one's,
 * and leaves when it is not: its programs go with it, as host mode did.
 */
struct generation_watch {
  const char *pin_dir;
  __u32 counts_id;
  int inotify_fd;
};

static __u32
map_id (int fd)
{
  struct bpf_map_info info;
  __u32 len = sizeof info;

  memset (&info, 0, sizeof info);
  return bpf_obj_get_info_by_fd (fd, &info, &len) == 0 ? info.id : 0;
}

static int
generation_gone (void *arg)
{
  struct generation_watch *gw = arg;
  char events[4096], path[PATH_MAX + 64];
  int fd;

  while (read (gw->inotify_fd, events, sizeof events) > 0)
    ;
  snprintf (path, sizeof path, "%s/%s/%s", gw->pin_dir, SB_HOST_CURRENT,
            SB_WATCH_PIN);
  fd = bpf_obj_get (path);
  if (fd < 0)
    return 1;
  if (map_id (fd) != gw->counts_id) {
    close (fd);
    return 1;
  }
  close (fd);
  return 0;
}

/* Watch the pin directory for L's leave hook; best effort (no inotify:
 * enable and disable stop the watcher anyway).
 */
static void
watch_generation (struct sb_watch_loop *l, struct generation_watch *gw,
                  const char *pin_dir, int counts_fd)
{
  *gw = (struct generation_watch) { .pin_dir = pin_dir,
                                    .counts_id = map_id (counts_fd) };
  gw->inotify_fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  if (gw->inotify_fd < 0)
    return;
  if (inotify_add_watch (gw->inotify_fd, pin_dir, IN_DELETE | IN_MOVED_FROM |
                         IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) < 0) {
    close (gw->inotify_fd);
    gw->inotify_fd = -1;
    return;
  }
  l->leave_fd = gw->inotify_fd;
  l->leave = generation_gone;
  l->leave_arg = gw;
}

/* SIGTERM and SIGINT as a descriptor the loop polls; nothing else stops
 * it (SIGPIPE: enable stops reading its output once it is ready).
 */
static int
stop_signals (void)
{
  sigset_t set;

  signal (SIGPIPE, SIG_IGN);
  signal (SIGHUP, SIG_IGN);
  /* Whatever its starter ignored: TERM must reach the signalfd. */
  signal (SIGTERM, SIG_DFL);
  signal (SIGINT, SIG_DFL);
  sigemptyset (&set);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGINT);
  if (sigprocmask (SIG_BLOCK, &set, NULL) == -1)
    return -1;
  return signalfd (-1, &set, SFD_CLOEXEC);
}

int
sb_host_watch (const struct sb_host_options *o)
{
  struct generation g = { .cgroup_fd = -1 };
  struct sb_watch_instance in;
  char why[PATH_MAX + 256], cgroup[SB_ESCAPE_SIZE (SB_HOST_CGROUP_PATH_LEN)];
  int stop_fd = stop_signals (), status = 1;
  struct generation_watch gw = { .inotify_fd = -1 };
  pid_t other;
  /* Static: its tables are some 20 KiB. */
  static struct sb_watch_loop loop;

  why[0] = '\0';
  if (stop_fd == -1) {
    sb_error ("watch: %s", strerror (errno));
    return 1;
  }
  switch (start (o, &g, &in, &other, why, sizeof why)) {
  case -1:
    sb_error ("watch: %s", why);
    generation_close (&g);
    return 1;
  case 1:
    /* Two enables at once: the other one's watcher does the work. */
    printf ("watching: pid %d, already\n", (int) other);
    generation_close (&g);
    return 0;
  }
  sb_watch_loop_init (&loop, &g.maps, g.cgroup_fd, g.reuse.counts);
  watch_generation (&loop, &gw, o->pin_dir, g.reuse.counts);
  sb_watch_sweep_now (&loop);
  sb_watch_publish (&loop);
  printf ("watching: pid %d, cgroup %s\n", (int) getpid (),
          sb_escape_str (cgroup, sizeof cgroup, g.maps.settings.cgroup));
  fflush (stdout);
  if (sb_watch_run (&loop, sb_watch_events_fd (&in), stop_fd, why,
                    sizeof why) == 0)
    status = 0;
  else
    sb_error ("watch: %s", why);
  sb_watch_publish (&loop);
  clear_pid (g.reuse.counts);
  sb_watch_unload (&in);
  generation_close (&g);
  close (stop_fd);
  if (gw.inotify_fd >= 0)
    close (gw.inotify_fd);
  return status;
}
