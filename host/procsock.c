/* SPDX-License-Identifier: MIT */
/* Another process's sockets (procsock.h). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procsock.h"

int
sb_host_pidfd_open (pid_t pid)
{
  return (int) syscall (SYS_pidfd_open, pid, 0);
}

/* Whether descriptor FD of process PID was a socket when listed (its
 * link reads "socket:[INODE]"): only those are taken from it.
 */
static int
listed_as_socket (pid_t pid, int fd)
{
  char path[64], target[64];
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/fd/%d", (int) pid, fd);
  n = readlink (path, target, sizeof target);
  return n > 8 && memcmp (target, "socket:[", 8) == 0;
}

/* NAME, an entry of /proc/PID/fd, as a descriptor number, or -1. */
static int
fd_number (const char *name)
{
  char *end;
  long fd;

  if (name[0] < '0' || name[0] > '9')
    return -1;
  fd = strtol (name, &end, 10);
  return *end == '\0' && fd <= INT32_MAX ? (int) fd : -1;
}

int
sb_host_each_socket (pid_t pid, int pidfd, sb_host_socket_fn *fn, void *arg)
{
  char path[64];
  struct dirent *e;
  DIR *d;
  int n = 0;

  snprintf (path, sizeof path, "/proc/%d/fd", (int) pid);
  d = opendir (path);
  if (d == NULL)
    return -1;
  while ((e = readdir (d)) != NULL) {
    int fd = fd_number (e->d_name), copy;
    struct stat st;

    if (fd < 0 || !listed_as_socket (pid, fd))
      continue;
    copy = (int) syscall (SYS_pidfd_getfd, pidfd, fd, 0);
    if (copy == -1)
      continue;
    /* FD may name another file by now: the inode is the copy's own. */
    if (fstat (copy, &st) == 0 && S_ISSOCK (st.st_mode))
      n += fn (arg, fd, (unsigned long long) st.st_ino, copy) == 1;
    close (copy);
  }
  closedir (d);
  return n;
}
