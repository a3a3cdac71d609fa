/* SPDX-License-Identifier: MIT */
/* Another process's sockets (proc-sockets.h). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "let-go.h"
#include "net-class.h"
#include "proc-sockets.h"

/* Why the last walk of this thread took no copy (EXDEV). */
static __thread char refusal[512];

int
sb_pidfd_open (pid_t pid)
{
  return (int) syscall (SYS_pidfd_open, pid, 0);
}

/* ENTRY of /proc/PID/fd as a descriptor number: digits only; or -1. */
static int
fd_number (const char *entry)
{
  long fd = 0;

  if (*entry == '\0')
    return -1;
  for (; *entry; entry++) {
    if (*entry < '0' || *entry > '9' || fd > (INT32_MAX - 9) / 10)
      return -1;
    fd = fd * 10 + (*entry - '0');
  }
  return (int) fd;
}

/* The socket inode the link ENTRY of DIR_FD names ("socket:[INODE]"),
 * or 0 for anything else: the link is read, never followed.
 */
static unsigned long long
socket_inode (int dir_fd, const char *entry)
{
  char link[64];
  unsigned long long inode;
  int end = 0;
  ssize_t n = readlinkat (dir_fd, entry, link, sizeof link - 1);

  if (n <= 0)
    return 0;
  link[n] = '\0';
  if (sscanf (link, "socket:[%llu]%n", &inode, &end) != 1 || end != n)
    return 0;
  return inode;
}

/* Take a copy of descriptor FD of the process at PIDFD and hand it to
 * W: taken if it is still a socket, failed if it cannot be taken.
 */
static int
take (int pidfd, int fd, const struct sb_socket_walk *w)
{
  struct stat st;
  int copy = (int) syscall (SYS_pidfd_getfd, pidfd, fd, 0), r = 0;

  if (copy == -1)
    return w->failed ? w->failed (w->arg, fd, errno) : 0;
  if (fstat (copy, &st) == 0 && S_ISSOCK (st.st_mode))
    r = w->taken (w->arg, fd, (unsigned long long) st.st_ino, copy);
  sb_let_go (copy);
  return r;
}

/* One entry of /proc/PID/fd (DIR_FD). */
static int
visit (int pidfd, int dir_fd, const char *entry,
       const struct sb_socket_walk *w)
{
  int fd = fd_number (entry), r;
  unsigned long long inode;

  if (fd < 0 || (inode = socket_inode (dir_fd, entry)) == 0)
    return 0;
  r = w->listed ? w->listed (w->arg, fd, inode) : 0;
  if (r == SB_WALK_PASS)
    return 0;
  return r != 0 ? r : take (pidfd, fd, w);
}

/* The walk itself, from wherever we are. */
static int
walk (pid_t pid, int pidfd, const struct sb_socket_walk *w)
{
  char path[32];
  struct dirent *e;
  DIR *d;
  int r = 0;

  snprintf (path, sizeof path, "/proc/%d/fd", (int) pid);
  d = opendir (path);
  if (d == NULL)
    return -1;
  while (r == 0 && (e = readdir (d)) != NULL)
    r = visit (pidfd, dirfd (d), e->d_name, w);
  closedir (d);
  sb_let_go_flush ();
  return r;
}

static int
nothing_more (void *arg, int fd, unsigned long long inode, int copy)
{
  (void) arg, (void) fd, (void) inode, (void) copy;
  return 0;
}

/* Copies taken only for the class they give, after a process that
 * moves all the time as many times at most.
 */
#define RETAKE_ROUNDS 3
static const struct sb_socket_walk retake = { .taken = nothing_more };

/* The copies are taken from the process's own net_cls and net_prio
 * cgroups (net-class.h).  A process that moved to others meanwhile has
 * its later copies in its old class: copies taken again from its new
 * cgroups give every socket its new one.
 */
int
sb_walk_sockets (pid_t pid, int pidfd, const struct sb_socket_walk *w)
{
  struct sb_net_class_trip trip = SB_NET_CLASS_TRIP_INIT;
  int r, rounds = 0;

  if (sb_net_class_join (pid, &trip, refusal, sizeof refusal) == -1) {
    sb_net_class_leave (&trip);
    return -1;
  }
  r = walk (pid, pidfd, w);
  while (r != -1 && trip.classed && rounds++ < RETAKE_ROUNDS &&
         sb_net_class_join (pid, &trip, refusal, sizeof refusal) == 1)
    walk (pid, pidfd, &retake);
  sb_net_class_leave (&trip);
  return r;
}

int
sb_walk_check (pid_t pid)
{
  struct sb_net_class_trip trip = SB_NET_CLASS_TRIP_INIT;
  int r = sb_net_class_join (pid, &trip, refusal, sizeof refusal);

  sb_net_class_leave (&trip);
  return r == -1 ? -1 : 0;
}

const char *
sb_walk_error (int err)
{
  return err == EXDEV ? refusal : strerror (err);
}

/* sb_each_socket's walk: its function, and the count. */
struct counting {
  sb_socket_fn *fn;
  void *arg;
  int n;
};

static int
count_taken (void *arg, int fd, unsigned long long inode, int copy)
{
  struct counting *c = arg;

  c->n += c->fn (c->arg, fd, inode, copy) == 1;
  return 0;
}

int
sb_each_socket (pid_t pid, int pidfd, sb_socket_fn *fn, void *arg)
{
  struct counting c = { fn, arg, 0 };
  struct sb_socket_walk w = { .taken = count_taken, .arg = &c };

  return sb_walk_sockets (pid, pidfd, &w) == -1 ? -1 : c.n;
}
