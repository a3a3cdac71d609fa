/* SPDX-License-Identifier: MIT */
/* sockboost host status PID: the sockets of a process that host mode
 * tuned, as the marks its programs left on them say.  Each socket of
 * the process is duplicated through its pidfd (pidfd_getfd), which
 * names that very socket however the process changes meanwhile, and
 * looked up in the "marks" socket storage.  Nothing is changed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "escape.h"
#include "host.h"
#include "json.h"
#include "pins.h"
#include "report.h"

struct found {
  int fd;
  unsigned long long inode;
  struct sb_host_mark mark;
};

/* The inode of socket descriptor FD of process PID (the link's text,
 * "socket:[INODE]"), or 0 when it is not a socket.
 */
static unsigned long long
socket_inode (pid_t pid, int fd)
{
  char path[64], target[64], *end;
  unsigned long long inode;
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/fd/%d", (int) pid, fd);
  n = readlink (path, target, sizeof target - 1);
  if (n <= 0)
    return 0;
  target[n] = '\0';
  if (strncmp (target, "socket:[", 8) != 0)
    return 0;
  inode = strtoull (target + 8, &end, 10);
  return strcmp (end, "]") == 0 ? inode : 0;
}

/* Look socket FD of the process at PIDFD up in MARKS into F. */
static int
look_up (int pidfd, int marks, int fd, struct found *f)
{
  int copy = (int) syscall (SYS_pidfd_getfd, pidfd, fd, 0), status;

  if (copy == -1)
    return -1;
  status = bpf_map_lookup_elem (marks, &copy, &f->mark);
  close (copy);
  return status;
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
    sb_host_json_bool (nodelay);
    printf (", \"unix_sndbuf\": ");
    sb_host_json_bool (sndbuf);
    printf (", \"program\": ");
    sb_host_json_string (name);
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
  char path[64];
  struct dirent *e;
  DIR *d;
  int n = 0;

  snprintf (path, sizeof path, "/proc/%d/fd", (int) pid);
  d = opendir (path);
  if (d == NULL)
    return -1;
  while ((e = readdir (d)) != NULL && n < max) {
    char *end;
    long fd = strtol (e->d_name, &end, 10);

    if (e->d_name[0] < '0' || e->d_name[0] > '9' || *end != '\0' || fd > INT32_MAX)
      continue;
    f[n].fd = (int) fd;
    f[n].inode = socket_inode (pid, (int) fd);
    if (f[n].inode != 0 && look_up (pidfd, marks, (int) fd, &f[n]) == 0)
      n++;
  }
  closedir (d);
  return n;
}

/* The marks map of the pins P, or -1 when host mode is off. */
static int
open_marks (const struct sb_host_pins *p)
{
  char path[PATH_MAX + 64];

  sb_host_pin_path (p, SB_HOST_CURRENT, "marks", path, sizeof path);
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

  pidfd = (int) syscall (SYS_pidfd_open, o->pid, 0);
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
    sb_error ("status: process %d: %s", (int) o->pid, strerror (errno));
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
