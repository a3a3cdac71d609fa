/* SPDX-License-Identifier: MIT */
/* sockboost host enable: check what the kernel can do with a self-test,
 * then load, attach and pin the programs, replacing what was on.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "escape.h"
#include "host.h"
#include "load.h"
#include "pins.h"
#include "report.h"
#include "selftest.h"
#include "state.h"
#include "tuning.h"

/* What enable found out, for its report. */
struct plan {
  char mount[PATH_MAX];         /* the cgroup2 file system */
  char cgroup[PATH_MAX];        /* the cgroup attached to */
  int cgroup_fd;
  uint64_t cgroup_id;
  int with_unix;                /* the unix hooks work and are wanted */
  char unix_why[512];           /* why not, when they are wanted */
  int unix_granted;             /* SO_SNDBUF the self-test's socket got */
  int mounted_bpffs;
};

/* Host mode cannot run here: say why and what works without it. */
static int
unavailable (const char *why)
{
  sb_error ("enable: host mode cannot run here: %s", why);
  sb_error ("enable: without it, tune libvirt domains with 'sockboost "
            "libvirt enable DOMAIN' (at their next start) or running "
            "processes with 'sockboost attach --watch PID...'");
  return 1;
}

/* The self-test decides what can be turned on. */
static int
check_kernel (const struct sb_host_options *o, struct plan *pl)
{
  struct sb_host_selftest r;
  char why[512];
  int unix_ok = 0;

  if (o->sndbuf != 0) {
    unix_ok = sb_host_probe_unix (pl->unix_why, sizeof pl->unix_why);
    if (unix_ok == -1)
      return unavailable (pl->unix_why);
  }
  if (sb_host_selftest (pl->cgroup_fd, o->sndbuf, unix_ok, &r, why, sizeof why) == -1)
    return unavailable (why);
  if (r.tcp_nodelay[0] != 1 || r.tcp_nodelay[1] != 1 ||
      r.counts.tcp_bind < 1 || r.counts.tcp_connect < 1) {
    snprintf (why, sizeof why, "the self-test's TCP connection did not get "
              "TCP_NODELAY from the kernel's bind and connect hooks (client "
              "%d, server %d, counted %llu bound, %llu connected)%s%s",
              r.tcp_nodelay[0], r.tcp_nodelay[1],
              (unsigned long long) r.counts.tcp_bind,
              (unsigned long long) r.counts.tcp_connect,
              r.problem[0] ? ": " : "", r.problem);
    return unavailable (why);
  }
  if (unix_ok && (r.counts.unix_sndbuf < 2 || r.unix_sndbuf[0] <= r.unix_before ||
                  r.unix_sndbuf[1] <= r.unix_before)) {
    snprintf (pl->unix_why, sizeof pl->unix_why, "the self-test's unix "
              "sockets kept their send buffer of %d (client %d, server %d)%s%s",
              r.unix_before, r.unix_sndbuf[0], r.unix_sndbuf[1],
              r.problem[0] ? ": " : "", r.problem);
    unix_ok = 0;
  }
  pl->with_unix = unix_ok;
  pl->unix_granted = r.unix_sndbuf[0];
  return 0;
}

static int
find_cgroup (const struct sb_host_options *o, struct plan *pl)
{
  char why[PATH_MAX + 256];

  if (sb_host_cgroup2_mount (pl->mount, sizeof pl->mount) == -1)
    return unavailable (errno == ENOENT ?
                        "no cgroup v2 file system is mounted (host mode "
                        "attaches its programs to a cgroup v2 directory)" :
                        "cannot read the mount table");
  pl->cgroup_fd = sb_host_cgroup_open (pl->mount, o->cgroup, pl->cgroup,
                                       sizeof pl->cgroup, why, sizeof why);
  if (pl->cgroup_fd == -1) {
    sb_error ("enable: %s", why);
    return 1;
  }
  pl->cgroup_id = sb_host_cgroup_id (pl->cgroup_fd);
  if (strlen (pl->cgroup) >= SB_HOST_CGROUP_PATH_LEN) {
    sb_error ("enable: the cgroup's path is longer than %d bytes",
              SB_HOST_CGROUP_PATH_LEN - 1);
    return 1;
  }
  return 0;
}

static void
settings_of (const struct sb_host_options *o, const struct plan *pl,
             struct sb_host_settings *s)
{
  memset (s, 0, sizeof *s);
  s->filter = (__u32) o->filter.kind;
  s->sndbuf = pl->with_unix ? o->sndbuf : 0;
  s->enabled_at = (__u64) time (NULL);
  s->cgroup_id = pl->cgroup_id;
  memcpy (s->cgroup, pl->cgroup, strlen (pl->cgroup));
}

/* Whether what is on already is what O asks for. */
static int
same_as_current (const struct sb_host_state *st, const struct sb_host_options *o,
                 const struct plan *pl)
{
  struct sb_host_filter_spec want = o->filter;

  sb_host_filter_sort (&want);
  return sb_host_state_attached (st, pl->with_unix) &&
         st->settings.cgroup_id == pl->cgroup_id &&
         st->settings.sndbuf == (pl->with_unix ? o->sndbuf : 0) &&
         sb_host_filter_equal (&st->filter, &want);
}

/* Attach the loaded IN, pin it as the staging generation, then put that
 * in place of the current one.
 */
static int
put_in_place (struct sb_host_instance *in, const struct plan *pl,
              const struct sb_host_pins *pins, char *why, size_t why_len)
{
  if (sb_host_attach (in, pl->cgroup_fd, why, why_len) == -1)
    return -1;
  if (sb_host_pins_make (pins, SB_HOST_STAGING) == -1) {
    snprintf (why, why_len, "cannot make %s: %s", SB_HOST_STAGING,
              strerror (errno));
    return -1;
  }
  if (sb_host_pin (in, pins, SB_HOST_STAGING, why, why_len) == -1)
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
replace_generation (const struct sb_host_options *o, const struct plan *pl,
                    const struct sb_host_pins *pins, const struct sb_host_state *st)
{
  struct sb_host_settings s;
  struct sb_host_instance in;
  char why[512];
  int status;

  settings_of (o, pl, &s);
  if (sb_host_pins_clear (pins, SB_HOST_STAGING) == -1) {
    sb_error ("enable: cannot remove the pins of an interrupted enable: %s",
              strerror (errno));
    return 1;
  }
  if (sb_host_load (&in, &s, &o->filter, pl->with_unix, st->marks_fd,
                    st->tuned_fd, why, sizeof why) == -1) {
    sb_error ("enable: %s", why);
    return 1;
  }
  status = put_in_place (&in, pl, pins, why, sizeof why);
  sb_host_unload (&in);
  if (status == -1) {
    sb_error ("enable: %s", why);
    sb_host_pins_clear (pins, SB_HOST_STAGING);
    return 1;
  }
  return 0;
}

static void
report (const struct sb_host_options *o, const struct plan *pl,
        const struct sb_host_pins *pins, int already)
{
  char text[2048], cgroup[SB_ESCAPE_SIZE (PATH_MAX)], dir[SB_ESCAPE_SIZE (PATH_MAX)];
  struct sb_host_filter_spec f = o->filter;

  sb_host_filter_sort (&f);
  sb_escape_str (cgroup, sizeof cgroup, pl->cgroup);
  sb_escape_str (dir, sizeof dir, pins->path);
  if (pl->mounted_bpffs)
    printf ("mounted a BPF file system on /sys/fs/bpf (nothing was mounted there)\n");
  printf ("host mode %s for cgroup %s%s\n", already ? "was on already" : "on",
          cgroup, o->cgroup == NULL ? " (the whole host)" : "");
  printf ("  filter: %s\n", sb_host_filter_text (&f, text, sizeof text));
  printf ("  tcp: TCP_NODELAY on the connections they make, and on their "
          "listeners, which the connections they accept inherit (self-test "
          "passed)\n");
  if (pl->with_unix)
    printf ("  unix: send buffer of the stream sockets they connect or "
            "accept raised to %d (self-test passed)\n", pl->unix_granted);
  if (pl->with_unix && pl->unix_granted < 2 * (long long) o->sndbuf)
    printf ("  unix: net.core.wmem_max (%ld) clips the %u requested, and BPF "
            "cannot force it: 'sysctl -w net.core.wmem_max=%u' lets the kernel "
            "grant it\n", sb_wmem_max (NULL), o->sndbuf, o->sndbuf);
  else if (o->sndbuf == 0)
    printf ("  unix: off (--sndbuf 0)\n");
  else
    printf ("  unix: not turned on: %s\n", pl->unix_why);
  printf ("  pinned in %s; 'sockboost host disable' turns it off\n", dir);
  printf ("  sockets bound or connected before now are not changed\n");
}

int
sb_host_enable (const struct sb_host_options *o)
{
  struct plan pl = { .cgroup_fd = -1 };
  struct sb_host_pins pins;
  struct sb_host_state st;
  char why[PATH_MAX + 256];
  int status, already;

  if ((status = find_cgroup (o, &pl)) != 0 ||
      (status = check_kernel (o, &pl)) != 0)
    goto out;
  if (sb_host_pins_open (o->pin_dir, 1, &pl.mounted_bpffs, &pins, why,
                         sizeof why) != 0) {
    sb_error ("enable: %s", why);
    status = 1;
    goto out;
  }
  sb_host_state_read (&pins, &st);
  already = same_as_current (&st, o, &pl) && !st.interrupted;
  if (!already)
    status = replace_generation (o, &pl, &pins, &st);
  if (status == 0)
    report (o, &pl, &pins, already);
  sb_host_state_close (&st);
  sb_host_pins_close (&pins);
out:
  if (pl.cgroup_fd >= 0)
    close (pl.cgroup_fd);
  return status;
}

int
sb_host_disable (const struct sb_host_options *o)
{
  char why[PATH_MAX + 256], dir[SB_ESCAPE_SIZE (PATH_MAX)];
  struct sb_host_pins pins;
  int mounted, r;

  r = sb_host_pins_open (o->pin_dir, 0, &mounted, &pins, why, sizeof why);
  if (r == 1) {
    printf ("host mode was off already\n");
    return 0;
  }
  if (r == -1) {
    sb_error ("disable: %s", why);
    return 1;
  }
  sb_escape_str (dir, sizeof dir, pins.path);
  if (sb_host_pins_clear (&pins, SB_HOST_CURRENT) == -1 ||
      sb_host_pins_clear (&pins, SB_HOST_STAGING) == -1 ||
      sb_host_pins_remove_dir (&pins) == -1) {
    sb_error ("disable: cannot remove the pins in %s: %s", dir, strerror (errno));
    sb_host_pins_close (&pins);
    return 1;
  }
  sb_host_pins_close (&pins);
  printf ("host mode off: its programs are detached and %s is removed\n", dir);
  return 0;
}
