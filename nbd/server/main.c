/* SPDX-License-Identifier: MIT */
/* sbnbd-server: a small, fast NBD server for files, memory and patterns. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "nbd-protocol.h"
#include "server.h"

void
export_init (struct export *ex, const struct config *cfg)
{
  uint16_t f = NBD_FLAG_HAS_FLAGS | NBD_FLAG_SEND_FLUSH
    | NBD_FLAG_CAN_MULTI_CONN;

  /* Every backend is multi-conn safe: flush is global (fdatasync on the
   * one fd, or nothing to flush), and there is no per-connection cache.
   */
  if (cfg->read_only)
    f |= NBD_FLAG_READ_ONLY;
  else
    f |= NBD_FLAG_SEND_FUA | NBD_FLAG_SEND_TRIM
      | NBD_FLAG_SEND_WRITE_ZEROES | NBD_FLAG_SEND_FAST_ZERO;
  ex->name = cfg->export_name;
  ex->eflags = f;
  ex->read_only = cfg->read_only;
  ex->split_replies = cfg->split_replies;
  ex->leave_nagle_on = cfg->leave_nagle_on;
  ex->verbose = cfg->verbose;
}

static void
announce (const struct listener *l, const struct config *cfg)
{
  char shown[ESCAPED_VALUE_SIZE];

  /* The URI is percent-encoded already. */
  if (cfg->log_uri)
    sb_error ("serving %s on %s",
              sb_escape_str (shown, sizeof shown, cfg->backend.text), l->uri);
  if (cfg->print_uri) {
    printf ("%s\n", l->uri);
    fflush (stdout);
  }
}

int
main (int argc, char **argv)
{
  /* Static: connection threads still use them while exit() runs. */
  static struct config cfg;
  static struct export ex;
  static struct listener l;
  struct pidfile pidfile = { .path = NULL };
  int status;

  config_parse (&cfg, argc, argv);
  if (backend_open (&ex.be, &cfg.backend, cfg.read_only) == -1)
    exit (1);
  export_init (&ex, &cfg);
  /* A client that goes away mid-reply must cost an EPIPE, not the server. */
  signal (SIGPIPE, SIG_IGN);
  if (listener_open (&l, &cfg) == -1) {
    listener_close (&l);
    exit (1);
  }
  /* The URI first: whoever sees the pidfile may read it at once. */
  announce (&l, &cfg);
  if (cfg.pidfile != NULL && pidfile_write (&pidfile, cfg.pidfile) == -1) {
    listener_close (&l);
    exit (1);
  }
  status = serve_forever (&l, &ex, &cfg);
  listener_close (&l);
  pidfile_remove (&pidfile);
  return status;
}
