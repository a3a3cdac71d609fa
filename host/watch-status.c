/* SPDX-License-Identifier: MIT */
/* What status says of the watcher (watch-control.h): whether it runs,
 * as the kernel says (the process holding its counts), and its counts.
 */
#include <stdio.h>

#include "json.h"
#include "watch-control.h"

/* The counts status shows, with their JSON names. */
static const struct {
  enum sb_watch_count slot;
  const char *json;
} shown[] = {
  { SB_WATCH_COUNT_EVENTS, "events" },
  { SB_WATCH_COUNT_SET, "set" },
  { SB_WATCH_COUNT_LATE, "set_late" },
  { SB_WATCH_COUNT_WAS_SET, "had_it" },
  { SB_WATCH_COUNT_SWEPT, "swept" },
  { SB_WATCH_COUNT_GIVEN_UP, "given_up" },
  { SB_WATCH_COUNT_THROTTLED, "throttled" },
  { SB_WATCH_COUNT_LOST, "lost" },
  { SB_WATCH_COUNT_LIMITED, "limited" },
};

void
sb_watch_status_text (const struct sb_watch_state *ws)
{
  const uint64_t *c = ws->counts;

  if (!ws->running) {
    printf ("tcp: by the watcher, which is NOT running: nothing gets "
            "TCP_NODELAY ('sockboost host enable' starts it again)\n");
    return;
  }
  printf ("tcp: TCP_NODELAY set by the watcher (pid %d) on the connections "
          "they make and on their listeners, as the kernel reports them\n",
          (int) ws->pid);
  printf ("watcher: %llu events; %llu sockets set (%llu found on a retry), "
          "%llu had it, %llu set by sweeps; %llu given up, %llu throttled, "
          "%llu lost, %llu over their uid's rate\n",
          (unsigned long long) c[SB_WATCH_COUNT_EVENTS],
          (unsigned long long) c[SB_WATCH_COUNT_SET],
          (unsigned long long) c[SB_WATCH_COUNT_LATE],
          (unsigned long long) c[SB_WATCH_COUNT_WAS_SET],
          (unsigned long long) c[SB_WATCH_COUNT_SWEPT],
          (unsigned long long) c[SB_WATCH_COUNT_GIVEN_UP],
          (unsigned long long) c[SB_WATCH_COUNT_THROTTLED],
          (unsigned long long) c[SB_WATCH_COUNT_LOST],
          (unsigned long long) c[SB_WATCH_COUNT_LIMITED]);
}

void
sb_watch_status_json (const struct sb_watch_state *ws)
{
  if (!ws->present) {
    printf ("null");
    return;
  }
  printf ("{\"running\": ");
  sb_json_bool (stdout, ws->running);
  if (ws->running)
    printf (", \"pid\": %d, \"started\": %llu", (int) ws->pid,
            (unsigned long long) ws->counts[SB_WATCH_COUNT_STARTED]);
  else
    printf (", \"pid\": null, \"started\": null");
  for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
    printf (", \"%s\": %llu", shown[i].json,
            (unsigned long long) ws->counts[shown[i].slot]);
  printf ("}");
}
