/* SPDX-License-Identifier: MIT */
/* For the test programs: a loopback TCP connection inside one process
 * whose two ends went through a fixed-newstyle handshake, so that the
 * library follows both of them into the transmission phase.
 */
#ifndef SOCKBOOST_TEST_NBD_PAIR_H
#define SOCKBOOST_TEST_NBD_PAIR_H

#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "full-io.h"
#include "nbd-protocol.h"

struct nbd_pair {
  int client, server;
};

/* Write WHAT to FD and read back, on PEER, as many bytes (discarded). */
static inline int
nbd_pair_pass (int fd, int peer, const void *what, size_t len)
{
  char sink[64];

  return len > sizeof sink || sb_write_full (fd, what, len, 0) == -1
    || sb_read_full (peer, sink, len) == -1 ? -1 : 0;
}

/* An option without data from the client, acknowledged by the server. */
static inline int
nbd_pair_option (const struct nbd_pair *p, uint32_t option)
{
  struct nbd_option o = { .version = htobe64 (NBD_IHAVEOPT),
                          .option = htobe32 (option) };
  struct nbd_fixed_new_option_reply r = {
    .magic = htobe64 (NBD_REP_MAGIC), .option = htobe32 (option),
    .reply = htobe32 (NBD_REP_ACK) };

  return nbd_pair_pass (p->client, p->server, &o, sizeof o)
    || nbd_pair_pass (p->server, p->client, &r, sizeof r) ? -1 : 0;
}

/* Greeting, client flags (both NO_ZEROES), structured replies if
 * STRUCTURED, then NBD_OPT_EXPORT_NAME "" and its answer.
 */
static inline int
nbd_pair_handshake (const struct nbd_pair *p, bool structured)
{
  struct nbd_new_handshake g = {
    .nbdmagic = htobe64 (NBD_MAGIC), .version = htobe64 (NBD_IHAVEOPT),
    .gflags = htobe16 (NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES) };
  uint32_t cflags = htobe32 (NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES);
  struct nbd_option o = { .version = htobe64 (NBD_IHAVEOPT),
                          .option = htobe32 (NBD_OPT_EXPORT_NAME) };
  struct nbd_new_handshake_finish f = {
    .exportsize = htobe64 (UINT64_C (1) << 30),
    .eflags = htobe16 (NBD_FLAG_HAS_FLAGS) };

  return nbd_pair_pass (p->server, p->client, &g, sizeof g)
    || nbd_pair_pass (p->client, p->server, &cflags, sizeof cflags)
    || (structured && nbd_pair_option (p, NBD_OPT_STRUCTURED_REPLY))
    || nbd_pair_pass (p->client, p->server, &o, sizeof o)
    || nbd_pair_pass (p->server, p->client, &f, sizeof f) ? -1 : 0;
}

/* Connect a fresh pair over 127.0.0.1 (port 0), with nothing sent on
 * it yet.
 */
static inline int
nbd_pair_connect (struct nbd_pair *p)
{
  struct sockaddr_in a = { .sin_family = AF_INET,
                           .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  int l = socket (AF_INET, SOCK_STREAM, 0);

  p->client = p->server = -1;
  if (l == -1)
    return -1;
  if (bind (l, (struct sockaddr *) &a, sizeof a) == 0 && listen (l, 1) == 0
      && getsockname (l, (struct sockaddr *) &a, &len) == 0) {
    p->client = socket (AF_INET, SOCK_STREAM, 0);
    if (p->client != -1
        && connect (p->client, (struct sockaddr *) &a, sizeof a) == 0)
      p->server = accept (l, NULL, NULL);
  }
  close (l);
  return p->server == -1 ? -1 : 0;
}

/* Connect a fresh pair and shake hands. */
static inline int
nbd_pair_open (struct nbd_pair *p, bool structured)
{
  return nbd_pair_connect (p) == -1 ? -1
    : nbd_pair_handshake (p, structured);
}

/* A request header: TYPE, COOKIE, OFFSET, LENGTH. */
static inline struct nbd_request
nbd_pair_request (uint16_t type, uint64_t cookie, uint64_t offset,
                  uint32_t length)
{
  return (struct nbd_request) {
    .magic = htobe32 (NBD_REQUEST_MAGIC), .type = htobe16 (type),
    .cookie = htobe64 (cookie), .offset = htobe64 (offset),
    .count = htobe32 (length) };
}

#endif /* SOCKBOOST_TEST_NBD_PAIR_H */
