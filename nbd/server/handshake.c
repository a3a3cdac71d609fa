/* SPDX-License-Identifier: MIT */
/* Fixed newstyle handshake: greeting and option haggling. */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "full-io.h"
#include "nbd-protocol.h"
#include "server.h"

#define BLOCK_MIN 1
#define BLOCK_PREFERRED 4096

/* DF (one data chunk) means something only with reply chunks. */
uint16_t
conn_eflags (const struct conn *c)
{
  return c->ex->eflags | (c->structured ? NBD_FLAG_SEND_DF : 0);
}

static int
send_greeting (struct conn *c)
{
  struct nbd_new_handshake g = {
    .nbdmagic = htobe64 (NBD_MAGIC),
    .version = htobe64 (NBD_IHAVEOPT),
    .gflags = htobe16 (NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES),
  };
  return sb_write_full (c->fd, &g, sizeof g, 0);
}

static int
read_client_flags (struct conn *c)
{
  uint32_t flags;

  if (conn_recv (c, &flags, sizeof flags) == -1)
    return -1;
  flags = be32toh (flags);
  /* A client asking for something we never offered cannot be served. */
  if ((flags & ~(uint32_t) (NBD_FLAG_C_FIXED_NEWSTYLE
                            | NBD_FLAG_C_NO_ZEROES)) != 0) {
    conn_log (c, "unknown client flags 0x%x", flags);
    errno = EPROTO;
    return -1;
  }
  c->no_zeroes = (flags & NBD_FLAG_C_NO_ZEROES) != 0;
  return 0;
}

int
opt_reply (struct conn *c, uint32_t opt, uint32_t type, const void *data,
           uint32_t len)
{
  struct nbd_fixed_new_option_reply h = {
    .magic = htobe64 (NBD_REP_MAGIC), .option = htobe32 (opt),
    .reply = htobe32 (type), .replylen = htobe32 (len),
  };
  struct iovec iov[2] = {
    { .iov_base = &h, .iov_len = sizeof h },
    { .iov_base = (void *) (uintptr_t) data, .iov_len = len },
  };
  return sb_writev_full (c->fd, iov, len > 0 ? 2 : 1, 0) == -1
    ? OPT_DROP : OPT_CONTINUE;
}

bool
export_name_matches (const struct conn *c, const uint8_t *name, uint32_t len)
{
  /* An empty name asks for the default export, which is ours. */
  return len == 0 || (len == strlen (c->ex->name)
                      && memcmp (name, c->ex->name, len) == 0);
}

static int
reply_info_export (struct conn *c, uint32_t opt)
{
  struct nbd_fixed_new_option_reply_info_export info = {
    .info = htobe16 (NBD_INFO_EXPORT),
    .exportsize = htobe64 (c->ex->be.size),
    .eflags = htobe16 (conn_eflags (c)),
  };
  return opt_reply (c, opt, NBD_REP_INFO, &info, sizeof info);
}

/* Sent whether asked or not: minimum 1 imposes nothing on clients. */
static int
reply_info_block_size (struct conn *c, uint32_t opt)
{
  struct nbd_fixed_new_option_reply_info_block_size info = {
    .info = htobe16 (NBD_INFO_BLOCK_SIZE),
    .minimum = htobe32 (BLOCK_MIN),
    .preferred = htobe32 (BLOCK_PREFERRED),
    .maximum = htobe32 (NBD_MAX_PAYLOAD),
  };
  return opt_reply (c, opt, NBD_REP_INFO, &info, sizeof info);
}

static int
reply_info_name (struct conn *c, uint32_t opt)
{
  uint8_t data[2 + NBD_MAX_STRING];
  size_t n = strlen (c->ex->name);
  uint16_t type = htobe16 (NBD_INFO_NAME);

  memcpy (data, &type, 2);
  memcpy (data + 2, c->ex->name, n);
  return opt_reply (c, opt, NBD_REP_INFO, data, (uint32_t) (2 + n));
}

/* Does the INFO/GO request list (count u16s at REQS) ask for TYPE? */
static bool
requested (const uint8_t *reqs, uint16_t count, uint16_t type)
{
  uint16_t i, t;

  for (i = 0; i < count; i++) {
    memcpy (&t, reqs + 2 * i, 2);
    if (be16toh (t) == type)
      return true;
  }
  return false;
}

/* NBD_OPT_INFO and NBD_OPT_GO: u32 name length, name, u16 count, then
 * count u16 information requests.
 */
static int
opt_info_go (struct conn *c, uint32_t opt, const uint8_t *data, uint32_t len)
{
  uint32_t namelen;
  uint16_t count;

  if (len < 6)
    return opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
  memcpy (&namelen, data, 4);
  namelen = be32toh (namelen);
  if (namelen > len - 6)
    return opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
  memcpy (&count, data + 4 + namelen, 2);
  count = be16toh (count);
  if ((uint64_t) 6 + namelen + 2 * (uint64_t) count != len)
    return opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
  if (!export_name_matches (c, data + 4, namelen)) {
    log_unknown_export (c, data + 4, namelen);
    return opt_reply (c, opt, NBD_REP_ERR_UNKNOWN, NULL, 0);
  }
  if (requested (data + 6 + namelen, count, NBD_INFO_NAME)
      && reply_info_name (c, opt) != OPT_CONTINUE)
    return OPT_DROP;
  if (reply_info_export (c, opt) != OPT_CONTINUE
      || reply_info_block_size (c, opt) != OPT_CONTINUE
      || opt_reply (c, opt, NBD_REP_ACK, NULL, 0) != OPT_CONTINUE)
    return OPT_DROP;
  return opt == NBD_OPT_GO ? OPT_TRANSMIT : OPT_CONTINUE;
}

/* NBD_OPT_EXPORT_NAME has no error reply: a wrong name ends the session. */
static int
opt_export_name (struct conn *c, const uint8_t *data, uint32_t len)
{
  struct nbd_new_handshake_finish fin = {
    .exportsize = htobe64 (c->ex->be.size),
    .eflags = htobe16 (conn_eflags (c)),
  };
  static const uint8_t zeroes[NBD_EXPORT_NAME_ZEROES];
  struct iovec iov[2] = {
    { .iov_base = &fin, .iov_len = sizeof fin },
    { .iov_base = (void *) (uintptr_t) zeroes, .iov_len = sizeof zeroes },
  };

  if (!export_name_matches (c, data, len)) {
    log_unknown_export (c, data, len);
    return OPT_DROP;
  }
  if (c->extended) {
    conn_log (c, "NBD_OPT_EXPORT_NAME after extended headers");
    return OPT_DROP;
  }
  if (sb_writev_full (c->fd, iov, c->no_zeroes ? 1 : 2, 0) == -1)
    return OPT_DROP;
  return OPT_TRANSMIT;
}

static int
opt_list (struct conn *c, uint32_t len)
{
  uint8_t data[4 + NBD_MAX_STRING];
  uint32_t n = (uint32_t) strlen (c->ex->name), be_n = htobe32 (n);

  if (len != 0)
    return opt_reply (c, NBD_OPT_LIST, NBD_REP_ERR_INVALID, NULL, 0);
  memcpy (data, &be_n, 4);
  memcpy (data + 4, c->ex->name, n);
  if (opt_reply (c, NBD_OPT_LIST, NBD_REP_SERVER, data, 4 + n)
      != OPT_CONTINUE)
    return OPT_DROP;
  return opt_reply (c, NBD_OPT_LIST, NBD_REP_ACK, NULL, 0);
}

/* Extended headers take precedence: there is no going back from them. */
static int
opt_structured_reply (struct conn *c, uint32_t len)
{
  uint32_t opt = NBD_OPT_STRUCTURED_REPLY;

  if (len != 0)
    return opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
  if (c->extended)
    return opt_reply (c, opt, NBD_REP_ERR_EXT_HEADER_REQD, NULL, 0);
  c->structured = true;
  return opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
}

/* Extended headers imply reply chunks; contexts already set stay set
 * (base:allocation needs no more than 32 bits of status).
 */
static int
opt_extended_headers (struct conn *c, uint32_t len)
{
  uint32_t opt = NBD_OPT_EXTENDED_HEADERS;

  if (len != 0)
    return opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
  c->extended = true;
  c->structured = true;
  return opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
}

static int
handle_option (struct conn *c, uint32_t opt, const uint8_t *data,
               uint32_t len)
{
  switch (opt) {
  case NBD_OPT_EXPORT_NAME:
    return opt_export_name (c, data, len);
  case NBD_OPT_ABORT:
    opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
    conn_log (c, "client aborted the handshake");
    return OPT_DROP;
  case NBD_OPT_LIST:
    return opt_list (c, len);
  case NBD_OPT_INFO:
  case NBD_OPT_GO:
    return opt_info_go (c, opt, data, len);
  case NBD_OPT_STRUCTURED_REPLY:
    return opt_structured_reply (c, len);
  case NBD_OPT_EXTENDED_HEADERS:
    return opt_extended_headers (c, len);
  case NBD_OPT_LIST_META_CONTEXT:
  case NBD_OPT_SET_META_CONTEXT:
    return opt_meta_context (c, opt, data, len);
  default:
    /* STARTTLS and anything newer. */
    return opt_reply (c, opt, NBD_REP_ERR_UNSUP, NULL, 0);
  }
}

/* An option longer than we accept is read and thrown away, so the
 * stream stays in step, then refused; EXPORT_NAME cannot be refused.
 */
static int
refuse_long_option (struct conn *c, uint32_t opt, uint32_t len)
{
  conn_log (c, "option %u too long (%u bytes)", opt, len);
  if (opt == NBD_OPT_EXPORT_NAME || conn_discard (c, len) == -1)
    return OPT_DROP;
  return opt_reply (c, opt, NBD_REP_ERR_TOO_BIG, NULL, 0);
}

static int
next_option (struct conn *c)
{
  struct nbd_option h;
  uint8_t data[NBD_MAX_OPTION_LENGTH];
  uint32_t opt, len;

  if (conn_recv (c, &h, sizeof h) == -1)
    return OPT_DROP;
  if (be64toh (h.version) != NBD_IHAVEOPT) {
    conn_log (c, "bad option magic");
    return OPT_DROP;
  }
  opt = be32toh (h.option);
  len = be32toh (h.optlen);
  if (len > NBD_MAX_OPTION_LENGTH)
    return refuse_long_option (c, opt, len);
  if (conn_recv (c, data, len) == -1)
    return OPT_DROP;
  return handle_option (c, opt, data, len);
}

int
handshake (struct conn *c)
{
  int r;

  if (send_greeting (c) == -1 || read_client_flags (c) == -1)
    return -1;
  while ((r = next_option (c)) == OPT_CONTINUE)
    ;
  if (r == OPT_TRANSMIT)
    conn_log (c, "transmission (%s, base:allocation %s)",
              c->extended ? "extended headers"
              : c->structured ? "structured replies" : "simple replies",
              c->meta_allocation ? "selected" : "not selected");
  return r == OPT_TRANSMIT ? 1 : -1;
}
