/* SPDX-License-Identifier: MIT */
/* Fixed newstyle negotiation: structured replies, then NBD_OPT_GO with a
 * block size request, falling back to NBD_OPT_EXPORT_NAME for servers
 * that do not know GO.  Every length the server sends is bounded before
 * anything is read into memory.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "be-bytes.h"
#include "client.h"
#include "full-io.h"
#include "nbd-protocol.h"

/* Longest option reply accepted: a description string plus headroom. */
#define OPT_REPLY_MAX (NBD_MAX_STRING + 64)

struct opt_reply {
  uint32_t type;                /* NBD_REP_* */
  uint32_t len;
  uint8_t data[OPT_REPLY_MAX];
};

static int
recv_or_report (int fd, void *buf, size_t len, const char *what)
{
  if (sb_read_full (fd, buf, len) == 0)
    return 0;
  if (errno == ENODATA || errno == ECONNRESET)
    sb_error ("%s: server closed the connection", what);
  else
    sb_error ("%s: %m", what);
  return -1;
}

static int
send_option (int fd, uint32_t option, const void *data, uint32_t len)
{
  struct nbd_option hdr = { .version = htobe64 (NBD_IHAVEOPT),
                            .option = htobe32 (option),
                            .optlen = htobe32 (len) };
  struct iovec iov[2] = {
    { .iov_base = &hdr, .iov_len = sizeof hdr },
    { .iov_base = (void *) (uintptr_t) data, .iov_len = len },
  };

  if (sb_writev_full (fd, iov, len > 0 ? 2 : 1, 0) == -1) {
    sb_error ("sending option %u: %m", option);
    return -1;
  }
  return 0;
}

static int
recv_reply (int fd, uint32_t option, struct opt_reply *r)
{
  struct nbd_fixed_new_option_reply hdr;

  if (recv_or_report (fd, &hdr, sizeof hdr, "reading option reply") == -1)
    return -1;
  if (be64toh (hdr.magic) != NBD_REP_MAGIC) {
    sb_error ("protocol error: bad option reply magic 0x%llx",
              (unsigned long long) be64toh (hdr.magic));
    return -1;
  }
  if (be32toh (hdr.option) != option) {
    sb_error ("protocol error: reply to option %u while waiting for %u",
              be32toh (hdr.option), option);
    return -1;
  }
  r->type = be32toh (hdr.reply);
  r->len = be32toh (hdr.replylen);
  if (r->len > OPT_REPLY_MAX) {
    sb_error ("protocol error: option reply of %u bytes is too long",
              r->len);
    return -1;
  }
  return recv_or_report (fd, r->data, r->len, "reading option reply");
}

static const char *
rep_error_name (uint32_t type)
{
  switch (type) {
  case NBD_REP_ERR_UNSUP: return "unsupported";
  case NBD_REP_ERR_POLICY: return "forbidden by policy";
  case NBD_REP_ERR_INVALID: return "invalid request";
  case NBD_REP_ERR_PLATFORM: return "not supported on this platform";
  case NBD_REP_ERR_TLS_REQD: return "TLS required (not supported here)";
  case NBD_REP_ERR_UNKNOWN: return "no such export";
  case NBD_REP_ERR_SHUTDOWN: return "server shutting down";
  case NBD_REP_ERR_BLOCK_SIZE_REQD: return "block size negotiation required";
  case NBD_REP_ERR_TOO_BIG: return "request too big";
  case NBD_REP_ERR_EXT_HEADER_REQD: return "extended headers required";
  default: return "unknown error";
  }
}


/* Leave politely: the server then need not log a broken negotiation. */
static void
send_abort (int fd)
{
  struct nbd_option hdr = { .version = htobe64 (NBD_IHAVEOPT),
                            .option = htobe32 (NBD_OPT_ABORT) };

  sb_write_full (fd, &hdr, sizeof hdr, 0);
}

static int
refused (int fd, const char *name, struct opt_reply *r)
{
  char shown_name[ESCAPED_VALUE_SIZE], msg[ESCAPED_VALUE_SIZE];

  /* The server's message is the server's: escaped, like the name. */
  sb_escape (msg, sizeof msg, r->data, r->len);
  send_abort (fd);
  sb_error ("server refused export '%s': %s (0x%x)%s%s",
            sb_escape_str (shown_name, sizeof shown_name, name),
            rep_error_name (r->type), r->type, *msg ? ": " : "", msg);
  return -1;
}

/* Ask for OPTION (STRUCTURED_REPLY or EXTENDED_HEADERS), which carries
 * no data: *AGREED is set on ACK; a refusal just leaves it unset.
 */
static int
negotiate_flag (int fd, uint32_t option, const char *what, bool *agreed)
{
  struct opt_reply r;

  if (send_option (fd, option, NULL, 0) == -1 ||
      recv_reply (fd, option, &r) == -1)
    return -1;
  if (r.type == NBD_REP_ACK && r.len == 0)
    *agreed = true;
  else if (!NBD_REP_IS_ERR (r.type)) {
    sb_error ("protocol error: reply type %u to %s", r.type, what);
    return -1;
  }
  return 0;
}

/* Extended headers imply reply chunks; without them, structured replies. */
static int
negotiate_replies (int fd, const struct options *o, struct export_info *info)
{
  if (o->structured && o->extended &&
      negotiate_flag (fd, NBD_OPT_EXTENDED_HEADERS, "EXTENDED_HEADERS",
                      &info->extended) == -1)
    return -1;
  if (info->extended) {
    info->structured = true;
    return 0;
  }
  if (o->structured &&
      negotiate_flag (fd, NBD_OPT_STRUCTURED_REPLY, "STRUCTURED_REPLY",
                      &info->structured) == -1)
    return -1;
  return 0;
}

/* One NBD_REP_META_CONTEXT: base:allocation and its id, or some context
 * we never asked for.
 */
static int
meta_context (const struct opt_reply *r, struct export_info *info)
{
  size_t n = strlen (NBD_CONTEXT_BASE_ALLOCATION);

  if (r->len != 4 + n ||
      memcmp (r->data + 4, NBD_CONTEXT_BASE_ALLOCATION, n) != 0 ||
      info->allocation) {
    sb_error ("protocol error: SET_META_CONTEXT answered with a "
              "context not asked for");
    return -1;
  }
  info->allocation = true;
  info->allocation_id = sb_get_be32 (r->data);
  return 0;
}

/* SET_META_CONTEXT base:allocation for NAME.  A server without it (or
 * refusing it) leaves info->allocation unset; that is no error here.
 */
static int
negotiate_allocation (int fd, const char *name, struct export_info *info)
{
  uint8_t data[4 + NBD_MAX_STRING + 8 + sizeof NBD_CONTEXT_BASE_ALLOCATION];
  uint32_t namelen = (uint32_t) strlen (name);
  uint32_t qlen = (uint32_t) strlen (NBD_CONTEXT_BASE_ALLOCATION);
  uint32_t be[3] = { htobe32 (namelen), htobe32 (1), htobe32 (qlen) };
  size_t at = 0;
  struct opt_reply r;

  memcpy (data, &be[0], 4);
  memcpy (data + 4, name, namelen);
  at = 4 + namelen;
  memcpy (data + at, &be[1], 4);
  memcpy (data + at + 4, &be[2], 4);
  memcpy (data + at + 8, NBD_CONTEXT_BASE_ALLOCATION, qlen);
  if (send_option (fd, NBD_OPT_SET_META_CONTEXT, data,
                   (uint32_t) (at + 8 + qlen)) == -1)
    return -1;
  for (;;) {
    if (recv_reply (fd, NBD_OPT_SET_META_CONTEXT, &r) == -1)
      return -1;
    if (r.type == NBD_REP_ACK)
      return 0;
    if (NBD_REP_IS_ERR (r.type)) {
      info->allocation = false;
      return 0;
    }
    if (r.type != NBD_REP_META_CONTEXT || meta_context (&r, info) == -1) {
      if (r.type != NBD_REP_META_CONTEXT)
        sb_error ("protocol error: reply type %u to SET_META_CONTEXT",
                  r.type);
      return -1;
    }
  }
}

static int
check_block_sizes (const struct export_info *info)
{
  uint32_t min = info->min_block;

  if (min == 0 || (min & (min - 1)) != 0 || info->pref_block < min ||
      info->max_block < min) {
    sb_error ("protocol error: bad block sizes %u/%u/%u", min,
              info->pref_block, info->max_block);
    return -1;
  }
  return 0;
}

/* One NBD_REP_INFO; unknown information types are ignored. */
static int
handle_info (const struct opt_reply *r, struct export_info *info,
             bool *have_export)
{
  struct nbd_fixed_new_option_reply_info_export ex;
  struct nbd_fixed_new_option_reply_info_block_size bs;
  uint16_t type;

  if (r->len < sizeof type)
    goto bad;
  memcpy (&type, r->data, sizeof type);
  switch (be16toh (type)) {
  case NBD_INFO_EXPORT:
    if (r->len != sizeof ex)
      goto bad;
    memcpy (&ex, r->data, sizeof ex);
    info->size = be64toh (ex.exportsize);
    info->eflags = be16toh (ex.eflags);
    *have_export = true;
    return 0;
  case NBD_INFO_BLOCK_SIZE:
    if (r->len != sizeof bs)
      goto bad;
    info->min_block = sb_get_be32 (r->data + 2);
    info->pref_block = sb_get_be32 (r->data + 6);
    info->max_block = sb_get_be32 (r->data + 10);
    info->have_block_size = true;
    return check_block_sizes (info);
  default:
    return 0;
  }
 bad:
  sb_error ("protocol error: NBD_REP_INFO of %u bytes", r->len);
  return -1;
}

/* Returns 1 when done, 0 when the server does not know GO, -1 on error. */
static int
negotiate_go (int fd, const char *name, struct export_info *info)
{
  uint8_t data[4 + NBD_MAX_STRING + 4];
  uint32_t namelen = (uint32_t) strlen (name), be_len = htobe32 (namelen);
  uint16_t request[2] = { htobe16 (1), htobe16 (NBD_INFO_BLOCK_SIZE) };
  bool have_export = false;
  struct opt_reply r;

  memcpy (data, &be_len, 4);
  memcpy (data + 4, name, namelen);
  memcpy (data + 4 + namelen, request, sizeof request);
  if (send_option (fd, NBD_OPT_GO, data, 4 + namelen + 4) == -1)
    return -1;
  for (;;) {
    if (recv_reply (fd, NBD_OPT_GO, &r) == -1)
      return -1;
    if (r.type == NBD_REP_ACK)
      break;
    if (r.type == NBD_REP_ERR_UNSUP)
      return 0;
    if (NBD_REP_IS_ERR (r.type))
      return refused (fd, name, &r);
    if (r.type == NBD_REP_INFO && handle_info (&r, info, &have_export) == -1)
      return -1;
  }
  if (!have_export) {
    sb_error ("protocol error: GO finished without NBD_INFO_EXPORT");
    return -1;
  }
  info->used_go = true;
  return 1;
}

/* The old way: the server answers with size and flags, or hangs up. */
static int
negotiate_export_name (int fd, const char *name, bool no_zeroes,
                       struct export_info *info)
{
  struct nbd_new_handshake_finish fin;
  char zeroes[NBD_EXPORT_NAME_ZEROES];

  if (send_option (fd, NBD_OPT_EXPORT_NAME, name,
                   (uint32_t) strlen (name)) == -1)
    return -1;
  if (sb_read_full (fd, &fin, sizeof fin) == -1) {
    char shown[ESCAPED_VALUE_SIZE];

    if (errno == ENODATA || errno == ECONNRESET)
      sb_error ("server closed the connection on EXPORT_NAME '%s' "
                "(no such export?)",
                sb_escape_str (shown, sizeof shown, name));
    else
      sb_error ("reading EXPORT_NAME reply: %m");
    return -1;
  }
  info->size = be64toh (fin.exportsize);
  info->eflags = be16toh (fin.eflags);
  if (!no_zeroes)
    return recv_or_report (fd, zeroes, sizeof zeroes, "reading EXPORT_NAME reply");
  return 0;
}

static int
greeting (int fd, uint16_t *gflags)
{
  struct nbd_new_handshake g;

  if (recv_or_report (fd, &g, sizeof g, "reading server greeting") == -1)
    return -1;
  if (be64toh (g.nbdmagic) != NBD_MAGIC) {
    sb_error ("not an NBD server (bad greeting magic)");
    return -1;
  }
  *gflags = be16toh (g.gflags);
  if (be64toh (g.version) != NBD_IHAVEOPT ||
      !(*gflags & NBD_FLAG_FIXED_NEWSTYLE)) {
    sb_error ("server does not speak fixed newstyle NBD");
    return -1;
  }
  return 0;
}

static int
check_export (struct export_info *info)
{
  if (!(info->eflags & NBD_FLAG_HAS_FLAGS))
    info->eflags = 0;
  if (info->size > INT64_MAX) {
    sb_error ("protocol error: export size %llu is too large",
              (unsigned long long) info->size);
    return -1;
  }
  return 0;
}

/* The commands that use block status ask for base:allocation. */
static bool
wants_allocation (const struct options *o)
{
  return o->op == OP_MAP || o->op == OP_READ || o->op == OP_INFO;
}

int
handshake (int fd, const char *name, const struct options *o,
           struct export_info *info)
{
  uint16_t gflags;
  uint32_t cflags;
  int r;

  memset (info, 0, sizeof *info);
  if (greeting (fd, &gflags) == -1)
    return -1;
  cflags = htobe32 (NBD_FLAG_C_FIXED_NEWSTYLE |
                    (gflags & NBD_FLAG_NO_ZEROES ? NBD_FLAG_C_NO_ZEROES : 0));
  if (sb_write_full (fd, &cflags, sizeof cflags, 0) == -1) {
    sb_error ("sending client flags: %m");
    return -1;
  }
  if (negotiate_replies (fd, o, info) == -1)
    return -1;
  if (info->structured && wants_allocation (o) &&
      negotiate_allocation (fd, name, info) == -1)
    return -1;
  r = negotiate_go (fd, name, info);
  /* After extended headers EXPORT_NAME is forbidden, and GO a must. */
  if (r == 0 && info->extended) {
    sb_error ("protocol error: NBD_OPT_GO unsupported after extended "
              "headers were agreed");
    return -1;
  }
  if (r == 0) {
    info->allocation = false;
    r = negotiate_export_name (fd, name, gflags & NBD_FLAG_NO_ZEROES, info);
  }
  if (r == -1)
    return -1;
  return check_export (info);
}
