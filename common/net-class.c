/* SPDX-License-Identifier: MIT */
/* Joining another process's net_cls and net_prio cgroups for the time
 * of the copies of its sockets (net-class.h).  Everything is the
 * kernel's own text (/proc/PID/cgroup, /proc/self/mountinfo); the names
 * in a cgroup's path are whoever made the cgroups', so the path is
 * resolved beneath its hierarchy's root only, through no link and into
 * no other mount, and what was joined is checked against the kernel's
 * word after.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/openat2.h>

#include "cgroup-lines.h"
#include "escape.h"
#include "net-class.h"

/* The controllers whose class a copy changes; a hierarchy joined has
 * no other.
 */
#define NET_CONTROLLERS "net_cls,net_prio"
/* Moves after a process that keeps moving, before giving up. */
#define JOIN_TRIES 3

struct hierarchy {
  unsigned id;
  char controllers[256];
  char path[PATH_MAX];
};

/* A process's cgroups in the hierarchies of net_cls and net_prio. */
struct classes {
  int n;
  struct hierarchy h[SB_NET_CLASS_HIERARCHIES];
};

static int
keep (struct classes *c, const struct sb_cgroup_line *l)
{
  struct hierarchy *h = &c->h[c->n];

  if (c->n == SB_NET_CLASS_HIERARCHIES ||
      strlen (l->controllers) >= sizeof h->controllers ||
      strlen (l->path) >= sizeof h->path) {
    errno = EOVERFLOW;
    return -1;
  }
  h->id = l->id;
  strcpy (h->controllers, l->controllers);
  strcpy (h->path, l->path);
  c->n++;
  return 0;
}

/* A process gone (or a kernel without cgroups) has no class to keep:
 * the walk finds it gone by itself.
 */
static int
none_if_gone (struct classes *c)
{
  if (errno != ENOENT && errno != ESRCH)
    return -1;
  c->n = 0;
  return 0;
}

/* The classes of process PID (0: this one), from /proc/PID/cgroup.
 * 0, or -1 (errno).
 */
static int
read_classes (pid_t pid, struct classes *c)
{
  char file[64], *line = NULL;
  size_t size = 0;
  ssize_t len;
  int r = 0, saved;
  FILE *f;

  if (pid == 0)
    snprintf (file, sizeof file, "/proc/self/cgroup");
  else
    snprintf (file, sizeof file, "/proc/%d/cgroup", (int) pid);
  f = fopen (file, "re");
  if (f == NULL)
    return none_if_gone (c);
  c->n = 0;
  errno = 0;
  while (r == 0 && (len = getline (&line, &size, f)) > 0) {
    struct sb_cgroup_line l;

    if (line[len - 1] == '\n')
      line[len - 1] = '\0';
    if (sb_cgroup_line_parse (line, &l) == 0 && l.id != 0 &&
        (sb_list_has (l.controllers, "net_cls") ||
         sb_list_has (l.controllers, "net_prio")))
      r = keep (c, &l);
  }
  if (r == 0 && ferror (f))
    r = none_if_gone (c);
  saved = errno;
  free (line);
  fclose (f);
  errno = saved;
  return r;
}

/* Whether C is in the cgroup H names, in H's hierarchy. */
static bool
in (const struct classes *c, const struct hierarchy *h)
{
  for (int i = 0; i < c->n; i++)
    if (c->h[i].id == h->id && strcmp (c->h[i].path, h->path) == 0)
      return true;
  return false;
}

static bool
same (const struct classes *theirs, const struct classes *ours)
{
  for (int i = 0; i < theirs->n; i++)
    if (!in (ours, &theirs->h[i]))
      return false;
  return true;
}

/* WHY: what keeps us from H's cgroup (the process's), as REASON says. */
static int
refuse (char *why, size_t size, const struct hierarchy *h,
        const char *reason)
{
  char path[SB_ESCAPE_SIZE (128)];

  snprintf (why, size, "its sockets were not copied: a copy would move "
            "them from its %s cgroup %s to ours, and %s", h->controllers,
            sb_escape_str (path, sizeof path, h->path), reason);
  errno = EXDEV;
  return -1;
}

/* Whether FD is the root of the cgroup v1 file system of MAJOR:MINOR. */
static bool
is_hierarchy_root (int fd, unsigned major, unsigned minor)
{
  struct stat st;
  struct statfs fs;

  return fstat (fd, &st) == 0 && st.st_dev == makedev (major, minor) &&
         st.st_ino == 1 && fstatfs (fd, &fs) == 0 &&
         fs.f_type == CGROUP_SUPER_MAGIC;
}

/* The root of H's hierarchy where our mount namespace has the whole of
 * it mounted, open (O_PATH); or -1.
 */
static int
open_hierarchy (const struct hierarchy *h)
{
  char *line = NULL;
  size_t size = 0;
  ssize_t len;
  int fd = -1;
  FILE *f = fopen ("/proc/self/mountinfo", "re");

  if (f == NULL)
    return -1;
  while (fd == -1 && (len = getline (&line, &size, f)) > 0) {
    struct sb_mount_line m;

    if (line[len - 1] == '\n')
      line[len - 1] = '\0';
    if (sb_mount_line_parse (line, &m) == -1 ||
        strcmp (m.type, "cgroup") != 0 || strcmp (m.root, "/") != 0 ||
        !sb_list_within (h->controllers, m.super_options))
      continue;
    fd = open (m.mount_point, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && !is_hierarchy_root (fd, m.major, m.minor)) {
      close (fd);
      fd = -1;
    }
  }
  free (line);
  fclose (f);
  return fd;
}

/* cgroup.procs of H's cgroup, open for writing; or -1 (errno, or
 * ENOTCONN: the hierarchy is not mounted here).  The path is the
 * kernel's, but its names are whoever made the cgroups': it is resolved
 * beneath the hierarchy's root only, through no link and into no other
 * mount.
 */
static int
open_procs (const struct hierarchy *h)
{
  struct open_how how = {
    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
               RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
  };
  int root = open_hierarchy (h), dir, fd = -1, saved;

  if (root == -1) {
    errno = ENOTCONN;
    return -1;
  }
  dir = (int) syscall (SYS_openat2, root, h->path[1] ? h->path + 1 : ".",
                       &how, sizeof how);
  if (dir >= 0)
    fd = openat (dir, "cgroup.procs", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  saved = errno;
  if (dir >= 0)
    close (dir);
  close (root);
  errno = saved;
  return fd;
}

/* Move this process into cgroup.procs PROCS's cgroup: 0, or -1. */
static int
move_into (int procs)
{
  return write (procs, "0", 1) == 1 ? 0 : -1;
}

static void
close_all (int *fds, int n)
{
  for (int i = 0; i < n; i++)
    if (fds[i] >= 0)
      close (fds[i]);
}

/* PROCS: cgroup.procs of each cgroup of THEIRS that is not one of
 * OURS, open, -1 for the others.  0, or -1 with WHY.
 */
static int
open_theirs (const struct classes *theirs, const struct classes *ours,
             int *procs, char *why, size_t size)
{
  for (int i = 0; i < theirs->n; i++) {
    const struct hierarchy *h = &theirs->h[i];
    char reason[160];

    procs[i] = -1;
    if (in (ours, h))
      continue;
    if (!sb_list_within (h->controllers, NET_CONTROLLERS))
      snprintf (reason, sizeof reason, "that cgroup is in a hierarchy "
                "shared with other controllers, which is never joined");
    else if ((procs[i] = open_procs (h)) >= 0)
      continue;
    else if (errno == ENOTCONN)
      snprintf (reason, sizeof reason, "that cgroup is in a hierarchy "
                "not mounted here");
    else
      snprintf (reason, sizeof reason, "that cgroup cannot be opened: %s",
                strerror (errno));
    close_all (procs, i);
    return refuse (why, size, h, reason);
  }
  return 0;
}

/* Open our own cgroups' cgroup.procs in T, to come back to. */
static int
remember_home (struct sb_net_class_trip *t, const struct classes *ours,
               const struct classes *theirs, char *why, size_t size)
{
  char reason[160];

  for (int i = 0; i < ours->n; i++) {
    t->home[i] = open_procs (&ours->h[i]);
    t->n = i + 1;
    if (t->home[i] == -1) {
      snprintf (reason, sizeof reason, "ours there cannot be opened to "
                "come back to: %s", strerror (errno));
      return refuse (why, size, &theirs->h[0], reason);
    }
  }
  return 0;
}

/* Move into the cgroups of THEIRS whose cgroup.procs PROCS has open. */
static int
move_to (const struct classes *theirs, const int *procs, char *why,
         size_t size)
{
  char reason[160];

  for (int i = 0; i < theirs->n; i++)
    if (procs[i] >= 0 && move_into (procs[i]) == -1) {
      snprintf (reason, sizeof reason, "that cgroup cannot be joined: %s",
                strerror (errno));
      return refuse (why, size, &theirs->h[i], reason);
    }
  return 0;
}

int
sb_net_class_join (pid_t pid, struct sb_net_class_trip *t, char *why,
                   size_t size)
{
  struct classes theirs, ours;
  int procs[SB_NET_CLASS_HIERARCHIES], moved = 0, r;

  for (int tries = 0;; tries++) {
    if (read_classes (pid, &theirs) == -1)
      return -1;
    t->classed |= theirs.n > 0;
    if (theirs.n == 0)
      return moved;
    if (read_classes (0, &ours) == -1)
      return -1;
    if (same (&theirs, &ours))
      return moved;
    if (tries == JOIN_TRIES)
      return refuse (why, size, &theirs.h[0], "it kept moving while it "
                     "was being joined");
    if (open_theirs (&theirs, &ours, procs, why, size) == -1)
      return -1;
    r = t->n == 0 ? remember_home (t, &ours, &theirs, why, size) : 0;
    if (r == 0)
      r = move_to (&theirs, procs, why, size);
    close_all (procs, theirs.n);
    if (r == -1)
      return -1;
    moved = 1;
  }
}

void
sb_net_class_leave (struct sb_net_class_trip *t)
{
  int saved = errno;

  /* Our own cgroup can only have gone if someone removed it while we
   * were away: then we stay, and the next walk starts from there.
   */
  for (int i = 0; i < t->n; i++)
    if (t->home[i] >= 0) {
      move_into (t->home[i]);
      close (t->home[i]);
      t->home[i] = -1;
    }
  t->n = 0;
  errno = saved;
}
