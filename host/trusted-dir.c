/* SPDX-License-Identifier: MIT */
/* The pin directory's ancestors, checked (trusted-dir.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "trusted-dir.h"

/* Why the directory open at FD, WHAT, may not hold root's pins above
 * them, or NULL.
 */
static const char *
untrusted (int fd, const char *what, char *buf, size_t size)
{
  char shown[SB_ESCAPE_SIZE (256)];
  struct stat st;

  sb_escape_str (shown, sizeof shown, what);
  if (fstat (fd, &st) == -1) {
    snprintf (buf, size, "%s cannot be looked at: %s", shown, strerror (errno));
    return buf;
  }
  if (st.st_uid != 0 && st.st_uid != geteuid ())
    snprintf (buf, size, "%s belongs to uid %u", shown, (unsigned) st.st_uid);
  else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    snprintf (buf, size, "%s may be written by %s", shown,
              st.st_mode & S_IWOTH ? "others" : "its group");
  else
    return NULL;
  return buf;
}

/* NAME in the directory open at DIR (the path WHAT), a directory, not
 * through a link: its descriptor, or -1 with WHY.
 */
static int
open_beneath (int dir, const char *name, const char *what, char *why,
              size_t why_len)
{
  char shown[SB_ESCAPE_SIZE (256)];
  int fd = openat (dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int err = errno;
  struct stat st;

  if (fd >= 0)
    return fd;
  sb_escape_str (shown, sizeof shown, what);
  if (fstatat (dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode)) {
    snprintf (why, why_len, "%s is a symbolic link", shown);
    err = EACCES;
  }
  else
    snprintf (why, why_len, "cannot open %s: %s", shown, strerror (err));
  errno = err;
  return -1;
}

int
sb_host_open_trusted_parent (const char *path, char *name, size_t size,
                             char *why, size_t why_len)
{
  char walked[4096] = "", component[256];
  const char *next = path;
  int fd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

  if (fd == -1)
    snprintf (why, why_len, "cannot open /: %s", strerror (errno));
  else if (untrusted (fd, "/", why, why_len) != NULL) {
    close (fd);
    errno = EACCES;
    return -1;
  }
  while (fd >= 0) {
    size_t len;
    int child;

    next += strspn (next, "/");
    len = strcspn (next, "/");
    if (len == 0 || len >= sizeof component ||
        strlen (walked) + len + 2 > sizeof walked) {
      snprintf (why, why_len, "not a plain path to a directory");
      errno = EINVAL;
      break;
    }
    memcpy (component, next, len);
    component[len] = '\0';
    next += len;
    if (strcmp (component, ".") == 0 || strcmp (component, "..") == 0) {
      snprintf (why, why_len, "not a plain path to a directory (no . or ..)");
      errno = EINVAL;
      break;
    }
    if (next[strspn (next, "/")] == '\0') {
      snprintf (name, size, "%s", component);
      return fd;
    }
    strcat (strcat (walked, "/"), component);
    child = open_beneath (fd, component, walked, why, why_len);
    close (fd);
    fd = child;
    if (fd >= 0 && untrusted (fd, walked, why, why_len) != NULL) {
      close (fd);
      errno = EACCES;
      return -1;
    }
  }
  if (fd >= 0)
    close (fd);
  return -1;
}
