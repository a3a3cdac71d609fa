/* SPDX-License-Identifier: MIT */
/* sbnbd-client: the pieces shared between its files. */
#ifndef SOCKBOOST_SBNBD_CLIENT_H
#define SOCKBOOST_SBNBD_CLIENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "escape.h"
#include "nbd-uri.h"
#include "report.h"

#define PROGRAM "sbnbd-client"

/* Room for one value from the command line or the network, escaped
 * (sb_escape) for a message: cut beyond that, it still says which value
 * it was, and a message line stays one line of plain text.
 */
#define ESCAPED_VALUE_SIZE 400

#define DEFAULT_REQUEST_SIZE (2 * 1024 * 1024)
#define DEFAULT_QUEUE_DEPTH 4
#define MAX_QUEUE_DEPTH 64
#define MAX_CONNECTIONS 16

/* ---- command line (cmdline.c) ---- */

enum operation { OP_INFO, OP_READ, OP_WRITE, OP_VERIFY, OP_MAP };
enum source { SRC_FILE, SRC_PATTERN, SRC_ZERO };

struct options {
  enum operation op;
  const char *uri;
  const char *path;             /* read: FILE, "-" or NULL; write: FILE */
  char shown_path[ESCAPED_VALUE_SIZE]; /* path escaped, for messages */
  enum source source;           /* write only */
  uint32_t request_size;
  unsigned queue_depth;
  unsigned connections;
  uint64_t offset;
  uint64_t length;              /* 0 with !have_length: to the end */
  bool have_length;
  bool progress, json, flush, quiet, verbose;
  bool nodelay;                 /* false after --no-nodelay */
  bool split_writes;
  bool structured;              /* false after --no-structured */
  bool extended;                /* false after --no-extended */
};

/* Fill O from ARGV.  Exits 2 with a message on bad usage, 0 after
 * --help or --version.
 */
extern void options_parse (struct options *o, int argc, char **argv);

/* ---- messages (report.c; errors: sb_error, common/report.h) ---- */

/* An sb_error line, only with -v. */
extern void report_verbose (const struct options *o, const char *fmt, ...)
  __attribute__((format (printf, 2, 3)));
/* Name and description of an NBD error number, e.g. "EIO (I/O error)". */
extern const char *nbd_error_name (uint32_t error);

/* ---- connecting and negotiating (connect.c, handshake.c) ---- */

/* Open a connected socket for URI.  Returns the fd, or -1 after printing
 * why.  TCP sockets get TCP_NODELAY when NODELAY is set.
 */
extern int client_connect (const struct sb_nbd_uri *uri, bool nodelay);

struct export_info {
  uint64_t size;
  uint16_t eflags;              /* NBD_FLAG_* transmission flags */
  bool structured;              /* reply chunks: structured or extended */
  bool extended;                /* extended headers agreed */
  bool allocation;              /* base:allocation selected */
  uint32_t allocation_id;       /* its context id */
  bool used_go;                 /* NBD_OPT_GO, not the EXPORT_NAME fallback */
  bool have_block_size;
  uint32_t min_block, pref_block, max_block;
};

/* Negotiate export NAME on FD as O asks: extended headers, else
 * structured replies (unless refused), and base:allocation for the
 * commands that use block status.  Returns 0, or -1 after printing why.
 */
extern int handshake (int fd, const char *name, const struct options *o,
                      struct export_info *info);

/* Print what `info` shows, as text or one JSON object, on stdout. */
extern void info_print (const char *name, const struct export_info *info,
                        bool json);

/* ---- the transfer (job.c, conn.c, request.c, reply.c, data.c) ---- */

enum sink { SINK_DISCARD, SINK_FILE, SINK_STREAM, SINK_VERIFY };

struct job {
  const struct options *opt;
  struct export_info info;
  enum sink sink;               /* read and verify */
  int file_fd;                  /* read FILE, write FILE or stdout; else -1 */
  bool ordered;                 /* data must leave in offset order */
  bool regular_file;            /* read FILE is a regular file */
  uint32_t request_size;
  unsigned connections;
  uint64_t start, end;          /* the byte range transferred */
  int *fds;                     /* one socket per connection */
  /* read with block status: the data extents to read (holes are left
   * out), handed out under data_lock; NULL: the whole range.
   */
  struct data_extent *data;
  size_t ndata, data_next;
  uint64_t data_off;            /* progress inside data[data_next] */
  pthread_mutex_t data_lock;
  bool planned;                 /* data[] lists what to read */
  uint64_t hole_bytes;          /* skipped: they read as zeroes */
  uint64_t stream_pos;          /* stream sink: bytes written so far */

  _Atomic uint64_t next;        /* next offset to hand out */
  _Atomic uint64_t bytes_done;
  _Atomic uint64_t requests;
  _Atomic uint64_t latency_ns;  /* summed over the requests done */
  /* Lowest offset of a READ or WRITE that was handed out but never
   * completed (UINT64_MAX if none): with next, where the data that was
   * really moved ends.
   */
  _Atomic uint64_t first_unfinished;
  atomic_bool failed;
  atomic_bool no_more_work;     /* hand nothing more out; finish in flight */
  atomic_int interrupted;       /* the signal that stopped the job, or 0 */
  atomic_bool stdout_closed;    /* the reader of `read -` went away */

  pthread_mutex_t mismatch_lock;
  uint64_t mismatch_offset;     /* verify: lowest bad offset, or UINT64_MAX */
  uint8_t mismatch_found;       /* the byte read there */
};

struct data_extent {
  uint64_t off, len;
};

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct slot {
  uint8_t *buf;                 /* request_size bytes, allocated once */
  const void *payload;          /* WRITE: the data to send */
  uint64_t offset;
  uint32_t len;
  uint32_t got;                 /* structured READ: bytes received so far */
  uint64_t status_len;          /* BLOCK_STATUS: the length asked about */
  uint32_t seq;                 /* high half of the cookie */
  uint64_t sent_ns;             /* when the request left */
  uint16_t type;                /* NBD_CMD_* */
  enum slot_state state;
  bool failed;                  /* the server answered with an error */
};

/* Where the extents of a BLOCK_STATUS reply go, in order from its
 * offset: LEN bytes of base:allocation FLAGS each.
 */
typedef void (*extent_fn) (void *opaque, uint64_t len, uint32_t flags);

struct conn {
  struct job *job;
  int fd;
  unsigned id;
  extent_fn on_extent;          /* BLOCK_STATUS replies */
  void *extent_opaque;
  struct slot *slots;
  unsigned nslots, inflight;
  unsigned head, tail;          /* ordered mode: oldest and next slot */
  uint32_t seq;
};

/* Stop the whole job after printing "sbnbd-client: MESSAGE", unless
 * another connection failed first (then stay quiet: its message is the
 * one that matters).  Shuts every socket down so that blocked threads
 * wake up.  Returns -1 for the caller to pass on.
 */
extern int job_fail (struct job *j, const char *fmt, ...)
  __attribute__((format (printf, 2, 3)));

/* Like job_fail, for an error the server answered in good order: the
 * streams are still in step, so nothing is shut down.  Connections stop
 * taking work, collect the replies still owed and disconnect cleanly; a
 * server with several requests in flight is never reset mid-reply.
 */
extern void job_stop (struct job *j, const char *fmt, ...)
  __attribute__((format (printf, 2, 3)));

/* Like job_stop, with nothing to say: the reason is not an error. */
extern void job_stop_quietly (struct job *j);

/* Hand out nothing more; the requests in flight complete as usual. */
extern void job_end_early (struct job *j);

/* S, a READ or WRITE, will never complete: its data was not moved. */
extern void job_note_unfinished (struct job *j, const struct slot *s);

/* Where the data moved without a gap from the start ends. */
extern uint64_t job_done_prefix (struct job *j);

/* Hand out the next range of at most request_size bytes.  False when
 * there is no more work or the job failed.
 */
extern bool job_take (struct job *j, uint64_t *offset, uint32_t *len);

/* Run the job over its connections, one thread each.  0 or -1. */
extern int job_run (struct job *j);

/* One connection's life: allocate its ring, keep queue_depth requests in
 * flight until the range is done, flush if asked, disconnect.  0 or -1.
 */
extern int conn_run (struct conn *c);

/* Send NBD_CMD_DISC in the negotiated header style, best effort. */
extern void send_disconnect (int fd, bool extended);

/* Send S's request (and its payload for a WRITE).  0 or -1 (reported). */
extern int request_send (struct conn *c, struct slot *s);

/* Read one reply or structured chunk and act on it.  *DONE is set to the
 * slot whose request it completed, or NULL if more chunks will follow.
 * 0, or -1 after job_fail.
 */
extern int reply_receive (struct conn *c, struct slot **done);

/* Before sending: point a WRITE's payload at its data. */
extern int data_prepare (struct conn *c, struct slot *s);
/* After a READ completed: hand its data to the sink. */
extern int data_finish (struct conn *c, struct slot *s);
/* A stream sink got every byte up to the end of the range: the zeroes
 * of holes that were skipped included.
 */
extern int data_stream_end (struct conn *c);

/* ---- block status (status.c, map.c, sparse.c) ---- */

/* Walk base:allocation over [START, END) on the job's first connection,
 * one request in flight: FN gets each extent in order, clipped to the
 * range.  0, or -1 after job_fail.
 */
extern int status_walk (struct job *j, uint64_t start, uint64_t end,
                        extent_fn fn, void *opaque);

/* `map`: print the extents of the range, merged by type.  0 or -1. */
extern int map_print (struct job *j);

/* read: before the transfer, list the range's data extents so that the
 * holes are never read.  0 or -1.
 */
extern int sparse_plan (struct job *j);

/* ---- output (report.c, outcome.c, progress.c) ---- */

extern const char *operation_name (enum operation op);
/* With -v: what the handshake agreed. */
extern void report_negotiated (const struct options *o,
                               const struct sb_nbd_uri *uri,
                               const struct export_info *info);
extern void report_summary (const struct job *j, double seconds);

/* The first mismatch verify found: on stderr, and with --json as an
 * object on stdout.
 */
extern void report_mismatch (const struct job *j);

/* SIGINT and SIGTERM during the transfer (unless the caller ignored
 * them): the first ends the job early, a second stops waiting for the
 * replies in flight.
 */
extern void interrupt_catch (struct job *j);
extern void interrupt_release (void);

/* After the transfer, when it did not complete: leave a regular FILE
 * holding exactly the data read without a gap, and say how far the job
 * got.  Ends the process by the signal if one interrupted the job.
 */
extern void outcome_incomplete (struct job *j);

/* After a complete read into a regular FILE: give it the range's size
 * (the holes at its end were never written).  0, or -1 after saying why.
 */
extern int outcome_complete (struct job *j);

/* Start/stop the progress bar thread on stderr. */
extern int progress_start (struct job *j);
extern void progress_stop (void);

#endif /* SOCKBOOST_SBNBD_CLIENT_H */
