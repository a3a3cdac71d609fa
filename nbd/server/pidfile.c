/* SPDX-License-Identifier: MIT */
/* --pidfile: written whole and safely, removed only if still ours. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"

static void
pidfile_complaint (const char *path, const char *what, int err)
{
  char shown[ESCAPED_VALUE_SIZE];

  sb_error ("pidfile %s: %s: %s", sb_escape_str (shown, sizeof shown, path),
            what, strerror (err));
}

/* Fill FD (a new, empty file of ours) with the pid, readable as a file
 * made with the umask would be, and remember which file it is.
 */
static int
fill_pidfile (int fd, struct pidfile *p)
{
  char text[32];
  int len = snprintf (text, sizeof text, "%ld\n", (long) getpid ());
  mode_t mask = umask (0);
  struct stat st;
  ssize_t written;

  /* No thread exists yet: nobody else sees the umask changed. */
  umask (mask);
  written = write (fd, text, (size_t) len);
  if (written != len) {
    /* A short write to a new file: the disk is full. */
    if (written >= 0)
      errno = ENOSPC;
    return -1;
  }
  if (fchmod (fd, 0666 & ~mask) == -1 || fstat (fd, &st) == -1)
    return -1;
  p->dev = st.st_dev;
  p->ino = st.st_ino;
  return 0;
}

/* The pid goes into a new file beside PATH whose name nobody can predict
 * (mkostemp: O_CREAT|O_EXCL, so it never follows a link nor opens a file
 * someone planted; O_NOFOLLOW says so once more), then is renamed over
 * PATH: whoever waits for the pidfile never reads half of it, and the
 * file is the server's own whatever was planted beside it in a shared
 * directory.
 */
int
pidfile_write (struct pidfile *p, const char *path)
{
  char *tmp;
  int fd;

  *p = (struct pidfile) { .path = path };
  if (asprintf (&tmp, "%s.XXXXXX", path) == -1) {
    pidfile_complaint (path, "making a temporary name", ENOMEM);
    return -1;
  }
  fd = mkostemp (tmp, O_CLOEXEC | O_NOFOLLOW);
  if (fd == -1) {
    pidfile_complaint (path, "creating a temporary file beside it", errno);
    free (tmp);
    return -1;
  }
  if (fill_pidfile (fd, p) == -1) {
    pidfile_complaint (path, "writing the pid", errno);
    close (fd);
  }
  else if (close (fd) == -1)
    pidfile_complaint (path, "closing it", errno);
  else if (rename (tmp, path) == 0) {
    free (tmp);
    return 0;
  }
  else
    pidfile_complaint (path, "renaming it into place", errno);
  unlink (tmp);
  free (tmp);
  return -1;
}

/* Whatever now has the name, if not the file the server wrote (replaced
 * by someone else), is left alone.
 */
void
pidfile_remove (const struct pidfile *p)
{
  struct stat st;

  if (p->path != NULL && lstat (p->path, &st) == 0
      && st.st_dev == p->dev && st.st_ino == p->ino)
    unlink (p->path);
}
