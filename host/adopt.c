/* SPDX-License-Identifier: MIT */
/* enable's adoption of the listeners that were there before it
 * (adopt.h).  A process is matched by its name through the filter's own
 * maps, as the kernel programs match it: the rule is in the maps, not
 * here.  Nothing is run and nothing is opened by a name that another
 * user chose: the cgroup's process lists, /proc/PID/comm, and each
 * socket through the process's pidfd.
 */
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "adopt.h"
#include "counts.h"
#include "proc-sockets.h"

/* Deeper than any cgroup tree: a bound on the walk. */
#define MAX_DEPTH 32

struct adoption {
  const struct sb_host_instance *in;
  const struct sb_host_settings *s;
  char comm[SB_HOST_COMM_LEN];  /* the process's name */
  uint32_t uid;                 /* its real uid */
  struct sb_host_name_key entry;  /* the filter entry that took it */
  struct sb_host_adopted *a;
};

static int
int_option (int fd, int level, int name)
{
  int value = -1;
  socklen_t len = sizeof value;

  return getsockopt (fd, level, name, &value, &len) == 0 ? value : -1;
}

/* The local port of socket FD, or -1. */
static int
local_port (int fd)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;

  if (getsockname (fd, (struct sockaddr *) &ss, &len) == -1)
    return -1;
  if (ss.ss_family == AF_INET)
    return ntohs (((struct sockaddr_in *) &ss)->sin_port);
  if (ss.ss_family == AF_INET6)
    return ntohs (((struct sockaddr_in6 *) &ss)->sin6_port);
  return -1;
}

static int
port_listed (const struct adoption *ad, int port)
{
  __u16 key = (__u16) port;
  __u8 value;

  return port > 0 && bpf_map_lookup_elem (sb_host_map_fd (ad->in, SB_HOST_MAP_PORTS),
                                          &key, &value) == 0;
}


/* Socket COPY: a TCP listener the filter takes gets TCP_NODELAY and the
 * programs' mark.
 */
static int
adopt_socket (void *arg, int fd, unsigned long long inode, int copy)
{
  struct adoption *ad = arg;
  struct sb_host_mark mark = { .flags = SB_HOST_MARK_NODELAY };
  int domain = int_option (copy, SOL_SOCKET, SO_DOMAIN), one = 1;

  (void) fd;
  (void) inode;
  if ((domain != AF_INET && domain != AF_INET6) ||
      int_option (copy, SOL_SOCKET, SO_PROTOCOL) != IPPROTO_TCP ||
      int_option (copy, SOL_SOCKET, SO_ACCEPTCONN) != 1 ||
      int_option (copy, IPPROTO_TCP, TCP_NODELAY) != 0)
    return 0;
  if (ad->s->filter == SB_HOST_FILTER_PORTS && !port_listed (ad, local_port (copy)))
    return 0;
  if (setsockopt (copy, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == -1)
    return 0;
  memcpy (mark.comm, ad->comm, sizeof mark.comm);
  bpf_map_update_elem (sb_host_map_fd (ad->in, SB_HOST_MAP_MARKS), &copy,
                       &mark, BPF_ANY);
  sb_host_count_add (sb_host_map_fd (ad->in, SB_HOST_MAP_COUNTS), &ad->entry,
                     ad->uid, SB_HOST_COUNT_TCP_BIND);
  return 1;
}

/* Whether the filter takes the program named AD->comm; AD->entry is
 * set to the entry that took it.
 */
static int
program_taken (struct adoption *ad)
{
  struct sb_host_name_key key = { .prefixlen = SB_HOST_COMM_LEN * 8 };
  unsigned char first = (unsigned char) ad->comm[0];

  memset (&ad->entry, 0, sizeof ad->entry);
  if (ad->s->filter != SB_HOST_FILTER_PROGRAMS)
    return 1;
  if (!(ad->s->first_bytes[first >> 6] & (1ULL << (first & 63))))
    return 0;
  memcpy (key.name, ad->comm, sizeof key.name);
  return bpf_map_lookup_elem (sb_host_map_fd (ad->in, SB_HOST_MAP_PROGRAMS),
                              &key, &ad->entry) == 0;
}

/* The real uid of process PID, from the "Uid:" line of its status (the
 * kernel's own text: real, effective, saved, file system).
 */
static int
read_uid (pid_t pid, uint32_t *uid)
{
  char path[64], line[256];
  unsigned long value;
  int found = -1;
  FILE *f;

  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  f = fopen (path, "re");
  if (f == NULL)
    return -1;
  while (found == -1 && fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "Uid: %lu", &value) == 1 && value <= UINT32_MAX) {
      *uid = (uint32_t) value;
      found = 0;
    }
  fclose (f);
  return found;
}

/* The name of process PID, zero-padded, as the kernel programs see it. */
static int
read_comm (pid_t pid, char comm[SB_HOST_COMM_LEN])
{
  char path[64];
  ssize_t n;
  int fd;

  snprintf (path, sizeof path, "/proc/%d/comm", (int) pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd == -1)
    return -1;
  memset (comm, 0, SB_HOST_COMM_LEN);
  n = read (fd, comm, SB_HOST_COMM_LEN - 1);
  close (fd);
  if (n <= 0)
    return -1;
  if (comm[n - 1] == '\n')
    comm[n - 1] = '\0';
  return 0;
}

/* The process at PIDFD, which it names until it dies, is still alive:
 * what was read of /proc/PID since the pidfd was opened was its own.
 */
static int
alive (int pidfd)
{
  return syscall (SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

static void
adopt_process (struct adoption *ad, pid_t pid)
{
  int pidfd = sb_pidfd_open (pid), n;

  if (pidfd == -1)
    return;
  if (read_comm (pid, ad->comm) == -1 || read_uid (pid, &ad->uid) == -1 ||
      !alive (pidfd) || !program_taken (ad)) {
    close (pidfd);
    return;
  }
  ad->a->processes++;
  n = sb_each_socket (pid, pidfd, adopt_socket, ad);
  if (n > 0)
    ad->a->listeners += n;
  close (pidfd);
}

/* The processes of the cgroup at DIR_FD, then of its children. */
static void
walk (struct adoption *ad, int dir_fd, int depth)
{
  int procs = openat (dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC), fd;
  struct dirent *e;
  FILE *f;
  DIR *d;
  long pid;

  if (procs >= 0 && (f = fdopen (procs, "re")) != NULL) {
    while (fscanf (f, "%ld", &pid) == 1)
      if (pid > 0)
        adopt_process (ad, (pid_t) pid);
    fclose (f);
  } else if (procs >= 0)
    close (procs);
  if (depth == MAX_DEPTH || (fd = dup (dir_fd)) == -1)
    return;
  if ((d = fdopendir (fd)) == NULL) {
    close (fd);
    return;
  }
  while ((e = readdir (d)) != NULL) {
    int child;

    if (e->d_type != DT_DIR || e->d_name[0] == '.')
      continue;
    child = openat (dir_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child >= 0) {
      walk (ad, child, depth + 1);
      close (child);
    }
  }
  closedir (d);
}

void
sb_host_adopt (int cgroup_fd, const struct sb_host_instance *in,
               const struct sb_host_settings *s, struct sb_host_adopted *a)
{
  struct adoption ad = { .in = in, .s = s, .a = a };

  memset (a, 0, sizeof *a);
  walk (&ad, cgroup_fd, 0);
}
