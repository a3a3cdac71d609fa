/* SPDX-License-Identifier: MIT */
/* Apply and verify the socket options.  Never lowers a send buffer the
 * program made larger itself; warns once per process about clipping.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>

#include "config.h"
#include "log.h"
#include "real.h"
#include "slots.h"
#include "trace.h"
#include "track.h"
#include "tune.h"

static const char *const side_names[] = { "new", "connect", "accept",
                                          "socketpair" };

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
sb_tune_kind (int domain, int type, int protocol)
{
  static const uint32_t bits[] = { [SB_SOCKET_OTHER] = 0,
                                   [SB_SOCKET_UNIX] = SB_FD_UNIX,
                                   [SB_SOCKET_TCP] = SB_FD_TCP };

  return bits[sb_socket_kind (domain, type, protocol)];
}

uint32_t
sb_tune_known (int fd)
{
  uint32_t e = sb_fd_get (fd);
  int domain, type, protocol;

  if (e & SB_FD_KNOWN)
    return e;
  if (sb_get_int (fd, SOL_SOCKET, SO_DOMAIN, &domain) == -1
      || sb_get_int (fd, SOL_SOCKET, SO_TYPE, &type) == -1
      || sb_get_int (fd, SOL_SOCKET, SO_PROTOCOL, &protocol) == -1)
    return 0;
  e = SB_FD_KNOWN | sb_tune_kind (domain, type, protocol);
  sb_track_set (fd, e);
  return e;
}

static void
warn_clipped_once (const struct sb_config *c)
{
  static atomic_flag warned = ATOMIC_FLAG_INIT;
  char text[256];

  if (atomic_flag_test_and_set (&warned))
    return;
  sb_log (SB_LOG_WARN, "%s",
          sb_sndbuf_clip_warning_text (c, text, sizeof text));
}

enum set_result { SET_DONE, SET_ALREADY, SET_AT_CLIP, SET_FAILED };

/* Raise the send buffer of FD, now BEFORE bytes, by the rules
 * (rules/tuning.c), and say why it was not raised.
 */
static enum set_result
set_sndbuf (int fd, int before, const struct sb_config *c)
{
  bool clipped;
  int set = sb_sndbuf_raise (fd, before, c, set_int, &clipped);

  if (clipped)
    warn_clipped_once (c);
  if (set != -1)
    return SET_DONE;
  if (before >= 2 * sb_sndbuf_request (c))
    return SET_ALREADY;
  if (clipped && before >= 2LL * c->wmem_max)
    return SET_AT_CLIP;
  return SET_FAILED;
}

static void
tune_sndbuf (int fd, enum sb_side side, const struct sb_config *c)
{
  const char *how = side_names[side];
  int before, after;

  if (c->sndbuf == 0) {
    sb_log (SB_LOG_TRACE, "fd %d unix %s sndbuf left alone: "
            "SOCKBOOST_SNDBUF is 0", fd, how);
    return;
  }
  if (sb_get_int (fd, SOL_SOCKET, SO_SNDBUF, &before) == -1) {
    sb_log (SB_LOG_TRACE, "fd %d unix %s sndbuf left alone: unreadable (%s)",
            fd, how, strerrorname_np (errno));
    return;
  }
  switch (set_sndbuf (fd, before, c)) {
  case SET_ALREADY:
    sb_log (SB_LOG_TRACE, "fd %d unix %s sndbuf %d left alone: already at "
            "least %lld", fd, how, before, 2 * sb_sndbuf_request (c));
    return;
  case SET_AT_CLIP:
    sb_log (SB_LOG_TRACE, "fd %d unix %s sndbuf %d left alone: already at "
            "the net.core.wmem_max clip (%ld)", fd, how, before, c->wmem_max);
    return;
  case SET_FAILED:
    sb_log (SB_LOG_TRACE, "fd %d unix %s sndbuf %d left alone: setsockopt "
            "failed (%s)", fd, how, before, strerrorname_np (errno));
    return;
  case SET_DONE:
    break;
  }
  if (sb_get_int (fd, SOL_SOCKET, SO_SNDBUF, &after) == 0)
    sb_log (SB_LOG_INFO, "fd %d unix %s sndbuf %d -> %d", fd, how, before,
            after);
}

static void
tune_nodelay (int fd, enum sb_side side, const struct sb_config *c)
{
  const char *how = side_names[side];
  int before, after;

  if (!c->nodelay) {
    sb_log (SB_LOG_TRACE, "fd %d tcp %s nodelay left alone: "
            "SOCKBOOST_NODELAY is 0", fd, how);
    return;
  }
  if (sb_get_int (fd, IPPROTO_TCP, TCP_NODELAY, &before) == -1) {
    sb_log (SB_LOG_TRACE, "fd %d tcp %s nodelay left alone: unreadable (%s)",
            fd, how, strerrorname_np (errno));
    return;
  }
  if (before) {
    sb_log (SB_LOG_TRACE, "fd %d tcp %s nodelay left alone: already %d", fd,
            how, before);
    return;
  }
  if (set_int (fd, IPPROTO_TCP, TCP_NODELAY, 1) == 0
      && sb_get_int (fd, IPPROTO_TCP, TCP_NODELAY, &after) == 0)
    sb_log (SB_LOG_INFO, "fd %d tcp %s nodelay %d -> %d", fd, how, before,
            after);
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
with_slot (int fd, uint32_t e, const struct sb_config *c)
{
  uint32_t gen;
  int slot;

  if (c->scope != SB_SCOPE_NBD && !((e & SB_FD_TCP) && c->cork))
    return e;
  slot = sb_slot_claim (&gen);
  if (slot < 0) {
    sb_log (SB_LOG_TRACE, "fd %d %s %s: no free framing slot: NBD framing "
            "not followed", fd, sb_kind_name (e), side_names[SB_FD_SIDE (e)]);
    return e | SB_FD_NOFRAME;
  }
  return e | SB_FD_WITH_SLOT (slot, gen);
}

void
sb_tune_new (int fd, uint32_t kind, enum sb_side side)
{
  const struct sb_config *c = sb_config ();
  uint32_t e = SB_FD_KNOWN | kind | ((uint32_t) side << SB_FD_SIDE_SHIFT);

  if (sb_track_foreign ())
    return;
  if (kind == 0) {
    sb_track_set (fd, SB_FD_KNOWN);
    return;
  }
  e = with_slot (fd, e, c);
  if (c->scope == SB_SCOPE_NBD) {
    sb_track_set (fd, e | SB_FD_CANDIDATE);
    sb_log (SB_LOG_TRACE, "fd %d %s %s: tuned once it speaks NBD "
            "(scope nbd)", fd, sb_kind_name (e), side_names[side]);
    return;
  }
  sb_track_set (fd, e);
  sb_tune_apply (fd, e);
}
