/* SPDX-License-Identifier: MIT */
/* sockboost host disable: remove the pins, which detaches the programs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "host.h"
#include "pins.h"
#include "report.h"
#include "watch-control.h"

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
  if (sb_watch_stop_generation (&pins, SB_HOST_CURRENT, why, sizeof why) == -1 ||
      sb_watch_stop_generation (&pins, SB_HOST_STAGING, why, sizeof why) == -1) {
    sb_error ("disable: %s", why);
    sb_host_pins_close (&pins);
    return 1;
  }
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
