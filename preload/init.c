/* SPDX-License-Identifier: MIT */
/* Load-time set-up.  Hooks also set themselves up lazily, so this only
 * makes it happen early: bad settings are reported even by a program that
 * never opens a socket, and binding is done before any thread can fork.
 * The fork handler is registered here, once, never from a hook.
 */
#include <pthread.h>

#include "config.h"
#include "real.h"
#include "slots.h"
#include "track.h"

/* The child of fork owns its copy of the tables. */
static void
after_fork_child (void)
{
  sb_track_adopt ();
  sb_slots_after_fork_child ();
}

__attribute__ ((constructor)) static void
sb_init (void)
{
  sb_real_bind ();
  sb_track_adopt ();
  (void) sb_config ();
  /* On failure (ENOMEM) a child of fork finds the tables foreign: its
   * hooks make plain calls, and the parent is unaffected.
   */
  (void) pthread_atfork (NULL, NULL, after_fork_child);
}

/* SOCKBOOST_STATS: sockets the program never closed report at exit. */
__attribute__ ((destructor)) static void
sb_fini (void)
{
  if (sb_config ()->stats)
    sb_track_report_all ();
}
