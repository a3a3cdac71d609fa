/* SPDX-License-Identifier: MIT */
/* Unit tests for the NBD framing tracker: transmission phase, both roles. */
#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "tap.h"
#include "nbd-protocol.h"
#include "nbd-framing.h"
#include "framing-side.h"


/* ---- Transmission: the client's requests ---- */

static void
test_write_split (void)
{
  static struct bytes b;
  struct side s;
  struct iovec iov[2];

  fresh (&s, false);
  handshake_go (&s, true, false);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 42, 4096);
  put_fill (&b, 4096, 0xab);
  TAP_OK (wants (&s, b.b, sizeof (struct nbd_request)),
          "WRITE header alone: wants more");
  TAP_OK (!wants (&s, b.b, b.n), "WRITE header and payload in one: no");
  iov[0] = (struct iovec) { b.b, sizeof (struct nbd_request) };
  iov[1] = (struct iovec) { b.b + iov[0].iov_len, 4096 };
  TAP_OK (!sb_framing_wants_more (&s.f, iov, 2),
          "header and payload in two iovecs: no");
  iov[1].iov_len = 4095;
  TAP_OK (!sb_framing_wants_more (&s.f, iov, 2),
          "header and all but one payload byte: no, it ends in the payload");

  sent (&s, b.b, sizeof (struct nbd_request));
  TAP_OK (!wants (&s, b.b + 28, 100),
          "after the header, part of the payload: no (an earlier count)");
  TAP_OK (!wants (&s, b.b + 28, 4096), "the rest of the payload: no");
  TAP_OK (!wants (&s, NULL, 0), "an empty send after the header: no");
  sent (&s, b.b + 28, 4096);
  TAP_OK (ON (&s) && !wants (&s, NULL, 0), "payload done: at a boundary");
}

static void
test_partial_writes (void)
{
  static struct bytes b;
  struct side s;
  struct iovec iov[3];

  fresh (&s, false);
  handshake_go (&s, false, false);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 1, 1000);
  put_fill (&b, 1000, 0x25);
  iov[0] = (struct iovec) { b.b, 10 };
  iov[1] = (struct iovec) { b.b + 10, 400 };
  iov[2] = (struct iovec) { b.b + 410, b.n - 410 };
  sb_framing_sent (&s.f, iov, 3, 10);
  TAP_OK (wants (&s, b.b + 10, 18), "partial write of 10: rest of the header"
          " alone wants more");
  sb_framing_sent (&s.f, iov + 1, 2, 300);
  TAP_OK (!wants (&s, b.b + 310, b.n - 310) &&
          !wants (&s, b.b + 310, b.n - 311),
          "partial write of 300 more: the rest of the payload gets no MSG_MORE,"
          " whole or one short");
  iov[0] = (struct iovec) { b.b + 310, b.n - 310 };
  sb_framing_sent (&s.f, iov, 1, b.n - 310);
  TAP_OK (ON (&s) && !wants (&s, NULL, 0), "the rest went: boundary");
}

static void
test_byte_by_byte (void)
{
  static struct bytes b;
  struct side s;
  size_t i;
  bool ok = true;

  fresh (&s, false);
  handshake_go (&s, false, false);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 1, 3);
  put (&b, "abc", 3);
  put_request (&b, NBD_CMD_FLUSH, 2, 0);
  for (i = 0; i < b.n; i++) {
    bool header_done = i + 1 == sizeof (struct nbd_request);
    ok &= wants (&s, b.b + i, 1) == header_done;
    sent (&s, b.b + i, 1);
  }
  TAP_OK (ok && ON (&s), "requests sent byte by byte: wants more exactly "
          "at the byte that completes the WRITE header");

  b.n = 0;
  put_simple (&b, 0, 1);
  put_simple (&b, 0, 2);
  for (i = 0; i < b.n; i++)
    received (&s, b.b + i, 1);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 3, 8);
  TAP_OK (ON (&s) && wants (&s, b.b, b.n),
          "replies received byte by byte: still on");
}

static void
test_several_in_one (void)
{
  static struct bytes b;
  struct side s;
  int i;

  fresh (&s, false);
  handshake_go (&s, false, false);
  b.n = 0;
  for (i = 0; i < 3; i++) {
    put_request (&b, NBD_CMD_WRITE, i, 100);
    put_fill (&b, 100, 0x67);
  }
  put_request (&b, NBD_CMD_READ, 10, 512);
  put_request (&b, NBD_CMD_TRIM, 11, UINT32_C (0xfffff000));
  TAP_OK (!wants (&s, b.b, b.n), "3 WRITEs, a READ, a big TRIM: no more");
  put_request (&b, NBD_CMD_WRITE, 12, 100);
  TAP_OK (wants (&s, b.b, b.n), "and a 4th WRITE header: wants more");
  sent (&s, b.b, b.n);
  TAP_OK (ON (&s) && IN_FLIGHT (&s) == 0,
          "all tracked; a client keeps no READs");
}

/* Payload bytes that look like headers are payload. */
static void
test_magic_in_payload (void)
{
  static struct bytes b, p;
  struct side s;
  int i;

  p.n = 0;
  for (i = 0; i < 20; i++) {
    put_request (&p, NBD_CMD_WRITE, 99, 1 << 20);
    put_simple (&p, 0, 99);
    put_greeting (&p, 0);
  }
  fresh (&s, true);
  handshake_go (&s, false, false);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 5, p.n);
  put (&b, p.b, p.n);
  put_request (&b, NBD_CMD_READ, 6, p.n);
  received (&s, b.b, b.n);
  b.n = 0;
  put_simple (&b, 0, 5);
  TAP_OK (ON (&s) && !wants (&s, b.b, b.n),
          "server: WRITE payload full of magics, then its reply: boundary");
  put_simple (&b, 0, 6);
  TAP_OK (wants (&s, b.b, b.n), "and a READ reply header: wants more");
  put (&b, p.b, p.n - 1);
  TAP_OK (!wants (&s, b.b, b.n),
          "READ reply full of magics, one byte short: no, not at a header");
  put (&b, p.b + p.n - 1, 1);
  TAP_OK (!wants (&s, b.b, b.n), "and with its last byte: boundary");
  sent (&s, b.b, b.n);
  TAP_OK (ON (&s) && IN_FLIGHT (&s) == 0, "all sent, nothing in flight");
}

/* ---- Transmission: the server's replies ---- */

static void
test_simple_read_reply (void)
{
  static struct bytes b;
  struct side s;

  fresh (&s, true);
  handshake_go (&s, false, false);
  b.n = 0;
  put_request (&b, NBD_CMD_READ, 7, 4096);
  put_request (&b, NBD_CMD_READ, 8, 512);
  put_request (&b, NBD_CMD_FLUSH, 9, 0);
  received (&s, b.b, b.n);
  b.n = 0;
  put_simple (&b, 0, 7);
  TAP_OK (wants (&s, b.b, b.n), "READ reply header alone: wants more");
  sent (&s, b.b, b.n);
  b.n = 0;
  put_fill (&b, 4096, 1);
  TAP_OK (!wants (&s, b.b, b.n), "its 4096 bytes complete it");
  sent (&s, b.b, b.n);
  b.n = 0;
  put_simple (&b, NBD_EIO, 8);
  TAP_OK (!wants (&s, b.b, b.n), "READ reply with an error: no payload");
  sent (&s, b.b, b.n);
  b.n = 0;
  put_simple (&b, 0, 9);
  TAP_OK (!wants (&s, b.b, b.n), "FLUSH reply: no payload");
  put_simple (&b, 0, 8);
  TAP_OK (!wants (&s, b.b, b.n), "the failed READ's cookie is forgotten");
  sent (&s, b.b, b.n);
  TAP_OK (ON (&s) && IN_FLIGHT (&s) == 0, "server: no READ left in flight");
}

/* Once the handshake is over a client stops following replies: its
 * requests carry every length it needs, and receiving threads never
 * touch the tracker.
 */
static void
test_client_ignores_replies (void)
{
  static struct bytes b;
  struct side s;

  fresh (&s, false);
  handshake_go (&s, false, false);
  TAP_OK (!sb_framing_wants_input (&s.f), "client in transmission: "
          "received bytes no longer wanted");
  b.n = 0;
  put_request (&b, NBD_CMD_READ, 1, 1000);
  sent (&s, b.b, b.n);
  received (&s, "junk that is no reply", 21);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 2, 10);
  TAP_OK (ON (&s) && wants (&s, b.b, b.n),
          "client: junk among the replies changes nothing");
  fresh (&s, true);
  handshake_go (&s, false, false);
  TAP_OK (sb_framing_wants_input (&s.f), "a server still follows requests");
}

static void
test_structured (void)
{
  static struct bytes b;
  struct side s;
  struct nbd_structured_reply_offset_data od = { htobe64 (0) };

  fresh (&s, true);
  handshake_go (&s, true, false);
  b.n = 0;
  put_request (&b, NBD_CMD_READ, 3, 8192);
  received (&s, b.b, b.n);
  b.n = 0;
  put_chunk (&b, 0, NBD_REPLY_TYPE_OFFSET_DATA, 3, sizeof od + 4096);
  put (&b, &od, sizeof od);
  TAP_OK (wants (&s, b.b, b.n), "data chunk header and offset: more");
  TAP_OK (wants (&s, b.b, sizeof (struct nbd_structured_reply)),
          "data chunk header alone: more");
  TAP_OK (!wants (&s, b.b, b.n + 1),
          "header, offset and a data byte: no (past the fixed fields)");
  put_fill (&b, 4096, 0x66);
  TAP_OK (!wants (&s, b.b, b.n), "data chunk with its data: no");
  sent (&s, b.b, b.n);
  TAP_OK (IN_FLIGHT (&s) == 0, "structured replies: no READs kept");
  b.n = 0;
  put_chunk (&b, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_NONE, 3, 0);
  TAP_OK (!wants (&s, b.b, b.n), "DONE chunk with no payload: no");
  sent (&s, b.b, b.n);
  b.n = 0;
  put_simple (&b, 0, 3);
  TAP_OK (ON (&s) && !wants (&s, b.b, b.n),
          "a simple reply in structured mode carries no data: no");

  fresh (&s, true);
  handshake_go (&s, false, false);
  b.n = 0;
  put_chunk (&b, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_NONE, 3, 0);
  sent (&s, b.b, b.n);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_NOT_NEGOTIATED,
          "a structured chunk never negotiated: off");
}

static void
test_extended (void)
{
  static struct bytes b;
  struct side s;
  int server;

  for (server = 0; server <= 1; server++) {
    fresh (&s, server);
    handshake_go (&s, false, true);
    b.n = 0;
    put_request_ext (&b, 0, NBD_CMD_WRITE, 9, 100);
    TAP_OK (server || wants (&s, b.b, b.n),
            "%s: an extended WRITE without PAYLOAD_LEN (QEMU's) has its data",
            who (&s));
    b.n = 0;
    put_request_ext (&b, NBD_CMD_FLAG_PAYLOAD_LEN, NBD_CMD_WRITE, 1, 2000);
    TAP_OK (server || wants (&s, b.b, b.n),
            "%s: extended WRITE header alone wants more", who (&s));
    put_fill (&b, 2000, 0x21);
    put_request_ext (&b, 0, NBD_CMD_READ, 2, 3000);
    put_request_ext (&b, NBD_CMD_FLAG_PAYLOAD_LEN, NBD_CMD_BLOCK_STATUS,
                     3, 16);
    TAP_OK (server || wants (&s, b.b, b.n),
            "%s: BLOCK_STATUS with PAYLOAD_LEN has a payload", who (&s));
    put_fill (&b, 16, 0);
    c2s (&s, &b);
    b.n = 0;
    put_ext_reply (&b, 0, NBD_REPLY_TYPE_OFFSET_DATA, 2, 8 + 3000);
    TAP_OK (!server || wants (&s, b.b, b.n),
            "%s: extended reply header alone wants more", who (&s));
    put_fill (&b, 8 + 3000, 0x6e);
    put_ext_reply (&b, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_NONE, 2, 0);
    put_ext_reply (&b, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_NONE, 1, 0);
    TAP_OK (!server || !wants (&s, b.b, b.n),
            "%s: extended replies complete", who (&s));
    s2c (&s, &b);
    TAP_OK (ON (&s) && IN_FLIGHT (&s) == 0, "%s: extended traffic in step",
            who (&s));
    b.n = 0;
    put_request (&b, NBD_CMD_FLUSH, 4, 0);
    c2s (&s, &b);
    TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_BAD_MAGIC,
            "%s: a compact request after extended headers: off", who (&s));
  }
}

/* Block status and sparse reads: status chunks, hole chunks, data
 * chunks, in both header styles, stay in step and end at boundaries.
 */
static void
test_block_status (void)
{
  static struct bytes b;
  struct side s;
  int server, ext;

  for (ext = 0; ext <= 1; ext++)
    for (server = 0; server <= 1; server++) {
      const char *style = ext ? "extended" : "structured";
      uint64_t off = htobe64 (8192);

      fresh (&s, server);
      handshake_go (&s, !ext, ext);
      b.n = 0;
      if (ext) {
        put_request_ext (&b, NBD_CMD_FLAG_REQ_ONE, NBD_CMD_BLOCK_STATUS, 1,
                         UINT64_C(1) << 40);
        put_request_ext (&b, 0, NBD_CMD_READ, 2, 12288);
      }
      else {
        put_request (&b, NBD_CMD_BLOCK_STATUS, 1, 1 << 30);
        put_request (&b, NBD_CMD_READ, 2, 12288);
      }
      TAP_OK (server || !wants (&s, b.b, b.n),
              "%s %s: block status and read carry no payload", style,
              who (&s));
      c2s (&s, &b);
      b.n = 0;
      put_block_status (&b, ext, 1, 1000);
      TAP_OK (!server || wants (&s, b.b, ext ? 32 + 8 : 20 + 4),
              "%s %s: a status chunk's header and context: wants more",
              style, who (&s));
      TAP_OK (!server || !wants (&s, b.b, b.n - 1),
              "%s %s: a status chunk but its last byte: no", style,
              who (&s));
      TAP_OK (!server || !wants (&s, b.b, b.n),
              "%s %s: a whole status chunk: boundary", style, who (&s));
      put_hole (&b, ext, 0, 2, 0, 4096);
      if (ext)
        put_ext_reply (&b, 0, NBD_REPLY_TYPE_OFFSET_DATA, 2, 8 + 4096);
      else
        put_chunk (&b, 0, NBD_REPLY_TYPE_OFFSET_DATA, 2, 8 + 4096);
      put (&b, &off, sizeof off);
      put_fill (&b, 4096, 0x77);
      put_hole (&b, ext, NBD_REPLY_FLAG_DONE, 2, 8192, 4096);
      TAP_OK (!server || !wants (&s, b.b, b.n),
              "%s %s: hole, data and hole chunks end at a boundary", style,
              who (&s));
      s2c (&s, &b);
      TAP_OK (ON (&s) && IN_FLIGHT (&s) == 0, "%s %s: in step after a sparse"
              " read and block status", style, who (&s));
    }
}

/* ---- Surprises in transmission ---- */

/* A server in simple-reply mode follows as many READs in flight as its
 * table has room for: thousands, each answered with its header corked.
 */
static void
test_reads_in_flight (void)
{
  static struct bytes b;
  struct side s;
  int i, n = 2048;
  bool ok = true;

  fresh (&s, true);
  handshake_go (&s, false, false);
  for (i = 0; i < n; i++) {
    b.n = 0;
    put_request (&b, NBD_CMD_READ, 1000 + i, 512);
    c2s (&s, &b);
  }
  TAP_OK (ON (&s) && IN_FLIGHT (&s) == (unsigned) n,
          "%d READs in flight: still on", n);
  for (i = n - 1; i >= 0; i--) {
    b.n = 0;
    put_simple (&b, 0, 1000 + i);
    ok &= wants (&s, b.b, b.n);
    s2c (&s, &b);
    b.n = 0;
    put_fill (&b, 512, 0x67);
    ok &= !wants (&s, b.b, b.n);
    s2c (&s, &b);
  }
  TAP_OK (ok && ON (&s) && IN_FLIGHT (&s) == 0,
          "answered in reverse: every header corked, every payload not");

  for (i = 0; i <= SB_READS_CELLS && ON (&s); i++) {
    b.n = 0;
    put_request (&b, NBD_CMD_READ, 7 * (uint64_t) i, 512);
    c2s (&s, &b);
  }
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_COOKIES_FULL &&
          i > n && strlen (sb_framing_off_reason (&s.f)) > 0,
          "the table full after %d more READs: off, with a reason", i);
  b.n = 0;
  put_simple (&b, 0, 0);
  TAP_OK (!wants (&s, b.b, b.n), "off: never wants more");
}

/* A cookie twice in flight, a server without a table. */
static void
test_reads_surprises (void)
{
  static struct bytes b;
  struct side s;

  fresh (&s, true);
  handshake_go (&s, false, false);
  b.n = 0;
  put_request (&b, NBD_CMD_READ, 5, 512);
  put_request (&b, NBD_CMD_READ, 5, 512);
  c2s (&s, &b);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_DUP_COOKIE,
          "a READ cookie twice in flight: off");

  memset (&s, 0, sizeof s);
  s.server = true;
  handshake_go (&s, false, false);
  TAP_OK (sb_framing_needs_reads (&s.f), "a server without a table needs one");
  b.n = 0;
  put_request (&b, NBD_CMD_READ, 5, 512);
  c2s (&s, &b);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_NO_TABLE,
          "a server without a table: off at its first READ");
  fresh (&s, false);
  handshake_go (&s, false, false);
  TAP_OK (!sb_framing_needs_reads (&s.f), "a client needs none");
}

/* Bytes moved by sendfile or splice: counted inside a payload, fatal
 * where a header was due; what follows is never corked on their count.
 */
static void
test_unseen (void)
{
  static struct bytes b;
  struct side s;

  fresh (&s, true);
  handshake_go (&s, false, false);
  b.n = 0;
  put_request (&b, NBD_CMD_READ, 1, 4096);
  put_request (&b, NBD_CMD_FLUSH, 2, 0);
  c2s (&s, &b);
  b.n = 0;
  put_simple (&b, 0, 1);
  TAP_OK (wants (&s, b.b, b.n), "READ reply header: wants more");
  s2c (&s, &b);
  sb_framing_unseen (&s.f, true, 4000);
  b.n = 0;
  put_simple (&b, 0, 2);
  TAP_OK (ON (&s) && !wants (&s, b.b, b.n),
          "96 bytes still due: a 16-byte reply is not corked on that count");
  sb_framing_unseen (&s.f, true, 96);
  TAP_OK (ON (&s) && !wants (&s, b.b, b.n),
          "the payload went by sendfile: the FLUSH reply is not corked");
  s2c (&s, &b);
  sb_framing_unseen (&s.f, true, 16);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_UNSEEN &&
          !wants (&s, b.b, b.n),
          "unseen bytes where a header was due: off");

  fresh (&s, true);
  handshake_go (&s, false, false);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 1, 100);
  c2s (&s, &b);
  sb_framing_unseen (&s.f, false, 101);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_UNSEEN,
          "spliced in past the WRITE payload: off");
}

static void
test_transmission_surprises (void)
{
  static struct bytes b;
  struct side s;

  fresh (&s, true);
  handshake_go (&s, false, false);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 1, (uint32_t) (5 * NBD_MAX_PAYLOAD));
  received (&s, b.b, b.n);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_BAD_LENGTH,
          "a 160 MiB WRITE: off");

  fresh (&s, true);
  handshake_go (&s, false, false);
  sent (&s, "\x67\x44\x66\x99", 4);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_BAD_MAGIC,
          "a reply magic one bit off: off");

  fresh (&s, false);
  handshake_go (&s, false, false);
  b.n = 0;
  put_request (&b, NBD_CMD_DISC, 1, 0);
  put_request (&b, NBD_CMD_FLUSH, 2, 0);
  sent (&s, b.b, b.n);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_AFTER_DISC,
          "a request after NBD_CMD_DISC: off");

  fresh (&s, false);
  handshake_go (&s, false, false);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 1, 64);
  put_fill (&b, 60, 0);
  sent (&s, b.b, b.n);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 2, 64);
  sent (&s, b.b, b.n);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_BAD_MAGIC,
          "a payload 4 bytes short shifts the next header: off");
}

static void
test_wants_more_is_pure (void)
{
  static struct bytes b;
  static struct side s, copy;

  fresh (&s, true);
  handshake_go (&s, true, false);
  b.n = 0;
  put_request (&b, NBD_CMD_READ, 1, 100);
  received (&s, b.b, b.n);
  memcpy (&copy, &s, sizeof s);
  b.n = 0;
  put_simple (&b, 0, 1);
  put_fill (&b, 50, 0);
  wants (&s, b.b, b.n);
  b.n = 0;
  put (&b, "junk", 4);
  wants (&s, b.b, b.n);
  TAP_OK (memcmp (&s, &copy, sizeof s) == 0, "wants_more changes nothing");
  TAP_OK (sizeof (struct sb_framing) <= 128,
          "the tracker is small: %zu bytes", sizeof (struct sb_framing));
}

/* A tracker abandoned mid-message (fork during an update) says no to
 * everything from then on, whatever its half-updated state held.
 */
static void
test_abandon (void)
{
  static struct bytes b;
  struct side s;

  fresh (&s, false);
  handshake_go (&s, true, false);
  b.n = 0;
  put_request (&b, NBD_CMD_WRITE, 7, 4096);
  TAP_OK (wants (&s, b.b, b.n), "a WRITE header: wants more");
  sent (&s, b.b, b.n);
  sb_framing_abandon (&s.f, SB_FRAMING_OFF_ABANDONED);
  b.n = 0;
  put_fill (&b, 4096, 0);
  put_request (&b, NBD_CMD_WRITE, 8, 4096);
  TAP_OK (!ON (&s) && !wants (&s, b.b, b.n), "abandoned: off, wants nothing");
  TAP_OK (strcmp (sb_framing_off_reason (&s.f), "unknown reason") != 0,
          "abandoned has a reason: %s", sb_framing_off_reason (&s.f));
  sent (&s, b.b, b.n);
  TAP_OK (sb_framing_off_code (&s.f) == SB_FRAMING_OFF_ABANDONED,
          "more bytes keep the first reason");
  fresh (&s, false);
  sb_framing_abandon (&s.f, SB_FRAMING_ON);
  TAP_OK (!ON (&s), "abandoning with no reason still turns it off");
}

int
main (void)
{
  test_write_split ();
  test_partial_writes ();
  test_byte_by_byte ();
  test_several_in_one ();
  test_magic_in_payload ();
  test_simple_read_reply ();
  test_client_ignores_replies ();
  test_structured ();
  test_extended ();
  test_block_status ();
  test_reads_in_flight ();
  test_reads_surprises ();
  test_unseen ();
  test_transmission_surprises ();
  test_wants_more_is_pure ();
  test_abandon ();
  return tap_done ();
}
