/* SPDX-License-Identifier: MIT */
/* The socketpair peer of the in-process fuzz harnesses. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "socket-peer.h"

/* Send and drain in one thread with poll, so that neither side can block
 * the other whatever the code under test does.
 */
static void *
peer_run (void *arg)
{
  struct socket_peer *p = arg;
  static __thread uint8_t sink[1 << 16];
  int fd = p->fds[1];
  size_t sent = 0;

  if (p->size == 0)
    shutdown (fd, SHUT_WR);
  for (;;) {
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    if (sent < p->size)
      pfd.events |= POLLOUT;
    if (poll (&pfd, 1, -1) == -1 && errno != EINTR)
      abort ();
    if (pfd.revents & POLLOUT) {
      ssize_t n = send (fd, p->data + sent, p->size - sent,
                        MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0)
        sent += (size_t) n;
      else if (n == -1 && errno != EAGAIN)
        sent = p->size;         /* the other side stopped reading: fine */
      if (sent == p->size)
        shutdown (fd, SHUT_WR);
    }
    if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = recv (fd, sink, sizeof sink, MSG_DONTWAIT);
      if (n == 0 || (n == -1 && errno != EAGAIN))
        return NULL;
    }
  }
}

void
socket_peer_start (struct socket_peer *p, const uint8_t *data, size_t size)
{
  p->data = data;
  p->size = size;
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p->fds) == -1
      || pthread_create (&p->thread, NULL, peer_run, p) != 0)
    abort ();
}

void
socket_peer_finish (struct socket_peer *p)
{
  pthread_join (p->thread, NULL);
  close (p->fds[1]);
}
