/* SPDX-License-Identifier: MIT */
/* sockboost host check: whether host mode can run here, and which parts,
 * from the self-test that enable runs first; nothing is attached or
 * pinned.  For sockboost doctor (--json), and for a user before enable.
 */
#include <stdio.h>

#include "escape.h"
#include "host.h"
#include "json.h"
#include "load.h"
#include "parts.h"
#include "plan.h"
#include "report.h"

static void
print_text (const struct sb_host_plan *pl, int status, const char *why)
{
  if (status != 0) {
    printf ("host mode cannot run here: %s\n%s\n", why, SB_HOST_INSTEAD);
    return;
  }
  printf ("host mode can run here: the self-test passed\n");
  if (pl->task_comm != 0)
    printf ("  names: " SB_HOST_NAMES_PROCESS "\n");
  else
    printf ("  names: " SB_HOST_NAMES_THREAD ": %s\n", pl->names_why);
  sb_host_parts_text ("  ", pl->parts, pl->tcp_by_watcher);
  if (pl->tcp_by_watcher)
    printf ("  tcp: TCP_NODELAY from the watcher (not from the kernel's "
            "bind and connect hooks: %s)\n", pl->tcp_why);
  else if ((pl->parts & SB_HOST_PARTS_TCP) == SB_HOST_PARTS_TCP)
    printf ("  tcp: TCP_NODELAY from the bind and connect hooks\n");
  for (int p = 0; p < SB_HOST_NPARTS; p++)
    if (!sb_host_plan_has (pl, (enum sb_host_part) p) &&
        (!(SB_HOST_PART_BIT (p) & SB_HOST_PARTS_TCP) || !pl->tcp_by_watcher))
      printf ("  %s: off: %s\n", sb_host_part_name[p], pl->part_why[p]);
  if (sb_host_plan_unix (pl))
    printf ("  unix: send buffer raised to %d\n", pl->unix_granted);
}

static void
print_json (const struct sb_host_plan *pl, int status, const char *why)
{
  int tcp_by_kernel = (pl->parts & SB_HOST_PARTS_TCP) == SB_HOST_PARTS_TCP;
  int with_unix = sb_host_plan_unix (pl);

  printf ("{\"can_run\": ");
  sb_json_bool (stdout, status == 0);
  printf (", \"why\": ");
  if (status == 0)
    printf ("null");
  else
    sb_json_string (stdout, why);
  printf (", \"cgroup\": ");
  sb_json_string (stdout, pl->cgroup);
  printf (", \"tcp\": ");
  sb_json_bool (stdout, status == 0 && (tcp_by_kernel || pl->tcp_by_watcher));
  printf (", \"tcp_by\": ");
  if (status == 0 && (tcp_by_kernel || pl->tcp_by_watcher))
    printf ("\"%s\"", pl->tcp_by_watcher ? "watcher" : "kernel");
  else
    printf ("null");
  printf (", \"parts\": ");
  sb_host_parts_json (status == 0 ? pl->parts : 0, pl->part_why);
  printf (", \"names\": ");
  if (status == 0)
    printf ("\"%s\"", pl->task_comm != 0 ? "process" : "thread");
  else
    printf ("null");
  printf (", \"names_why\": ");
  if (status == 0 && pl->task_comm == 0)
    sb_json_string (stdout, pl->names_why);
  else
    printf ("null");
  printf (", \"unix\": ");
  sb_json_bool (stdout, status == 0 && with_unix);
  printf (", \"unix_why\": ");
  if (status == 0 && !with_unix && pl->part_why[SB_HOST_PART_UNIX_CONNECT][0])
    sb_json_string (stdout, pl->part_why[SB_HOST_PART_UNIX_CONNECT]);
  else
    printf ("null");
  printf (", \"unix_sndbuf\": %d}\n", status == 0 && with_unix ?
          pl->unix_granted : 0);
}

int
sb_host_check (const struct sb_host_options *o)
{
  struct sb_host_plan pl;
  char why[1024];
  int status;

  status = sb_host_plan_make (o, &pl, why, sizeof why);
  if (status == SB_HOST_PLAN_ERROR) {
    sb_error ("check: %s", why);
    sb_host_plan_close (&pl);
    return 1;
  }
  if (o->json)
    print_json (&pl, status, why);
  else
    print_text (&pl, status, why);
  sb_host_plan_close (&pl);
  return status == 0 ? 0 : 1;
}
