/* SPDX-License-Identifier: MIT */
/* The differential tester: one sequence of the library's hooked calls,
 * drawn from a seed (or a fuzzer's input), run once plain and once with
 * the library, each call's result written to a trace; the two traces
 * must agree but for the differences declared in design.c.
 */
#ifndef SOCKBOOST_DIFFTEST_H
#define SOCKBOOST_DIFFTEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

/* ---- Where the choices come from (source.c) ---- */

/* A seeded generator, or a fuzzer's input read byte by byte (all zeroes
 * once it runs out, and then the sequence ends).
 */
struct dt_source {
  uint64_t state;
  const uint8_t *data;
  size_t size, pos;
  bool from_data;
  bool exhausted;
};

extern void dt_source_seed (struct dt_source *s, uint64_t seed);
extern void dt_source_data (struct dt_source *s, const uint8_t *data,
                            size_t size);
/* A number in 0..N-1 (N >= 1). */
extern unsigned dt_pick (struct dt_source *s, unsigned n);
/* True with odds of 1 in N. */
extern bool dt_one_in (struct dt_source *s, unsigned n);
/* A length in 1..MAX, small ones and header sizes more often. */
extern size_t dt_length (struct dt_source *s, size_t max);
extern void dt_fill (struct dt_source *s, void *buf, size_t len);

/* ---- The trace (trace.c) ---- */

/* In memory shared with the process that runs the sequence and with its
 * fork children: their lines land in the same trace, and no descriptor
 * is needed (the sequence closes descriptors at random).
 */
struct dt_trace {
  char *buf;
  size_t cap;
};

extern int dt_trace_open (struct dt_trace *t, size_t cap);
extern void dt_trace_close (struct dt_trace *t);
extern void dt_trace_reset (struct dt_trace *t);
extern void dt_trace_line (struct dt_trace *t, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
extern const char *dt_trace_text (const struct dt_trace *t);
extern bool dt_trace_overflowed (const struct dt_trace *t);

/* "R" or "-1 ENAME", and "errno changed to ENAME" when a call that did
 * not fail still changed the errno set before it.
 */
extern const char *dt_result (char *buf, size_t size, long r, int err);

/* The errno set before every call: a call must leave it alone unless it
 * fails.
 */
#define DT_ERRNO_SENTINEL 4242

/* ---- The calls (calls.c): the hooked functions by pointer, so that
 * the fuzzer can run the same operations against raw system calls ----
 */
struct dt_calls {
  int (*socket) (int, int, int);
  int (*socketpair) (int, int, int, int[2]);
  int (*connect) (int, const struct sockaddr *, socklen_t);
  int (*accept) (int, struct sockaddr *, socklen_t *);
  int (*accept4) (int, struct sockaddr *, socklen_t *, int);
  int (*setsockopt) (int, int, int, const void *, socklen_t);
  int (*close) (int);
  int (*dup2) (int, int);
  int (*dup3) (int, int, int);
  int (*close_range) (unsigned, unsigned, int);
  ssize_t (*send) (int, const void *, size_t, int);
  ssize_t (*sendto) (int, const void *, size_t, int, const struct sockaddr *,
                     socklen_t);
  ssize_t (*sendmsg) (int, const struct msghdr *, int);
  ssize_t (*write) (int, const void *, size_t);
  ssize_t (*writev) (int, const struct iovec *, int);
  int (*sendmmsg) (int, struct mmsghdr *, unsigned, int);
  ssize_t (*sendfile) (int, int, off_t *, size_t);
  ssize_t (*splice) (int, off64_t *, int, off64_t *, size_t, unsigned);
  ssize_t (*recv) (int, void *, size_t, int);
  ssize_t (*recvfrom) (int, void *, size_t, int, struct sockaddr *,
                       socklen_t *);
  ssize_t (*recvmsg) (int, struct msghdr *, int);
  ssize_t (*read) (int, void *, size_t);
  ssize_t (*readv) (int, const struct iovec *, int);
  int (*recvmmsg) (int, struct mmsghdr *, unsigned, int, struct timespec *);
  /* Whole-process operations the fuzzer leaves out. */
  bool processes;
};

extern const struct dt_calls dt_libc_calls;

/* ---- The world: descriptors and what runs over them (world.c) ---- */

enum dt_kind {
  DT_TCP,                       /* loopback TCP pair, raw bytes */
  DT_NBD,                       /* loopback TCP pair after an NBD handshake */
  DT_UNIX,                      /* AF_UNIX stream socketpair */
  DT_UNIX_SMALL,                /* the same with a small SO_SNDBUF of its own */
  DT_PIPE,
  DT_FILE,
  DT_DEVNULL,
  DT_UDP,                       /* a UDP socket connected to itself */
  DT_KINDS
};

/* An NBD message being written in pieces on one end. */
struct dt_message {
  uint8_t bytes[4096 + 64];
  size_t len, sent;
  size_t header;                /* its header's length (+ fixed fields) */
};

/* A request the server has read and not yet answered. */
struct dt_request {
  uint16_t type;
  uint64_t cookie;
  uint32_t len;
};

#define DT_PENDING 16

struct dt_nbd {
  bool structured;
  uint64_t next_cookie;
  struct dt_message out[2];     /* by end: 0 client, 1 server */
  /* Requests on their way (sent, not yet read by the server) and read. */
  struct dt_request sent[DT_PENDING], read[DT_PENDING];
  unsigned nsent, nread;
  size_t read_pos;              /* bytes of sent[0] the server has read */
};

/* One thing the sequence uses: a descriptor, and for a pair its peer. */
struct dt_handle {
  bool used;
  enum dt_kind kind;
  int fd[2];                    /* -1 once closed */
  /* Bytes on their way from each end to the other. */
  size_t pending[2];
  bool nbd_on;                  /* still NBD-shaped traffic */
  int alias[2];                 /* another number for each end, or -1 */
  bool corked[2];               /* the program set TCP_CORK on that end */
  bool own_hold[2];             /* ... or its last send had MSG_MORE */
  bool sent_nothing[2];         /* its last send moved nothing (rule 3) */
  struct dt_nbd nbd;
};

#define DT_HANDLES 10

struct dt_world {
  const struct dt_calls *x;
  struct dt_source *src;
  struct dt_trace *trace;
  struct dt_handle h[DT_HANDLES];
  unsigned step;
  unsigned sigpipes_seen;
  int wait_ms;                  /* the longest wait for bytes sent */
  bool timing;                  /* record waits over DT_LATE_MS */
  bool nodelay;                 /* set TCP_NODELAY as the library would */
  /* Pages the bad buffers point at. */
  void *unmapped, *prot_none;
};

extern void dt_world_init (struct dt_world *w, const struct dt_calls *x,
                           struct dt_source *src, struct dt_trace *t);
extern void dt_world_free (struct dt_world *w);
extern const char *dt_kind_name (enum dt_kind k);

/* Open a handle of kind K in slot I (closing what was there). */
extern void dt_handle_open (struct dt_world *w, unsigned i, enum dt_kind k);
extern void dt_handle_close (struct dt_world *w, unsigned i);
/* Is end E of handle H a socket whose peer is the other end? */
extern bool dt_handle_paired (const struct dt_handle *h);
extern bool dt_handle_is_socket (const struct dt_handle *h);

/* The next piece of the NBD message end E of H is writing (a new
 * message when none is open): at most MAX bytes, often exactly its
 * header.  Sets *LEN; the bytes stay in H until dt_nbd_sent.
 */
extern const uint8_t *dt_nbd_piece (struct dt_world *w, struct dt_handle *h,
                                    int e, size_t max, size_t *len);
extern void dt_nbd_sent (struct dt_handle *h, int e, size_t n);
/* The rest of the open message of end E, if any (before a drain). */
extern const uint8_t *dt_nbd_rest (const struct dt_handle *h, int e,
                                   size_t *len);
/* Has end E of H sent its NBD message's header and nothing more, with
 * a payload to come (where the library holds the header)?
 */
extern bool dt_nbd_header_only (const struct dt_handle *h, int e);
/* The server of H read N bytes of requests: follow them. */
extern void dt_nbd_read (struct dt_handle *h, size_t n);

/* Note N bytes sent from end E of H; N < 0 is nothing. */
extern void dt_sent (struct dt_handle *h, int e, ssize_t n);

/* ---- The operations (run.c, ops-*.c, procs.c) ---- */

/* Run OPS operations; the results go to W's trace. */
extern void dt_run (struct dt_world *w, unsigned ops);

/* Results of one call: "op: what = result", with SIGPIPEs since the
 * last line.
 */
extern void dt_record (struct dt_world *w, const char *what, long r, int err);

/* ---- The declared differences (design.c) ---- */

/* Compare the traces PLAIN and BOOSTED, each NUL-terminated: -1 if they
 * agree (up to the declared differences), else the line number of the
 * first difference.
 */
extern long dt_compare (const char *plain, const char *boosted);

/* May the library be holding the bytes end E of H sent last (rule 3)? */
extern bool dt_design_may_hold (const struct dt_handle *h, int e);

/* Print "{RULE:VALUE}" into BUF: a value the library changes by design,
 * compared by RULE (design.c lists them).
 */
extern const char *dt_by_design (char *buf, size_t size, const char *rule,
                                 long value);

#endif /* SOCKBOOST_DIFFTEST_H */
