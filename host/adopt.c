/* SPDX-License-Identifier: MIT */
/* enable's adoption of the listeners that were there before it
 * (adopt.h).  A process is matched by its name through the filter's own
 * maps, as the kernel programs match it: the rule is in the maps, not
 * here.  Nothing is run and nothing is opened by a name that another
 * user chose: the cgroup's process lists, /proc/PID/comm, and each
 * socket through the process's pidfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "adopt.h"
#include "cgroup-procs.h"
#include "counts.h"
#include "proc-sockets.h"

/* How a walk of a process's sockets stops when the adoption has looked
 * at as many sockets as it may.
 */
#define OUT_OF_BUDGET 1

struct adoption {
  const struct sb_host_instance *in;
  const struct sb_host_settings *s;
  unsigned looked;              /* sockets looked at, all processes */
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


/* Each socket of a process costs a look, out of the adoption's budget. */
static int
count_look (void *arg, int fd, unsigned long long inode)
{
  struct adoption *ad = arg;

  (void) fd;
  (void) inode;
  return ad->looked++ < SB_HOST_ADOPT_MAX_SOCKETS ? 0 : OUT_OF_BUDGET;
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
  ad->a->listeners++;
  return 0;
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

/* The listeners of one process the filter takes (cgroup-procs.c),
 * looked at through its pidfd while the adoption's budget lasts.
 */
static void
adopt_process (void *arg, pid_t pid, int pidfd, const char comm[SB_HOST_COMM_LEN])
{
  struct adoption *ad = arg;
  struct sb_socket_walk w = { .listed = count_look, .taken = adopt_socket,
                              .arg = ad };
  int r;

  memcpy (ad->comm, comm, sizeof ad->comm);
  if (read_uid (pid, &ad->uid) == -1 ||
      !sb_host_program_taken (ad->s, sb_host_map_fd (ad->in, SB_HOST_MAP_PROGRAMS),
                              comm, &ad->entry))
    return;
  ad->a->processes++;
  r = sb_walk_sockets (pid, pidfd, &w);
  if (r == OUT_OF_BUDGET)
    ad->a->cut = 1;
  else if (r == -1 && errno == EXDEV && ad->a->refused++ == 0)
    snprintf (ad->a->refused_why, sizeof ad->a->refused_why,
              "process %d: %s", (int) pid, sb_walk_error (errno));
}

void
sb_host_adopt (int cgroup_fd, const struct sb_host_instance *in,
               const struct sb_host_settings *s, struct sb_host_adopted *a)
{
  static struct sb_host_proc procs[SB_HOST_ADOPT_MAX_PROCESSES + 1];
  struct adoption ad = { .in = in, .s = s, .a = a };
  size_t n = sb_host_cgroup_procs (cgroup_fd, procs, SB_HOST_ADOPT_MAX_PROCESSES + 1);

  memset (a, 0, sizeof *a);
  if (n > SB_HOST_ADOPT_MAX_PROCESSES) {
    n = SB_HOST_ADOPT_MAX_PROCESSES;
    a->cut = 1;
  }
  for (size_t i = 0; i < n && ad.looked < SB_HOST_ADOPT_MAX_SOCKETS; i++)
    sb_host_take_process (procs[i].pid, s,
                          sb_host_map_fd (in, SB_HOST_MAP_PROGRAMS),
                          adopt_process, &ad);
}
