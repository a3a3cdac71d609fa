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

/* What the self-test R says of each part it had: 0, or -1 with WHY.
 * A new part brings its judge.
 */
typedef int part_judge (const struct sb_host_selftest *r, char *why,
                        size_t why_len);

static int
problem (const struct sb_host_selftest *r, char *why, size_t why_len,
         const char *what)
{
  snprintf (why, why_len, "%s%s%s", what, r->problem[0] ? ": " : "",
            r->problem);
  return -1;
}

/* A listener's TCP_NODELAY shows on the socket accepted from it. */
static int
judge_tcp_bind (const struct sb_host_selftest *r, char *why, size_t why_len)
{
  char what[128];

  if (r->tcp_nodelay[1] == 1 && r->counts.tcp_bind >= 1)
    return 0;
  snprintf (what, sizeof what, "the self-test's listener did not get "
            "TCP_NODELAY (accepted socket %d, counted %llu)", r->tcp_nodelay[1],
            (unsigned long long) r->counts.tcp_bind);
  return problem (r, why, why_len, what);
}

static int
judge_tcp_connect (const struct sb_host_selftest *r, char *why, size_t why_len)
{
  char what[128];

  if (r->tcp_nodelay[0] == 1 && r->counts.tcp_connect >= 1)
    return 0;
  snprintf (what, sizeof what, "the self-test's connection did not get "
            "TCP_NODELAY (%d, counted %llu)", r->tcp_nodelay[0],
            (unsigned long long) r->counts.tcp_connect);
  return problem (r, why, why_len, what);
}

/* Socket SIDE (0 the client, 1 the server's accepted one) got a
 * bigger send buffer.
 */
static int
judge_unix (const struct sb_host_selftest *r, int side, char *why,
            size_t why_len)
{
  char what[128];

  if (r->counts.unix_sndbuf >= 1 && r->unix_sndbuf[side] > r->unix_before)
    return 0;
  snprintf (what, sizeof what, "the self-test's unix %s kept its send "
            "buffer of %d (%d)", side ? "accepted socket" : "client",
            r->unix_before, r->unix_sndbuf[side]);
  return problem (r, why, why_len, what);
}

static int
judge_unix_connect (const struct sb_host_selftest *r, char *why, size_t why_len)
{
  return judge_unix (r, 0, why, why_len);
}

static int
judge_unix_accept (const struct sb_host_selftest *r, char *why, size_t why_len)
{
  return judge_unix (r, 1, why, why_len);
}

static part_judge *const judges[SB_HOST_NPARTS] = {
  [SB_HOST_PART_TCP_BIND] = judge_tcp_bind,
  [SB_HOST_PART_TCP_CONNECT] = judge_tcp_connect,
  [SB_HOST_PART_UNIX_CONNECT] = judge_unix_connect,
  [SB_HOST_PART_UNIX_ACCEPT] = judge_unix_accept,
};

/* The parts of WANTED that passed the self-test R; WHY gets why each of
 * the others did not (the kernel's refusal, or the judge's).
 */
static unsigned
passed (const struct sb_host_selftest *r, unsigned wanted,
        char why[SB_HOST_NPARTS][SB_HOST_PART_WHY_LEN])
{
  unsigned ok = 0;

  for (int p = 0; p < SB_HOST_NPARTS; p++) {
    if (!(wanted & SB_HOST_PART_BIT (p)))
      continue;
    if (!(r->parts & SB_HOST_PART_BIT (p)))
      snprintf (why[p], SB_HOST_PART_WHY_LEN, "%s", r->part_why[p]);
    else if (judges[p] (r, why[p], SB_HOST_PART_WHY_LEN) == 0)
      ok |= SB_HOST_PART_BIT (p);
  }
  return ok;
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

/* The self-test of the PARTS, with the process's name read as PL says:
 * 0 (R says what happened) or -1 with WHY.
 */
static int
selftest (const struct sb_host_options *o, const struct sb_host_plan *pl,
          unsigned parts, struct sb_host_selftest *r, char *why, size_t why_len)
{
  struct sb_host_settings base;

  memset (&base, 0, sizeof base);
  base.sndbuf = o->sndbuf;
  base.task_group_leader = pl->task_group_leader;
  base.task_comm = pl->task_comm;
  return sb_host_selftest (pl->cgroup_fd, &base, parts, r, why, why_len);
}

static int
count_bits (unsigned v)
{
  int n = 0;

  for (; v != 0; v &= v - 1)
    n++;
  return n;
}

/* Where the programs read a process's name: its leader's, where the
 * kernel's BTF says and the self-test's thread of another name is taken
 * by it; the calling thread's otherwise (PL->names_why says why).  R is
 * the self-test of the parts WANTED that counts, run again with the
 * thread's names when the leader's failed a part the kernel took.
 */
static int
choose_names (const struct sb_host_options *o, struct sb_host_plan *pl,
              unsigned wanted, struct sb_host_selftest *r, char *why,
              size_t why_len)
{
  static struct sb_host_selftest by_thread;
  char whys[SB_HOST_NPARTS][SB_HOST_PART_WHY_LEN];
  uint32_t leader, comm;
  unsigned ok;

  if (sb_host_task_offsets (SB_HOST_VMLINUX_BTF, &pl->task_group_leader,
                            &pl->task_comm, pl->names_why,
                            sizeof pl->names_why) == -1)
    return selftest (o, pl, wanted, r, why, why_len);
  if (selftest (o, pl, wanted, r, why, why_len) == -1)
    return -1;
  ok = passed (r, wanted, whys);
  if (ok == r->parts)
    return 0;
  leader = pl->task_group_leader, comm = pl->task_comm;
  pl->task_group_leader = pl->task_comm = 0;
  if (selftest (o, pl, wanted, &by_thread, why, why_len) == 0 &&
      count_bits (passed (&by_thread, wanted, whys)) > count_bits (ok)) {
    snprintf (pl->names_why, sizeof pl->names_why, "read where the "
              "kernel's BTF says, the self-test's process name did not take "
              "its thread of another name");
    *r = by_thread;
    return 0;
  }
  pl->task_group_leader = leader, pl->task_comm = comm;
  return 0;
}

/* The unix parts, when wanted: PL->part_why says why not otherwise. */
static unsigned
unix_wanted (const struct sb_host_options *o, struct sb_host_plan *pl)
{
  char *why = pl->part_why[SB_HOST_PART_UNIX_CONNECT];

  if (o->sndbuf == 0)
    snprintf (why, SB_HOST_PART_WHY_LEN, "--sndbuf 0");
  else if (sb_host_probe_unix (why, SB_HOST_PART_WHY_LEN))
    return SB_HOST_PARTS_UNIX;
  memcpy (pl->part_why[SB_HOST_PART_UNIX_ACCEPT], why, SB_HOST_PART_WHY_LEN);
  return 0;
}

/* The self-test decides what can be turned on: each part the kernel
 * takes and the self-test sees work; where the kernel's TCP hooks do not
 * both (before Linux 6.1 no BPF program may set TCP_NODELAY), the
 * watcher for TCP if its own self-test passes.
 */
static int
check_kernel (const struct sb_host_options *o, struct sb_host_plan *pl,
              char *why, size_t why_len)
{
  struct sb_host_selftest r;
  char tcp_why[2 * SB_HOST_PART_WHY_LEN + 8];
  unsigned wanted = SB_HOST_PARTS_TCP, ok;

  if (sb_host_rights (why, why_len) == -1)
    return SB_HOST_PLAN_UNAVAILABLE;
  wanted |= unix_wanted (o, pl);
  if (o->watcher) {
    wanted &= ~SB_HOST_PARTS_TCP;
    snprintf (pl->part_why[SB_HOST_PART_TCP_BIND], SB_HOST_PART_WHY_LEN,
              "--watcher asks for the watcher");
    snprintf (pl->part_why[SB_HOST_PART_TCP_CONNECT], SB_HOST_PART_WHY_LEN,
              "--watcher asks for the watcher");
  }
  pl->wmem_max = sb_wmem_max (NULL);
  if (choose_names (o, pl, wanted, &r, why, why_len) == -1)
    return SB_HOST_PLAN_UNAVAILABLE;
  ok = passed (&r, wanted, pl->part_why);
  if ((ok & SB_HOST_PARTS_TCP) != SB_HOST_PARTS_TCP) {
    snprintf (tcp_why, sizeof tcp_why, "%s",
              pl->part_why[ok & SB_HOST_PART_BIT (SB_HOST_PART_TCP_BIND) ?
                           SB_HOST_PART_TCP_CONNECT : SB_HOST_PART_TCP_BIND]);
    if (judge_watcher (pl, tcp_why, why, why_len) == 0)
      ok &= ~SB_HOST_PARTS_TCP;
    else if (ok == 0)
      return SB_HOST_PLAN_UNAVAILABLE;
  }
  pl->parts = ok;
  pl->unix_granted = r.unix_sndbuf[sb_host_plan_has (pl, SB_HOST_PART_UNIX_CONNECT) ? 0 : 1];
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
