/* SPDX-License-Identifier: MIT */
/* Test helper: everything at once that could make the library hang,
 * crash, race or damage data, for its sanitizer builds.
 *
 *   preload-stress SECONDS
 *
 * - Streams: 3 tracked TCP NBD connections, each with its own sender
 *   (WRITE header and payload in separate calls, corked), server and
 *   reply reader; every payload byte checked.
 * - A shared connection: 3 threads send whole WRITE and FLUSH requests
 *   on one socket at once (one writev each), and a SIGALRM handler, every
 *   500 microseconds on whichever thread it lands, sends FLUSHes there
 *   too; the server end checks every request.
 * - Churn: one thread opens TCP connections, sends an NBD greeting and
 *   closes them; another closes or dup2()s /dev/null over the same
 *   numbers meanwhile (their errors are expected, and ignored).  These
 *   calls go straight to the library's hooks, past any sanitizer's
 *   interceptors: ThreadSanitizer (clang 14) crashes while reporting the
 *   races on descriptors that this part makes on purpose, and what must
 *   be race-free is the library's memory, which it still watches.
 * - Forks: a thread forks (the child sends on inherited tracked sockets
 *   and uses a fresh one) and vforks (the child dup2()s over and closes
 *   the parent's sockets before exec) in turn.
 *
 * Prints a summary line; exits 0 if every byte and request arrived
 * intact and every child exited 0.
 */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "nbd-pair.h"
#include "pattern.h"

#define STREAMS 3
#define SHARED_SENDERS 3
#define DEPTH 8                 /* a stream's requests in flight */
#define MAX_LEN 4096
#define SHARED_WINDOW (256 * 1024) /* bytes sent to the shared socket
                                       but not yet read */
#define CHURN 8

struct stream {
  struct nbd_pair p;
  sem_t window;
  pthread_t threads[3];
};

static struct stream streams[STREAMS];
static struct nbd_pair shared;
static atomic_bool stop;
static atomic_ullong checked, shared_sent, shared_got, handler_sends,
  churned, forks, vforks;
static atomic_int failures, in_handler;
static _Atomic int churn_fd[CHURN];
static int listener, null;       /* both opened before any thread runs */
static struct sockaddr_in listen_addr;

static void
fail (const char *what)
{
  fprintf (stderr, "preload-stress: %s: %s\n", what, strerror (errno));
  atomic_fetch_add (&failures, 1);
}

/* The payload of request COOKIE: its length and where in the pattern. */
static uint32_t
len_of (uint64_t cookie)
{
  return (uint32_t) (1 + (cookie * 2654435761u) % MAX_LEN);
}

static uint64_t
offset_of (uint64_t cookie)
{
  return (cookie % 1000) * MAX_LEN;
}

static struct nbd_request
write_request (uint64_t cookie)
{
  return nbd_pair_request (NBD_CMD_WRITE, cookie, offset_of (cookie),
                           len_of (cookie));
}

/* Read and check the payload of the WRITE request Q from FD. */
static int
read_payload (int fd, const struct nbd_request *q)
{
  static _Thread_local char buf[MAX_LEN];
  uint32_t len = be32toh (q->count);

  if (len > MAX_LEN || sb_read_full (fd, buf, len) == -1)
    return -1;
  if (sb_pattern_mismatch (buf, be64toh (q->offset), len) != -1) {
    errno = EILSEQ;
    return -1;
  }
  atomic_fetch_add (&checked, len);
  return 0;
}

/* ---- Streams: one connection each, split writes, checked ---- */

/* A slot of S's window (signals interrupt sem_wait whatever SA_RESTART). */
static void
take_slot (struct stream *s)
{
  while (sem_wait (&s->window) == -1 && errno == EINTR)
    ;
}

static void *
stream_sender (void *arg)
{
  struct stream *s = arg;
  uint64_t cookie = 1;

  for (; !atomic_load (&stop); cookie++) {
    struct nbd_request q = write_request (cookie);
    take_slot (s);
    if (write (s->p.client, &q, sizeof q) != sizeof q
        || sb_write_full (s->p.client, sb_pattern_at (offset_of (cookie),
                                                       len_of (cookie)),
                          len_of (cookie), 0) == -1) {
      fail ("stream send");
      return NULL;
    }
  }
  for (int i = 0; i < DEPTH; i++)
    take_slot (s);
  struct nbd_request disc = nbd_pair_request (NBD_CMD_DISC, 0, 0, 0);
  if (sb_write_full (s->p.client, &disc, sizeof disc, 0) == -1)
    fail ("stream DISC");
  return NULL;
}

static void *
stream_server (void *arg)
{
  struct stream *s = arg;
  struct nbd_simple_reply r = { .magic = htobe32 (NBD_SIMPLE_REPLY_MAGIC) };
  struct nbd_request q;

  while (sb_read_full (s->p.server, &q, sizeof q) == 0
         && be16toh (q.type) == NBD_CMD_WRITE) {
    r.cookie = q.cookie;
    if (read_payload (s->p.server, &q) == -1
        || sb_write_full (s->p.server, &r, sizeof r, 0) == -1) {
      fail ("stream server");
      return NULL;
    }
  }
  if (be16toh (q.type) != NBD_CMD_DISC)
    fail ("stream server: no DISC");
  shutdown (s->p.server, SHUT_WR);      /* the reply reader's end */
  return NULL;
}

static void *
stream_replies (void *arg)
{
  struct stream *s = arg;
  struct nbd_simple_reply r;
  uint64_t expect = 1;

  while (sb_read_full (s->p.client, &r, sizeof r) == 0) {
    if (be32toh (r.magic) != NBD_SIMPLE_REPLY_MAGIC
        || be64toh (r.cookie) != expect++) {
      errno = EPROTO;
      fail ("stream reply");
      return NULL;
    }
    sem_post (&s->window);
  }
  if (errno != ENODATA)
    fail ("stream replies");
  return NULL;
}

/* ---- The shared connection: whole requests from many senders ---- */

/* One request, in one call: no other sender can split it.  A FLUSH
 * (COOKIE 0) touches nothing but the stack: the signal handler sends it.
 */
static int
send_whole (int fd, uint64_t cookie, int flags)
{
  struct nbd_request q = cookie ? write_request (cookie)
    : nbd_pair_request (NBD_CMD_FLUSH, 0, 0, 0);
  struct iovec iov[2] = { { &q, sizeof q }, { NULL, 0 } };
  struct msghdr m = { .msg_iov = iov, .msg_iovlen = cookie ? 2 : 1 };
  ssize_t want = (ssize_t) sizeof q;

  if (cookie) {
    iov[1] = (struct iovec) {
      (void *) (uintptr_t) sb_pattern_at (offset_of (cookie),
                                          len_of (cookie)), len_of (cookie) };
    want += len_of (cookie);
  }
  if (sendmsg (fd, &m, flags | MSG_NOSIGNAL) != want)
    return -1;
  atomic_fetch_add (&shared_sent, 1);
  return 0;
}

static void
on_alarm (int sig)
{
  int saved = errno;

  (void) sig;
  atomic_fetch_add (&in_handler, 1);
  if (!atomic_load (&stop)
      && atomic_load (&shared_sent) - atomic_load (&shared_got) < 64) {
    if (send_whole (shared.client, 0, MSG_DONTWAIT) == 0)
      atomic_fetch_add (&handler_sends, 1);
    else
      atomic_fetch_add (&failures, 1);
  }
  atomic_fetch_sub (&in_handler, 1);
  errno = saved;
}

static void *
shared_sender (void *arg)
{
  uint64_t cookie = (uintptr_t) arg;

  while (!atomic_load (&stop)) {
    if ((atomic_load (&shared_sent) - atomic_load (&shared_got))
        * MAX_LEN > SHARED_WINDOW) {
      sched_yield ();
      continue;
    }
    if (send_whole (shared.client, cookie, 0) == -1) {
      fail ("shared send");
      return NULL;
    }
    cookie += SHARED_SENDERS;
  }
  return NULL;
}

static void *
shared_server (void *arg)
{
  struct nbd_request q;

  (void) arg;
  while (sb_read_full (shared.server, &q, sizeof q) == 0) {
    uint16_t type = be16toh (q.type);
    if (be32toh (q.magic) != NBD_REQUEST_MAGIC
        || (type == NBD_CMD_WRITE && read_payload (shared.server, &q) == -1)) {
      errno = EPROTO;
      fail ("shared request");
      return NULL;
    }
    if (type == NBD_CMD_DISC)
      return NULL;
    atomic_fetch_add (&shared_got, 1);
  }
  fail ("shared server");
  return NULL;
}

/* ---- Churn: the same numbers opened, closed and replaced at once ---- */

/* The next definitions after this program's (see the top). */
static struct {
  int (*socket) (int, int, int);
  int (*connect) (int, const struct sockaddr *, socklen_t);
  int (*accept) (int, struct sockaddr *, socklen_t *);
  ssize_t (*send) (int, const void *, size_t, int);
  int (*close) (int);
  int (*dup2) (int, int);
} direct;

static int
bind_direct (void)
{
  direct.socket = (int (*) (int, int, int)) dlsym (RTLD_NEXT, "socket");
  direct.connect = (int (*) (int, const struct sockaddr *, socklen_t))
    dlsym (RTLD_NEXT, "connect");
  direct.accept = (int (*) (int, struct sockaddr *, socklen_t *))
    dlsym (RTLD_NEXT, "accept");
  direct.send = (ssize_t (*) (int, const void *, size_t, int))
    dlsym (RTLD_NEXT, "send");
  direct.close = (int (*) (int)) dlsym (RTLD_NEXT, "close");
  direct.dup2 = (int (*) (int, int)) dlsym (RTLD_NEXT, "dup2");
  return direct.socket && direct.connect && direct.accept && direct.send
    && direct.close && direct.dup2 ? 0 : -1;
}

static void
churn_once (int slot)
{
  struct nbd_new_handshake g = {
    .nbdmagic = htobe64 (NBD_MAGIC), .version = htobe64 (NBD_IHAVEOPT),
    .gflags = htobe16 (NBD_FLAG_FIXED_NEWSTYLE) };
  int c = direct.socket (AF_INET, SOCK_STREAM, 0), s = -1;

  if (c != -1 && direct.connect (c, (struct sockaddr *) &listen_addr,
                                 sizeof listen_addr) == 0)
    s = direct.accept (listener, NULL, NULL);
  atomic_store (&churn_fd[slot], s);
  if (s != -1) {
    (void) direct.send (s, &g, sizeof g, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void) direct.send (s, &g, 8, MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  direct.close (s);
  direct.close (c);
  atomic_fetch_add (&churned, 1);
}

static void *
churn_opener (void *arg)
{
  (void) arg;
  for (int i = 0; !atomic_load (&stop); i++)
    churn_once (i % CHURN);
  return NULL;
}

static void *
churn_closer (void *arg)
{
  (void) arg;
  for (int i = 0; !atomic_load (&stop); i++) {
    int fd = atomic_load (&churn_fd[i % CHURN]);
    if (fd <= 2)
      continue;
    if (i % 2)
      (void) direct.dup2 (null, fd);
    direct.close (fd);
  }
  return NULL;
}

/* ---- Forks ---- */

static int
fork_child (void)
{
  char out[64], in[64];
  int sv[2];

  signal (SIGALRM, SIG_DFL);
  alarm (10);
  for (int i = 0; i < STREAMS; i++)
    if (send (streams[i].p.client, out, 0, MSG_DONTWAIT | MSG_NOSIGNAL) != 0)
      return 1;
  memcpy (out, sb_pattern_at (0, sizeof out), sizeof out);
  if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) == -1
      || sb_write_full (sv[0], out, sizeof out, 0) == -1
      || sb_read_full (sv[1], in, sizeof in) == -1
      || memcmp (in, out, sizeof out) != 0)
    return 1;
  return 0;
}

/* Between vfork and exec: the parent's sockets closed in the child. */
static void
vfork_child (void)
{
  for (int i = 0; i < STREAMS; i++)
    if (dup2 (null, streams[i].p.client) == -1
        || close (streams[i].p.server) != 0)
      _exit (1);
  if (close (shared.client) != 0)
    _exit (1);
  execl ("/bin/true", "true", (char *) NULL);
  _exit (127);
}

static void
reap (pid_t pid, atomic_ullong *count)
{
  int status;

  if (pid == -1 || waitpid (pid, &status, 0) != pid)
    fail ("fork/waitpid");
  else if (!WIFEXITED (status) || WEXITSTATUS (status) != 0) {
    fprintf (stderr, "preload-stress: %s child: status 0x%x\n",
             count == &forks ? "fork" : "vfork", (unsigned) status);
    atomic_fetch_add (&failures, 1);
  }
  else
    atomic_fetch_add (count, 1);
}

/* SIGALRM is blocked here: a handler run in a child (a sanitizer may
 * hold a signal back and deliver it after fork) would send on the
 * shared socket unseen by the parent's count.
 */
static void *
forker (void *arg)
{
  struct timespec pause = { 0, 20 * 1000 * 1000 };
  sigset_t set;

  (void) arg;
  sigemptyset (&set);
  sigaddset (&set, SIGALRM);
  pthread_sigmask (SIG_BLOCK, &set, NULL);
  while (!atomic_load (&stop)) {
    pid_t pid = fork ();
    if (pid == 0)
      _exit (fork_child ());
    reap (pid, &forks);
    pid = vfork ();
    if (pid == 0)
      vfork_child ();
    reap (pid, &vforks);
    nanosleep (&pause, NULL);
  }
  return NULL;
}

/* ---- Set-up and the run ---- */

static int
open_listener (void)
{
  socklen_t len = sizeof listen_addr;

  listen_addr = (struct sockaddr_in) { .sin_family = AF_INET,
                                       .sin_addr.s_addr =
                                         htonl (INADDR_LOOPBACK) };
  listener = socket (AF_INET, SOCK_STREAM, 0);
  return listener == -1
    || bind (listener, (struct sockaddr *) &listen_addr, len) == -1
    || listen (listener, CHURN) == -1
    || getsockname (listener, (struct sockaddr *) &listen_addr, &len) == -1
    ? -1 : 0;
}

static int
set_up (void)
{
  for (int i = 0; i < CHURN; i++)
    atomic_store (&churn_fd[i], -1);
  for (int i = 0; i < STREAMS; i++) {
    if (nbd_pair_open (&streams[i].p, false) == -1)
      return -1;
    sem_init (&streams[i].window, 0, DEPTH);
  }
  null = open ("/dev/null", O_WRONLY);
  (void) sb_pattern_at (0, MAX_LEN);    /* filled before any signal */
  return null == -1 || bind_direct () == -1 || nbd_pair_open (&shared, false) == -1
    ? -1 : open_listener ();
}

static void
start_alarms (void)
{
  struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
  struct itimerval it = { { 0, 500 }, { 0, 500 } };

  sigemptyset (&sa.sa_mask);
  if (sigaction (SIGALRM, &sa, NULL) == -1
      || setitimer (ITIMER_REAL, &it, NULL) == -1)
    fail ("setitimer");
}

/* No handler sends once this returns (it checks STOP after counting
 * itself in).
 */
static void
stop_alarms (void)
{
  struct itimerval off = { { 0, 0 }, { 0, 0 } };

  atomic_store (&stop, true);
  setitimer (ITIMER_REAL, &off, NULL);
  while (atomic_load (&in_handler) > 0)
    sched_yield ();
}

/* Sleep SECONDS whatever signals interrupt. */
static void
run_for (int seconds)
{
  struct timespec left = { seconds, 0 };

  while (nanosleep (&left, &left) == -1 && errno == EINTR)
    ;
}

#define NTHREADS (3 * STREAMS + SHARED_SENDERS + 4)

static int
start_threads (pthread_t *t)
{
  int n = 0;

  for (int i = 0; i < STREAMS; i++) {
    pthread_create (&t[n++], NULL, stream_sender, &streams[i]);
    pthread_create (&t[n++], NULL, stream_server, &streams[i]);
    pthread_create (&t[n++], NULL, stream_replies, &streams[i]);
  }
  for (uintptr_t i = 1; i <= SHARED_SENDERS; i++)
    pthread_create (&t[n++], NULL, shared_sender, (void *) i);
  pthread_create (&t[n++], NULL, shared_server, NULL);
  pthread_create (&t[n++], NULL, churn_opener, NULL);
  pthread_create (&t[n++], NULL, churn_closer, NULL);
  pthread_create (&t[n++], NULL, forker, NULL);
  return n;
}

int
main (int argc, char **argv)
{
  int seconds = argc == 2 ? atoi (argv[1]) : 0, n;
  struct nbd_request disc = nbd_pair_request (NBD_CMD_DISC, 0, 0, 0);
  pthread_t t[NTHREADS];

  if (seconds < 1 || seconds > 600) {
    fprintf (stderr, "usage: preload-stress SECONDS\n");
    return 2;
  }
  /* Programs this one runs (/bin/true, a sanitizer's symbolizer) must
   * not load a library built for another runtime.
   */
  unsetenv ("LD_PRELOAD");
  if (set_up () == -1) {
    fail ("setting up");
    return 1;
  }
  start_alarms ();
  n = start_threads (t);
  run_for (seconds);
  stop_alarms ();
  for (int i = 0; i < n; i++)
    if (i != 3 * STREAMS + SHARED_SENDERS)   /* the shared server: below */
      pthread_join (t[i], NULL);
  if (sb_write_full (shared.client, &disc, sizeof disc, 0) == -1)
    fail ("shared DISC");
  pthread_join (t[3 * STREAMS + SHARED_SENDERS], NULL);
  printf ("bytes-checked %llu shared %llu/%llu handler %llu churn %llu "
          "forks %llu vforks %llu failures %d\n",
          (unsigned long long) checked, (unsigned long long) shared_got,
          (unsigned long long) shared_sent,
          (unsigned long long) handler_sends, (unsigned long long) churned,
          (unsigned long long) forks, (unsigned long long) vforks,
          atomic_load (&failures));
  return atomic_load (&failures) == 0 && shared_got == shared_sent
    && checked > 0 && forks > 0 && vforks > 0 ? 0 : 1;
}
