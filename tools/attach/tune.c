/* SPDX-License-Identifier: MIT */
/* Tune one duplicated socket as the library would have at connect or
 * accept, with the library's own rules (preload/tune-rules.c).  A dry
 * run goes through the same rules with a setter that sets nothing.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "attach.h"
#include "fdtable.h"
#include "tune-rules.h"

struct sock {
  int fd;                       /* the target's number */
  int dup;                      /* ours */
  int domain, type;
  uint32_t kind;                /* SB_FD_UNIX, SB_FD_TCP or 0 */
  const char *state;            /* "connected", "listening", NULL */
  char where[ATTACH_ADDRESS_SIZE];
};

/* S's address, for a verbose line. */
static const char *
where (struct sock *s)
{
  return attach_describe (s->dup, s->where, sizeof s->where);
}

static int
setsockopt_int (int fd, int level, int name, int value)
{
  return setsockopt (fd, level, name, &value, sizeof value);
}

static int
pretend_setsockopt (int fd, int level, int name, int value)
{
  (void) fd, (void) level, (void) name, (void) value;
  return 0;
}

/* A dry run forces only as far as a real one could. */
static int
pretend_setsockopt_unforced (int fd, int level, int name, int value)
{
  if (name == SO_SNDBUFFORCE) {
    errno = EPERM;
    return -1;
  }
  return pretend_setsockopt (fd, level, name, value);
}

/* SO_SNDBUFFORCE is allowed exactly when it works on a socket of ours
 * (CAP_NET_ADMIN is checked in the caller, not in the socket's owner).
 */
bool
tune_may_force (void)
{
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool ok = fd >= 0
    && setsockopt_int (fd, SOL_SOCKET, SO_SNDBUFFORCE, 4096) == 0;

  if (fd >= 0)
    close (fd);
  return ok;
}

static sb_set_int_fn *
setter (const struct attach_options *o)
{
  if (!o->dry_run)
    return setsockopt_int;
  return o->may_force ? pretend_setsockopt : pretend_setsockopt_unforced;
}

/* What the kernel makes of OPTION = C->sndbuf: it doubles the request,
 * and SO_SNDBUF clips it at wmem_max first.
 */
static int
predicted_sndbuf (int option, const struct sb_config *c)
{
  long long want = sb_sndbuf_request (c);

  if (option == SO_SNDBUF && c->wmem_max >= 0 && want > c->wmem_max)
    want = c->wmem_max;
  return (int) (2 * want);
}

static void
warn_wmem_max_clips_once (const struct sb_config *c)
{
  static bool warned;

  if (warned)
    return;
  warned = true;
  sb_error ("warning: net.core.wmem_max is %ld, below the %llu requested: "
            "run 'sysctl -w net.core.wmem_max=%llu' or %s", c->wmem_max,
            (unsigned long long) c->sndbuf, (unsigned long long) c->sndbuf,
            c->force == SB_FORCE_OFF ? "let attach force it (SOCKBOOST_FORCE="
            "auto, with CAP_NET_ADMIN)" : "attach with CAP_NET_ADMIN");
}

static const char *
dry_mark (const struct target *t)
{
  return t->o->dry_run ? " (dry run)" : "";
}

static void
leave_alone (struct target *t, enum left_alone why)
{
  t->found.left[why]++;
}

static void
raise_unix_sndbuf (struct target *t, struct sock *s)
{
  const struct sb_config *c = &t->o->config;
  int before, after, option;
  bool clipped;

  if (c->sndbuf == 0) {
    leave_alone (t, LEFT_TUNING_OFF);
    return;
  }
  if (sb_get_int (s->dup, SOL_SOCKET, SO_SNDBUF, &before) == -1)
    return;
  option = sb_sndbuf_raise (s->dup, before, c, setter (t->o), &clipped);
  if (clipped)
    warn_wmem_max_clips_once (c);
  if (option == -1) {
    /* Or SO_SNDBUF failed, which it does not on a socket that exists. */
    leave_alone (t, LEFT_SNDBUF_KEPT);
    if (t->o->verbose)
      attach_report (t, "fd %d unix %s %s: sndbuf %d left alone", s->fd,
                     s->state, where (s), before);
    return;
  }
  if (t->o->dry_run)
    after = predicted_sndbuf (option, c);
  else if (sb_get_int (s->dup, SOL_SOCKET, SO_SNDBUF, &after) == -1)
    return;
  attach_report (t, "fd %d unix %s sndbuf %d -> %d%s", s->fd, s->state,
                 before, after, dry_mark (t));
  t->changed++;
}

static void
set_tcp_nodelay (struct target *t, struct sock *s)
{
  int before, after = 1;

  if (!t->o->config.nodelay) {
    leave_alone (t, LEFT_TUNING_OFF);
    return;
  }
  if (sb_get_int (s->dup, IPPROTO_TCP, TCP_NODELAY, &before) == -1)
    return;
  if (before) {
    leave_alone (t, LEFT_NODELAY_SET);
    if (t->o->verbose)
      attach_report (t, "fd %d tcp %s %s: nodelay already set", s->fd,
                     s->state, where (s));
    return;
  }
  if (setter (t->o) (s->dup, IPPROTO_TCP, TCP_NODELAY, 1) == -1
      || (!t->o->dry_run
          && sb_get_int (s->dup, IPPROTO_TCP, TCP_NODELAY, &after) == -1)) {
    sb_error ("warning: %d: fd %d: TCP_NODELAY: %s", (int) t->pid, s->fd,
              strerror (errno));
    return;
  }
  attach_report (t, "fd %d tcp %s nodelay %d -> %d%s", s->fd, s->state,
                 before, after != 0, dry_mark (t));
  t->changed++;
}

/* Fill S->kind and S->state; -1 if the socket cannot be asked. */
static int
classify (struct sock *s)
{
  int protocol, listening;
  struct sockaddr_storage peer;
  socklen_t len = sizeof peer;

  if (sb_get_int (s->dup, SOL_SOCKET, SO_DOMAIN, &s->domain) == -1
      || sb_get_int (s->dup, SOL_SOCKET, SO_TYPE, &s->type) == -1
      || sb_get_int (s->dup, SOL_SOCKET, SO_PROTOCOL, &protocol) == -1
      || sb_get_int (s->dup, SOL_SOCKET, SO_ACCEPTCONN, &listening) == -1)
    return -1;
  s->kind = sb_tune_kind (s->domain, s->type, protocol);
  if (listening)
    s->state = "listening";
  else if (getpeername (s->dup, (struct sockaddr *) &peer, &len) == 0)
    s->state = "connected";
  else
    s->state = NULL;
  return 0;
}

/* "unix dgram", "inet stream" (not TCP)...: what a socket left alone is. */
static const char *
kind_name (const struct sock *s, char *buf, size_t size)
{
  static const char *const types[] = { [SOCK_STREAM] = "stream",
    [SOCK_DGRAM] = "dgram", [SOCK_RAW] = "raw", [SOCK_SEQPACKET] = "seqpacket" };
  const char *domain = s->domain == AF_UNIX ? "unix"
    : s->domain == AF_INET ? "inet" : s->domain == AF_INET6 ? "inet6"
    : s->domain == AF_NETLINK ? "netlink" : NULL;
  const char *type = (size_t) s->type < sizeof types / sizeof *types
    ? types[s->type] : NULL;

  if (domain && type)
    snprintf (buf, size, "%s %s", domain, type);
  else
    snprintf (buf, size, "domain %d type %d", s->domain, s->type);
  return buf;
}

/* Unix stream sockets get the send buffer once connected (a listener's
 * is not inherited), TCP sockets TCP_NODELAY once connected or listening
 * (accepted ones inherit the listener's), the others nothing.
 */
enum outcome
tune_socket (struct target *t, int fd, int dup)
{
  struct sock s = { .fd = fd, .dup = dup };

  if (classify (&s) == -1)
    return SOCKET_GONE;
  t->found.sockets++;
  if (s.kind == 0) {
    char kind[48];
    leave_alone (t, LEFT_OTHER_KIND);
    if (t->o->verbose)
      attach_report (t, "fd %d %s %s: left alone", fd,
                     kind_name (&s, kind, sizeof kind), where (&s));
    return SOCKET_DONE;
  }
  if (s.state == NULL) {
    leave_alone (t, LEFT_NOT_CONNECTED);
    if (t->o->verbose && !t->o->watch)
      attach_report (t, "fd %d %s %s: not connected: left alone", fd,
                     s.kind == SB_FD_TCP ? "tcp" : "unix", where (&s));
    return SOCKET_PENDING;
  }
  if (s.kind == SB_FD_TCP)
    set_tcp_nodelay (t, &s);
  else if (strcmp (s.state, "connected") == 0)
    raise_unix_sndbuf (t, &s);
  else {
    leave_alone (t, LEFT_UNIX_LISTENING);
    if (t->o->verbose)
      attach_report (t, "fd %d unix listening %s: left alone (accepted "
                     "sockets do not inherit its send buffer: --watch "
                     "tunes them)", fd, where (&s));
  }
  return SOCKET_DONE;
}
