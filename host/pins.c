/* SPDX-License-Identifier: MIT */
/* The pin directory (pins.h).  Root runs this in a file system where
 * others may create entries (a BPF file system's root is often 1777):
 * nothing in it is trusted that root did not make.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "escape.h"
#include "pins.h"
#include "trusted-dir.h"

#define BPFFS_DEFAULT "/sys/fs/bpf"
/* How long to wait for another sb-host that holds the lock. */
#define LOCK_WAIT_SECONDS 30

static int
on_bpffs (const char *path)
{
  struct statfs fs;

  return statfs (path, &fs) == 0 && fs.f_type == BPF_FS_MAGIC;
}

static int
fd_on_bpffs (int fd)
{
  struct statfs fs;

  return fstatfs (fd, &fs) == 0 && fs.f_type == BPF_FS_MAGIC;
}

/* The default directory's file system: mount one on /sys/fs/bpf when
 * nothing is mounted there (systemd mounts it; a host without systemd
 * may not), as systemd would.
 */
static int
mount_default_bpffs (int *mounted, char *why, size_t why_len)
{
  if (on_bpffs (BPFFS_DEFAULT))
    return 0;
  if (mount ("bpf", BPFFS_DEFAULT, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC,
             "mode=0700") == -1) {
    snprintf (why, why_len, "no BPF file system on %s, and mounting one "
              "failed: %s", BPFFS_DEFAULT, strerror (errno));
    return -1;
  }
  *mounted = 1;
  return 0;
}

/* Why the directory open at FD may not hold root's pins, or NULL. */
static const char *
untrusted (int fd)
{
  struct statfs fs;
  struct stat st;

  if (fstatfs (fd, &fs) == -1 || fs.f_type != BPF_FS_MAGIC)
    return "not on a BPF file system";
  if (fstat (fd, &st) == -1 || !S_ISDIR (st.st_mode))
    return "not a directory";
  if (st.st_uid != geteuid ())
    return "owned by another user (remove it, or name another --pin-dir)";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return "writable by others (remove it, or name another --pin-dir)";
  return NULL;
}

/* Whether FD is still the directory NAME of PARENT (not removed or
 * replaced while this process waited for its lock).
 */
static int
still_there (int fd, int parent, const char *name)
{
  struct stat a, b;

  return fstat (fd, &a) == 0 &&
         fstatat (parent, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
         a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int
lock_bounded (int fd)
{
  const struct timespec pause = { 0, 50 * 1000 * 1000 };

  for (int i = 0; i < LOCK_WAIT_SECONDS * 20; i++) {
    if (flock (fd, LOCK_EX | LOCK_NB) == 0)
      return 0;
    if (errno != EWOULDBLOCK && errno != EINTR)
      return -1;
    nanosleep (&pause, NULL);
  }
  errno = ETIMEDOUT;
  return -1;
}

/* Make the pin directory NAME in PARENT, on a BPF file system, which
 * refuses names with a dot.  0, or -1 with WHY.
 */
static int
make (int parent, const char *name, const char *shown, char *why,
      size_t why_len)
{
  if (!fd_on_bpffs (parent)) {
    snprintf (why, why_len, "refusing %s: not on a BPF file system", shown);
    return -1;
  }
  if (strchr (name, '.') != NULL) {
    snprintf (why, why_len, "refusing %s: the BPF file system reserves "
              "names with a dot (name it without one)", shown);
    return -1;
  }
  if (mkdirat (parent, name, 0700) == -1 && errno != EEXIST) {
    snprintf (why, why_len, "cannot make %s: %s", shown, strerror (errno));
    return -1;
  }
  return 0;
}

/* The rest of a try, in the checked directory PARENT. */
static int
open_checked (int parent, const char *name, int create, struct sb_host_pins *p,
              const char *shown, char *why, size_t why_len)
{
  const char *problem;

  if (create && make (parent, name, shown, why, why_len) == -1)
    return -1;
  p->fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (p->fd == -1 && errno == ENOENT && !create)
    return 1;
  if (p->fd == -1) {
    snprintf (why, why_len, "cannot open %s: %s", shown,
              errno == ELOOP || errno == ENOTDIR ?
              "not a directory (a link?)" : strerror (errno));
    return -1;
  }
  if ((problem = untrusted (p->fd)) != NULL) {
    snprintf (why, why_len, "refusing %s: %s", shown, problem);
    sb_host_pins_close (p);
    return -1;
  }
  if (lock_bounded (p->fd) == -1) {
    snprintf (why, why_len, "cannot lock %s: %s", shown,
              errno == ETIMEDOUT ? "another sockboost host holds it" :
              strerror (errno));
    sb_host_pins_close (p);
    return -1;
  }
  if (!still_there (p->fd, parent, name)) {
    sb_host_pins_close (p);
    return 2;
  }
  return 0;
}

/* One try: open PATH, every directory above it checked, check it, lock
 * it, check it is still PATH.  Return 0, 1 (does not exist), 2
 * (replaced meanwhile: try again), -1.
 */
static int
open_once (const char *path, int create, struct sb_host_pins *p,
           const char *shown, char *why, size_t why_len)
{
  char name[256], above[PATH_MAX + 64];
  int parent = sb_host_open_trusted_parent (path, name, sizeof name, above,
                                            sizeof above), status;

  if (parent == -1 && errno == ENOENT && !create)
    return 1;
  if (parent == -1) {
    snprintf (why, why_len, "refusing %s: %s", shown, above);
    return -1;
  }
  status = open_checked (parent, name, create, p, shown, why, why_len);
  close (parent);
  return status;
}

int
sb_host_pins_open (const char *path, int create, int *mounted,
                   struct sb_host_pins *p, char *why, size_t why_len)
{
  char shown[SB_ESCAPE_SIZE (256)];
  int r = 2;

  *mounted = 0;
  p->fd = -1;
  sb_escape_str (shown, sizeof shown, path);
  if (strlen (path) >= sizeof p->path || path[0] != '/') {
    snprintf (why, why_len, "%s: the pin directory needs an absolute path "
              "shorter than %zu bytes", shown, sizeof p->path);
    return -1;
  }
  strcpy (p->path, path);
  if (create && strcmp (path, SB_HOST_PIN_DIR_DEFAULT) == 0 &&
      mount_default_bpffs (mounted, why, why_len) == -1)
    return -1;
  for (int tries = 0; r == 2 && tries < 5; tries++)
    r = open_once (path, create, p, shown, why, why_len);
  if (r == 2)
    snprintf (why, why_len, "%s keeps being replaced", shown);
  return r == 2 ? -1 : r;
}

void
sb_host_pins_close (struct sb_host_pins *p)
{
  if (p->fd >= 0)
    close (p->fd);
  p->fd = -1;
}

void
sb_host_pin_path (const struct sb_host_pins *p, const char *gen,
                  const char *name, char *buf, size_t size)
{
  snprintf (buf, size, "/proc/self/fd/%d/%s%s%s", p->fd, gen,
            name[0] ? "/" : "", name);
}

int
sb_host_pins_has (const struct sb_host_pins *p, const char *gen)
{
  struct stat st;

  return fstatat (p->fd, gen, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISDIR (st.st_mode);
}

int
sb_host_pins_clear (const struct sb_host_pins *p, const char *gen)
{
  int fd = openat (p->fd, gen, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct dirent *e;
  DIR *d;
  int status = 0;

  if (fd == -1)
    return errno == ENOENT ? 0 : -1;
  d = fdopendir (fd);
  if (d == NULL) {
    close (fd);
    return -1;
  }
  while ((e = readdir (d)) != NULL) {
    if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
      continue;
    if (unlinkat (dirfd (d), e->d_name, 0) == -1 && errno != ENOENT)
      status = -1;
  }
  closedir (d);
  if (unlinkat (p->fd, gen, AT_REMOVEDIR) == -1 && errno != ENOENT)
    status = -1;
  return status;
}

int
sb_host_pins_make (const struct sb_host_pins *p, const char *gen)
{
  return mkdirat (p->fd, gen, 0700);
}

int
sb_host_pins_rename (const struct sb_host_pins *p, const char *from,
                     const char *to)
{
  return renameat (p->fd, from, p->fd, to);
}

int
sb_host_pins_remove_dir (struct sb_host_pins *p)
{
  return rmdir (p->path);
}
