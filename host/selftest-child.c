/* SPDX-License-Identifier: MIT */
/* The self-test's process (selftest.h): it joins the private cgroup,
 * takes the name the programs look for, makes a network namespace of
 * its own, connects to itself over TCP and over a unix stream socket,
 * and reports the options it finds.
 */
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "selftest-child.h"

static int
fail (struct sb_host_selftest *r, const char *what)
{
  snprintf (r->problem, sizeof r->problem, "%s: %s", what, strerror (errno));
  return -1;
}

static int
loopback_up (struct sb_host_selftest *r)
{
  struct ifreq ifr = { .ifr_name = "lo" };
  int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), status = 0;

  if (fd == -1)
    return fail (r, "socket");
  if (ioctl (fd, SIOCGIFFLAGS, &ifr) == -1)
    status = fail (r, "reading the loopback's flags");
  ifr.ifr_flags |= IFF_UP;
  if (status == 0 && ioctl (fd, SIOCSIFFLAGS, &ifr) == -1)
    status = fail (r, "bringing the loopback up");
  close (fd);
  return status;
}

static int
int_option (int fd, int level, int name)
{
  int value = -1;
  socklen_t len = sizeof value;

  getsockopt (fd, level, name, &value, &len);
  return value;
}

/* A listener, a client connected to it and the accepted socket of
 * family ADDR->sa_family in FDS[0..2].
 */
static int
connect_to_self (struct sockaddr *addr, socklen_t len, int fds[3],
                 struct sb_host_selftest *r)
{
  fds[0] = socket (addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  fds[1] = socket (addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fds[0] == -1 || fds[1] == -1)
    return fail (r, "socket");
  if (bind (fds[0], addr, len) == -1 || listen (fds[0], 1) == -1 ||
      getsockname (fds[0], addr, &len) == -1)
    return fail (r, "listening");
  if (addr->sa_family == AF_UNIX)
    r->unix_before = int_option (fds[1], SOL_SOCKET, SO_SNDBUF);
  if (connect (fds[1], addr, len) == -1)
    return fail (r, "connecting");
  fds[2] = accept4 (fds[0], NULL, NULL, SOCK_CLOEXEC);
  if (fds[2] == -1)
    return fail (r, "accepting");
  return 0;
}

static int
tcp_check (struct sb_host_selftest *r)
{
  struct sockaddr_in addr = { .sin_family = AF_INET,
                              .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int fds[3];

  if (connect_to_self ((struct sockaddr *) &addr, sizeof addr, fds, r) == -1)
    return -1;
  r->tcp_nodelay[0] = int_option (fds[1], IPPROTO_TCP, TCP_NODELAY);
  r->tcp_nodelay[1] = int_option (fds[2], IPPROTO_TCP, TCP_NODELAY);
  return 0;
}

/* An abstract address: nothing in a file system, and private to the
 * network namespace.  The server asks for its accepted socket's name,
 * as QEMU and nbdkit do, which is where the kernel's hook sees it.
 */
static int
unix_check (struct sb_host_selftest *r)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  struct sockaddr_un name;
  socklen_t len = sizeof name;
  int fds[3], n;

  n = snprintf (addr.sun_path + 1, sizeof addr.sun_path - 1,
                "sockboost-selftest.%d", (int) getpid ());
  if (connect_to_self ((struct sockaddr *) &addr,
                       (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 + n),
                       fds, r) == -1)
    return -1;
  if (getsockname (fds[2], (struct sockaddr *) &name, &len) == -1)
    return fail (r, "getsockname");
  r->unix_sndbuf[0] = int_option (fds[1], SOL_SOCKET, SO_SNDBUF);
  r->unix_sndbuf[1] = int_option (fds[2], SOL_SOCKET, SO_SNDBUF);
  return 0;
}

struct checks {
  struct sb_host_selftest r;
  int with_unix;
};

static void *
connections (void *arg)
{
  struct checks *c = arg;

  if (tcp_check (&c->r) == 0 && c->with_unix)
    unix_check (&c->r);
  return NULL;
}

/* The connections from a thread of another name than the process's: the
 * programs must take the process by its own name (its leader's).
 */
static void *
connections_of_thread (void *arg)
{
  struct checks *c = arg;

  if (prctl (PR_SET_NAME, SB_HOST_SELFTEST_THREAD) == -1)
    fail (&c->r, "naming the self-test's thread");
  else
    connections (c);
  return NULL;
}

static int
in_thread (struct checks *c)
{
  pthread_t thread;
  int err = pthread_create (&thread, NULL, connections_of_thread, c);

  if (err != 0) {
    errno = err;
    return fail (&c->r, "starting the self-test's thread");
  }
  pthread_join (thread, NULL);
  return 0;
}

/* Join the cgroup, take the name, make a private network. */
static int
set_up (int procs_fd, struct sb_host_selftest *r)
{
  if (write (procs_fd, "0", 1) != 1)
    return fail (r, "joining the self-test's cgroup");
  if (prctl (PR_SET_NAME, SB_HOST_SELFTEST_NAME) == -1)
    return fail (r, "naming the self-test process");
  if (unshare (CLONE_NEWNET) == -1)
    return fail (r, "making a private network namespace");
  return loopback_up (r);
}

void
sb_host_selftest_child (int procs_fd, int report_fd, int with_unix,
                        int by_thread)
{
  struct checks c = { .with_unix = with_unix };

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (set_up (procs_fd, &c.r) == 0) {
    if (by_thread)
      in_thread (&c);
    else
      connections (&c);
  }
  if (write (report_fd, &c.r, sizeof c.r) != (ssize_t) sizeof c.r)
    _exit (1);
  _exit (0);
}
