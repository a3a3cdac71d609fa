/* SPDX-License-Identifier: MIT */
/* sbnbd-server: the pieces shared between its files. */
#ifndef SOCKBOOST_SBNBD_SERVER_H
#define SOCKBOOST_SBNBD_SERVER_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "escape.h"
#include "page-map.h"
#include "report.h"

#define PROGRAM "sbnbd-server"

/* ---- extents: what block status and sparse reads are built from ---- */

struct extent {
  uint64_t length;
  uint32_t flags;               /* NBD_STATE_* of base:allocation */
};

struct extent_list {
  struct extent *e;
  unsigned n, max;
  uint64_t covered;             /* sum of the lengths */
};

/* Append LENGTH bytes with FLAGS, merged into the last extent when the
 * flags agree.  False (nothing added) when the list is full.
 */
extern bool extent_add (struct extent_list *l, uint64_t length,
                        uint32_t flags);
static inline bool
extent_list_full (const struct extent_list *l)
{
  return l->n == l->max;
}

/* ---- backends (backend.c, backend-*.c) ---- */

struct backend;

struct backend_ops {
  /* Point *DATA at LEN bytes found at OFF: straight into the backend when
   * it can (memory, pattern, null), else filled into BUF.  Returns 0 or an
   * errno value.
   */
  int (*read) (struct backend *be, void *buf, uint64_t off, uint32_t len,
               const void **data);
  /* Where a WRITE payload for OFF can be received in place (the
   * backend's own memory), or NULL: receive it into a buffer.
   */
  void *(*write_dest) (struct backend *be, uint64_t off);
  /* Store LEN bytes at OFF from SRC (which write_dest chose).  FUA asks
   * for them to be durable before the reply.  Returns 0 or an errno.
   */
  int (*write) (struct backend *be, const void *src, uint64_t off,
                uint32_t len, bool fua);
  int (*flush) (struct backend *be);
  int (*trim) (struct backend *be, uint64_t off, uint64_t len, bool fua);
  /* FAST says the client wants ENOTSUP rather than a slow zeroing. */
  int (*zero) (struct backend *be, uint64_t off, uint64_t len, bool may_trim,
               bool fast, bool fua);
  /* Describe [OFF, OFF + LEN) from OFF on, in order, into OUT (which
   * starts empty) until it is covered or OUT is full; never past LEN.
   * Returns 0 or an errno value.
   */
  int (*extents) (struct backend *be, uint64_t off, uint64_t len,
                  struct extent_list *out);
};

struct backend {
  const struct backend_ops *ops;
  uint64_t size;
  int fd;                       /* file backend, else -1 */
  uint8_t *mem;                 /* memory backend: the whole export */
  struct sb_page_map written;   /* memory backend: pages holding data */
  bool reads_into_buffer;       /* read needs a buffer to fill */
  /* File backend: a range lseek found to hold data, so that a READ or
   * BLOCK_STATUS inside it needs no lseek (on tmpfs, SEEK_HOLE walks
   * every page up to the next hole: 5 ms from the start of a 1 GiB
   * file).  It only ever claims data, which is always safe to claim: a
   * stale or torn range can make a hole read as data, never data as a
   * hole.
   */
  _Atomic uint64_t data_lo, data_hi;
};

enum backend_kind { BACKEND_FILE, BACKEND_MEMORY, BACKEND_NULL,
                    BACKEND_PATTERN };

/* BACKEND as given on the command line, checked. */
struct backend_spec {
  const char *text;             /* as typed; the path for a file */
  enum backend_kind kind;
  uint64_t size;                /* the sized kinds */
};

/* Parse TEXT (FILE, memory:SIZE, null:SIZE or pattern:SIZE).  Returns 0,
 * or -1 with WHY saying what is wrong (a usage error).
 */
extern int backend_spec_parse (const char *text, struct backend_spec *spec,
                               char *why, size_t why_len);

/* Open SPEC.  READ_ONLY opens files O_RDONLY.  Returns 0, or -1 after
 * printing why.  The backend lives until the process exits.
 */
extern int backend_open (struct backend *be, const struct backend_spec *spec,
                         bool read_only);
extern int backend_open_file (struct backend *be, const char *path,
                              bool read_only);
extern int backend_open_memory (struct backend *be, uint64_t size);
extern int backend_open_null (struct backend *be, uint64_t size);
extern int backend_open_pattern (struct backend *be, uint64_t size);

/* ---- messages on stderr: sb_error (common/report.h) ---- */

/* Room for one value from the command line, the environment or the
 * network, escaped (sb_escape) for a message: cut beyond that, it still
 * says which value it was, and a line stays well inside SB_MESSAGE_MAX.
 */
#define ESCAPED_VALUE_SIZE 400

/* ---- configuration (cmdline.c) ---- */

struct config {
  struct backend_spec backend;
  const char *unix_path;        /* -U; "-" means a private temporary one */
  const char *port;             /* -p */
  const char *bind_addr;        /* -b */
  const char *export_name;      /* -e */
  const char *pidfile;
  const char *run;              /* --run CMD */
  mode_t socket_mode;
  unsigned max_connections;
  unsigned handshake_timeout;   /* seconds */
  bool read_only;
  bool verbose;
  bool split_replies;
  bool leave_nagle_on;          /* --no-nodelay */
  bool print_uri;
  bool kernel_port;             /* -p 0 */
  bool log_uri;                 /* say "serving ... on URI" on stderr */
};

/* Fill CFG from ARGV.  Exits 2 with usage on bad arguments, 0 after
 * --help or --version.
 */
extern void config_parse (struct config *cfg, int argc, char **argv);

/* ---- the export as negotiated (shared read-only by all connections) ---- */

struct export {
  struct backend be;
  const char *name;
  uint16_t eflags;              /* NBD_FLAG_* transmission flags */
  bool read_only;
  bool split_replies;
  bool leave_nagle_on;
  bool verbose;
};

extern void export_init (struct export *ex, const struct config *cfg);

/* ---- one client connection (conn.c, handshake.c, transmit.c, reply.c) ---- */

#define CONN_RBUF_SIZE 4096

struct conn {
  int fd;
  struct export *ex;            /* shared by all connections */
  unsigned id;
  bool structured;              /* reply chunks: structured or extended */
  bool extended;                /* NBD_OPT_EXTENDED_HEADERS agreed */
  bool meta_allocation;         /* base:allocation selected */
  bool no_zeroes;               /* client set NBD_FLAG_C_NO_ZEROES */
  uint8_t *buf;                 /* NBD_MAX_PAYLOAD bytes mapped at need */
  /* Bytes received ahead of need: pipelined request headers. */
  size_t rpos, rlen;
  /* Admission (admit.c), under its lock: the list of connections in
   * their handshake, the handshake's deadline (sb_monotonic_ns), and
   * whether the accept thread has shut the connection down.
   */
  struct conn *prev, *next;
  uint64_t handshake_by;
  bool listed;
  bool cut;
  uint8_t rbuf[CONN_RBUF_SIZE];
};

/* Admission (admit.c).  admit: may the new connection C be served?
 * Makes room by cutting the oldest connection in its handshake when MAX
 * are open; false when all of them are past it.  C's handshake must end
 * within HANDSHAKE_SECONDS.  admit_handshake_over: C's handshake has
 * ended (before C's fd may close); admit_leave: C's thread is done with
 * it.  admit_expire: cut the handshakes past their time; returns the
 * milliseconds until the next deadline, or -1 if there is none.
 */
extern bool admit (struct conn *c, unsigned max, unsigned handshake_seconds);
extern void admit_handshake_over (struct conn *c);
extern void admit_leave (struct conn *c);
extern int admit_expire (unsigned handshake_seconds);

/* Read exactly LEN bytes, first from what rbuf holds.  0 or -1/errno. */
extern int conn_recv (struct conn *c, void *dst, size_t len);
/* Read and throw away LEN bytes in bounded chunks. */
extern int conn_discard (struct conn *c, uint64_t len);
/* The payload buffer, allocated at first need.  NULL on ENOMEM. */
extern uint8_t *conn_buffer (struct conn *c);
/* Before waiting for the next request: if none comes for a while, give
 * the payload buffer back.
 */
extern void conn_idle_release (struct conn *c);

/* Serve one connection from greeting to disconnect; closes the fd. */
extern void conn_serve (struct conn *c);

/* Option haggling.  Returns 1 to go on to transmission, -1 when the
 * session ends here (NBD_OPT_ABORT, a disconnect, a protocol or I/O
 * error; logged if verbose).
 */
extern int handshake (struct conn *c);

/* Option handler results: go on haggling, enter transmission, or drop. */
enum { OPT_CONTINUE = 0, OPT_TRANSMIT = 1, OPT_DROP = -1 };

/* Send an option reply of TYPE with LEN bytes of DATA. */
extern int opt_reply (struct conn *c, uint32_t opt, uint32_t type,
                      const void *data, uint32_t len);
/* Does NAME (LEN bytes) name our export?  The empty name does. */
extern bool export_name_matches (const struct conn *c, const uint8_t *name,
                                 uint32_t len);
/* NBD_OPT_LIST_META_CONTEXT and NBD_OPT_SET_META_CONTEXT (meta.c). */
extern int opt_meta_context (struct conn *c, uint32_t opt,
                             const uint8_t *data, uint32_t len);

/* The transmission flags this connection sees. */
extern uint16_t conn_eflags (const struct conn *c);

/* The transmission phase until DISC or disconnect. */
extern void transmit (struct conn *c);

/* One request as decoded, whatever header style carried it. */
struct request {
  uint16_t flags;               /* NBD_CMD_FLAG_* */
  uint16_t type;                /* NBD_CMD_* */
  uint64_t cookie;              /* wire order, echoed untouched */
  uint64_t off;
  uint64_t len;                 /* effect length (or the WRITE payload) */
  uint64_t payload;             /* bytes following the header */
};

/* Most chunks in one READ reply: a read with more extents than this
 * sends the rest as data.  Most extents in one block status reply.
 */
#define READ_CHUNKS_MAX 128
#define BLOCK_STATUS_MAX_EXTENTS 1024
/* The id our one metadata context, base:allocation, gets from SET. */
#define META_ID_BASE_ALLOCATION 1

/* A piece of a READ reply: LEN bytes at OFF, from DATA, or zeroes (a
 * hole) when DATA is NULL.
 */
struct read_chunk {
  uint64_t off;
  uint64_t len;
  const void *data;
};

/* Replies.  All return 0 or -1 with errno set.  Success of a request
 * without data; an error; the N chunks of a READ, in order (one with
 * data when simple replies are in use); the block status of
 * base:allocation.
 */
extern int reply_ok (struct conn *c, const struct request *r);
extern int reply_error (struct conn *c, const struct request *r,
                        uint32_t error);
extern int reply_read (struct conn *c, const struct request *r,
                       const struct read_chunk *chunks, unsigned n);
extern int reply_block_status (struct conn *c, const struct request *r,
                               const struct extent_list *l);

/* Log a printf-style line to stderr when -v was given.  Values from the
 * network go in escaped (sb_escape): one call, one line.
 */
extern void conn_log (const struct conn *c, const char *fmt, ...)
  __attribute__((format (printf, 2, 3)));
/* -v: a client asked for export NAME (LEN bytes, NULs and all). */
extern void log_unknown_export (const struct conn *c, const void *name,
                                size_t len);

/* ---- listening and serving (listen.c, accept.c, captive.c) ---- */

struct listener {
  int fd;
  char *unix_path;              /* to unlink on exit, or NULL */
  char *tmpdir;                 /* `-U -`: directory to remove, or NULL */
  char port[16];                /* TCP: the port actually bound */
  char *uri;
};

extern int listener_open (struct listener *l, const struct config *cfg);
extern void listener_close (struct listener *l);

/* Accept connections until a signal or the captive command ends.
 * Returns the exit status for the process.
 */
extern int serve_forever (const struct listener *l, struct export *ex,
                          const struct config *cfg);

/* --pidfile (pidfile.c): the file the server wrote, to remove only that
 * one at exit.
 */
struct pidfile {
  const char *path;             /* NULL: none written */
  dev_t dev;
  ino_t ino;
};

/* Write the pid to PATH by rename from a new file beside it.  0, or -1
 * after printing why.
 */
extern int pidfile_write (struct pidfile *p, const char *path);
/* Unlink the pidfile if the name still belongs to the file written. */
extern void pidfile_remove (const struct pidfile *p);

/* Start CMD via /bin/sh -c with $uri etc. set.  Returns the pid or -1. */
extern pid_t captive_start (const char *cmd, const struct listener *l);

#endif /* SOCKBOOST_SBNBD_SERVER_H */
