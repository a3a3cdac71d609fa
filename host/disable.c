/* SPDX-License-Identifier: MIT */
/* sockboost host disable: detach every program the kernel has attached
 * for this pin directory (attached.h), its pins or not, then remove the
 * pins.  Detaching first makes it done when disable returns (a link
 * whose last pin goes is freed a moment later), and reaches programs
 * whose pins were renamed away.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attached.h"
#include "escape.h"
#include "host.h"
#include "pins.h"
#include "report.h"
#include "state.h"
#include "watch-control.h"

/* Detach the generations of the pin directory PATH, open in PINS (or
 * PINS NULL, or its fd -1, when it is not there or refused), that are
 * attached; how many programs of those not pinned in it, as current or
 * staging.
 */
static int
detach_all (const char *path, const struct sb_host_pins *pins)
{
  static struct sb_host_generation g[SB_HOST_MAX_GENERATIONS];
  struct sb_host_settings identity;
  uint32_t current = 0, staging = 0;
  int n, astray = 0;

  sb_host_pin_dir_identity (pins ? pins->fd : -1, path, &identity);
  if (pins != NULL && pins->fd >= 0) {
    current = sb_host_pinned_settings_id (pins, SB_HOST_CURRENT);
    staging = sb_host_pinned_settings_id (pins, SB_HOST_STAGING);
  }
  n = sb_host_attached_find (&identity, g, SB_HOST_MAX_GENERATIONS);
  for (int i = 0; i < n; i++) {
    uint32_t id = g[i].map_ids[SB_HOST_MAP_SETTINGS];
    int detached = sb_host_attached_detach (&g[i]);
    if (id != current && id != staging)
      astray += detached;
  }
  return astray;
}

/* Remove the pins of the directory open in PINS and the directory. */
static int
remove_pins (struct sb_host_pins *pins, const char *dir)
{
  char why[PATH_MAX + 256];

  if (sb_watch_stop_generation (pins, SB_HOST_CURRENT, why, sizeof why) == -1 ||
      sb_watch_stop_generation (pins, SB_HOST_STAGING, why, sizeof why) == -1) {
    sb_error ("disable: %s", why);
    return -1;
  }
  if (sb_host_pins_clear (pins, SB_HOST_CURRENT) == -1 ||
      sb_host_pins_clear (pins, SB_HOST_STAGING) == -1 ||
      sb_host_pins_remove_dir (pins) == -1) {
    sb_error ("disable: cannot remove the pins in %s: %s", dir, strerror (errno));
    return -1;
  }
  return 0;
}

int
sb_host_disable (const struct sb_host_options *o)
{
  char why[PATH_MAX + 256], dir[SB_ESCAPE_SIZE (PATH_MAX)];
  struct sb_host_pins pins;
  int mounted, r, astray, status = 0;

  r = sb_host_pins_open (o->pin_dir, 0, &mounted, &pins, why, sizeof why);
  sb_escape_str (dir, sizeof dir, o->pin_dir);
  if (r == -1) {
    /* Programs whose settings name it are still detached: only the
     * directory is not touched.
     */
    astray = detach_all (o->pin_dir, NULL);
    sb_error ("disable: %s", why);
    if (astray > 0)
      sb_error ("disable: detached %d program%s whose settings name %s; its "
                "pins are left", astray, astray == 1 ? "" : "s", dir);
    return 1;
  }
  astray = detach_all (o->pin_dir, &pins);
  if (r == 0)
    status = remove_pins (&pins, dir);
  sb_host_pins_close (&pins);
  if (status == -1)
    return 1;
  if (r == 1 && astray == 0)
    printf ("host mode was off already\n");
  else if (r == 1)
    printf ("host mode off: %s was not there\n", dir);
  else
    printf ("host mode off: its programs are detached and %s is removed\n", dir);
  if (astray > 0)
    printf ("  detached %d program%s whose pins were not in %s\n", astray,
            astray == 1 ? "" : "s", dir);
  return 0;
}
