/* SPDX-License-Identifier: MIT */
/* Apply and verify the socket options.  Never lowers a send buffer the
 * program made larger itself; warns once per process about clipping.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <sys/socket.h>

#include "config.h"
#include "log.h"
#include "real.h"
#include "slots.h"
#include "track.h"
#include "tune.h"

static const char *const side_names[] = { "new", "connect", "accept",
                                          "socketpair" };

static int
get_int (int fd, int level, int name, int *value)
{
  socklen_t len = sizeof *value;
  return getsockopt (fd, level, name, value, &len);
}

/* Through the real setsockopt: our own hook only watches the host's calls. */
static int
set_int (int fd, int level, int name, int value)
{
  sb_real_bind ();
  if (sb_real.setsockopt == NULL)
    return sb_real_missing ();
  return sb_real.setsockopt (fd, level, name, &value, sizeof value);
}

uint32_t
sb_tune_known (int fd)
{
  uint32_t e = sb_fd_get (fd);
  int domain, type, protocol;

  if (e & SB_FD_KNOWN)
    return e;
  if (get_int (fd, SOL_SOCKET, SO_DOMAIN, &domain) == -1
      || get_int (fd, SOL_SOCKET, SO_TYPE, &type) == -1
      || get_int (fd, SOL_SOCKET, SO_PROTOCOL, &protocol) == -1)
    return 0;
  e = SB_FD_KNOWN | sb_tune_kind (domain, type, protocol);
  sb_track_set (fd, e);
  return e;
}

static void
warn_clipped_once (long wmem_max, uint64_t want)
{
  static atomic_flag warned = ATOMIC_FLAG_INIT;
  if (atomic_flag_test_and_set (&warned))
    return;
  sb_log (SB_LOG_WARN, "net.core.wmem_max is %ld, below the %llu requested: "
          "run 'sysctl -w net.core.wmem_max=%llu' or give the process "
          "CAP_NET_ADMIN", wmem_max, (unsigned long long) want,
          (unsigned long long) want);
}

/* Set the send buffer; return 0 if an option was set, -1 if skipped. */
static int
set_sndbuf (int fd, int before, const struct sb_config *c)
{
  bool clipped;
  int set = sb_sndbuf_raise (fd, before, c, set_int, &clipped);

  if (clipped)
    warn_clipped_once (c->wmem_max, c->sndbuf);
  return set == -1 ? -1 : 0;
}

static void
tune_sndbuf (int fd, enum sb_side side, const struct sb_config *c)
{
  int before, after;

  if (c->sndbuf == 0 || get_int (fd, SOL_SOCKET, SO_SNDBUF, &before) == -1)
    return;
  if (set_sndbuf (fd, before, c) == -1) {
    sb_log (SB_LOG_TRACE, "fd %d unix %s sndbuf %d left alone", fd,
            side_names[side], before);
    return;
  }
  if (get_int (fd, SOL_SOCKET, SO_SNDBUF, &after) == 0)
    sb_log (SB_LOG_INFO, "fd %d unix %s sndbuf %d -> %d", fd,
            side_names[side], before, after);
}

static void
tune_nodelay (int fd, enum sb_side side, const struct sb_config *c)
{
  int before, after;

  if (!c->nodelay || get_int (fd, IPPROTO_TCP, TCP_NODELAY, &before) == -1)
    return;
  if (before) {
    sb_log (SB_LOG_TRACE, "fd %d tcp %s nodelay already set", fd,
            side_names[side]);
    return;
  }
  if (set_int (fd, IPPROTO_TCP, TCP_NODELAY, 1) == 0
      && get_int (fd, IPPROTO_TCP, TCP_NODELAY, &after) == 0)
    sb_log (SB_LOG_INFO, "fd %d tcp %s nodelay %d -> %d", fd,
            side_names[side], before, after);
}

void
sb_tune_apply (int fd, uint32_t entry)
{
  const struct sb_config *c = sb_config ();
  int saved = errno;

  if (entry & SB_FD_UNIX)
    tune_sndbuf (fd, SB_FD_SIDE (entry), c);
  else if (entry & SB_FD_TCP)
    tune_nodelay (fd, SB_FD_SIDE (entry), c);
  sb_fd_update (fd, entry, (entry | SB_FD_TUNED) & ~(uint32_t) SB_FD_CANDIDATE);
  errno = saved;
}

/* A framing tracker for a socket that needs one: to find the handshake
 * (scope=nbd) or to cork (TCP).  Without a free slot it just goes without.
 */
static uint32_t
with_slot (uint32_t e, const struct sb_config *c)
{
  int slot;

  if (c->scope != SB_SCOPE_NBD && !((e & SB_FD_TCP) && c->cork))
    return e;
  slot = sb_slot_claim ();
  if (slot < 0) {
    sb_log (SB_LOG_TRACE, "no free framing slot: socket not followed");
    return e | SB_FD_NOFRAME;
  }
  return e | ((uint32_t) (slot + 1) << SB_FD_SLOT_SHIFT);
}

void
sb_tune_new (int fd, uint32_t kind, enum sb_side side)
{
  const struct sb_config *c = sb_config ();
  uint32_t e = SB_FD_KNOWN | kind | ((uint32_t) side << SB_FD_SIDE_SHIFT);

  if (kind == 0) {
    sb_track_set (fd, SB_FD_KNOWN);
    return;
  }
  e = with_slot (e, c);
  if (c->scope == SB_SCOPE_NBD) {
    sb_track_set (fd, e | SB_FD_CANDIDATE);
    return;
  }
  sb_track_set (fd, e);
  sb_tune_apply (fd, e);
}
