/* SPDX-License-Identifier: MIT */
/* sockboost host check: whether host mode can run here, and which parts,
 * from the self-test that enable runs first; nothing is attached or
 * pinned.  For sockboost doctor (--json), and for a user before enable.
 */
#include <stdio.h>

#include "escape.h"
#include "host.h"
#include "json.h"
#include "plan.h"
#include "report.h"

static void
print_text (const struct sb_host_options *o, const struct sb_host_plan *pl,
            int status, const char *why)
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
  if (pl->tcp_by_watcher)
    printf ("  tcp: TCP_NODELAY from the watcher (not from the kernel's "
            "bind and connect hooks: %s)\n", pl->tcp_why);
  else
    printf ("  tcp: TCP_NODELAY from the bind and connect hooks\n");
  if (pl->with_unix)
    printf ("  unix: send buffer raised to %d\n", pl->unix_granted);
  else
    printf ("  unix: %s\n", o->sndbuf == 0 ? "off (--sndbuf 0)" : pl->unix_why);
}

static void
print_json (const struct sb_host_plan *pl, int status, const char *why)
{
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
  sb_json_bool (stdout, status == 0);
  printf (", \"tcp_by\": ");
  if (status == 0)
    printf ("\"%s\"", pl->tcp_by_watcher ? "watcher" : "kernel");
  else
    printf ("null");
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
  sb_json_bool (stdout, status == 0 && pl->with_unix);
  printf (", \"unix_why\": ");
  if (status == 0 && !pl->with_unix && pl->unix_why[0])
    sb_json_string (stdout, pl->unix_why);
  else
    printf ("null");
  printf (", \"unix_sndbuf\": %d}\n", status == 0 && pl->with_unix ?
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
    print_text (o, &pl, status, why);
  sb_host_plan_close (&pl);
  return status == 0 ? 0 : 1;
}
