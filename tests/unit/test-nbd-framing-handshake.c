/* SPDX-License-Identifier: MIT */
/* Unit tests for the NBD framing tracker: handshakes, roles, and streams
 * that are not NBD at all.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "nbd-protocol.h"
#include "nbd-framing.h"
#include "framing-side.h"

static void
test_go_handshakes (void)
{
  static const char *const names[] = { "simple", "structured", "extended" };
  struct side s;
  int server, variant;

  for (server = 0; server <= 1; server++)
    for (variant = 0; variant < 3; variant++) {
      fresh (&s, server);
      handshake_go (&s, variant >= 1, variant == 2);
      TAP_OK (ON (&s) && sb_framing_role (&s.f) ==
              (server ? SB_FRAMING_ROLE_SERVER : SB_FRAMING_ROLE_CLIENT) &&
              sb_framing_nbd_seen (&s.f) &&
              strcmp (sb_framing_off_reason (&s.f), "") == 0,
              "%s: GO handshake (%s) leaves it on, role known, NBD seen",
              who (&s), names[variant]);
    }
}


static void
test_roles_and_nbd_seen (void)
{
  static struct bytes b;
  struct side s;

  fresh (&s, false);
  TAP_OK (sb_framing_role (&s.f) == SB_FRAMING_ROLE_UNKNOWN &&
          !sb_framing_nbd_seen (&s.f), "fresh: role unknown, no NBD seen");
  b.n = 0;
  put_greeting (&b, NBD_FLAG_FIXED_NEWSTYLE);
  received (&s, b.b, 7);
  TAP_OK (sb_framing_role (&s.f) == SB_FRAMING_ROLE_UNKNOWN && ON (&s),
          "7 bytes of NBDMAGIC received: role still unknown");
  received (&s, b.b + 7, b.n - 7);
  TAP_OK (sb_framing_role (&s.f) == SB_FRAMING_ROLE_CLIENT &&
          !sb_framing_nbd_seen (&s.f),
          "NBDMAGIC received: client, but it has not spoken NBD yet");
  b.n = 0;
  put_u32 (&b, NBD_FLAG_C_FIXED_NEWSTYLE);
  put_option (&b, NBD_OPT_GO, 6);
  sent (&s, b.b, 4);
  TAP_OK (!sb_framing_nbd_seen (&s.f), "client flags alone are not NBD");
  sent (&s, b.b + 4, b.n - 4);
  TAP_OK (sb_framing_nbd_seen (&s.f) && ON (&s),
          "client sent IHAVEOPT: NBD seen");

  fresh (&s, true);
  b.n = 0;
  put_greeting (&b, NBD_FLAG_FIXED_NEWSTYLE);
  sent (&s, b.b, 8);
  TAP_OK (sb_framing_role (&s.f) == SB_FRAMING_ROLE_SERVER &&
          sb_framing_nbd_seen (&s.f), "server sent NBDMAGIC: NBD seen");
}

/* Finish of EXPORT_NAME: 124 zeroes unless both sides said NO_ZEROES. */

static void
test_export_name (void)
{
  static struct bytes b;
  struct nbd_new_handshake_finish fin = { htobe64 (1 << 20), 0 };
  struct side s;
  int server, nz;

  for (server = 0; server <= 1; server++)
    for (nz = 0; nz <= 1; nz++) {
      fresh (&s, server);
      open_handshake (&s, nz);
      b.n = 0;
      put_option (&b, NBD_OPT_EXPORT_NAME, 3);
      put (&b, "foo", 3);
      c2s (&s, &b);
      b.n = 0;
      put (&b, &fin, sizeof fin);
      TAP_OK (!server || !wants (&s, b.b, b.n),
              "%s: finish header alone (%s): no MSG_MORE, it has no magic",
              who (&s), nz ? "no zeroes" : "zeroes");
      if (!nz)
        put_fill (&b, NBD_EXPORT_NAME_ZEROES, 0);
      s2c (&s, &b);
      b.n = 0;
      put_request (&b, NBD_CMD_WRITE, 1, 512);
      put_fill (&b, 512, 0xee);
      c2s (&s, &b);
      b.n = 0;
      put_simple (&b, 0, 1);
      s2c (&s, &b);
      TAP_OK (ON (&s), "%s: EXPORT_NAME (%s), then a WRITE and its reply",
              who (&s), nz ? "no zeroes" : "zeroes");
    }
}


static void
test_handshake_surprises (void)
{
  static struct bytes b;
  struct side s;

  fresh (&s, true);
  b.n = 0;
  put (&b, "NBDMAGIC\0\0\x42\x02\x81\x86\x12\x53", 16);
  sent (&s, b.b, b.n);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_OLDSTYLE &&
          sb_framing_nbd_seen (&s.f), "oldstyle greeting: off, NBD seen");

  fresh (&s, true);
  received (&s, "N", 1);
  b.n = 0;
  put_greeting (&b, NBD_FLAG_FIXED_NEWSTYLE);
  sent (&s, b.b, b.n);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_BOTH_SPOKE,
          "bytes received before the greeting went out: off");

  fresh (&s, true);
  b.n = 0;
  put_greeting (&b, NBD_FLAG_FIXED_NEWSTYLE);
  sent (&s, b.b, b.n);
  b.n = 0;
  put_u32 (&b, 0x100);
  received (&s, b.b, b.n);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_CLIENT_FLAGS,
          "unknown client flags: off");

  fresh (&s, false);
  open_handshake (&s, false);
  haggle (&s, NBD_OPT_STARTTLS, NBD_REP_ACK);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_STARTTLS,
          "STARTTLS acked: off, the rest is TLS");

  fresh (&s, false);
  open_handshake (&s, false);
  b.n = 0;
  put_opt_reply (&b, NBD_OPT_GO, NBD_REP_ACK, 4);
  received (&s, b.b, b.n);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_BAD_LENGTH,
          "an ACK with data: off");

  fresh (&s, true);
  open_handshake (&s, false);
  b.n = 0;
  put_option (&b, NBD_OPT_GO, UINT32_C (0x7fffffff));
  received (&s, b.b, b.n);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_BAD_LENGTH,
          "a 2 GiB option: off");
}

/* ---- Not NBD at all ---- */

static void
test_not_nbd (void)
{
  static const char http[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  static struct bytes b;
  struct side s;

  fresh (&s, false);
  sent (&s, "G", 1);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_NOT_NBD &&
          !sb_framing_nbd_seen (&s.f), "HTTP client: off at the first byte");
  TAP_OK (!wants (&s, http, sizeof http - 1), "HTTP client: never more");

  fresh (&s, true);
  received (&s, http, sizeof http - 1);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_NOT_NBD,
          "HTTP server receiving a request: off");

  fresh (&s, true);
  b.n = 0;
  put (&b, "hello ", 6);
  put_greeting (&b, NBD_FLAG_FIXED_NEWSTYLE);
  put_request (&b, NBD_CMD_WRITE, 1, 100);
  TAP_OK (!wants (&s, b.b, b.n), "NBD magics in the middle: no more");
  sent (&s, b.b, b.n);
  TAP_OK (sb_framing_is_off (&s.f) && !sb_framing_nbd_seen (&s.f) &&
          sb_framing_role (&s.f) == SB_FRAMING_ROLE_UNKNOWN,
          "NBD magics in the middle of a stream: off, never NBD");

  fresh (&s, false);
  sent (&s, "\0\0\0\0\0\0\0\0", 8);
  TAP_OK (sb_framing_is_off (&s.f), "zeroes: off");
}


int
main (void)
{
  test_go_handshakes ();
  test_roles_and_nbd_seen ();
  test_export_name ();
  test_handshake_surprises ();
  test_not_nbd ();
  return tap_done ();
}
