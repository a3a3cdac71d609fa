/* SPDX-License-Identifier: MIT */
/* Tune one duplicated socket as the library would have at connect or
 * accept, with the library's own rules (rules/tuning.c).  A dry
 * run goes through the same rules against a model of the kernel.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "attach.h"
#include "tuning.h"

struct sock {
  int fd;                       /* the target's number */
  int dup;                      /* ours */
  int domain, type;
  enum sb_socket_kind kind;
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

/* A dry run sets nothing; its send buffers go through the model of the
 * kernel that sb-config predicts with (rules/sndbuf-model.c).
 */
static int
pretend_setsockopt (int fd, int level, int name, int value)
{
  (void) fd, (void) level, (void) name, (void) value;
  return 0;
}

static sb_set_int_fn *
setter (const struct attach_options *o)
{
  return o->dry_run ? pretend_setsockopt : setsockopt_int;
}

/* Raise S's send buffer, BEFORE bytes, as the library would; *AFTER is
 * what it became (or, dry, would become).  The option set, or -1.
 */
static int
raise_sndbuf (struct target *t, struct sock *s, int before, int *after,
              bool *clipped)
{
  const struct sb_config *c = &t->o->config;
  int option;

  if (t->o->dry_run)
    return sb_sndbuf_model_raise (t->o->dry_kernel, before, c, after,
                                  clipped);
  option = sb_sndbuf_raise (s->dup, before, c, setsockopt_int, clipped);
  if (option != -1 && sb_get_int (s->dup, SOL_SOCKET, SO_SNDBUF, after) == -1)
    return -1;
  return option;
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
  option = raise_sndbuf (t, s, before, &after, &clipped);
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
  s->kind = sb_socket_kind (s->domain, s->type, protocol);
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
  if (s.kind == SB_SOCKET_OTHER) {
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
                     s.kind == SB_SOCKET_TCP ? "tcp" : "unix", where (&s));
    return SOCKET_PENDING;
  }
  if (s.kind == SB_SOCKET_TCP)
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
