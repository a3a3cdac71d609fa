/* SPDX-License-Identifier: MIT */
/* Accept loop: a thread per client, a bounded number of them; signals
 * and the captive command's end are read from a signalfd in the same
 * poll, so shutdown happens in one place, outside any signal handler.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server.h"

static atomic_uint active;
static unsigned next_id;

static void *
conn_thread (void *arg)
{
  struct conn *c = arg;

  conn_serve (c);
  free (c);
  atomic_fetch_sub (&active, 1);
  return NULL;
}

static void
set_nodelay (int fd)
{
  int one = 1;

  /* Best effort: replies must not wait for Nagle. */
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void
start_thread (struct conn *c)
{
  pthread_attr_t attr;
  pthread_t t;
  int err;

  atomic_fetch_add (&active, 1);
  pthread_attr_init (&attr);
  pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
  err = pthread_create (&t, &attr, conn_thread, c);
  pthread_attr_destroy (&attr);
  if (err != 0) {
    fprintf (stderr, "%s: pthread_create: %s\n", PROGRAM, strerror (err));
    close (c->fd);
    free (c);
    atomic_fetch_sub (&active, 1);
  }
}

static void
accept_one (int lfd, struct export *ex, unsigned max)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  int fd = accept4 (lfd, (struct sockaddr *) &ss, &len, SOCK_CLOEXEC);
  struct conn *c;

  if (fd == -1) {
    /* Out of fds: back off a little rather than spin on poll. */
    if (errno == EMFILE || errno == ENFILE)
      usleep (10000);
    return;
  }
  next_id++;
  if (atomic_load (&active) >= max) {
    if (ex->verbose)
      fprintf (stderr, "%s: connection %u refused: %u connections open\n",
               PROGRAM, next_id, max);
    close (fd);
    return;
  }
  if ((ss.ss_family == AF_INET || ss.ss_family == AF_INET6)
      && !ex->leave_nagle_on)
    set_nodelay (fd);
  c = calloc (1, sizeof *c);
  if (c == NULL) {
    close (fd);
    return;
  }
  *c = (struct conn) { .fd = fd, .ex = ex, .id = next_id };
  start_thread (c);
}

static int
exit_status (int st)
{
  return WIFEXITED (st) ? WEXITSTATUS (st) : 128 + WTERMSIG (st);
}

/* Returns -1 to keep serving, else the process exit status. */
static int
on_signal (int sfd, pid_t child, bool verbose)
{
  struct signalfd_siginfo si;
  pid_t p;
  int st;

  if (read (sfd, &si, sizeof si) != (ssize_t) sizeof si)
    return -1;
  if (si.ssi_signo != SIGCHLD) {
    if (verbose)
      fprintf (stderr, "%s: %s, exiting\n", PROGRAM, strsignal ((int) si.ssi_signo));
    return 0;
  }
  while ((p = waitpid (-1, &st, WNOHANG)) > 0)
    if (p == child)
      return exit_status (st);
  return -1;
}

static int
block_signals (void)
{
  sigset_t set;

  sigemptyset (&set);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGHUP);
  sigaddset (&set, SIGCHLD);
  /* Before any thread exists, so that every thread inherits the mask. */
  pthread_sigmask (SIG_BLOCK, &set, NULL);
  return signalfd (-1, &set, SFD_CLOEXEC);
}

int
serve_forever (const struct listener *l, struct export *ex,
               const struct config *cfg)
{
  struct pollfd fds[2];
  pid_t child = 0;
  int sfd = block_signals (), status = -1;

  if (sfd == -1) {
    fprintf (stderr, "%s: signalfd: %s\n", PROGRAM, strerror (errno));
    return 1;
  }
  if (cfg->run != NULL && (child = captive_start (cfg->run, l)) == -1)
    return 1;
  fds[0] = (struct pollfd) { .fd = sfd, .events = POLLIN };
  fds[1] = (struct pollfd) { .fd = l->fd, .events = POLLIN };
  while (status == -1) {
    if (poll (fds, 2, -1) == -1 && errno != EINTR) {
      fprintf (stderr, "%s: poll: %s\n", PROGRAM, strerror (errno));
      return 1;
    }
    if (fds[0].revents & POLLIN)
      status = on_signal (sfd, child, cfg->verbose);
    else if (fds[1].revents & POLLIN)
      accept_one (l->fd, ex, cfg->max_connections);
  }
  close (sfd);
  return status;
}
