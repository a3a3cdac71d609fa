/* SPDX-License-Identifier: MIT */
/* NBD wire format: packed structs and constants, nothing else.
 * Source of the numbers: the NBD protocol specification (doc/proto.md in
 * the NetworkBlockDevice/nbd project).  All integers on the wire are
 * big-endian; the structs below hold them as they travel.
 */
#ifndef SOCKBOOST_NBD_PROTOCOL_H
#define SOCKBOOST_NBD_PROTOCOL_H

#include <stdint.h>

#define NBD_PACKED __attribute__((__packed__))

/* ---- Handshake: server greeting (fixed newstyle) ---- */

#define NBD_MAGIC     UINT64_C(0x4e42444d41474943) /* "NBDMAGIC" */
#define NBD_IHAVEOPT  UINT64_C(0x49484156454F5054) /* "IHAVEOPT" */
#define NBD_DEFAULT_PORT 10809

struct nbd_new_handshake {
  uint64_t nbdmagic;            /* NBD_MAGIC */
  uint64_t version;             /* NBD_IHAVEOPT */
  uint16_t gflags;              /* NBD_FLAG_FIXED_NEWSTYLE | NBD_FLAG_NO_ZEROES */
} NBD_PACKED;

/* Global (handshake) flags, sent by the server. */
#define NBD_FLAG_FIXED_NEWSTYLE (1 << 0)
#define NBD_FLAG_NO_ZEROES      (1 << 1)

/* Client flags, sent by the client in reply to the greeting. */
#define NBD_FLAG_C_FIXED_NEWSTYLE NBD_FLAG_FIXED_NEWSTYLE
#define NBD_FLAG_C_NO_ZEROES      NBD_FLAG_NO_ZEROES

/* ---- Handshake: option haggling ---- */

struct nbd_option {
  uint64_t version;             /* NBD_IHAVEOPT */
  uint32_t option;              /* NBD_OPT_* */
  uint32_t optlen;              /* length of the data that follows */
} NBD_PACKED;

#define NBD_OPT_EXPORT_NAME       1
#define NBD_OPT_ABORT             2
#define NBD_OPT_LIST              3
#define NBD_OPT_STARTTLS          5
#define NBD_OPT_INFO              6
#define NBD_OPT_GO                7
#define NBD_OPT_STRUCTURED_REPLY  8
#define NBD_OPT_LIST_META_CONTEXT 9
#define NBD_OPT_SET_META_CONTEXT  10
#define NBD_OPT_EXTENDED_HEADERS  11

/* Longest option payload a server need accept; longer ones are refused
 * (NBD_REP_ERR_TOO_BIG).  It must hold an INFO/GO naming an export of
 * NBD_MAX_STRING bytes: u32 name length, the name, u16 count and a few
 * u16 information requests.  That also holds a LIST/SET_META_CONTEXT
 * naming such an export with the query "base:allocation" (u32 name
 * length, the name, u32 count, u32 query length, the query).
 */
#define NBD_MAX_OPTION_LENGTH (4 + NBD_MAX_STRING + 2 + 2 * 16)
/* Longest export name or description, in bytes. */
#define NBD_MAX_STRING 4096

#define NBD_REP_MAGIC UINT64_C(0x3e889045565a9)

struct nbd_fixed_new_option_reply {
  uint64_t magic;               /* NBD_REP_MAGIC */
  uint32_t option;              /* NBD_OPT_* being answered */
  uint32_t reply;               /* NBD_REP_* */
  uint32_t replylen;            /* length of the data that follows */
} NBD_PACKED;

#define NBD_REP_ERR(v) (UINT32_C(0x80000000) | (v))
#define NBD_REP_IS_ERR(v) (((v) & UINT32_C(0x80000000)) != 0)

#define NBD_REP_ACK                  1
#define NBD_REP_SERVER               2
#define NBD_REP_INFO                 3
#define NBD_REP_META_CONTEXT         4
#define NBD_REP_ERR_UNSUP            NBD_REP_ERR (1)
#define NBD_REP_ERR_POLICY           NBD_REP_ERR (2)
#define NBD_REP_ERR_INVALID          NBD_REP_ERR (3)
#define NBD_REP_ERR_PLATFORM         NBD_REP_ERR (4)
#define NBD_REP_ERR_TLS_REQD         NBD_REP_ERR (5)
#define NBD_REP_ERR_UNKNOWN          NBD_REP_ERR (6)
#define NBD_REP_ERR_SHUTDOWN         NBD_REP_ERR (7)
#define NBD_REP_ERR_BLOCK_SIZE_REQD  NBD_REP_ERR (8)
#define NBD_REP_ERR_TOO_BIG          NBD_REP_ERR (9)
#define NBD_REP_ERR_EXT_HEADER_REQD  NBD_REP_ERR (10)

/* NBD_OPT_INFO / NBD_OPT_GO information types (NBD_INFO_*). */
#define NBD_INFO_EXPORT      0
#define NBD_INFO_NAME        1
#define NBD_INFO_DESCRIPTION 2
#define NBD_INFO_BLOCK_SIZE  3

/* Reply to NBD_OPT_INFO/GO with type NBD_INFO_EXPORT. */
struct nbd_fixed_new_option_reply_info_export {
  uint16_t info;                /* NBD_INFO_EXPORT */
  uint64_t exportsize;
  uint16_t eflags;              /* NBD_FLAG_* transmission flags */
} NBD_PACKED;

/* Reply to NBD_OPT_INFO/GO with type NBD_INFO_BLOCK_SIZE. */
struct nbd_fixed_new_option_reply_info_block_size {
  uint16_t info;                /* NBD_INFO_BLOCK_SIZE */
  uint32_t minimum;
  uint32_t preferred;
  uint32_t maximum;
} NBD_PACKED;

/* Reply to NBD_OPT_LIST/SET_META_CONTEXT with type NBD_REP_META_CONTEXT;
 * the context name follows.  LIST answers with context_id 0.
 */
struct nbd_fixed_new_option_reply_meta_context {
  uint32_t context_id;
} NBD_PACKED;

/* Metadata contexts: "namespace:leaf".  The base: namespace has one
 * context, base:allocation; "base:" alone lists it (LIST only).
 */
#define NBD_META_NS_BASE "base:"
#define NBD_CONTEXT_BASE_ALLOCATION "base:allocation"

/* base:allocation status flags (NBD_STATE_*). */
#define NBD_STATE_HOLE (1 << 0)
#define NBD_STATE_ZERO (1 << 1)

/* Reply to NBD_OPT_LIST with type NBD_REP_SERVER; name follows. */
struct nbd_fixed_new_option_reply_server {
  uint32_t export_name_len;
} NBD_PACKED;

/* Reply to NBD_OPT_EXPORT_NAME: size, flags, then 124 zero bytes unless
 * both sides agreed on NBD_FLAG_NO_ZEROES.
 */
struct nbd_new_handshake_finish {
  uint64_t exportsize;
  uint16_t eflags;              /* NBD_FLAG_* transmission flags */
} NBD_PACKED;
#define NBD_EXPORT_NAME_ZEROES 124

/* ---- Transmission flags (per export) ---- */

#define NBD_FLAG_HAS_FLAGS         (1 << 0)
#define NBD_FLAG_READ_ONLY         (1 << 1)
#define NBD_FLAG_SEND_FLUSH        (1 << 2)
#define NBD_FLAG_SEND_FUA          (1 << 3)
#define NBD_FLAG_ROTATIONAL        (1 << 4)
#define NBD_FLAG_SEND_TRIM         (1 << 5)
#define NBD_FLAG_SEND_WRITE_ZEROES (1 << 6)
#define NBD_FLAG_SEND_DF           (1 << 7)
#define NBD_FLAG_CAN_MULTI_CONN    (1 << 8)
#define NBD_FLAG_SEND_CACHE        (1 << 10)
#define NBD_FLAG_SEND_FAST_ZERO    (1 << 11)
#define NBD_FLAG_BLOCK_STATUS_PAYLOAD (1 << 12)

/* ---- Transmission phase: requests ---- */

#define NBD_REQUEST_MAGIC          UINT32_C(0x25609513)
#define NBD_EXTENDED_REQUEST_MAGIC UINT32_C(0x21e41c71)

struct nbd_request {
  uint32_t magic;               /* NBD_REQUEST_MAGIC */
  uint16_t flags;               /* NBD_CMD_FLAG_* */
  uint16_t type;                /* NBD_CMD_* */
  uint64_t cookie;              /* opaque, echoed in the reply */
  uint64_t offset;
  uint32_t count;
} NBD_PACKED;

struct nbd_request_ext {
  uint32_t magic;               /* NBD_EXTENDED_REQUEST_MAGIC */
  uint16_t flags;               /* NBD_CMD_FLAG_* */
  uint16_t type;                /* NBD_CMD_* */
  uint64_t cookie;
  uint64_t offset;
  uint64_t count;
} NBD_PACKED;

#define NBD_CMD_READ          0
#define NBD_CMD_WRITE         1
#define NBD_CMD_DISC          2
#define NBD_CMD_FLUSH         3
#define NBD_CMD_TRIM          4
#define NBD_CMD_CACHE         5
#define NBD_CMD_WRITE_ZEROES  6
#define NBD_CMD_BLOCK_STATUS  7

#define NBD_CMD_FLAG_FUA       (1 << 0)
#define NBD_CMD_FLAG_NO_HOLE   (1 << 1)
#define NBD_CMD_FLAG_DF        (1 << 2)
#define NBD_CMD_FLAG_REQ_ONE   (1 << 3)
#define NBD_CMD_FLAG_FAST_ZERO (1 << 4)
/* Extended headers only: the length field is a payload that follows. */
#define NBD_CMD_FLAG_PAYLOAD_LEN (1 << 5)

/* Largest READ/WRITE payload: clients stay at or under it, servers must
 * accept it.
 */
#define NBD_MAX_PAYLOAD (32 * 1024 * 1024)

/* ---- Transmission phase: replies ---- */

#define NBD_SIMPLE_REPLY_MAGIC     UINT32_C(0x67446698)
#define NBD_STRUCTURED_REPLY_MAGIC UINT32_C(0x668e33ef)
#define NBD_EXTENDED_REPLY_MAGIC   UINT32_C(0x6e8a278c)

struct nbd_simple_reply {
  uint32_t magic;               /* NBD_SIMPLE_REPLY_MAGIC */
  uint32_t error;               /* NBD_SUCCESS or NBD_E* */
  uint64_t cookie;
} NBD_PACKED;

struct nbd_structured_reply {
  uint32_t magic;               /* NBD_STRUCTURED_REPLY_MAGIC */
  uint16_t flags;               /* NBD_REPLY_FLAG_* */
  uint16_t type;                /* NBD_REPLY_TYPE_* */
  uint64_t cookie;
  uint32_t length;              /* payload length that follows */
} NBD_PACKED;

struct nbd_extended_reply {
  uint32_t magic;               /* NBD_EXTENDED_REPLY_MAGIC */
  uint16_t flags;               /* NBD_REPLY_FLAG_* */
  uint16_t type;                /* NBD_REPLY_TYPE_* */
  uint64_t cookie;
  uint64_t offset;
  uint64_t length;              /* payload length that follows */
} NBD_PACKED;

/* Payload of NBD_REPLY_TYPE_OFFSET_DATA: offset, then the data. */
struct nbd_structured_reply_offset_data {
  uint64_t offset;
} NBD_PACKED;

/* Payload of NBD_REPLY_TYPE_OFFSET_HOLE. */
struct nbd_structured_reply_offset_hole {
  uint64_t offset;
  uint32_t length;
} NBD_PACKED;

/* Payload of NBD_REPLY_TYPE_ERROR and _ERROR_OFFSET: error, message
 * length, message, then (for _ERROR_OFFSET) a u64 offset.
 */
struct nbd_structured_reply_error {
  uint32_t error;               /* NBD_E* */
  uint16_t len;                 /* length of the message that follows */
} NBD_PACKED;

/* Payload of NBD_REPLY_TYPE_BLOCK_STATUS: context id, then descriptors. */
struct nbd_structured_reply_block_status_hdr {
  uint32_t context_id;
} NBD_PACKED;

struct nbd_block_descriptor_32 {
  uint32_t length;              /* nonzero */
  uint32_t status_flags;        /* NBD_STATE_* */
} NBD_PACKED;

/* Payload of NBD_REPLY_TYPE_BLOCK_STATUS_EXT (extended headers only). */
struct nbd_structured_reply_block_status_ext_hdr {
  uint32_t context_id;
  uint32_t count;               /* descriptors that follow, nonzero */
} NBD_PACKED;

struct nbd_block_descriptor_ext {
  uint64_t length;              /* nonzero */
  uint64_t status_flags;        /* NBD_STATE_* */
} NBD_PACKED;

/* Block status replies should not carry more descriptors than this. */
#define NBD_MAX_BLOCK_DESCRIPTORS (1 << 20)

#define NBD_REPLY_FLAG_DONE (1 << 0)

#define NBD_REPLY_TYPE_NONE         0
#define NBD_REPLY_TYPE_OFFSET_DATA  1
#define NBD_REPLY_TYPE_OFFSET_HOLE  2
#define NBD_REPLY_TYPE_BLOCK_STATUS 5
#define NBD_REPLY_TYPE_BLOCK_STATUS_EXT 6
#define NBD_REPLY_TYPE_ERROR        32769
#define NBD_REPLY_TYPE_ERROR_OFFSET 32770
#define NBD_REPLY_TYPE_IS_ERR(t)    (((t) & 0x8000) != 0)

/* Errors (NBD_E*) as carried in replies. */
#define NBD_SUCCESS     0
#define NBD_EPERM       1
#define NBD_EIO         5
#define NBD_ENOMEM     12
#define NBD_EINVAL     22
#define NBD_ENOSPC     28
#define NBD_EOVERFLOW  75
#define NBD_ENOTSUP    95
#define NBD_ESHUTDOWN 108

#endif /* SOCKBOOST_NBD_PROTOCOL_H */
