/* SPDX-License-Identifier: MIT */
/* Unit tests for the walk of a process's sockets (common/proc-sockets.c),
 * on this very process: the sockets it lists and takes, what a walk
 * passes by, stops on, or cannot take.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "proc-sockets.h"

/* What one walk saw of our socket pair and pipe. */
struct seen {
  int pair[2], pipe[2];
  unsigned long long pair_inode[2], pipe_inode;
  int listed[2], taken[2], failed[2], pipe_seen, err;
  int close_listed;             /* listed closes the first socket */
  int stop_at_taken;            /* taken stops the walk with this */
  int pass;                     /* listed passes every socket by */
};

static int
which (const struct seen *s, int fd)
{
  return fd == s->pair[0] ? 0 : fd == s->pair[1] ? 1 : -1;
}

static int
on_listed (void *arg, int fd, unsigned long long inode)
{
  struct seen *s = arg;
  int i = which (s, fd);

  s->pipe_seen |= inode == s->pipe_inode;
  if (i < 0)
    return SB_WALK_PASS;
  s->listed[i] += inode == s->pair_inode[i];
  if (s->close_listed && i == 0)
    close (fd);
  return s->pass ? SB_WALK_PASS : 0;
}

static int
on_taken (void *arg, int fd, unsigned long long inode, int copy)
{
  struct seen *s = arg;
  int i = which (s, fd), type = 0;
  socklen_t len = sizeof type;

  if (i < 0)
    return 0;
  /* The copy is the socket itself: it answers as a stream socket. */
  s->taken[i] += inode == s->pair_inode[i] && copy != fd &&
    getsockopt (copy, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
    type == SOCK_STREAM;
  return s->stop_at_taken;
}

static int
on_failed (void *arg, int fd, int err)
{
  struct seen *s = arg;
  int i = which (s, fd);

  if (i >= 0) {
    s->failed[i]++;
    s->err = err;
  }
  return 0;
}

static unsigned long long
inode_of (int fd)
{
  struct stat st;

  return fstat (fd, &st) == 0 ? (unsigned long long) st.st_ino : 0;
}

/* A fresh pair and pipe in S, with the walk's options OPTS. */
static void
prepare (struct seen *s, const struct seen *opts)
{
  *s = *opts;
  if (socketpair (AF_UNIX, SOCK_STREAM, 0, s->pair) == -1 || pipe (s->pipe) == -1)
    abort ();
  for (int i = 0; i < 2; i++)
    s->pair_inode[i] = inode_of (s->pair[i]);
  s->pipe_inode = inode_of (s->pipe[0]);
}

static void
release (struct seen *s)
{
  close (s->pair[0]);
  close (s->pair[1]);
  close (s->pipe[0]);
  close (s->pipe[1]);
}

static int
walk (struct seen *s, int pidfd)
{
  struct sb_socket_walk w = { on_listed, on_taken, on_failed, s };

  return sb_walk_sockets (getpid (), pidfd, &w);
}

/* Count our pair's sockets. */
static int
count_ours (void *arg, int fd, unsigned long long inode, int copy)
{
  struct seen *s = arg;
  int i = which (s, fd);

  (void) copy;
  return i >= 0 && inode == s->pair_inode[i];
}

int
main (void)
{
  int pidfd = sb_pidfd_open (getpid ()), r;
  struct seen s;

  TAP_OK (pidfd >= 0, "pidfd_open of this process (errno %d)", errno);

  prepare (&s, &(struct seen) { 0 });
  r = walk (&s, pidfd);
  TAP_OK (r == 0 && s.listed[0] == 1 && s.listed[1] == 1 &&
          s.taken[0] == 1 && s.taken[1] == 1 && !s.failed[0] && !s.failed[1],
          "each socket is listed once with its inode, and taken as a copy");
  TAP_OK (!s.pipe_seen, "a pipe is no socket");
  release (&s);

  prepare (&s, &(struct seen) { .pass = 1 });
  r = walk (&s, pidfd);
  TAP_OK (r == 0 && s.listed[0] == 1 && s.listed[1] == 1 &&
          s.taken[0] == 0 && s.taken[1] == 0,
          "a socket passed by is not taken");
  release (&s);

  prepare (&s, &(struct seen) { .stop_at_taken = 7 });
  r = walk (&s, pidfd);
  TAP_OK (r == 7 && s.taken[0] + s.taken[1] == 1,
          "a callback's value stops the walk and is its result (%d)", r);
  release (&s);

  prepare (&s, &(struct seen) { .close_listed = 1 });
  r = walk (&s, pidfd);
  TAP_OK (r == 0 && s.failed[0] == 1 && s.err == EBADF && s.taken[0] == 0 &&
          s.taken[1] == 1,
          "a socket closed between listing and taking fails with EBADF "
          "(errno %d), and the walk goes on", s.err);
  s.pair[0] = -1;
  release (&s);

  prepare (&s, &(struct seen) { 0 });
  TAP_OK (sb_each_socket (getpid (), pidfd, count_ours, &s) == 2,
          "the simple walk counts the sockets its function counts");
  release (&s);

  errno = 0;
  TAP_OK (sb_walk_sockets (0, pidfd, &(struct sb_socket_walk) {
            .taken = on_taken, .arg = &s }) == -1 && errno == ENOENT,
          "no process 0 to walk: ENOENT (errno %d)", errno);
  close (pidfd);
  return tap_done ();
}
