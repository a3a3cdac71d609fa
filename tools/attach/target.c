/* SPDX-License-Identifier: MIT */
/* One process: open it (pidfd_open), check that its descriptors may be
 * taken, and walk its sockets (common/proc-sockets.c) for those not
 * finished with yet.  Finished sockets are remembered by inode: a
 * descriptor number is reused for a new socket all the time (accept
 * after close), an inode is not while the socket is open.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach.h"
#include "proc-sockets.h"

/* They stop a walk of the sockets, whose callbacks return them. */
_Static_assert (TARGET_GONE > 0 && TARGET_FAILED > 0,
                "a walk is stopped by a positive value");

static int
pidfd_getfd (int pidfd, int fd)
{
  return (int) syscall (SYS_pidfd_getfd, pidfd, fd, 0);
}

static void
kernel_lacks (const char *call)
{
  sb_error ("%s: not supported by this kernel (attach needs Linux 5.6 "
            "or later)", call);
}

static int
read_yama_scope (void)
{
  FILE *f = fopen ("/proc/sys/kernel/yama/ptrace_scope", "re");
  int scope = 0;

  if (f == NULL)
    return 0;
  if (fscanf (f, "%d", &scope) != 1)
    scope = 0;
  fclose (f);
  return scope;
}

/* Say what it takes to duplicate T's descriptors. */
static void
explain_permission (const struct target *t)
{
  char dir[32];
  struct stat st;
  int scope = read_yama_scope ();

  snprintf (dir, sizeof dir, "/proc/%d", (int) t->pid);
  if (stat (dir, &st) == 0 && st.st_uid != geteuid ())
    sb_error ("%d: permission denied: it belongs to uid %u; run as that "
              "user or with CAP_SYS_PTRACE (e.g. as root)", (int) t->pid,
              (unsigned) st.st_uid);
  else if (scope > 0)
    sb_error ("%d: permission denied: kernel.yama.ptrace_scope is %d, "
              "so this needs CAP_SYS_PTRACE (e.g. root)", (int) t->pid,
              scope);
  else
    sb_error ("%d: permission denied: it is not dumpable or has "
              "privileges this user lacks; this needs CAP_SYS_PTRACE "
              "(e.g. root)", (int) t->pid);
}

/* Why pidfd_getfd of T's FD failed, said when it matters. */
static enum outcome
getfd_failure (const struct target *t, int fd)
{
  switch (errno) {
  case EBADF: return SOCKET_GONE;       /* closed meanwhile */
  case ESRCH: return TARGET_GONE;
  case EPERM: explain_permission (t); return TARGET_FAILED;
  case ENOSYS: kernel_lacks ("pidfd_getfd"); return TARGET_FAILED;
  }
  sb_error ("%d: fd %d: pidfd_getfd: %s", (int) t->pid, fd,
            strerror (errno));
  return TARGET_FAILED;
}

/* Say why /proc/PID/fd of T cannot be read, or why its sockets may not
 * be copied (EXDEV) (errno, kept), unless the process is gone (ENOENT).
 */
static void
explain_fd_dir (const struct target *t)
{
  int saved = errno;

  if (errno == EACCES)
    explain_permission (t);
  else if (errno == EXDEV)
    sb_error ("%d: %s", (int) t->pid, sb_walk_error (errno));
  else if (errno != ENOENT)
    sb_error ("/proc/%d/fd: %s", (int) t->pid, strerror (errno));
  errno = saved;
}

/* /proc/PID/fd of T; errno tells why not (ENOENT: the process is gone). */
static DIR *
open_fd_dir (const struct target *t)
{
  char path[32];
  DIR *d;

  snprintf (path, sizeof path, "/proc/%d/fd", (int) t->pid);
  d = opendir (path);
  if (d == NULL)
    explain_fd_dir (t);
  return d;
}

/* ---- opening ---------------------------------------------------------- */

/* The process name, escaped: it is the process's to choose. */
static void
read_name (struct target *t)
{
  char path[32], comm[32];
  FILE *f;
  size_t n = 0;

  snprintf (path, sizeof path, "/proc/%d/comm", (int) t->pid);
  f = fopen (path, "re");
  if (f != NULL) {
    n = fread (comm, 1, sizeof comm - 1, f);
    fclose (f);
  }
  if (n > 0 && comm[n - 1] == '\n')
    n--;
  sb_escape (t->name, sizeof t->name, n ? comm : "?", n ? n : 1);
}

/* Whether T's descriptors can be listed (said when not). */
static int
check_fd_dir (const struct target *t)
{
  DIR *d = open_fd_dir (t);

  if (d == NULL) {
    if (errno == ENOENT)
      sb_error ("%d: no such process", (int) t->pid);
    return -1;
  }
  closedir (d);
  return 0;
}

static int
open_pidfd (struct target *t)
{
  t->pidfd = sb_pidfd_open (t->pid);
  if (t->pidfd >= 0)
    return 0;
  if (errno == ESRCH)
    sb_error ("%d: no such process", (int) t->pid);
  else if (errno == ENOSYS)
    kernel_lacks ("pidfd_open");
  else if (errno == EINVAL)
    sb_error ("%d: not a process id (a thread of another process?)",
              (int) t->pid);
  else
    sb_error ("%d: pidfd_open: %s", (int) t->pid, strerror (errno));
  return -1;
}

/* Whether T's descriptors may be taken, asked without taking one (a
 * copy of a socket would give it our class, common/net-class.h): the
 * kernel checks the permission before it looks for the descriptor, so
 * one that no process has open (-1) fails with EBADF when it is given.
 */
static int
may_take (const struct target *t)
{
  if (pidfd_getfd (t->pidfd, -1) == -1 && errno != EBADF)
    return getfd_failure (t, -1) == TARGET_FAILED ? -1 : 0;
  return 0;
}

/* Whether T's sockets may be copied without changing their class. */
static int
may_copy (const struct target *t)
{
  if (sb_walk_check (t->pid) == 0 || errno != EXDEV)
    return 0;
  sb_error ("%d: %s", (int) t->pid, sb_walk_error (errno));
  return -1;
}

/* Open T, and check before any process is touched that its descriptors
 * may be taken.  /proc is asked first, so that a missing process or a
 * missing permission is said without pidfd calls.
 */
int
target_open (struct target *t)
{
  if (check_fd_dir (t) == -1 || open_pidfd (t) == -1)
    return -1;
  read_name (t);
  return may_take (t) == 0 && may_copy (t) == 0 ? 0 : -1;
}

void
target_close (struct target *t)
{
  if (t->pidfd >= 0)
    close (t->pidfd);
  t->pidfd = -1;
}

void
target_free (struct target *t)
{
  target_close (t);
  free (t->done.v);
  free (t->seen.v);
}

/* ---- scanning --------------------------------------------------------- */

static int
compare_ino (const void *a, const void *b)
{
  ino_t x = *(const ino_t *) a, y = *(const ino_t *) b;
  return (x > y) - (x < y);
}

static bool
contains (const struct inodes *set, ino_t ino)
{
  return set->n && bsearch (&ino, set->v, set->n, sizeof ino, compare_ino);
}

static int
add (struct inodes *set, ino_t ino)
{
  if (set->n == set->size) {
    size_t size = set->size ? 2 * set->size : 64;
    ino_t *grown = realloc (set->v, size * sizeof *grown);
    if (grown == NULL)
      return -1;
    set->v = grown;
    set->size = size;
  }
  set->v[set->n++] = ino;
  return 0;
}

/* This scan's finished sockets become the ones to skip next time: those
 * the process closed are forgotten.
 */
static void
finish_scan (struct target *t)
{
  struct inodes old = t->done;

  /* A process without sockets has no array yet: qsort must not get NULL. */
  if (t->seen.n > 1)
    qsort (t->seen.v, t->seen.n, sizeof *t->seen.v, compare_ino);
  t->done = t->seen;
  t->seen = old;
  t->seen.n = 0;
}

/* Remember INO, a socket of T finished with; TARGET_FAILED when there
 * is no memory for it.
 */
static int
finished (struct target *t, ino_t ino)
{
  if (add (&t->seen, ino) == 0)
    return 0;
  sb_error ("%d: out of memory", (int) t->pid);
  return TARGET_FAILED;
}

/* A socket of T listed as INODE: one finished with at the last scan is
 * finished with still, and not taken again.
 */
static int
listed (void *arg, int fd, unsigned long long inode)
{
  struct target *t = arg;

  (void) fd;
  if (!contains (&t->done, (ino_t) inode))
    return 0;
  return finished (t, (ino_t) inode) == 0 ? SB_WALK_PASS : TARGET_FAILED;
}

/* COPY, our copy of T's descriptor FD, a socket of INODE: tune it. */
static int
taken (void *arg, int fd, unsigned long long inode, int copy)
{
  struct target *t = arg;
  enum outcome r = tune_socket (t, fd, copy);

  if (r == TARGET_GONE || r == TARGET_FAILED)
    return r;
  return r == SOCKET_DONE ? finished (t, (ino_t) inode) : 0;
}

/* T's descriptor FD could not be taken (ERR). */
static int
failed (void *arg, int fd, int err)
{
  enum outcome r;

  errno = err;
  r = getfd_failure (arg, fd);
  return r == TARGET_GONE || r == TARGET_FAILED ? (int) r : 0;
}

/* Tune every socket of T not finished with.  Returns TARGET_GONE,
 * TARGET_FAILED, or SOCKET_DONE when the process was scanned.
 */
enum outcome
target_scan (struct target *t)
{
  struct sb_socket_walk w = { listed, taken, failed, t };
  int r;

  t->found = (struct scan_counts) { 0 };
  r = sb_walk_sockets (t->pid, t->pidfd, &w);
  if (r == -1) {
    explain_fd_dir (t);
    r = errno == ENOENT ? TARGET_GONE : TARGET_FAILED;
  }
  if (r != 0) {
    t->seen.n = 0;
    return (enum outcome) r;
  }
  finish_scan (t);
  return SOCKET_DONE;
}
