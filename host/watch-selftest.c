/* SPDX-License-Identifier: MIT */
/* The watcher's self-test (watch-selftest.h). */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "filter.h"
#include "selftest.h"
#include "watch-load.h"
#include "watch-loop.h"
#include "watch-selftest.h"

/* The self-test's cgroup, followed by the loader's pid. */
#define SELFTEST_CGROUP "sockboost-watch-selftest."
/* How long its process waits for each socket to be tuned. */
#define WAIT_MS 3000

/* ---- its process --------------------------------------------------------- */

static int
fail (struct sb_watch_selftest *r, const char *what)
{
  snprintf (r->problem, sizeof r->problem, "%s: %s", what, strerror (errno));
  return -1;
}

static int
loopback_up (struct sb_watch_selftest *r)
{
  struct ifreq ifr;
  int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), status = 0;

  memset (&ifr, 0, sizeof ifr);
  strcpy (ifr.ifr_name, "lo");
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

/* TCP_NODELAY of FD once it is on, or what it still is after WAIT_MS:
 * the watcher sets it from outside, a moment after the event.
 */
static int
nodelay_after_wait (int fd)
{
  const struct timespec pause = { 0, 1000 * 1000 };
  int value = -1;

  for (int i = 0; i < WAIT_MS; i++) {
    socklen_t len = sizeof value;
    if (getsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &value, &len) == -1 ||
        value != 0)
      break;
    nanosleep (&pause, NULL);
  }
  return value;
}

/* A listener (tuned before anything connects, as the common case is), a
 * client and the accepted socket.
 */
static void
connect_to_self (struct sb_watch_selftest *r)
{
  struct sockaddr_in addr = { .sin_family = AF_INET,
                              .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof addr;
  int l = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int c = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), a;

  if (l == -1 || c == -1) {
    fail (r, "socket");
    return;
  }
  if (bind (l, (struct sockaddr *) &addr, len) == -1 || listen (l, 1) == -1 ||
      getsockname (l, (struct sockaddr *) &addr, &len) == -1) {
    fail (r, "listening");
    return;
  }
  r->nodelay[0] = nodelay_after_wait (l);
  if (connect (c, (struct sockaddr *) &addr, len) == -1) {
    fail (r, "connecting");
    return;
  }
  a = accept4 (l, NULL, NULL, SOCK_CLOEXEC);
  if (a == -1) {
    fail (r, "accepting");
    return;
  }
  r->nodelay[1] = nodelay_after_wait (c);
  r->nodelay[2] = nodelay_after_wait (a);
}

/* The sockets made by a thread of another name than the process's. */
static void *
connect_from_thread (void *arg)
{
  struct sb_watch_selftest *r = arg;

  if (prctl (PR_SET_NAME, SB_HOST_SELFTEST_THREAD) == -1)
    fail (r, "naming the self-test's thread");
  else
    connect_to_self (r);
  return NULL;
}

static void
child (int procs_fd, int report_fd, int by_thread)
{
  struct sb_watch_selftest r;
  pthread_t thread;
  int err;

  memset (&r, 0, sizeof r);
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (write (procs_fd, "0", 1) != 1)
    fail (&r, "joining the self-test's cgroup");
  else if (prctl (PR_SET_NAME, SB_HOST_SELFTEST_NAME) == -1)
    fail (&r, "naming the self-test process");
  else if (unshare (CLONE_NEWNET) == -1)
    fail (&r, "making a private network namespace");
  else if (loopback_up (&r) == 0 && !by_thread)
    connect_to_self (&r);
  else if (r.problem[0] == '\0' &&
           (err = pthread_create (&thread, NULL, connect_from_thread, &r)) != 0) {
    errno = err;
    fail (&r, "starting the self-test's thread");
  }
  else if (r.problem[0] == '\0')
    pthread_join (thread, NULL);
  if (write (report_fd, &r, sizeof r) != (ssize_t) sizeof r)
    _exit (1);
  _exit (0);
}

/* ---- the watcher's side ----------------------------------------------------- */

/* Fork the process into the cgroup at CGROUP_FD and watch it with IN
 * until it reports into R.
 */
static int
run (int cgroup_fd, struct sb_watch_instance *in, int by_thread,
     struct sb_watch_selftest *r, char *why, size_t why_len)
{
  struct sb_watch_maps m = { .watch_marks = sb_watch_marks_fd (in),
                             .marks = -1, .counts = -1, .programs = -1,
                             .ports = -1 };
  static struct sb_watch_loop loop;
  int pipefd[2], procs_fd, status = -1;
  pid_t pid;

  procs_fd = openat (cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
  if (procs_fd == -1 || pipe2 (pipefd, O_CLOEXEC) == -1) {
    snprintf (why, why_len, "self-test: %s", strerror (errno));
    if (procs_fd >= 0)
      close (procs_fd);
    return -1;
  }
  pid = fork ();
  if (pid == 0)
    child (procs_fd, pipefd[1], by_thread);
  close (pipefd[1]);
  close (procs_fd);
  sb_watch_loop_init (&loop, &m, cgroup_fd, sb_watch_counts_fd (in));
  if (pid == -1)
    snprintf (why, why_len, "self-test: fork: %s", strerror (errno));
  else if (sb_watch_run (&loop, sb_watch_events_fd (in), pipefd[0], why,
                         why_len) == -1)
    ;
  else if (read (pipefd[0], r, sizeof *r) != (ssize_t) sizeof *r)
    snprintf (why, why_len, "self-test: its process failed");
  else {
    memcpy (r->counts, loop.counts, sizeof r->counts);
    status = 0;
  }
  close (pipefd[0]);
  if (pid > 0) {
    kill (pid, SIGKILL);
    waitpid (pid, NULL, 0);
  }
  return status;
}

int
sb_watch_selftest (int parent_fd, const struct sb_host_settings *base,
                   struct sb_watch_selftest *r, char *why, size_t why_len)
{
  struct sb_host_settings s;
  struct sb_host_filter_spec f;
  struct sb_watch_reuse none = { -1, -1, -1, -1 };
  struct sb_watch_instance in;
  char name[64];
  int cgroup_fd, status = -1;

  memset (r, 0, sizeof *r);
  memset (&s, 0, sizeof s);
  s.filter = SB_HOST_FILTER_PROGRAMS;
  s.task_group_leader = base->task_group_leader;
  s.task_comm = base->task_comm;
  sb_host_parse_programs (SB_HOST_SELFTEST_NAME, &f, why, why_len);
  sb_host_first_bytes (&f, (uint64_t *) s.first_bytes);
  if (sb_watch_load (&in, &none, why, why_len) == -1)
    return -1;
  if (sb_watch_fill_filter (&in, &s, &f) == -1) {
    snprintf (why, why_len, "cannot fill the watcher's BPF maps: %s",
              strerror (errno));
    sb_watch_unload (&in);
    return -1;
  }
  sb_host_cgroup_remove_stale (parent_fd, SELFTEST_CGROUP);
  snprintf (name, sizeof name, SELFTEST_CGROUP "%d", (int) getpid ());
  cgroup_fd = sb_host_cgroup_make_child (parent_fd, name);
  if (cgroup_fd == -1)
    snprintf (why, why_len, "cannot make the self-test's cgroup: %s",
              strerror (errno));
  else if (sb_watch_attach (&in, cgroup_fd, why, why_len) == 0 &&
           run (cgroup_fd, &in, s.task_comm != 0, r, why, why_len) == 0)
    status = 0;
  sb_watch_unload (&in);
  if (cgroup_fd >= 0) {
    close (cgroup_fd);
    sb_host_cgroup_remove_child (parent_fd, name);
  }
  return status;
}

int
sb_watch_selftest_passed (const struct sb_watch_selftest *r, char *why,
                          size_t why_len)
{
  if (r->nodelay[0] == 1 && r->nodelay[1] == 1 && r->nodelay[2] == 1 &&
      r->counts[SB_WATCH_COUNT_SET] >= 2)
    return 1;
  snprintf (why, why_len, "the watcher's self-test: TCP_NODELAY of the "
            "listener %d, the client %d, the accepted socket %d; %llu events, "
            "%llu sockets set%s%s", r->nodelay[0], r->nodelay[1], r->nodelay[2],
            (unsigned long long) r->counts[SB_WATCH_COUNT_EVENTS],
            (unsigned long long) r->counts[SB_WATCH_COUNT_SET],
            r->problem[0] ? "; " : "", r->problem);
  return 0;
}
