/* SPDX-License-Identifier: MIT */
/* The counting in status (stalls-status.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "escape.h"
#include "json.h"
#include "stalls-abi.h"
#include "stalls-status.h"

/* One row of the process map. */
struct process_row {
  __u32 pid;
  struct sb_stalls_process p;
};

static long long
clock_ns (clockid_t clock)
{
  struct timespec ts;

  if (clock_gettime (clock, &ts) == -1)
    return 0;
  return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CLOCK_BOOTTIME nanoseconds BOOT_NS as seconds of the epoch. */
static long long
epoch_of (__u64 boot_ns)
{
  long long ago = clock_ns (CLOCK_BOOTTIME) - (long long) boot_ns;

  return (clock_ns (CLOCK_REALTIME) - ago) / 1000000000LL;
}

/* When process PID started, CLOCK_BOOTTIME nanoseconds (/proc/PID/stat's
 * starttime), or -1 when there is no such process or it has ended: a
 * zombie, which its parent has not reaped yet, serves nothing.
 */
static long long
started_ns (__u32 pid)
{
  char path[32], buf[1024], *p;
  unsigned long long ticks;
  long hz = sysconf (_SC_CLK_TCK);
  ssize_t len;
  int fd, field;

  snprintf (path, sizeof path, "/proc/%u/stat", pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd == -1)
    return -1;
  len = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (len <= 0 || hz <= 0)
    return -1;
  buf[len] = '\0';
  /* The name, in parentheses, may hold anything: count from its end. */
  p = strrchr (buf, ')');
  if (p == NULL || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
    return -1;
  for (field = 2; field < 22 && p != NULL; field++)
    p = strchr (p + 1, ' ');
  if (p == NULL || sscanf (p + 1, "%llu", &ticks) != 1)
    return -1;
  return (long long) (ticks * (1000000000ULL / (unsigned long long) hz));
}

/* Read up to MAX rows of the process map at FD into ROWS; how many. */
static int
read_processes (int fd, struct process_row *rows, int max)
{
  __u32 key, next;
  void *prev = NULL;
  int n = 0;

  for (int seen = 0; seen < SB_STALLS_MAX_PROCESS_ROWS && n < max &&
       bpf_map_get_next_key (fd, prev, &next) == 0; seen++) {
    if (bpf_map_lookup_elem (fd, &next, &rows[n].p) == 0) {
      rows[n].pid = next;
      n++;
    }
    key = next;
    prev = &key;
  }
  return n;
}

static struct process_row process_rows[SB_STALLS_MAX_PROCESS_ROWS];

void
sb_stalls_prune (const struct sb_host_state *st)
{
  int n;

  if (st->stall_processes_fd < 0)
    return;
  n = read_processes (st->stall_processes_fd, process_rows,
                      SB_STALLS_MAX_PROCESS_ROWS);
  for (int i = 0; i < n; i++) {
    long long started = started_ns (process_rows[i].pid);
    __u64 first = process_rows[i].p.counts.first_ns;

    /* A 10 ms tick: a process started in the tick of its first count
     * is taken as the one counted.
     */
    if (started == -1 ||
        (first != 0 && started > (long long) first + 10000000LL))
      bpf_map_delete_elem (st->stall_processes_fd, &process_rows[i].pid);
  }
}

/* ---- text ----------------------------------------------------------- */

static const char *
bytes_text (__u64 n, char *buf, size_t size)
{
  static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
  double v = (double) n;
  int u = 0;

  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  if (u == 0)
    snprintf (buf, size, "%llu B", (unsigned long long) n);
  else
    snprintf (buf, size, "%.1f %s", v, unit[u]);
  return buf;
}

static const char *
since_text (__u64 first_ns, char *buf, size_t size)
{
  time_t t;
  struct tm tm;

  if (first_ns == 0)
    return "-";
  t = (time_t) epoch_of (first_ns);
  if (localtime_r (&t, &tm) == NULL ||
      strftime (buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0)
    snprintf (buf, size, "%lld", (long long) t);
  return buf;
}

static void
text_counts (const char *who, const char *uid, const struct sb_host_counts *c)
{
  char sent[32], received[32], since[64];

  printf ("  %-16s %6s %8llu %11.3f %10s %10s %6llu  %s\n", who, uid,
          (unsigned long long) c->stalls, (double) c->stall_us / 1e6,
          bytes_text (c->bytes_sent, sent, sizeof sent),
          bytes_text (c->bytes_received, received, sizeof received),
          (unsigned long long) c->connections,
          since_text (c->first_ns, since, sizeof since));
}

void
sb_stalls_text (const struct sb_host_state *st)
{
  static struct sb_host_count_row rows[SB_HOST_MAX_COUNT_ROWS];
  char entry[SB_ESCAPE_SIZE (SB_HOST_COMM_LEN) + 8], uid[16];
  int shown = 0, np, n;

  if (!sb_host_state_counting (st)) {
    printf ("stalls: not counted (the counting is off: 'sockboost host "
            "enable' turns it on where the kernel has it)\n");
    return;
  }
  n = st->counts_fd < 0 ? 0 :
    sb_host_counts_read (st->counts_fd, rows, SB_HOST_MAX_COUNT_ROWS);
  printf ("stalls (segments that waited for a delayed ACK) and bytes of "
          "their TCP connections, by filter entry and user:\n"
          "  %-16s %6s %8s %11s %10s %10s %6s  %s\n", "program", "uid",
          "stalls", "seconds", "sent", "received", "conns",
          "since");
  for (int i = 0; i < n; i++) {
    const struct sb_host_counts *c = &rows[i].counts;
    if (c->connections == 0 && c->stalls == 0 && c->bytes_sent == 0 &&
        c->bytes_received == 0)
      continue;
    snprintf (uid, sizeof uid, "%u", rows[i].key.uid);
    text_counts (sb_host_entry_text (&rows[i].key.entry, entry, sizeof entry),
                 rows[i].key.uid == SB_HOST_UID_OTHERS ? "others" : uid, c);
    shown++;
  }
  if (shown == 0)
    printf ("  (no connection yet)\n");
  np = st->stall_processes_fd < 0 ? 0 :
    read_processes (st->stall_processes_fd, process_rows,
                    SB_STALLS_MAX_PROCESS_ROWS);
  if (np == 0)
    return;
  printf ("by process (those alive):\n  %-16s %6s %8s %11s %10s %10s %6s  %s\n",
          "pid program", "uid", "stalls", "seconds", "sent", "received",
          "conns", "since");
  for (int i = 0; i < np; i++) {
    char who[SB_ESCAPE_SIZE (SB_HOST_COMM_LEN) + 16], comm[SB_ESCAPE_SIZE (SB_HOST_COMM_LEN)];
    char name[SB_HOST_COMM_LEN + 1];

    memcpy (name, process_rows[i].p.comm, SB_HOST_COMM_LEN);
    name[SB_HOST_COMM_LEN] = '\0';
    snprintf (who, sizeof who, "%u %s", process_rows[i].pid,
              sb_escape_str (comm, sizeof comm, name));
    snprintf (uid, sizeof uid, "%u", process_rows[i].p.uid);
    text_counts (who, uid, &process_rows[i].p.counts);
  }
}

/* ---- JSON ----------------------------------------------------------- */

void
sb_stalls_json_fields (const struct sb_host_counts *c)
{
  printf (", \"stalls\": %llu, \"stall_seconds\": %.6f, \"bytes_sent\": %llu, "
          "\"bytes_received\": %llu, \"connections\": %llu, \"first_count\": ",
          (unsigned long long) c->stalls, (double) c->stall_us / 1e6,
          (unsigned long long) c->bytes_sent,
          (unsigned long long) c->bytes_received,
          (unsigned long long) c->connections);
  if (c->first_ns == 0)
    printf ("null");
  else
    printf ("%lld", epoch_of (c->first_ns));
}

void
sb_stalls_json_processes (const struct sb_host_state *st)
{
  char entry[SB_ESCAPE_SIZE (SB_HOST_COMM_LEN) + 8];
  int n = st->stall_processes_fd < 0 ? 0 :
    read_processes (st->stall_processes_fd, process_rows,
                    SB_STALLS_MAX_PROCESS_ROWS);

  printf ("[");
  for (int i = 0; i < n; i++) {
    char name[SB_HOST_COMM_LEN + 1];

    memcpy (name, process_rows[i].p.comm, SB_HOST_COMM_LEN);
    name[SB_HOST_COMM_LEN] = '\0';
    printf ("%s{\"pid\": %u, \"program\": ", i ? ", " : "",
            process_rows[i].pid);
    sb_json_string (stdout, sb_host_entry_text (&process_rows[i].p.entry,
                                                entry, sizeof entry));
    printf (", \"comm\": ");
    sb_json_string (stdout, name);
    printf (", \"uid\": %u", process_rows[i].p.uid);
    sb_stalls_json_fields (&process_rows[i].p.counts);
    printf ("}");
  }
  printf ("]");
}
