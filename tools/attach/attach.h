/* SPDX-License-Identifier: MIT */
/* sockboost attach: what its parts share.  A target is one process being
 * tuned from outside through pidfd_getfd(2) duplicates of its sockets.
 */
#ifndef SOCKBOOST_ATTACH_H
#define SOCKBOOST_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "escape.h"
#include "report.h"
#include "settings.h"
#include "sndbuf-model.h"

#define ATTACH_PROGRAM "sockboost attach"

struct attach_options {
  bool watch;
  bool dry_run;
  struct sb_sndbuf_model *dry_kernel;   /* a dry run's modelled kernel */
  int verbose;
  int interval_ms;
  struct sb_config config;      /* sndbuf, force, nodelay, wmem_max */
};

/* A set of socket inodes. */
struct inodes {
  ino_t *v;
  size_t n, size;
};

/* Why a socket was left as it was: counted for the line that says what a
 * scan found when it changed nothing.
 */
enum left_alone {
  LEFT_UNIX_LISTENING,          /* accepted sockets do not inherit */
  LEFT_NOT_CONNECTED,           /* not yet: --watch tunes it later */
  LEFT_SNDBUF_KEPT,             /* as large as it can be made already */
  LEFT_NODELAY_SET,             /* TCP_NODELAY already on */
  LEFT_TUNING_OFF,              /* --sndbuf 0, --no-nodelay or the same
                                   in the environment */
  LEFT_OTHER_KIND,              /* neither unix stream nor TCP */
  LEFT_REASONS
};

/* What one scan of a target saw. */
struct scan_counts {
  unsigned sockets;             /* sockets looked at */
  unsigned left[LEFT_REASONS];  /* of those, left alone, by reason */
};

struct target {
  const struct attach_options *o;
  pid_t pid;
  int pidfd;                    /* -1 once the process is gone */
  char name[SB_ESCAPE_SIZE (16)];       /* its comm, escaped */
  struct inodes done;           /* finished with at the last scan, sorted */
  struct inodes seen;           /* finished with during this scan */
  unsigned changed;             /* sockets changed (or, dry, to change) */
  struct scan_counts found;     /* by the last scan */
};

/* What looking at a socket, or scanning a process, came to. */
enum outcome {
  SOCKET_DONE,                  /* tuned or left alone for good */
  SOCKET_PENDING,               /* not connected yet: look again later */
  SOCKET_GONE,                  /* closed meanwhile, or not a socket */
  TARGET_GONE,                  /* the process exited */
  TARGET_FAILED,                /* cannot go on with it (said) */
};

/* report.c: one line about a socket of T on stdout, prefixed as the
 * library's log is.  Errors go to stderr through sb_error
 * (common/report.h) as "sockboost attach: ...".
 */
extern void attach_report (const struct target *t, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
/* One line saying what the last scan of T found, for a scan that changed
 * nothing.
 */
extern void attach_report_unchanged (const struct target *t);

/* address.c: where socket FD is, escaped, in BUF (ATTACH_ADDRESS_SIZE). */
#define ATTACH_ADDRESS_SIZE SB_ESCAPE_SIZE (108)
extern const char *attach_describe (int fd, char *buf, size_t size);

/* target.c */
extern int target_open (struct target *t);      /* -1: said why not */
extern enum outcome target_scan (struct target *t);
extern void target_close (struct target *t);
extern void target_free (struct target *t);

/* tune.c: tune DUP, our duplicate of T's descriptor FD. */
extern enum outcome tune_socket (struct target *t, int fd, int dup);

/* follow.c: scan the N targets once, or with --watch until they exit or
 * a signal; false if one failed.
 */
extern bool attach_follow (struct target *t, size_t n,
                           const struct attach_options *o);

#endif /* SOCKBOOST_ATTACH_H */
