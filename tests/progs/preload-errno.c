/* SPDX-License-Identifier: MIT */
/* Test helper: call every hooked function in failing (and succeeding)
 * ways and print "what = return errno" per line.  Run with and without
 * the library; the two outputs must be identical.  Before each call errno
 * is set to a sentinel, so a hook that clobbers errno on success shows.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "close-range.h"
#include "nbd-protocol.h"

#define SENTINEL 4242

static void
show (const char *what, long r)
{
  printf ("%-40s = %ld %s\n", what, r > 2 ? 1 : r,
          errno == SENTINEL ? "(errno untouched)" : strerrorname_np (errno));
}

#define CHECK(what, call)                       \
  do {                                          \
    errno = SENTINEL;                           \
    long r_ = (long) (call);                    \
    show (what, r_);                            \
  } while (0)

static struct sockaddr_in
loopback (int port)
{
  struct sockaddr_in a = { .sin_family = AF_INET,
                           .sin_port = htons ((uint16_t) port) };
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  return a;
}

/* A loopback port with nothing listening: bound, never listened on. */
static int
closed_port (int *holder)
{
  struct sockaddr_in a = loopback (0);
  socklen_t len = sizeof a;
  *holder = socket (AF_INET, SOCK_STREAM, 0);
  bind (*holder, (struct sockaddr *) &a, sizeof a);
  getsockname (*holder, (struct sockaddr *) &a, &len);
  return ntohs (a.sin_port);
}

static void
creation_calls (int file)
{
  struct sockaddr_un missing = { .sun_family = AF_UNIX,
                                 .sun_path = "/nonexistent/sock" };
  struct sockaddr_in a;
  int holder, sv[2], s;

  CHECK ("socket bad type", socket (AF_UNIX, 999, 0));
  CHECK ("socketpair AF_INET", socketpair (AF_INET, SOCK_STREAM, 0, sv));
  CHECK ("connect EBADF", connect (-1, (struct sockaddr *) &missing,
                                   sizeof missing));
  CHECK ("connect ENOTSOCK", connect (file, (struct sockaddr *) &missing,
                                      sizeof missing));
  s = socket (AF_UNIX, SOCK_STREAM, 0);
  CHECK ("connect unix ENOENT", connect (s, (struct sockaddr *) &missing,
                                         sizeof missing));
  close (s);
  a = loopback (closed_port (&holder));
  s = socket (AF_INET, SOCK_STREAM, 0);
  CHECK ("connect ECONNREFUSED", connect (s, (struct sockaddr *) &a, sizeof a));
  close (s);
  close (holder);
  CHECK ("accept ENOTSOCK", accept (file, NULL, NULL));
  s = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  a = loopback (0);
  bind (s, (struct sockaddr *) &a, sizeof a);
  listen (s, 1);
  CHECK ("accept4 EAGAIN", accept4 (s, NULL, NULL, SOCK_CLOEXEC));
  CHECK ("accept EAGAIN", accept (s, NULL, NULL));
  close (s);
}

static void
nonblocking_connect (void)
{
  struct sockaddr_in a = loopback (0);
  socklen_t len = sizeof a;
  int l = socket (AF_INET, SOCK_STREAM, 0), s;

  bind (l, (struct sockaddr *) &a, sizeof a);
  listen (l, 1);
  getsockname (l, (struct sockaddr *) &a, &len);
  s = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  errno = SENTINEL;
  long r = connect (s, (struct sockaddr *) &a, sizeof a);
  /* Loopback may complete at once; both outcomes keep their errno. */
  show (r == 0 ? "connect non-blocking (done)" : "connect non-blocking", r);
  close (s);
  close (l);
}

static void
lifecycle_calls (void)
{
  CHECK ("close EBADF", close (-1));
  CHECK ("dup2 EBADF", dup2 (-1, 50));
  CHECK ("dup3 same fd EINVAL", dup3 (1, 1, 0));
  CHECK ("close_range lo > hi", close_range (9, 3, 0));
  CHECK ("dup2 success", dup2 (1, 50));
  CHECK ("close success", close (50));
}

static void
send_calls (int file)
{
  char buf[65536] = { 0 };
  struct iovec iov = { buf, 16 };
  struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
  int sv[2];

  CHECK ("send ENOTSOCK", send (file, buf, 1, 0));
  CHECK ("write EBADF", write (-1, buf, 1));
  CHECK ("recv EBADF", recv (-1, buf, 1, 0));
  socketpair (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv);
  CHECK ("recv EAGAIN", recv (sv[0], buf, 1, 0));
  CHECK ("read EAGAIN", read (sv[0], buf, 1));
  CHECK ("send success", send (sv[0], buf, 4, 0));
  CHECK ("recv success", recv (sv[1], buf, 4, 0));
  while (send (sv[0], buf, sizeof buf, MSG_DONTWAIT) > 0)
    ;
  CHECK ("send EAGAIN (full)", send (sv[0], buf, sizeof buf, 0));
  CHECK ("writev EAGAIN (full)", writev (sv[0], &iov, 1));
  close (sv[1]);
  CHECK ("send EPIPE MSG_NOSIGNAL", send (sv[0], buf, 1, MSG_NOSIGNAL));
  CHECK ("sendmsg EPIPE MSG_NOSIGNAL", sendmsg (sv[0], &m, MSG_NOSIGNAL));
  CHECK ("write EPIPE (SIGPIPE ignored)", write (sv[0], buf, 1));
  close (sv[0]);
}

/* A connected loopback TCP pair; *S is the accepted end. */
static int
tcp_pair (int *s)
{
  struct sockaddr_in a = loopback (0);
  socklen_t len = sizeof a;
  int l = socket (AF_INET, SOCK_STREAM, 0), c;

  bind (l, (struct sockaddr *) &a, sizeof a);
  listen (l, 1);
  getsockname (l, (struct sockaddr *) &a, &len);
  c = socket (AF_INET, SOCK_STREAM, 0);
  connect (c, (struct sockaddr *) &a, sizeof a);
  *s = accept (l, NULL, NULL);
  close (l);
  return c;
}

/* The corking path: a TCP server socket that sent its NBD greeting, so
 * that under the library each send of an option reply header gets
 * MSG_MORE and write/writev become send/sendmsg.  The filler goes by raw
 * syscall, unseen by the library (which would take it for a reply), and
 * no failed call moves the tracker: every one meets a header boundary.
 */
static void
tcp_corked_send_calls (void)
{
  static char buf[65536];
  struct nbd_new_handshake g = {
    .nbdmagic = htobe64 (NBD_MAGIC), .version = htobe64 (NBD_IHAVEOPT),
    .gflags = htobe16 (NBD_FLAG_FIXED_NEWSTYLE) };
  struct nbd_fixed_new_option_reply r = {
    .magic = htobe64 (NBD_REP_MAGIC), .option = htobe32 (NBD_OPT_LIST),
    .reply = htobe32 (NBD_REP_SERVER), .replylen = htobe32 (100) };
  /* An option reply header alone: worth a MSG_MORE. */
  struct iovec iov = { buf, sizeof r };
  struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
  int s, c = tcp_pair (&s);

  memcpy (buf, &r, sizeof r);
  CHECK ("write tcp greeting", write (s, &g, sizeof g));
  fcntl (s, F_SETFL, O_NONBLOCK);
  while (syscall (SYS_sendto, s, buf, sizeof buf, MSG_DONTWAIT, NULL, 0) > 0)
    ;
  CHECK ("tcp write EAGAIN (full)", write (s, buf, sizeof r));
  CHECK ("tcp writev EAGAIN (full)", writev (s, &iov, 1));
  CHECK ("tcp send EAGAIN (full)", send (s, buf, sizeof r, 0));
  CHECK ("tcp sendmsg EAGAIN (full)", sendmsg (s, &m, 0));
  shutdown (s, SHUT_WR);
  CHECK ("tcp send EPIPE MSG_NOSIGNAL", send (s, buf, sizeof r, MSG_NOSIGNAL));
  CHECK ("tcp sendto EPIPE MSG_NOSIGNAL", sendto (s, buf, sizeof r,
                                                  MSG_NOSIGNAL, NULL, 0));
  CHECK ("tcp sendmsg EPIPE MSG_NOSIGNAL", sendmsg (s, &m, MSG_NOSIGNAL));
  CHECK ("tcp write EPIPE (SIGPIPE ignored)", write (s, buf, sizeof r));
  CHECK ("tcp writev EPIPE (SIGPIPE ignored)", writev (s, &iov, 1));
  close (s);
  close (c);
}

int
main (void)
{
  int file = open ("/dev/null", O_RDWR);

  signal (SIGPIPE, SIG_IGN);
  creation_calls (file);
  nonblocking_connect ();
  lifecycle_calls ();
  send_calls (file);
  tcp_corked_send_calls ();
  return 0;
}
