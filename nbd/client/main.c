/* SPDX-License-Identifier: MIT */
/* sbnbd-client: read, write or verify an NBD export, and say how fast. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "client.h"
#include "nbd-protocol.h"

/* The data source of a write: its size decides the length. */
static int
open_source (struct job *j, uint64_t *length)
{
  const struct options *o = j->opt;
  off_t size;

  if (o->source != SRC_FILE)
    return 0;
  j->file_fd = open (o->path, O_RDONLY | O_CLOEXEC);
  if (j->file_fd == -1) {
    sb_error ("open %s: %m", o->shown_path);
    return -1;
  }
  size = lseek (j->file_fd, 0, SEEK_END);
  if (size == -1) {
    sb_error ("%s: cannot find its size (not a file?): %m",
              o->shown_path);
    return -1;
  }
  if (o->have_length && o->length > (uint64_t) size) {
    sb_error ("%s has only %lld bytes, less than --length",
              o->shown_path, (long long) size);
    return -1;
  }
  if (!o->have_length)
    *length = (uint64_t) size;
  return 0;
}

/* Files and block devices take pwrite at any offset; anything else
 * (stdout, a pipe) needs the data in order.  A regular file is not sized
 * in advance: it grows as the data lands and takes the range's size
 * once the read is complete, so that until then it cannot pass for a
 * complete copy; a read that does not complete leaves it cut to what
 * was read without a gap.
 */
static int
open_sink (struct job *j)
{
  const struct options *o = j->opt;
  struct stat st;

  j->sink = o->op == OP_VERIFY ? SINK_VERIFY : SINK_DISCARD;
  if (o->op != OP_READ || o->path == NULL)
    return 0;
  j->file_fd = strcmp (o->path, "-") == 0 ? 1
    : open (o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (j->file_fd == -1 || fstat (j->file_fd, &st) == -1) {
    sb_error ("open %s: %m", o->shown_path);
    return -1;
  }
  j->sink = j->file_fd != 1 && (S_ISREG (st.st_mode) || S_ISBLK (st.st_mode))
    ? SINK_FILE : SINK_STREAM;
  j->regular_file = j->sink == SINK_FILE && S_ISREG (st.st_mode);
  j->ordered = j->sink == SINK_STREAM;
  return 0;
}

static int
set_range (struct job *j)
{
  const struct options *o = j->opt;
  uint64_t size = j->info.size;
  uint64_t length = o->have_length ? o->length
    : (o->offset <= size ? size - o->offset : 0);

  if (o->op == OP_WRITE && open_source (j, &length) == -1)
    return -1;
  if (o->offset > size) {
    sb_error ("--offset %llu is beyond the end of the export "
              "(%llu bytes)", (unsigned long long) o->offset,
              (unsigned long long) size);
    return -1;
  }
  if (length > size - o->offset) {
    sb_error ("%s %llu bytes from offset %llu would end at byte %llu, "
              "beyond the end of the export (%llu bytes)",
              operation_name (o->op), (unsigned long long) length,
              (unsigned long long) o->offset,
              (unsigned long long) (o->offset + length),
              (unsigned long long) size);
    return -1;
  }
  j->start = o->offset;
  j->end = o->offset + length;
  atomic_store (&j->next, j->start);
  return open_sink (j);
}

/* Respect the server's block sizes: at most its maximum, a multiple of
 * its minimum.
 */
static void
set_request_size (struct job *j)
{
  const struct export_info *i = &j->info;
  uint32_t rs = j->opt->request_size;

  if (i->have_block_size) {
    if (rs > i->max_block)
      rs = i->max_block;
    rs -= rs % i->min_block;
    if (rs == 0)
      rs = i->min_block;
  }
  j->request_size = rs;
}

static int
check_export (struct job *j)
{
  const struct options *o = j->opt;
  uint16_t eflags = j->info.eflags;

  if (o->op == OP_WRITE && (eflags & NBD_FLAG_READ_ONLY)) {
    sb_error ("the export is read-only");
    return -1;
  }
  if (o->flush && o->op == OP_WRITE && !(eflags & NBD_FLAG_SEND_FLUSH))
    sb_error ("warning: the server does not take FLUSH; not flushing");
  j->connections = o->connections;
  if (j->connections > 1 && j->ordered) {
    sb_error ("warning: output to a stream needs one connection; using 1");
    j->connections = 1;
  }
  if (j->connections > 1 && !(eflags & NBD_FLAG_CAN_MULTI_CONN)) {
    sb_error ("warning: the server does not advertise multi-conn; "
              "using 1 connection");
    j->connections = 1;
  }
  return 0;
}

/* Connections after the first must see the same export. */
static int
connect_more (struct job *j, const struct sb_nbd_uri *uri)
{
  unsigned i;

  for (i = 1; i < j->connections; i++) {
    struct export_info info;

    j->fds[i] = client_connect (uri, j->opt->nodelay);
    if (j->fds[i] == -1 ||
        handshake (j->fds[i], uri->name, j->opt, &info) == -1)
      return -1;
    if (info.size != j->info.size || info.eflags != j->info.eflags ||
        info.structured != j->info.structured ||
        info.extended != j->info.extended) {
      sb_error ("connection %u negotiated a different export", i + 1);
      return -1;
    }
  }
  return 0;
}

static int
finish (struct job *j)
{
  bool complete = !atomic_load (&j->failed)
    && !atomic_load (&j->interrupted) && j->mismatch_offset == UINT64_MAX;

  if (!complete)
    outcome_incomplete (j);
  else if (j->regular_file && outcome_complete (j) == -1)
    return 1;
  if (j->file_fd > 2 && close (j->file_fd) == -1 && j->sink == SINK_FILE) {
    sb_error ("closing %s: %m", j->opt->shown_path);
    return 1;
  }
  if (atomic_load (&j->failed))
    return 1;
  if (j->mismatch_offset != UINT64_MAX) {
    report_mismatch (j);
    return 1;
  }
  return 0;
}

static void
close_all (struct job *j, int first_fd)
{
  unsigned i;

  if (j->fds == NULL) {
    close (first_fd);
    return;
  }
  for (i = 0; i < j->connections; i++)
    if (j->fds[i] != -1)
      close (j->fds[i]);
  free (j->fds);
  j->fds = NULL;
}

static int
transfer (struct job *j, const struct sb_nbd_uri *uri, int fd)
{
  double t0, seconds;
  int r = 1;

  if (set_range (j) == -1 || check_export (j) == -1)
    goto out;
  set_request_size (j);
  j->fds = calloc (j->connections, sizeof *j->fds);
  if (j->fds == NULL) {
    sb_error ("allocating connections: %m");
    goto out;
  }
  for (unsigned i = 1; i < j->connections; i++)
    j->fds[i] = -1;
  j->fds[0] = fd;
  if (j->opt->op == OP_MAP) {
    r = map_print (j) == 0 ? 0 : 1;
    goto out;
  }
  if (connect_more (j, uri) == -1)
    goto out;
  report_verbose (j->opt, "%s %llu bytes from offset %llu: %u connection%s, "
                  "queue depth %u, request size %u", operation_name (j->opt->op),
                  (unsigned long long) (j->end - j->start),
                  (unsigned long long) j->start, j->connections,
                  j->connections == 1 ? "" : "s", j->opt->queue_depth,
                  j->request_size);
  t0 = sb_monotonic_seconds ();
  if ((j->opt->op == OP_READ && sparse_plan (j) == -1) ||
      (j->opt->progress && progress_start (j) == -1))
    goto out;
  interrupt_catch (j);
  r = job_run (j) == 0 ? 0 : 1;
  interrupt_release ();
  progress_stop ();
  seconds = sb_monotonic_seconds () - t0;
  close_all (j, fd);
  /* finish reads the plan to know where the data read ends. */
  if (finish (j) != 0)
    r = 1;
  free (j->data);
  if (r == 0)
    report_summary (j, seconds);
  return r;
 out:
  close_all (j, fd);
  free (j->data);
  if (j->file_fd > 2)
    close (j->file_fd);
  return r;
}

/* Everything after the URI is parsed; the caller frees the URI. */
static int
run (struct job *j, const struct sb_nbd_uri *uri)
{
  int fd = client_connect (uri, j->opt->nodelay);

  if (fd == -1)
    return 1;
  if (handshake (fd, uri->name, j->opt, &j->info) == -1) {
    close (fd);
    return 1;
  }
  report_negotiated (j->opt, uri, &j->info);
  if (j->opt->op != OP_INFO)
    return transfer (j, uri, fd);
  info_print (uri->name, &j->info, j->opt->json);
  send_disconnect (fd, j->info.extended);
  close (fd);
  return fflush (stdout) == 0 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  struct options opt;
  struct sb_nbd_uri uri;
  struct job job = { .opt = &opt, .file_fd = -1,
                     .mismatch_lock = PTHREAD_MUTEX_INITIALIZER,
                     .mismatch_offset = UINT64_MAX };
  const char *why;
  int r;

  /* A server that goes away must give an error message, not a signal. */
  signal (SIGPIPE, SIG_IGN);
  options_parse (&opt, argc, argv);
  if (sb_nbd_uri_parse (opt.uri, &uri, &why) == -1) {
    char shown[ESCAPED_VALUE_SIZE];

    sb_escape_str (shown, sizeof shown, opt.uri);
    if (errno == ENOMEM) {
      sb_error ("bad URI '%s': %m", shown);
      return 1;
    }
    sb_usage_error ("bad URI '%s': %s", shown, why);
  }
  atomic_init (&job.first_unfinished, UINT64_MAX);
  r = run (&job, &uri);
  sb_nbd_uri_free (&uri);
  return r;
}
