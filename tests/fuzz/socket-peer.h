/* SPDX-License-Identifier: MIT */
/* For harnesses that run a real connection handler in-process: the other
 * end of a socketpair, played by a thread that sends the fuzz input and
 * drains whatever comes back.
 */
#ifndef SOCKBOOST_FUZZ_SOCKET_PEER_H
#define SOCKBOOST_FUZZ_SOCKET_PEER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct socket_peer {
  int fds[2];                   /* [0] for the code under test, [1] ours */
  const uint8_t *data;
  size_t size;
  pthread_t thread;
};

/* Make the socketpair and start the thread: it writes DATA into fds[1],
 * half-closes it, and reads until the code under test closes fds[0]
 * (or shuts it down).  Aborts on failure: the harness cannot go on.
 */
extern void socket_peer_start (struct socket_peer *p, const uint8_t *data,
                               size_t size);

/* Wait for the thread (fds[0] must be closed or shut down) and close
 * fds[1].
 */
extern void socket_peer_finish (struct socket_peer *p);

#endif /* SOCKBOOST_FUZZ_SOCKET_PEER_H */
