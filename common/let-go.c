/* SPDX-License-Identifier: MIT */
/* Letting go of copies of other processes' sockets (let-go.h).  The
 * kept copies are inherited by a child that waits for its pipe to
 * close; ours are closed (the child's are left), the pipe closed, and
 * the child's exit drops the last references: inet_release does not
 * linger for a task that is exiting.  The child only reads and exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "let-go.h"

/* Copies kept at most before they are let go of: well under any limit
 * on descriptors.
 */
#define KEPT_MAX 64

static int kept[KEPT_MAX];
static int nkept;

void
sb_let_go (int copy)
{
  int domain = -1;
  socklen_t len = sizeof domain;

  if (getsockopt (copy, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 &&
      domain == AF_UNIX) {
    close (copy);
    return;
  }
  if (nkept == KEPT_MAX)
    sb_let_go_flush ();
  kept[nkept++] = copy;
}

static void
close_kept (void)
{
  for (int i = 0; i < nkept; i++)
    close (kept[i]);
  nkept = 0;
}

void
sb_let_go_flush (void)
{
  int pipefd[2], saved = errno;
  char byte;
  pid_t pid;

  if (nkept == 0)
    return;
  if (pipe2 (pipefd, O_CLOEXEC) == -1) {
    close_kept ();
    errno = saved;
    return;
  }
  pid = fork ();
  if (pid == 0) {
    close (pipefd[1]);
    while (read (pipefd[0], &byte, 1) == -1 && errno == EINTR)
      ;
    _exit (0);
  }
  close (pipefd[0]);
  close_kept ();
  close (pipefd[1]);
  if (pid > 0)
    while (waitpid (pid, NULL, 0) == -1 && errno == EINTR)
      ;
  errno = saved;
}
