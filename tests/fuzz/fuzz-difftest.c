/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the library's hooks: the differential tester's
 * operations (tests/difftest/), chosen by the fuzzer's input, run twice
 * in this process.  Once through raw system calls, which nothing hooks,
 * and once through libc's names, which resolve to the library's hooks
 * linked into this program (as LD_PRELOAD would put them in front).  The
 * two traces must agree as the differential tester's do (design.c).
 *
 * Process-wide operations (fork, vfork, threads, closefrom, close_range
 * to the end, the list of open descriptors) are left out: both runs
 * share this process.  Waits for bytes on their way are short and their
 * length is not compared; so that Nagle does not make bytes late in
 * one run only, the raw run sets TCP_NODELAY as the library does.  After each input the library forgets every
 * descriptor, so that one input's leftovers do not fill the next's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "difftest.h"
#include "fdtable.h"
#include "track.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* ---- The same calls as raw system calls ---- */

#define RAW(ret, name, args, call)                                      \
  static ret raw_##name args { return (ret) syscall call; }

RAW (int, socket, (int d, int t, int p), (SYS_socket, d, t, p))
RAW (int, socketpair, (int d, int t, int p, int sv[2]),
     (SYS_socketpair, d, t, p, sv))
RAW (int, connect, (int fd, const struct sockaddr *a, socklen_t l),
     (SYS_connect, fd, a, l))
RAW (int, accept, (int fd, struct sockaddr *a, socklen_t *l),
     (SYS_accept, fd, a, l))
RAW (int, accept4, (int fd, struct sockaddr *a, socklen_t *l, int f),
     (SYS_accept4, fd, a, l, f))
RAW (int, setsockopt, (int fd, int l, int n, const void *v, socklen_t s),
     (SYS_setsockopt, fd, l, n, v, s))
RAW (int, close, (int fd), (SYS_close, fd))
RAW (int, dup2, (int a, int b), (SYS_dup2, a, b))
RAW (int, dup3, (int a, int b, int f), (SYS_dup3, a, b, f))
RAW (int, close_range, (unsigned a, unsigned b, int f),
     (SYS_close_range, a, b, f))
RAW (ssize_t, send, (int fd, const void *b, size_t n, int f),
     (SYS_sendto, fd, b, n, f, NULL, 0))
RAW (ssize_t, sendto, (int fd, const void *b, size_t n, int f,
                       const struct sockaddr *a, socklen_t l),
     (SYS_sendto, fd, b, n, f, a, l))
RAW (ssize_t, sendmsg, (int fd, const struct msghdr *m, int f),
     (SYS_sendmsg, fd, m, f))
RAW (ssize_t, write, (int fd, const void *b, size_t n), (SYS_write, fd, b, n))
RAW (ssize_t, writev, (int fd, const struct iovec *v, int n),
     (SYS_writev, fd, v, n))
RAW (int, sendmmsg, (int fd, struct mmsghdr *v, unsigned n, int f),
     (SYS_sendmmsg, fd, v, n, f))
RAW (ssize_t, sendfile, (int o, int i, off_t *p, size_t n),
     (SYS_sendfile, o, i, p, n))
RAW (ssize_t, splice, (int i, off64_t *ip, int o, off64_t *op, size_t n,
                       unsigned f), (SYS_splice, i, ip, o, op, n, f))
RAW (ssize_t, recv, (int fd, void *b, size_t n, int f),
     (SYS_recvfrom, fd, b, n, f, NULL, NULL))
RAW (ssize_t, recvfrom, (int fd, void *b, size_t n, int f,
                         struct sockaddr *a, socklen_t *l),
     (SYS_recvfrom, fd, b, n, f, a, l))
RAW (ssize_t, recvmsg, (int fd, struct msghdr *m, int f),
     (SYS_recvmsg, fd, m, f))
RAW (ssize_t, read, (int fd, void *b, size_t n), (SYS_read, fd, b, n))
RAW (ssize_t, readv, (int fd, const struct iovec *v, int n),
     (SYS_readv, fd, v, n))
RAW (int, recvmmsg, (int fd, struct mmsghdr *v, unsigned n, int f,
                     struct timespec *t), (SYS_recvmmsg, fd, v, n, f, t))

static const struct dt_calls raw_calls = {
  .socket = raw_socket, .socketpair = raw_socketpair,
  .connect = raw_connect, .accept = raw_accept, .accept4 = raw_accept4,
  .setsockopt = raw_setsockopt, .close = raw_close, .dup2 = raw_dup2,
  .dup3 = raw_dup3, .close_range = raw_close_range, .send = raw_send,
  .sendto = raw_sendto, .sendmsg = raw_sendmsg, .write = raw_write,
  .writev = raw_writev, .sendmmsg = raw_sendmmsg, .sendfile = raw_sendfile,
  .splice = raw_splice, .recv = raw_recv, .recvfrom = raw_recvfrom,
  .recvmsg = raw_recvmsg, .read = raw_read, .readv = raw_readv,
  .recvmmsg = raw_recvmmsg, .processes = false,
};

/* The hooks, without the process-wide operations. */
static struct dt_calls hooked_calls;

/* Operations per input: enough for a handshake, messages and reuse. */
#define FUZZ_OPS 96

/* Descriptors a run may use: the model's reach (DT_FD_LIMIT, 128). */
#define FDS 128

/* Which descriptors below FDS are open now. */
static void
open_fds (bool open[FDS])
{
  for (int fd = 0; fd < FDS; fd++)
    open[fd] = fcntl (fd, F_GETFD) != -1;
}

/* Run DATA's operations through CALLS; the trace is left in T.  What
 * the run left open (a descriptor the model lost track of) is closed,
 * so that the next run numbers its descriptors alike.
 */
static void
run (const struct dt_calls *calls, struct dt_trace *t, const uint8_t *data,
     size_t size)
{
  static struct dt_source src;
  static struct dt_world w;
  bool before[FDS], after[FDS];

  open_fds (before);
  dt_trace_reset (t);
  dt_source_data (&src, data, size);
  dt_world_init (&w, calls, &src, t);
  w.wait_ms = 100;
  w.timing = false;
  w.nodelay = calls == &raw_calls;
  dt_run (&w, FUZZ_OPS);
  dt_world_free (&w);
  open_fds (after);
  for (int fd = 0; fd < FDS; fd++)
    if (after[fd] && !before[fd])
      raw_close (fd);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static struct dt_trace plain, boosted;
  long line;

  if (plain.buf == NULL) {
    hooked_calls = dt_libc_calls;
    hooked_calls.processes = false;
    if (dt_trace_open (&plain, 1 << 20) == -1
        || dt_trace_open (&boosted, 1 << 20) == -1)
      abort ();
  }
  run (&raw_calls, &plain, data, size);
  run (&hooked_calls, &boosted, data, size);
  /* Descriptors closed unseen leave entries behind: start clean. */
  sb_track_forget (0, SB_FD_MAX - 1, "fuzz");
  line = dt_compare (dt_trace_text (&plain), dt_trace_text (&boosted));
  if (line >= 0) {
    fprintf (stderr, "fuzz-difftest: traces differ at line %ld\n"
             "--- raw system calls\n%s--- through the library\n%s---\n",
             line, dt_trace_text (&plain), dt_trace_text (&boosted));
    __builtin_trap ();
  }
  return 0;
}
