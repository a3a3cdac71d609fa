/* SPDX-License-Identifier: MIT */
/* Metadata contexts: NBD_OPT_LIST_META_CONTEXT and SET_META_CONTEXT.
 * There is one context, base:allocation.  Queries for other namespaces
 * or other base: leaves select nothing and are no error; only data that
 * does not parse is refused (NBD_REP_ERR_INVALID).
 */
#include <endian.h>
#include <string.h>

#include "be-bytes.h"
#include "nbd-protocol.h"
#include "server.h"

/* Option data: u32 name length, name, u32 query count, then each query
 * as u32 length and string.
 */
struct meta_option {
  const uint8_t *name;
  uint32_t namelen;
  uint32_t count;
  const uint8_t *queries;       /* the first query's length field */
};

/* Check that the data holds exactly what its lengths say.  0 or -1. */
static int
parse (const uint8_t *data, uint32_t len, struct meta_option *m)
{
  uint64_t at;
  uint32_t i;

  if (len < 4)
    return -1;
  m->namelen = sb_get_be32 (data);
  if (m->namelen > NBD_MAX_STRING || (uint64_t) m->namelen + 8 > len)
    return -1;
  m->name = data + 4;
  m->count = sb_get_be32 (data + 4 + m->namelen);
  at = 8 + (uint64_t) m->namelen;
  m->queries = data + at;
  for (i = 0; i < m->count; i++) {
    if (at + 4 > len)
      return -1;
    at += 4 + (uint64_t) sb_get_be32 (data + at);
    if (at > len)
      return -1;
  }
  return at == len ? 0 : -1;
}

static bool
is (const uint8_t *q, uint32_t n, const char *s)
{
  return n == strlen (s) && memcmp (q, s, n) == 0;
}

/* Does some query pick base:allocation?  "base:" does only in a LIST;
 * a LIST without queries asks for everything.
 */
static bool
selects_allocation (const struct meta_option *m, bool list)
{
  const uint8_t *q = m->queries;
  uint32_t i, n;
  bool found = list && m->count == 0;

  for (i = 0; i < m->count; i++, q += 4 + n) {
    n = sb_get_be32 (q);
    if (is (q + 4, n, NBD_CONTEXT_BASE_ALLOCATION)
        || (list && is (q + 4, n, NBD_META_NS_BASE)))
      found = true;
  }
  return found;
}

/* -v: what the client asked for beyond base:, escaped (it is theirs). */
static void
log_unknown_queries (struct conn *c, const struct meta_option *m)
{
  const uint8_t *q = m->queries;
  char shown[ESCAPED_VALUE_SIZE];
  uint32_t i, n;

  for (i = 0; c->ex->verbose && i < m->count; i++, q += 4 + n) {
    n = sb_get_be32 (q);
    if (!is (q + 4, n, NBD_CONTEXT_BASE_ALLOCATION)
        && !is (q + 4, n, NBD_META_NS_BASE))
      conn_log (c, "meta context '%s' not offered",
                sb_escape (shown, sizeof shown, q + 4, n));
  }
}

static int
reply_context (struct conn *c, uint32_t opt, uint32_t id)
{
  uint8_t data[sizeof (struct nbd_fixed_new_option_reply_meta_context)
               + sizeof NBD_CONTEXT_BASE_ALLOCATION];
  size_t n = strlen (NBD_CONTEXT_BASE_ALLOCATION);

  id = htobe32 (id);
  memcpy (data, &id, sizeof id);
  memcpy (data + sizeof id, NBD_CONTEXT_BASE_ALLOCATION, n);
  return opt_reply (c, opt, NBD_REP_META_CONTEXT, data,
                    (uint32_t) (sizeof id + n));
}

/* SET replaces the selection even when it fails, and needs reply chunks
 * (a block status reply is one).  LIST gives the id 0 the spec reserves.
 */
int
opt_meta_context (struct conn *c, uint32_t opt, const uint8_t *data,
                  uint32_t len)
{
  bool set = opt == NBD_OPT_SET_META_CONTEXT, found;
  struct meta_option m;

  if (set)
    c->meta_allocation = false;
  if (set && !c->structured) {
    conn_log (c, "SET_META_CONTEXT before structured replies");
    return opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
  }
  if (parse (data, len, &m) == -1)
    return opt_reply (c, opt, NBD_REP_ERR_INVALID, NULL, 0);
  if (!export_name_matches (c, m.name, m.namelen)) {
    log_unknown_export (c, m.name, m.namelen);
    return opt_reply (c, opt, NBD_REP_ERR_UNKNOWN, NULL, 0);
  }
  log_unknown_queries (c, &m);
  found = selects_allocation (&m, !set);
  if (found && reply_context (c, opt, set ? META_ID_BASE_ALLOCATION : 0)
      != OPT_CONTINUE)
    return OPT_DROP;
  if (set)
    c->meta_allocation = found;
  return opt_reply (c, opt, NBD_REP_ACK, NULL, 0);
}
