/* SPDX-License-Identifier: MIT */
/* Test helper: send calls at the edges of what the kernel accepts, on
 * the sockets the library follows, one line "what = return errno" each.
 * Run with and without the library: the two outputs must be identical.
 *
 *   preload-edge-calls invalid      buffers the kernel answers with
 *                                   EFAULT (NULL, unmapped, PROT_NONE, a
 *                                   bad iovec after a valid NBD header)
 *   preload-edge-calls iov-max      a writev or sendmsg of more iovecs
 *                                   than the kernel takes, ending right
 *                                   after an NBD header
 *   preload-edge-calls reused       a write of an NBD header to a file
 *                                   that got a socket's number
 *
 * Each case runs in a child of its own with fresh sockets, so a case
 * that kills its process shows as "killed by SIGNAME" and the rest go
 * on.  errno is preset to a sentinel before every call.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nbd-pair.h"

#define SENTINEL 4242

/* Where the bad buffers point; volatile, so that the compiler does not
 * see them coming (it would warn about the calls).
 */
static void *volatile unmapped, *volatile prot_none;
static void *volatile address_one = (void *) 1;
static volatile int minus_one = -1;
/* A valid page whose last 28 bytes hold a WRITE header announcing 4096
 * bytes of payload, followed by a PROT_NONE page.
 */
static uint8_t *edge;

static void
show (const char *what, long r)
{
  printf ("%-44s = %ld %s\n", what, r,
          errno == SENTINEL ? "(errno untouched)" : strerrorname_np (errno));
  fflush (stdout);
}

#define CHECK(what, call)                       \
  do {                                          \
    errno = SENTINEL;                           \
    long r_ = (long) (call);                    \
    show (what, r_);                            \
  } while (0)

/* Run CASE_FN in a child, with FD the sending end of a socket of KIND
 * ("nbd": a client past its handshake, "unix": a socketpair; -1 for
 * others), and say how it ended if it did not end well.
 */
static void
in_child (const char *kind, void (*case_fn) (const char *, int))
{
  pid_t pid;
  int status;
  struct nbd_pair p;

  fflush (stdout);
  pid = fork ();
  if (pid == 0) {
    int fd = -1, sv[2];
    if (strcmp (kind, "nbd") == 0 && nbd_pair_open (&p, false) == 0)
      fd = p.client;
    if (strcmp (kind, "unix") == 0 && socketpair (AF_UNIX, SOCK_STREAM, 0,
                                                  sv) == 0)
      fd = sv[0];
    case_fn (kind, fd);
    _exit (0);
  }
  if (waitpid (pid, &status, 0) == pid && WIFSIGNALED (status))
    printf ("%s: killed by %s\n", kind, sigabbrev_np (WTERMSIG (status)));
  else if (pid == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    printf ("%s: child failed\n", kind);
}

static struct nbd_request
write_header (uint32_t len)
{
  return nbd_pair_request (NBD_CMD_WRITE, 1, 0, len);
}

/* ---- invalid ---- */

static void
bad_buffers (const char *kind, int fd)
{
  char what[64];
  struct iovec nul = { NULL, 100 };
  struct iovec unm = { unmapped, 100 };
  struct msghdr m_nul = { .msg_iov = &nul, .msg_iovlen = 1 };
  struct msghdr m_bad_iov = { .msg_iov = unmapped, .msg_iovlen = 2 };
  struct nbd_pair fresh = { -1, -1 };

  /* "tcp": a fresh connection, nothing sent on it yet. */
  if (fd == -1) {
    if (nbd_pair_connect (&fresh) == -1)
      exit (1);
    fd = fresh.client;
  }
#define BAD(name, call)                                                 \
  do {                                                                  \
    snprintf (what, sizeof what, "%s %s", kind, name);                  \
    CHECK (what, call);                                                 \
  } while (0)
  BAD ("send NULL", send (fd, NULL, 100, MSG_NOSIGNAL));
  BAD ("sendto NULL", sendto (fd, NULL, 100, MSG_NOSIGNAL, NULL, 0));
  BAD ("write (void *) 1", write (fd, address_one, 100));
  BAD ("write unmapped", write (fd, unmapped, 100));
  BAD ("send PROT_NONE", send (fd, prot_none, 100, MSG_NOSIGNAL));
  BAD ("writev NULL iovec", writev (fd, &nul, 1));
  BAD ("writev unmapped iovec", writev (fd, &unm, 1));
  BAD ("writev unmapped array", writev (fd, unmapped, 2));
  BAD ("sendmsg NULL iov_base", sendmsg (fd, &m_nul, MSG_NOSIGNAL));
  BAD ("sendmsg unmapped array", sendmsg (fd, &m_bad_iov, MSG_NOSIGNAL));
  BAD ("sendmsg unmapped msghdr", sendmsg (fd, unmapped, MSG_NOSIGNAL));
  BAD ("sendmsg (void *) 1 msghdr", sendmsg (fd, address_one, MSG_NOSIGNAL));
  close (fresh.server);
}

/* A valid header, then bytes the kernel cannot read where the tracker
 * would look for the next header (a READ has no payload) or inside the
 * payload (a WRITE announcing 4 bytes, then 100 bad ones).
 */
static void
bad_after_header (const char *kind, int fd)
{
  struct nbd_request rd = nbd_pair_request (NBD_CMD_READ, 2, 0, 512);
  struct nbd_request wr = write_header (4);
  struct iovec after_read[2] = { { &rd, sizeof rd }, { NULL, 100 } };
  struct iovec after_write[2] = { { &wr, sizeof wr }, { prot_none, 100 } };
  struct msghdr m = { .msg_iov = after_read, .msg_iovlen = 2 };
  char what[64];

  (void) kind;
  snprintf (what, sizeof what, "%s %s", kind, "writev READ header, NULL");
  CHECK (what, writev (fd, after_read, 2));
  snprintf (what, sizeof what, "%s %s", kind, "sendmsg WRITE header, PROT_NONE");
  m.msg_iov = after_write;
  CHECK (what, sendmsg (fd, &m, MSG_NOSIGNAL));
  /* The header's last bytes on a valid page, the payload past its end. */
  snprintf (what, sizeof what, "%s %s", kind, "send header then PROT_NONE");
  CHECK (what, send (fd, edge + 4096 - sizeof wr, sizeof wr + 100,
                     MSG_NOSIGNAL));
}

/* A socket's number taken by a pipe's write end and by /dev/null, by a
 * raw dup3 system call that the library cannot see: its table still
 * says TCP, with the NBD stream's tracker.
 */
static void
bad_on_reused (const char *kind, int fd)
{
  struct nbd_pair p;
  int pipefd[2], null;

  (void) kind;
  (void) fd;
  if (nbd_pair_open (&p, false) == -1 || pipe (pipefd) == -1
      || (null = open ("/dev/null", O_WRONLY)) == -1
      || syscall (SYS_dup3, pipefd[1], p.client, 0) == -1
      || syscall (SYS_dup3, null, p.server, 0) == -1)
    exit (1);
  bad_buffers ("pipe reusing", p.client);
  bad_buffers ("/dev/null reusing", p.server);
}

static void
invalid (void)
{
  in_child ("tcp", bad_buffers);
  in_child ("nbd", bad_buffers);
  in_child ("nbd", bad_after_header);
  in_child ("unix", bad_buffers);
  in_child ("reused", bad_on_reused);
}

/* ---- iov-max ---- */

/* IOV_MAX + 1 pieces: a WRITE header, then empty ones.  writev refuses
 * them with EINVAL, sendmsg with EMSGSIZE; IOV_MAX pieces are fine.
 */
static void
too_many_iovecs (const char *kind, int fd)
{
  static struct iovec iov[IOV_MAX + 1];
  struct nbd_request wr = write_header (512);
  struct msghdr m = { .msg_iov = iov, .msg_iovlen = IOV_MAX + 1 };

  (void) kind;
  iov[0] = (struct iovec) { &wr, sizeof wr };
  CHECK ("nbd writev IOV_MAX + 1 iovecs", writev (fd, iov, IOV_MAX + 1));
  CHECK ("nbd sendmsg IOV_MAX + 1 iovecs", sendmsg (fd, &m, MSG_NOSIGNAL));
  CHECK ("nbd writev -1 iovecs", writev (fd, iov, minus_one));
  CHECK ("nbd writev 0 iovecs", writev (fd, iov, 0));
  CHECK ("nbd writev IOV_MAX iovecs", writev (fd, iov, IOV_MAX));
}

/* ---- reused ---- */

/* The client's socket replaced by a file through a raw dup3 system
 * call, which the library cannot see: a write of a WRITE header there
 * succeeds, as it would plain, and leaves errno alone.
 */
static void
header_to_reused (const char *kind, int fd)
{
  struct nbd_request wr = write_header (512);
  struct iovec iov = { &wr, sizeof wr };
  char path[] = "/tmp/preload-edge-calls-XXXXXX";
  int file;

  (void) kind;
  file = mkstemp (path);
  if (file == -1 || unlink (path) == -1
      || syscall (SYS_dup3, file, fd, 0) == -1)
    exit (1);
  CHECK ("file reusing a socket: write NBD header", write (fd, &wr,
                                                           sizeof wr));
  CHECK ("file reusing a socket: writev NBD header", writev (fd, &iov, 1));
  CHECK ("file reusing a socket: file size", lseek (fd, 0, SEEK_END));
}

int
main (int argc, char **argv)
{
  const char *mode = argc == 2 ? argv[1] : "";
  long page = sysconf (_SC_PAGESIZE);

  unmapped = mmap (NULL, (size_t) page, PROT_READ, MAP_PRIVATE
                   | MAP_ANONYMOUS, -1, 0);
  prot_none = mmap (NULL, (size_t) page, PROT_NONE, MAP_PRIVATE
                    | MAP_ANONYMOUS, -1, 0);
  edge = mmap (NULL, 2 * (size_t) page, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (unmapped == MAP_FAILED || prot_none == MAP_FAILED || edge == MAP_FAILED
      || page != 4096 || munmap (unmapped, (size_t) page) == -1
      || mprotect (edge + page, (size_t) page, PROT_NONE) == -1) {
    perror ("preload-edge-calls: setting up the bad buffers");
    return 1;
  }
  {
    struct nbd_request wr = write_header (4096);
    memcpy (edge + page - sizeof wr, &wr, sizeof wr);
  }
  signal (SIGPIPE, SIG_IGN);
  if (strcmp (mode, "invalid") == 0)
    invalid ();
  else if (strcmp (mode, "iov-max") == 0)
    in_child ("nbd", too_many_iovecs);
  else if (strcmp (mode, "reused") == 0)
    in_child ("nbd", header_to_reused);
  else {
    fprintf (stderr, "usage: preload-edge-calls invalid|iov-max|reused\n");
    return 2;
  }
  return 0;
}
