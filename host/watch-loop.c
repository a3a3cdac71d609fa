/* SPDX-License-Identifier: MIT */
/* The watcher's event loop (watch-loop.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "watch-loop.h"

/* The first wait before a socket is looked for again, and the longest. */
#define FIRST_DELAY_MS 1
#define LONGEST_DELAY_MS 256
/* Sweeps after lost events: at most one a second; a sweep's processes
 * whose users had no time left are tried again this much later.
 */
#define SWEEP_EVERY_NS 1000000000ull
#define SWEEP_WAIT_NS 100000000ull

uint64_t
sb_watch_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

void
sb_watch_loop_init (struct sb_watch_loop *l, const struct sb_watch_maps *m,
                    int cgroup_fd, int counts_fd)
{
  memset (l, 0, sizeof *l);
  l->m = m;
  l->cgroup_fd = cgroup_fd;
  l->counts_fd = counts_fd;
  for (__u32 i = 0; i < SB_WATCH_NCOUNTS; i++)
    if (bpf_map_lookup_elem (counts_fd, &i, &l->counts[i]) != 0)
      l->counts[i] = 0;
  memcpy (l->published, l->counts, sizeof l->published);
  l->leave_fd = -1;
  l->lost_seen = l->counts[SB_WATCH_COUNT_LOST] +
                 l->counts[SB_WATCH_COUNT_LIMITED];
}

/* Whether slot I is the programs' to count. */
static int
programs_slot (__u32 i)
{
  return i == SB_WATCH_COUNT_LOST || i == SB_WATCH_COUNT_LIMITED;
}

void
sb_watch_publish (struct sb_watch_loop *l)
{
  for (__u32 i = 0; i < SB_WATCH_NCOUNTS; i++)
    if (!programs_slot (i) &&
        l->counts[i] != l->published[i] &&
        bpf_map_update_elem (l->counts_fd, &i, &l->counts[i], BPF_ANY) == 0)
      l->published[i] = l->counts[i];
}

/* ---- each uid's share ------------------------------------------------ */

/* Look for E's socket if its uid has time left, and charge it. */
static int
tune_charged (struct sb_watch_loop *l, const struct sb_watch_event *e,
              uint64_t now_ns, enum sb_watch_outcome *outcome)
{
  unsigned looked = 0;

  if (!sb_watch_budget_left (&l->budgets, e->uid, now_ns)) {
    l->counts[SB_WATCH_COUNT_THROTTLED]++;
    return -1;
  }
  *outcome = sb_watch_tune (l->m, e, &looked);
  sb_watch_budget_charge (&l->budgets, e->uid, looked + 1, now_ns);
  return 0;
}

/* ---- sockets looked for again ----------------------------------------- */

static void
give_up (struct sb_watch_loop *l, size_t i)
{
  l->counts[SB_WATCH_COUNT_GIVEN_UP]++;
  l->pending[i] = l->pending[--l->npending];
}

static void
add_pending (struct sb_watch_loop *l, const struct sb_watch_event *e,
             uint64_t now_ns)
{
  size_t oldest = 0;

  if (l->npending == SB_WATCH_MAX_PENDING) {
    for (size_t i = 1; i < l->npending; i++)
      if (l->pending[i].deadline_ns < l->pending[oldest].deadline_ns)
        oldest = i;
    give_up (l, oldest);
  }
  l->pending[l->npending++] = (struct sb_watch_pending) {
    .e = *e, .delay_ms = FIRST_DELAY_MS,
    .next_ns = now_ns + FIRST_DELAY_MS * 1000000ull,
    .deadline_ns = now_ns + SB_WATCH_PENDING_MS * 1000000ull,
  };
}

static void
count_outcome (struct sb_watch_loop *l, enum sb_watch_outcome o, int late)
{
  if (o == SB_WATCH_SET) {
    l->counts[SB_WATCH_COUNT_SET]++;
    if (late)
      l->counts[SB_WATCH_COUNT_LATE]++;
  }
  else if (o == SB_WATCH_WAS_SET)
    l->counts[SB_WATCH_COUNT_WAS_SET]++;
  else if (o == SB_WATCH_NO_PROCESS)
    l->counts[SB_WATCH_COUNT_GIVEN_UP]++;
}

void
sb_watch_handle (struct sb_watch_loop *l, const struct sb_watch_event *e,
                 uint64_t now_ns)
{
  enum sb_watch_outcome o;

  l->counts[SB_WATCH_COUNT_EVENTS]++;
  if (tune_charged (l, e, now_ns, &o) == -1)
    return;
  if (o == SB_WATCH_ABSENT)
    add_pending (l, e, now_ns);
  else
    count_outcome (l, o, 0);
}

/* Look again for pending socket I; 1 when it is done with. */
static int
retry (struct sb_watch_loop *l, size_t i, uint64_t now_ns)
{
  struct sb_watch_pending *p = &l->pending[i];
  enum sb_watch_outcome o;

  if (tune_charged (l, &p->e, now_ns, &o) == -1)
    o = SB_WATCH_ABSENT;        /* throttled: its deadline still runs */
  if (o != SB_WATCH_ABSENT) {
    count_outcome (l, o, 1);
    l->pending[i] = l->pending[--l->npending];
    return 1;
  }
  if (now_ns >= p->deadline_ns) {
    give_up (l, i);
    return 1;
  }
  p->delay_ms = p->delay_ms * 2 > LONGEST_DELAY_MS ? LONGEST_DELAY_MS
                                                   : p->delay_ms * 2;
  p->next_ns = now_ns + p->delay_ms * 1000000ull;
  return 0;
}

/* Go through the sweep's waiting processes whose users have time left;
 * the others wait for the next pass.
 */
static void
sweep_pass (struct sb_watch_loop *l, uint64_t now_ns)
{
  for (size_t i = l->sweep_next; i < l->sweep_n; i++) {
    struct sb_host_proc p = l->sweep[i];
    unsigned looked = 0;

    if (!sb_watch_budget_left (&l->budgets, p.uid, now_ns))
      continue;
    l->counts[SB_WATCH_COUNT_SWEPT] +=
      sb_watch_tune_process (l->m, p.pid, p.uid, &looked);
    sb_watch_budget_charge (&l->budgets, p.uid, looked + 1, now_ns);
    l->sweep[i] = l->sweep[l->sweep_next];
    l->sweep[l->sweep_next++] = p;
  }
  if (l->sweep_next < l->sweep_n)
    l->sweep_due_ns = now_ns + SWEEP_WAIT_NS;
  else if (l->sweep_again) {
    l->sweep_again = 0;
    l->sweep_due_ns = l->last_sweep_ns + SWEEP_EVERY_NS;
  }
  else
    l->sweep_due_ns = 0;
}

void
sb_watch_sweep_now (struct sb_watch_loop *l)
{
  uint64_t now = sb_watch_now_ns ();

  if (l->sweep_next < l->sweep_n) {
    l->sweep_again = 1;
    return;
  }
  l->sweep_n = sb_host_cgroup_procs (l->cgroup_fd, l->sweep, SB_WATCH_MAX_SWEPT);
  l->sweep_next = 0;
  l->last_sweep_ns = now;
  sweep_pass (l, now);
}

void
sb_watch_note_lost (struct sb_watch_loop *l, uint64_t now_ns)
{
  __u32 lost_key = SB_WATCH_COUNT_LOST, limited_key = SB_WATCH_COUNT_LIMITED;
  uint64_t lost, limited;

  if (bpf_map_lookup_elem (l->counts_fd, &lost_key, &lost) != 0 ||
      bpf_map_lookup_elem (l->counts_fd, &limited_key, &limited) != 0 ||
      lost + limited == l->lost_seen)
    return;
  l->lost_seen = lost + limited;
  if (l->sweep_next < l->sweep_n)
    l->sweep_again = 1;
  else if (l->sweep_due_ns == 0)
    l->sweep_due_ns = l->last_sweep_ns + SWEEP_EVERY_NS > now_ns ?
      l->last_sweep_ns + SWEEP_EVERY_NS : now_ns;
}

int
sb_watch_due (struct sb_watch_loop *l, uint64_t now_ns)
{
  uint64_t next = UINT64_MAX;

  for (size_t i = 0; i < l->npending; )
    if (l->pending[i].next_ns > now_ns || retry (l, i, now_ns) == 0)
      i++;
  if (l->sweep_due_ns != 0 && l->sweep_due_ns <= now_ns) {
    if (l->sweep_next < l->sweep_n)
      sweep_pass (l, now_ns);
    else
      sb_watch_sweep_now (l);
  }
  for (size_t i = 0; i < l->npending; i++)
    if (l->pending[i].next_ns < next)
      next = l->pending[i].next_ns;
  if (l->sweep_due_ns != 0 && l->sweep_due_ns < next)
    next = l->sweep_due_ns;
  if (next == UINT64_MAX)
    return -1;
  return next <= now_ns ? 0 : (int) ((next - now_ns + 999999) / 1000000);
}

/* ---- the loop ----------------------------------------------------------- */

static int
on_event (void *ctx, void *data, size_t size)
{
  struct sb_watch_event e;

  if (size < sizeof e)
    return 0;
  memcpy (&e, data, sizeof e);
  sb_watch_handle (ctx, &e, sb_watch_now_ns ());
  return 0;
}

int
sb_watch_run (struct sb_watch_loop *l, int events_fd, int stop_fd,
              char *why, size_t why_len)
{
  struct ring_buffer *rb = ring_buffer__new (events_fd, on_event, l, NULL);
  struct pollfd p[3];
  int status = -1, n;

  if (libbpf_get_error (rb) != 0) {
    snprintf (why, why_len, "cannot read the ring buffer: %s",
              strerror ((int) -libbpf_get_error (rb)));
    return -1;
  }
  p[0] = (struct pollfd) { .fd = ring_buffer__epoll_fd (rb), .events = POLLIN };
  p[1] = (struct pollfd) { .fd = stop_fd, .events = POLLIN };
  /* A negative fd is left out by poll. */
  p[2] = (struct pollfd) { .fd = l->leave_fd, .events = POLLIN };
  for (;;) {
    int timeout = sb_watch_due (l, sb_watch_now_ns ());
    sb_watch_publish (l);
    if (poll (p, 3, timeout) == -1 && errno != EINTR) {
      snprintf (why, why_len, "poll: %s", strerror (errno));
      break;
    }
    if (p[1].revents != 0 || (p[2].revents != 0 && l->leave (l->leave_arg))) {
      status = 0;
      break;
    }
    if ((p[0].revents & POLLIN) && (n = ring_buffer__consume (rb)) < 0) {
      snprintf (why, why_len, "cannot read the ring buffer: %s",
                strerror (-n));
      break;
    }
    sb_watch_note_lost (l, sb_watch_now_ns ());
  }
  ring_buffer__free (rb);
  return status;
}
