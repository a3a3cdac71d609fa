/* SPDX-License-Identifier: MIT */
/* One socket of another process, found by its cookie and given
 * TCP_NODELAY (watch.h).  What the process shows is not trusted: only
 * the kernel's answers about a descriptor taken through its pidfd (the
 * socket's cookie, protocol and state) decide, and the one thing done
 * to it is what the process could do itself.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cgroup-procs.h"
#include "counts.h"
#include "proc-sockets.h"
#include "watch.h"

#ifndef SO_COOKIE
#define SO_COOKIE 57            /* Linux 4.12 */
#endif

static int
int_option (int fd, int level, int name)
{
  int value = -1;
  socklen_t len = sizeof value;

  return getsockopt (fd, level, name, &value, &len) == 0 ? value : -1;
}

static int
is_tcp (int fd)
{
  int domain = int_option (fd, SOL_SOCKET, SO_DOMAIN);

  return (domain == AF_INET || domain == AF_INET6) &&
    int_option (fd, SOL_SOCKET, SO_PROTOCOL) == IPPROTO_TCP;
}

/* Count one socket of COMM, a process of user UID, in host mode's
 * counts, as the kernel's TCP hooks would: a listener (bound) or a
 * connection made, in the row of the filter entry that took it.
 */
static void
count (const struct sb_watch_maps *m, const char comm[SB_HOST_COMM_LEN],
       uint32_t uid, int listener)
{
  struct sb_host_name_key entry;

  if (m->counts < 0 ||
      !sb_host_program_taken (&m->settings, m->programs, comm, &entry))
    return;
  sb_host_count_add (m->counts, &entry, uid, listener ?
                     SB_HOST_COUNT_TCP_BIND : SB_HOST_COUNT_TCP_CONNECT);
}

/* Record in the maps that COPY, a socket of the process named COMM, got
 * TCP_NODELAY: host mode's mark (status PID), and on a listener (bound,
 * maybe not listening yet) the watch programs' mark, so that what it
 * accepts from now on, which inherits TCP_NODELAY, is not reported.
 */
static void
record (const struct sb_watch_maps *m, int copy,
        const char comm[SB_HOST_COMM_LEN], int listener)
{
  struct sb_host_mark mark;
  struct sb_watch_mark wm;

  if (m->marks >= 0) {
    if (bpf_map_lookup_elem (m->marks, &copy, &mark) != 0)
      memset (&mark, 0, sizeof mark);
    memcpy (mark.comm, comm, sizeof mark.comm);
    mark.flags |= SB_HOST_MARK_NODELAY;
    bpf_map_update_elem (m->marks, &copy, &mark, BPF_ANY);
  }
  if (listener && m->watch_marks >= 0 &&
      bpf_map_lookup_elem (m->watch_marks, &copy, &wm) == 0) {
    wm.tuned = 1;
    bpf_map_update_elem (m->watch_marks, &copy, &wm, BPF_EXIST);
  }
}

/* TCP_NODELAY on COPY, a LISTENER or a connection: SB_WATCH_SET or
 * SB_WATCH_WAS_SET, or SB_WATCH_ABSENT when the socket cannot take it
 * (closed meanwhile).
 */
static enum sb_watch_outcome
set_nodelay (const struct sb_watch_maps *m, int copy,
             const char comm[SB_HOST_COMM_LEN], uint32_t uid, int listener)
{
  int one = 1;

  if (int_option (copy, IPPROTO_TCP, TCP_NODELAY) == 1) {
    record (m, copy, comm, listener);
    return SB_WATCH_WAS_SET;
  }
  if (setsockopt (copy, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == -1)
    return SB_WATCH_ABSENT;
  record (m, copy, comm, listener);
  count (m, comm, uid, listener);
  return SB_WATCH_SET;
}

/* How a search for one socket stops early. */
enum { FOUND = 1, TOO_MANY = 2 };

struct search {
  const struct sb_watch_maps *m;
  const struct sb_watch_event *e;
  enum sb_watch_outcome outcome;
  unsigned looked;
};

/* Each socket the process holds costs a look; a process holding more
 * than SB_WATCH_MAX_LOOKS has the rest left unsearched.
 */
static int
count_look (void *arg, int fd, unsigned long long inode)
{
  struct search *s = arg;

  (void) fd;
  (void) inode;
  return s->looked++ < SB_WATCH_MAX_LOOKS ? 0 : TOO_MANY;
}

static int
match_cookie (void *arg, int fd, unsigned long long inode, int copy)
{
  struct search *s = arg;
  __u64 cookie = 0;
  socklen_t len = sizeof cookie;

  (void) fd;
  (void) inode;
  if (getsockopt (copy, SOL_SOCKET, SO_COOKIE, &cookie, &len) == -1 ||
      cookie != s->e->cookie || !is_tcp (copy))
    return 0;
  /* A bound socket is reported before listen(): a listener to be. */
  s->outcome = set_nodelay (s->m, copy, s->e->comm, s->e->uid,
                            s->e->kind == SB_WATCH_BOUND);
  return FOUND;
}

enum sb_watch_outcome
sb_watch_tune (const struct sb_watch_maps *m, const struct sb_watch_event *e,
               unsigned *looked)
{
  struct search s = { .m = m, .e = e, .outcome = SB_WATCH_ABSENT };
  struct sb_socket_walk w = { .listed = count_look, .taken = match_cookie,
                              .arg = &s };
  int pidfd = sb_pidfd_open ((pid_t) e->tgid);

  if (pidfd == -1)
    return SB_WATCH_NO_PROCESS;
  if (sb_walk_sockets ((pid_t) e->tgid, pidfd, &w) == -1)
    s.outcome = SB_WATCH_NO_PROCESS;
  close (pidfd);
  *looked += s.looked;
  return s.outcome;
}

/* ---- a sweep: every socket of a process the filter takes ----------- */

static int
local_or_remote_port_listed (const struct sb_watch_maps *m, int fd)
{
  struct sockaddr_storage ss;
  socklen_t len;
  __u8 value;

  for (int peer = 0; peer < 2; peer++) {
    __u16 port = 0;
    len = sizeof ss;
    if ((peer ? getpeername : getsockname) (fd, (struct sockaddr *) &ss, &len) == -1)
      continue;
    if (ss.ss_family == AF_INET)
      port = ntohs (((struct sockaddr_in *) &ss)->sin_port);
    else if (ss.ss_family == AF_INET6)
      port = ntohs (((struct sockaddr_in6 *) &ss)->sin6_port);
    if (port != 0 && bpf_map_lookup_elem (m->ports, &port, &value) == 0)
      return 1;
  }
  return 0;
}

struct every {
  const struct sb_watch_maps *m;
  const char *comm;
  uint32_t uid;
  unsigned looked;
  unsigned set;
};

static int
tune_one (void *arg, int fd, unsigned long long inode, int copy)
{
  struct every *ev = arg;
  struct sockaddr_storage peer;
  socklen_t len = sizeof peer;
  int listener;

  (void) fd;
  (void) inode;
  if (!is_tcp (copy))
    return 0;
  /* Listening, or connected: a socket bound but not yet listening is
   * left for its event (or the next sweep).
   */
  listener = int_option (copy, SOL_SOCKET, SO_ACCEPTCONN) == 1;
  if (!listener && getpeername (copy, (struct sockaddr *) &peer, &len) == -1)
    return 0;
  if (ev->m->settings.filter == SB_HOST_FILTER_PORTS &&
      !local_or_remote_port_listed (ev->m, copy))
    return 0;
  return set_nodelay (ev->m, copy, ev->comm, ev->uid, listener) == SB_WATCH_SET;
}

static int
count_sweep_look (void *arg, int fd, unsigned long long inode)
{
  struct every *ev = arg;

  (void) fd;
  (void) inode;
  return ev->looked++ < SB_WATCH_MAX_LOOKS ? 0 : TOO_MANY;
}

static int
tune_taken (void *arg, int fd, unsigned long long inode, int copy)
{
  struct every *ev = arg;

  ev->set += (unsigned) tune_one (arg, fd, inode, copy);
  return 0;
}

static void
tune_process (void *arg, pid_t pid, int pidfd, const char comm[SB_HOST_COMM_LEN])
{
  struct every *ev = arg;
  struct sb_socket_walk w = { .listed = count_sweep_look, .taken = tune_taken,
                              .arg = ev };

  ev->comm = comm;
  sb_walk_sockets (pid, pidfd, &w);
}

unsigned
sb_watch_tune_process (const struct sb_watch_maps *m, pid_t pid, uint32_t uid,
                       unsigned *looked)
{
  struct every ev = { .m = m, .uid = uid };

  sb_host_take_process (pid, &m->settings, m->programs, tune_process, &ev);
  *looked += ev.looked;
  return ev.set;
}
