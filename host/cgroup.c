/* SPDX-License-Identifier: MIT */
/* Finding and opening cgroups (cgroup.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup.h"
#include "escape.h"

/* Undo the octal escapes (\040 for a blank...) of a mount table field
 * in place.
 */
static void
unescape_octal (char *s)
{
  char *out = s;

  for (; *s; s++) {
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
        s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
      *out++ = (char) ((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
      s += 3;
    } else
      *out++ = *s;
  }
  *out = '\0';
}

/* From one line of /proc/self/mountinfo, the mount point (unescaped,
 * into MOUNT) when the file system type is cgroup2.  The fields are
 * "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE ...".
 */
static int
cgroup2_mount_point (char *line, char *mount, size_t size)
{
  char *fields[5], *dash, *type, *save = NULL;
  int i;

  dash = strstr (line, " - ");
  if (dash == NULL)
    return -1;
  *dash = '\0';
  type = strtok_r (dash + 3, " \n", &save);
  if (type == NULL || strcmp (type, "cgroup2") != 0)
    return -1;
  save = NULL;
  for (i = 0; i < 5; i++)
    if ((fields[i] = strtok_r (i ? NULL : line, " ", &save)) == NULL)
      return -1;
  unescape_octal (fields[4]);
  if (fields[4][0] != '/' || strlen (fields[4]) >= size)
    return -1;
  strcpy (mount, fields[4]);
  return 0;
}

int
sb_host_cgroup2_mount (char *mount, size_t size)
{
  FILE *f = fopen ("/proc/self/mountinfo", "re");
  char *line = NULL;
  size_t cap = 0;
  int found = -1;

  if (f == NULL)
    return -1;
  while (found == -1 && getline (&line, &cap, f) != -1)
    found = cgroup2_mount_point (line, mount, size);
  free (line);
  fclose (f);
  if (found == -1)
    errno = ENOENT;
  return found;
}

int
sb_host_cgroup_open (const char *mount, const char *arg, char *path,
                     size_t size, char *why, size_t why_len)
{
  char shown[SB_ESCAPE_SIZE (256)];
  struct statfs fs;
  int fd, n;

  if (arg == NULL || arg[0] == '/')
    n = snprintf (path, size, "%s", arg ? arg : mount);
  else
    n = snprintf (path, size, "%s/%s", mount, arg);
  if (n < 0 || (size_t) n >= size) {
    snprintf (why, why_len, "cgroup path too long");
    return -1;
  }
  sb_escape_str (shown, sizeof shown, path);
  fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd == -1) {
    snprintf (why, why_len, "cannot open cgroup %s: %s", shown,
              strerror (errno));
    return -1;
  }
  if (fstatfs (fd, &fs) == -1 || fs.f_type != CGROUP2_SUPER_MAGIC) {
    snprintf (why, why_len, "%s is not a cgroup v2 directory (cgroup v2 is "
              "mounted on %s)", shown, mount);
    close (fd);
    return -1;
  }
  return fd;
}

uint64_t
sb_host_cgroup_id (int fd)
{
  struct {
    struct file_handle fh;
    uint64_t id;
  } h = { .fh.handle_bytes = sizeof (uint64_t) };
  int mount_id;

  if (name_to_handle_at (fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) == -1)
    return 0;
  return h.id;
}

int
sb_host_cgroup_make_child (int parent_fd, const char *name)
{
  if (mkdirat (parent_fd, name, 0700) == -1) {
    if (errno != EEXIST || sb_host_cgroup_remove_child (parent_fd, name) == -1 ||
        mkdirat (parent_fd, name, 0700) == -1)
      return -1;
  }
  return openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int
sb_host_cgroup_remove_child (int parent_fd, const char *name)
{
  const struct timespec pause = { 0, 10 * 1000 * 1000 };

  /* A process that has just exited leaves its cgroup a moment later. */
  for (int tries = 0; tries < 200; tries++) {
    if (unlinkat (parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
      return 0;
    if (errno != EBUSY)
      return -1;
    nanosleep (&pause, NULL);
  }
  return -1;
}

/* Whether NAME is PREFIX and the pid of a process that is gone. */
static int
stale (const char *name, const char *prefix)
{
  size_t len = strlen (prefix);
  char *end;
  long pid;

  if (strncmp (name, prefix, len) != 0 || name[len] < '1' || name[len] > '9')
    return 0;
  pid = strtol (name + len, &end, 10);
  return *end == '\0' && pid > 0 && pid <= INT32_MAX &&
         kill ((pid_t) pid, 0) == -1 && errno == ESRCH;
}

void
sb_host_cgroup_remove_stale (int parent_fd, const char *prefix)
{
  int fd = openat (parent_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct dirent *e;
  DIR *d;

  if (fd == -1)
    return;
  d = fdopendir (fd);
  if (d == NULL) {
    close (fd);
    return;
  }
  while ((e = readdir (d)) != NULL)
    if (e->d_type == DT_DIR && stale (e->d_name, prefix))
      unlinkat (parent_fd, e->d_name, AT_REMOVEDIR);
  closedir (d);
}
