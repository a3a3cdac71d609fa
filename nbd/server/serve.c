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
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "server.h"

static unsigned next_id;

static void *
conn_thread (void *arg)
{
  struct conn *c = arg;

  conn_serve (c);
  admit_leave (c);
  free (c);
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

  pthread_attr_init (&attr);
  pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
  err = pthread_create (&t, &attr, conn_thread, c);
  pthread_attr_destroy (&attr);
  if (err != 0) {
    sb_error ("pthread_create: %s", strerror (err));
    admit_leave (c);
    close (c->fd);
    free (c);
  }
}

static void
accept_one (int lfd, struct export *ex, const struct config *cfg)
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
  if ((ss.ss_family == AF_INET || ss.ss_family == AF_INET6)
      && !ex->leave_nagle_on)
    set_nodelay (fd);
  c = calloc (1, sizeof *c);
  if (c == NULL) {
    close (fd);
    return;
  }
  *c = (struct conn) { .fd = fd, .ex = ex, .id = ++next_id };
  if (!admit (c, cfg->max_connections, cfg->handshake_timeout)) {
    if (ex->verbose)
      sb_error ("connection %u refused: %u connections open past their"
               " handshakes", c->id, cfg->max_connections);
    close (fd);
    free (c);
    return;
  }
  start_thread (c);
}

/* How long the server keeps serving the --run command after a signal
 * of its own: a terminal's Ctrl-C reaches both, and the command may
 * need the server to finish the requests it has in flight.
 */
#define CAPTIVE_GRACE_SECONDS 5

/* What the accept loop is waiting for besides clients. */
struct serving {
  pid_t child;                  /* the --run command while it runs, or 0 */
  int stop_signal;              /* received while the command ran, or 0 */
  uint64_t stop_by;             /* sb_monotonic_ns: end of the grace */
  bool verbose;
};

static int
exit_status (int st)
{
  return WIFEXITED (st) ? WEXITSTATUS (st) : 128 + WTERMSIG (st);
}

/* After a signal of its own the server exits 128+N, whatever the
 * command then does: an interrupted run is never a success.
 */
static int
reap_children (struct serving *s)
{
  pid_t p;
  int st;

  while ((p = waitpid (-1, &st, WNOHANG)) > 0)
    if (p == s->child)
      return s->stop_signal ? 128 + s->stop_signal : exit_status (st);
  return -1;
}

/* SIGINT, SIGTERM or SIGHUP: without a command running, exit 0; with
 * one, keep serving it for the grace (a second signal cuts that short).
 */
static int
stop_requested (struct serving *s, int sig)
{
  if (s->child == 0) {
    if (s->verbose)
      sb_error ("%s, exiting", strsignal (sig));
    return 0;
  }
  if (s->stop_signal != 0)
    return 128 + s->stop_signal;
  s->stop_signal = sig;
  s->stop_by = sb_monotonic_ns ()
    + (uint64_t) CAPTIVE_GRACE_SECONDS * 1000000000u;
  if (s->verbose)
    sb_error ("%s: serving the command for at most %d s more",
              strsignal (sig), CAPTIVE_GRACE_SECONDS);
  return -1;
}

/* Returns -1 to keep serving, else the process exit status. */
static int
on_signal (int sfd, struct serving *s)
{
  struct signalfd_siginfo si;

  if (read (sfd, &si, sizeof si) != (ssize_t) sizeof si)
    return -1;
  if (si.ssi_signo == SIGCHLD)
    return reap_children (s);
  return stop_requested (s, (int) si.ssi_signo);
}

/* Milliseconds poll may sleep: until the grace ends or the next
 * handshake deadline (cutting the handshakes past theirs), or for ever.
 */
static int
poll_timeout (const struct serving *s, unsigned handshake_seconds)
{
  int ms = admit_expire (handshake_seconds), grace;
  uint64_t now = sb_monotonic_ns ();

  if (s->stop_signal == 0)
    return ms;
  grace = now >= s->stop_by ? 0
    : (int) ((s->stop_by - now + 999999) / 1000000);
  return ms == -1 || grace < ms ? grace : ms;
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
  struct serving s = { .verbose = cfg->verbose };
  struct pollfd fds[2];
  int sfd = block_signals (), status = -1;

  if (sfd == -1) {
    sb_error ("signalfd: %s", strerror (errno));
    return 1;
  }
  if (cfg->run != NULL && (s.child = captive_start (cfg->run, l)) == -1)
    return 1;
  fds[0] = (struct pollfd) { .fd = sfd, .events = POLLIN };
  fds[1] = (struct pollfd) { .fd = l->fd, .events = POLLIN };
  while (status == -1) {
    int n = poll (fds, 2, poll_timeout (&s, cfg->handshake_timeout));
    if (n == -1 && errno != EINTR) {
      sb_error ("poll: %s", strerror (errno));
      return 1;
    }
    /* Checked first: clients arriving all the time must not keep the
     * grace from ending.
     */
    if (s.stop_signal != 0 && sb_monotonic_ns () >= s.stop_by)
      status = 128 + s.stop_signal;
    else if (n > 0 && (fds[0].revents & POLLIN))
      status = on_signal (sfd, &s);
    else if (n > 0 && (fds[1].revents & POLLIN))
      accept_one (l->fd, ex, cfg);
  }
  close (sfd);
  return status;
}
