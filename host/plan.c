/* SPDX-License-Identifier: MIT */
/* What enable and check find out first (plan.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "load.h"
#include "plan.h"
#include "selftest.h"
#include "taskname.h"
#include "tuning.h"
#include "watch-selftest.h"

static int
find_cgroup (const struct sb_host_options *o, struct sb_host_plan *pl,
             char *why, size_t why_len)
{
  if (sb_host_cgroup2_mount (pl->mount, sizeof pl->mount) == -1) {
    snprintf (why, why_len, "%s", errno == ENOENT ?
              "no cgroup v2 file system is mounted (host mode attaches its "
              "programs to a cgroup v2 directory)" :
              "cannot read the mount table");
    return SB_HOST_PLAN_UNAVAILABLE;
  }
  pl->cgroup_fd = sb_host_cgroup_open (pl->mount, o->cgroup, pl->cgroup,
                                       sizeof pl->cgroup, why, why_len);
  if (pl->cgroup_fd == -1)
    return SB_HOST_PLAN_ERROR;
  pl->cgroup_id = sb_host_cgroup_id (pl->cgroup_fd);
  if (strlen (pl->cgroup) >= SB_HOST_CGROUP_PATH_LEN) {
    snprintf (why, why_len, "the cgroup's path is longer than %d bytes",
              SB_HOST_CGROUP_PATH_LEN - 1);
    return SB_HOST_PLAN_ERROR;
  }
  return 0;
}

/* What the self-test R says of TCP: 0, or -1 with WHY. */
static int
judge_tcp (const struct sb_host_selftest *r, char *why, size_t why_len)
{
  if (r->tcp_nodelay[0] == 1 && r->tcp_nodelay[1] == 1 &&
      r->counts.tcp_bind >= 1 && r->counts.tcp_connect >= 1)
    return 0;
  snprintf (why, why_len, "the self-test's TCP connection did not get "
            "TCP_NODELAY from the kernel's bind and connect hooks (client "
            "%d, server %d, counted %llu bound, %llu connected)%s%s",
            r->tcp_nodelay[0], r->tcp_nodelay[1],
            (unsigned long long) r->counts.tcp_bind,
            (unsigned long long) r->counts.tcp_connect,
            r->problem[0] ? ": " : "", r->problem);
  return -1;
}

/* What it says of the unix hooks, which it tried: 0, or -1 with WHY. */
static int
judge_unix (const struct sb_host_selftest *r, char *why, size_t why_len)
{
  if (r->counts.unix_sndbuf >= 2 && r->unix_sndbuf[0] > r->unix_before &&
      r->unix_sndbuf[1] == r->unix_sndbuf[0])
    return 0;
  snprintf (why, why_len, "the self-test's unix sockets kept their send "
            "buffer of %d (client %d, server %d)%s%s", r->unix_before,
            r->unix_sndbuf[0], r->unix_sndbuf[1], r->problem[0] ? ": " : "",
            r->problem);
  return -1;
}

/* TCP by the watcher, where the kernel's TCP hooks failed (KERNEL_WHY
 * says how) or --watcher asks for it: 0 when its own self-test passed,
 * or -1 with WHY.
 */
static int
judge_watcher (struct sb_host_plan *pl, const char *kernel_why, char *why,
               size_t why_len)
{
  struct sb_watch_selftest w;
  struct sb_host_settings base;
  char watch_why[512];
  int tries = pl->task_comm != 0 ? 2 : 1;

  snprintf (pl->tcp_why, sizeof pl->tcp_why, "%s", kernel_why);
  /* With the leader's name where the kernel's BTF says (a thread of
   * another name makes the sockets), then with the calling thread's.
   */
  for (int i = 0; i < tries; i++) {
    memset (&base, 0, sizeof base);
    base.task_group_leader = pl->task_group_leader;
    base.task_comm = pl->task_comm;
    if (sb_watch_selftest (pl->cgroup_fd, &base, &w, watch_why,
                           sizeof watch_why) == 0 &&
        sb_watch_selftest_passed (&w, watch_why, sizeof watch_why)) {
      pl->tcp_by_watcher = 1;
      return 0;
    }
    if (i == 0 && tries == 2) {
      snprintf (pl->names_why, sizeof pl->names_why, "read where the "
                "kernel's BTF says, the watcher's self-test did not take its "
                "thread of another name (%s)", watch_why);
      pl->task_group_leader = pl->task_comm = 0;
    }
  }
  snprintf (why, why_len, "%s; and %s", kernel_why, watch_why);
  return -1;
}

/* The self-test of the kernel's programs, with the process's name read
 * as PL says: 0 (R says what happened) or -1 with WHY.
 */
static int
selftest (const struct sb_host_options *o, const struct sb_host_plan *pl,
          int unix_ok, struct sb_host_selftest *r, char *why, size_t why_len)
{
  struct sb_host_settings base;

  memset (&base, 0, sizeof base);
  base.sndbuf = o->sndbuf;
  base.task_group_leader = pl->task_group_leader;
  base.task_comm = pl->task_comm;
  return sb_host_selftest (pl->cgroup_fd, &base, unix_ok, r, why, why_len);
}

/* Where the programs read a process's name: its leader's, where the
 * kernel's BTF says and the self-test's thread of another name is taken
 * by it; the calling thread's otherwise (PL->names_why says why).  R is
 * the self-test that counts, run again with the thread's names when the
 * leader's failed it.
 */
static int
choose_names (const struct sb_host_options *o, struct sb_host_plan *pl,
              int unix_ok, struct sb_host_selftest *r, char *why, size_t why_len)
{
  char leader_why[512];
  int status;

  if (sb_host_task_offsets (SB_HOST_VMLINUX_BTF, &pl->task_group_leader,
                            &pl->task_comm, pl->names_why,
                            sizeof pl->names_why) == -1)
    return selftest (o, pl, unix_ok, r, why, why_len);
  status = selftest (o, pl, unix_ok, r, why, why_len);
  if (status == -1 || judge_tcp (r, leader_why, sizeof leader_why) == 0)
    return status;
  snprintf (pl->names_why, sizeof pl->names_why, "read where the kernel's "
            "BTF says, the self-test's process name did not take its "
            "thread of another name (%s)", leader_why);
  pl->task_group_leader = pl->task_comm = 0;
  return selftest (o, pl, unix_ok, r, why, why_len);
}

/* The self-test decides what can be turned on. */
static int
check_kernel (const struct sb_host_options *o, struct sb_host_plan *pl,
              char *why, size_t why_len)
{
  struct sb_host_selftest r;
  char tcp_why[512];
  int unix_ok = 0, kernel_tcp;

  if (sb_host_rights (why, why_len) == -1)
    return SB_HOST_PLAN_UNAVAILABLE;
  if (o->sndbuf != 0) {
    unix_ok = sb_host_probe_unix (pl->unix_why, sizeof pl->unix_why);
    if (unix_ok == -1) {
      snprintf (why, why_len, "%s", pl->unix_why);
      return SB_HOST_PLAN_UNAVAILABLE;
    }
  }
  pl->wmem_max = sb_wmem_max (NULL);
  /* Where the kernel refuses the TCP hooks (before Linux 6.1, no BPF
   * program may set TCP_NODELAY) the programs do not load together, and
   * the watcher is the TCP part; the unix hooks came later (6.7).
   */
  if (choose_names (o, pl, unix_ok, &r, tcp_why, sizeof tcp_why) == -1) {
    kernel_tcp = 0;
    if (unix_ok)
      snprintf (pl->unix_why, sizeof pl->unix_why, "not tried: the kernel "
                "refused the programs, the TCP hooks with them");
    unix_ok = 0;
  }
  else if (o->watcher) {
    kernel_tcp = 0;
    snprintf (tcp_why, sizeof tcp_why, "--watcher asks for the watcher");
  }
  else
    kernel_tcp = judge_tcp (&r, tcp_why, sizeof tcp_why) == 0;
  if (!kernel_tcp && judge_watcher (pl, tcp_why, why, why_len) == -1)
    return SB_HOST_PLAN_UNAVAILABLE;
  if (unix_ok && judge_unix (&r, pl->unix_why, sizeof pl->unix_why) == -1)
    unix_ok = 0;
  pl->with_unix = unix_ok;
  pl->unix_granted = r.unix_sndbuf[0];
  return 0;
}

int
sb_host_plan_make (const struct sb_host_options *o, struct sb_host_plan *pl,
                   char *why, size_t why_len)
{
  int status;

  memset (pl, 0, sizeof *pl);
  pl->cgroup_fd = -1;
  status = find_cgroup (o, pl, why, why_len);
  return status != 0 ? status : check_kernel (o, pl, why, why_len);
}

void
sb_host_plan_close (struct sb_host_plan *pl)
{
  if (pl->cgroup_fd >= 0)
    close (pl->cgroup_fd);
  pl->cgroup_fd = -1;
}
