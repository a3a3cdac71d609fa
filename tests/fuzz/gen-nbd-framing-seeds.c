/* SPDX-License-Identifier: MIT */
/* Writes the seed corpus of fuzz-nbd-framing: whole NBD conversations,
 * seen from the server and from the client, in the harness's record
 * format (see fuzz-nbd-framing.c).  Regenerate with
 *   cc -std=gnu11 -Inbd -Itests/unit -o /tmp/gen tests/fuzz/gen-nbd-framing-seeds.c
 *   /tmp/gen tests/fuzz/corpus/nbd-framing
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "nbd-stream.h"

#define SENT 0
#define RECEIVED 1
#define SPLIT(n) ((((n) - 1) & 3) << 1)  /* cut into N iovecs */
#define UNSEEN 0x20
#define PARTIAL 0x40

static struct bytes seed;        /* the records being written */
static bool server;              /* the seed is seen from the server */
static int cut = 1;              /* bytes per record, 0 for whole messages */

/* Append one message as records: CUT bytes at a time, or at most 255. */
static void
emit (int dir, const struct bytes *m, uint8_t flags)
{
  size_t at = 0, n;

  while (at < m->n) {
    n = m->n - at;
    if (n > 255)
      n = 255;
    if (cut && n > (size_t) cut)
      n = cut;
    seed.b[seed.n++] = (uint8_t) (dir | flags);
    seed.b[seed.n++] = (uint8_t) n;
    put (&seed, m->b + at, n);
    at += n;
  }
}

static void
s2c (const struct bytes *m)
{
  emit (server ? SENT : RECEIVED, m, SPLIT (2));
}

static void
c2s (const struct bytes *m)
{
  emit (server ? RECEIVED : SENT, m, PARTIAL | SPLIT (3));
}

static void
handshake (bool structured, bool extended)
{
  static struct bytes m;
  struct nbd_fixed_new_option_reply_info_export info = {
    htobe16 (NBD_INFO_EXPORT), htobe64 (1 << 20), 0
  };

  m.n = 0; put_greeting (&m, NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES);
  s2c (&m);
  m.n = 0; put_u32 (&m, NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES);
  put_option (&m, NBD_OPT_EXTENDED_HEADERS, 0);
  c2s (&m);
  m.n = 0; put_opt_reply (&m, NBD_OPT_EXTENDED_HEADERS,
                          extended ? NBD_REP_ACK : NBD_REP_ERR_UNSUP, 0);
  s2c (&m);
  m.n = 0; put_option (&m, NBD_OPT_STRUCTURED_REPLY, 0); c2s (&m);
  m.n = 0; put_opt_reply (&m, NBD_OPT_STRUCTURED_REPLY,
                          structured ? NBD_REP_ACK : NBD_REP_ERR_UNSUP, 0);
  s2c (&m);
  m.n = 0; put_option (&m, NBD_OPT_GO, 6); put_fill (&m, 6, 0); c2s (&m);
  m.n = 0; put_opt_reply (&m, NBD_OPT_GO, NBD_REP_INFO, sizeof info);
  put (&m, &info, sizeof info);
  put_opt_reply (&m, NBD_OPT_GO, NBD_REP_ACK, 0);
  s2c (&m);
}

static void
export_name (bool no_zeroes)
{
  static struct bytes m;
  struct nbd_new_handshake_finish fin = { htobe64 (1 << 20), 0 };
  uint16_t z = no_zeroes ? NBD_FLAG_NO_ZEROES : 0;

  m.n = 0; put_greeting (&m, NBD_FLAG_FIXED_NEWSTYLE | z); s2c (&m);
  m.n = 0; put_u32 (&m, NBD_FLAG_C_FIXED_NEWSTYLE | z);
  put_option (&m, NBD_OPT_EXPORT_NAME, 1); put (&m, "x", 1);
  c2s (&m);
  m.n = 0; put (&m, &fin, sizeof fin);
  if (!no_zeroes)
    put_fill (&m, NBD_EXPORT_NAME_ZEROES, 0);
  s2c (&m);
}

/* A WRITE, a READ and a FLUSH, with replies of the negotiated kind. */
static void
traffic (bool structured, bool extended)
{
  static struct bytes m;
  int i;

  for (i = 0; i < 2; i++) {
    m.n = 0;
    if (extended) {
      put_request_ext (&m, NBD_CMD_FLAG_PAYLOAD_LEN, NBD_CMD_WRITE, 1, 300);
      put_fill (&m, 300, 0x25);
      put_request_ext (&m, 0, NBD_CMD_READ, 2, 200);
    }
    else {
      put_request (&m, NBD_CMD_WRITE, 1, 300);
      put_fill (&m, 300, 0x25);
      put_request (&m, NBD_CMD_READ, 2, 200);
    }
    c2s (&m);
    m.n = 0;
    if (extended) {
      put_ext_reply (&m, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_NONE, 1, 0);
      put_ext_reply (&m, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_OFFSET_DATA,
                     2, 208);
      put_fill (&m, 208, 0x67);
    }
    else if (structured) {
      put_simple (&m, 0, 1);
      put_chunk (&m, NBD_REPLY_FLAG_DONE, NBD_REPLY_TYPE_OFFSET_DATA, 2, 208);
      put_fill (&m, 208, 0x66);
    }
    else {
      put_simple (&m, 0, 1);
      put_simple (&m, 0, 2);
      put_fill (&m, 200, 0x6e);
    }
    s2c (&m);
  }
  m.n = 0;
  if (extended)
    put_request_ext (&m, 0, NBD_CMD_FLUSH, 3, 0);
  else
    put_request (&m, NBD_CMD_FLUSH, 3, 0);
  c2s (&m);
}

/* Simple replies only: READS READs in flight at once, answered in reverse
 * order, each header alone and its data after it, by a plain send or
 * (UNSEEN) as sendfile would: the library only counts those bytes.
 */
static void
pipeline (int reads, bool unseen)
{
  static struct bytes m;
  int i;

  m.n = 0;
  for (i = 0; i < reads; i++)
    put_request (&m, NBD_CMD_READ, 7919 * (uint64_t) i, 64);
  put_request (&m, NBD_CMD_FLUSH, 1, 0);
  c2s (&m);
  m.n = 0; put_simple (&m, 0, 1); s2c (&m);
  for (i = reads - 1; i >= 0; i--) {
    m.n = 0; put_simple (&m, 0, 7919 * (uint64_t) i); s2c (&m);
    m.n = 0; put_fill (&m, 64, 0x67);
    emit (server ? SENT : RECEIVED, &m, unseen ? UNSEEN : 0);
  }
}

/* base:allocation selected, then a block status and a sparse READ:
 * a status chunk, and hole, data and hole chunks.
 */
static void
block_status (bool extended)
{
  static struct bytes m;
  uint64_t off = htobe64 (4096);

  m.n = 0; put_meta_option (&m, NBD_OPT_SET_META_CONTEXT); c2s (&m);
  m.n = 0; put_meta_reply (&m, NBD_OPT_SET_META_CONTEXT, 1);
  put_opt_reply (&m, NBD_OPT_SET_META_CONTEXT, NBD_REP_ACK, 0);
  s2c (&m);
  m.n = 0;
  if (extended) {
    put_request_ext (&m, NBD_CMD_FLAG_REQ_ONE, NBD_CMD_BLOCK_STATUS, 4,
                     UINT64_C(1) << 33);
    put_request_ext (&m, 0, NBD_CMD_READ, 5, 12288);
  }
  else {
    put_request (&m, NBD_CMD_BLOCK_STATUS, 4, 1 << 20);
    put_request (&m, NBD_CMD_READ, 5, 12288);
  }
  c2s (&m);
  m.n = 0;
  put_block_status (&m, extended, 4, 5);
  put_hole (&m, extended, 0, 5, 0, 4096);
  if (extended)
    put_ext_reply (&m, 0, NBD_REPLY_TYPE_OFFSET_DATA, 5, 8 + 4096);
  else
    put_chunk (&m, 0, NBD_REPLY_TYPE_OFFSET_DATA, 5, 8 + 4096);
  put (&m, &off, sizeof off);
  put_fill (&m, 4096, 0x5b);
  put_hole (&m, extended, NBD_REPLY_FLAG_DONE, 5, 8192, 4096);
  s2c (&m);
}

static void
save (const char *dir, const char *name)
{
  char path[4096];
  FILE *fp;

  snprintf (path, sizeof path, "%s/seed-%s-%s-%d", dir, name,
            server ? "server" : "client", cut);
  fp = fopen (path, "wb");
  if (fp == NULL || fwrite (seed.b, 1, seed.n, fp) != seed.n ||
      fclose (fp) != 0) {
    perror (path);
    exit (1);
  }
  seed.n = 0;
}

int
main (int argc, char **argv)
{
  static const int cuts[] = { 0, 1, 7 };
  static const char http[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  size_t i;
  int s;

  if (argc != 2) {
    fprintf (stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  for (s = 0; s <= 1; s++)
    for (i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
      server = s;
      cut = cuts[i];
      handshake (false, false); traffic (false, false); save (argv[1], "go");
      handshake (true, false); traffic (true, false);
      save (argv[1], "structured");
      handshake (true, true); traffic (true, true); save (argv[1], "extended");
      handshake (true, false); block_status (false); traffic (true, false);
      save (argv[1], "block-status");
      handshake (true, true); block_status (true); traffic (true, true);
      save (argv[1], "block-status-extended");
      export_name (false); traffic (false, false);
      save (argv[1], "export-name");
      export_name (true); traffic (false, false);
      save (argv[1], "no-zeroes");
    }
  cut = 0;
  for (s = 0; s <= 1; s++) {
    server = s;
    handshake (false, false); pipeline (40, false);
    save (argv[1], "pipeline");
    handshake (false, false); pipeline (40, true);
    save (argv[1], "sendfile");
  }
  server = false;
  seed.b[seed.n++] = SENT;
  seed.b[seed.n++] = sizeof http - 1;
  put (&seed, http, sizeof http - 1);
  save (argv[1], "http");
  return 0;
}
