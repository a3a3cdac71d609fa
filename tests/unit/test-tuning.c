/* SPDX-License-Identifier: MIT */
/* Unit tests of the tuning rules (rules/tuning.c) that the library,
 * sockboost attach and sb-config apply: which sockets are tuned, which
 * options raise a send buffer, and how wmem_max is read.
 */
#include <errno.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tuning.h"

/* A recording setter: the options asked for, and how SO_SNDBUFFORCE fares. */
static int calls[4];
static int ncalls;
static int force_errno;

static int
record_set (int fd, int level, int name, int value)
{
  (void) fd;
  (void) value;
  if (level != SOL_SOCKET || ncalls == 4)
    return -1;
  calls[ncalls++] = name;
  if (name == SO_SNDBUFFORCE && force_errno) {
    errno = force_errno;
    return -1;
  }
  return 0;
}

/* Raise from BEFORE with C; check the options tried, the result and the
 * clip flag.
 */
static void
check (const char *what, const struct sb_config *c, int before,
       int first, int second, int result, bool clipped)
{
  bool got_clipped = !clipped;
  int got;

  ncalls = 0;
  calls[0] = calls[1] = -1;
  got = sb_sndbuf_raise (3, before, c, record_set, &got_clipped);
  TAP_OK (got == result && got_clipped == clipped && calls[0] == first
          && calls[1] == second && ncalls == (first != -1) + (second != -1),
          "%s (got %d, clipped %d, calls %d: %d %d)", what, got,
          got_clipped, ncalls, calls[0], calls[1]);
}

static void
test_kinds (void)
{
  TAP_OK (sb_socket_kind (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)
          == SB_SOCKET_UNIX, "unix stream is tuned");
  TAP_OK (sb_socket_kind (AF_INET6, SOCK_STREAM | SOCK_NONBLOCK, IPPROTO_TCP)
          == SB_SOCKET_TCP, "TCP over IPv6 is tuned");
  TAP_OK (sb_socket_kind (AF_UNIX, SOCK_SEQPACKET, 0) == SB_SOCKET_OTHER,
          "unix seqpacket is left alone");
  TAP_OK (sb_socket_kind (AF_INET, SOCK_DGRAM, 0) == SB_SOCKET_OTHER,
          "UDP is left alone");
  TAP_OK (sb_socket_kind (AF_INET, SOCK_STREAM, IPPROTO_SCTP)
          == SB_SOCKET_OTHER, "SCTP stream is left alone");
}

/* SOCKBOOST_SNDBUF=1G: asked as INT_MAX / 2, no int overflow on the way. */
static void
test_1g (void)
{
  struct sb_config c = { .sndbuf = UINT64_C (1) << 30, .force = SB_FORCE_AUTO,
                         .wmem_max = 4 << 20 };

  TAP_OK (sb_sndbuf_request (&c) == 0x7fffffff / 2, "1G is requested as %lld",
          sb_sndbuf_request (&c));
  check ("1G, clipped, may force: forced", &c, 212992, SO_SNDBUFFORCE, -1,
         SO_SNDBUFFORCE, false);
  check ("1G: a 2147483646 buffer is as large already", &c, 0x7ffffffe, -1,
         -1, -1, false);
  c.sndbuf = 1 << 20;
  TAP_OK (sb_sndbuf_request (&c) == 1 << 20, "1M is requested as is");
}

/* What the fake read below returns, and whether close followed it. */
static const char *file_text;
static int closed;

static ssize_t
fake_read (int fd, void *buf, size_t len)
{
  size_t n = file_text ? strlen (file_text) : 0;

  (void) fd;
  if (file_text == NULL)
    return -1;
  memcpy (buf, file_text, n < len ? n : len);
  return (ssize_t) (n < len ? n : len);
}

static int
fake_close (int fd)
{
  closed++;
  return close (fd);
}

/* wmem_max is read through the calls given (the library's real ones). */
static void
test_wmem_max (void)
{
  static const struct sb_file_calls fake = { fake_read, fake_close };

  file_text = "4194304\n";
  TAP_OK (sb_wmem_max (&fake) == 4194304 && closed == 1,
          "wmem_max read through the calls given, file closed");
  file_text = "";
  TAP_OK (sb_wmem_max (&fake) == -1 && closed == 2, "empty: unknown (-1)");
  file_text = NULL;
  TAP_OK (sb_wmem_max (&fake) == -1 && closed == 3, "unreadable: unknown");
  TAP_OK (sb_wmem_max (NULL) > 0, "NULL: this host's, through libc (%ld)",
          sb_wmem_max (NULL));
}

int
main (void)
{
  struct sb_config c = { .sndbuf = 2 << 20, .force = SB_FORCE_AUTO,
                         .wmem_max = 4 << 20 };
  const int F = SO_SNDBUFFORCE, S = SO_SNDBUF;

  test_kinds ();
  check ("within wmem_max: plain SO_SNDBUF", &c, 212992, S, -1, S, false);
  check ("already as large: left alone", &c, 4 << 20, -1, -1, -1, false);
  check ("larger already: never lowered", &c, 8 << 20, -1, -1, -1, false);
  c.wmem_max = -1;
  check ("wmem_max unknown: plain SO_SNDBUF", &c, 212992, S, -1, S, false);
  c.wmem_max = 212992;
  check ("clipped, may force: forced", &c, 212992, F, -1, F, false);
  force_errno = EPERM;
  check ("clipped, force refused: clipped SO_SNDBUF", &c, 4608, F, S, S, true);
  check ("clipped, force refused, at wmem_max: left alone", &c, 2 * 212992,
         F, -1, -1, true);
  c.force = SB_FORCE_OFF;
  check ("force off: clipped SO_SNDBUF", &c, 4608, S, -1, S, true);
  c.force = SB_FORCE_ON;
  c.wmem_max = 4 << 20;
  check ("force on, refused, within wmem_max: SO_SNDBUF", &c, 212992, F, S,
         S, false);
  force_errno = 0;
  check ("force on: forced even within wmem_max", &c, 212992, F, -1, F, false);
  test_1g ();
  test_wmem_max ();
  return tap_done ();
}
