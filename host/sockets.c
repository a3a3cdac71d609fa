/* SPDX-License-Identifier: MIT */
/* sockboost host status PID: the sockets of a process that host mode
 * tuned, as the marks its programs left on them say.  Each socket of
 * the process is duplicated through its pidfd (pidfd_getfd), which
 * names that very socket however the process changes meanwhile, and
 * looked up in the "marks" socket storage.  Nothing is changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "escape.h"
#include "host.h"
#include "json.h"
#include "load.h"
#include "pins.h"
#include "proc-sockets.h"
#include "report.h"

struct found {
  int fd;
  unsigned long long inode;
  struct sb_host_mark mark;
};

/* What marked_sockets collects. */
struct collect {
  int marks;
  struct found *found;
  int n, max;
};

/* Keep socket FD (COPY) when it has a mark. */
static int
collect_marked (void *arg, int fd, unsigned long long inode, int copy)
{
  struct collect *c = arg;

  if (c->n == c->max ||
      bpf_map_lookup_elem (c->marks, &copy, &c->found[c->n].mark) != 0)
    return 0;
  c->found[c->n].fd = fd;
  c->found[c->n].inode = inode;
  c->n++;
  return 1;
}

static void
print_found (const struct found *f, int n, int json, pid_t pid)
{
  char comm[SB_ESCAPE_SIZE (SB_HOST_COMM_LEN)];

  if (json)
    printf ("{\"pid\": %d, \"on\": true, \"sockets\": [", (int) pid);
  else
    printf ("process %d: %d socket%s tuned by host mode\n", (int) pid, n,
            n == 1 ? "" : "s");
  for (int i = 0; i < n; i++) {
    int nodelay = (f[i].mark.flags & SB_HOST_MARK_NODELAY) != 0;
    int sndbuf = (f[i].mark.flags & SB_HOST_MARK_SNDBUF) != 0;
    char name[SB_HOST_COMM_LEN + 1] = "";

    memcpy (name, f[i].mark.comm, SB_HOST_COMM_LEN);
    if (!json) {
      printf ("  fd %d, inode %llu: %s%s%s (for %s)\n", f[i].fd, f[i].inode,
              nodelay ? "TCP_NODELAY" : "", nodelay && sndbuf ? ", " : "",
              sndbuf ? "send buffer raised" : "",
              sb_escape_str (comm, sizeof comm, name));
      continue;
    }
    printf ("%s{\"fd\": %d, \"inode\": %llu, \"tcp_nodelay\": ",
            i ? ", " : "", f[i].fd, f[i].inode);
    sb_json_bool (stdout, nodelay);
    printf (", \"unix_sndbuf\": ");
    sb_json_bool (stdout, sndbuf);
    printf (", \"program\": ");
    sb_json_string (stdout, name);
    printf ("}");
  }
  if (json)
    printf ("]}\n");
}

/* Every socket of the process at PIDFD (PID) that has a mark, into F
 * (room for MAX); their count, or -1 (errno).
 */
static int
marked_sockets (pid_t pid, int pidfd, int marks, struct found *f, int max)
{
  struct collect c = { marks, f, 0, max };

  return sb_each_socket (pid, pidfd, collect_marked, &c) == -1 ? -1 : c.n;
}

/* The marks map of the pins P, or -1 when host mode is off. */
static int
open_marks (const struct sb_host_pins *p)
{
  char path[PATH_MAX + 64];

  sb_host_pin_path (p, SB_HOST_CURRENT, sb_host_map_pin[SB_HOST_MAP_MARKS],
                    path, sizeof path);
  return bpf_obj_get (path);
}

#define MAX_FOUND 4096

int
sb_host_status_pid (const struct sb_host_options *o)
{
  static struct found found[MAX_FOUND];
  char why[PATH_MAX + 256];
  struct sb_host_pins pins;
  int mounted, r, marks = -1, pidfd, n = 0;

  pidfd = sb_pidfd_open (o->pid);
  if (pidfd == -1) {
    sb_error ("status: process %d: %s", (int) o->pid,
              errno == ESRCH ? "no such process" : strerror (errno));
    return 1;
  }
  r = sb_host_pins_open (o->pin_dir, 0, &mounted, &pins, why, sizeof why);
  if (r == -1) {
    sb_error ("status: %s", why);
    close (pidfd);
    return 1;
  }
  if (r == 0) {
    marks = open_marks (&pins);
    sb_host_pins_close (&pins);
  }
  if (marks >= 0)
    n = marked_sockets (o->pid, pidfd, marks, found, MAX_FOUND);
  if (n == -1)
    sb_error ("status: process %d: %s", (int) o->pid, sb_walk_error (errno));
  else if (marks < 0)
    printf (o->json ? "{\"pid\": %d, \"on\": false, \"sockets\": []}\n" :
            "host mode: off (process %d)\n", (int) o->pid);
  else
    print_found (found, n, o->json, o->pid);
  if (marks >= 0)
    close (marks);
  close (pidfd);
  return n == -1;
}
