/* SPDX-License-Identifier: MIT */
/* Load-time set-up.  Hooks also set themselves up lazily, so this only
 * makes it happen early: bad settings are reported even by a program that
 * never opens a socket, and binding is done before any thread can fork.
 * The fork handler is registered here, once, never from a hook.
 */
#include "config.h"
#include "real.h"
#include "slots.h"
#include "track.h"

__attribute__ ((constructor)) static void
sb_init (void)
{
  sb_real_bind ();
  (void) sb_config ();
  sb_slots_fork_safety ();
}

/* SOCKBOOST_STATS: sockets the program never closed report at exit. */
__attribute__ ((destructor)) static void
sb_fini (void)
{
  if (sb_config ()->stats)
    sb_track_report_all ();
}
