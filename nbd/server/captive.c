/* SPDX-License-Identifier: MIT */
/* --run CMD: the captive command, started once the server listens. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

static void __attribute__((noreturn))
exec_command (const char *cmd, const struct listener *l)
{
  sigset_t none;

  /* The server blocks these to read them from a signalfd; the command
   * must get the ordinary defaults.
   */
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  signal (SIGPIPE, SIG_DFL);
  if (setenv ("uri", l->uri, 1) == -1
      || (l->unix_path && setenv ("unixsocket", l->unix_path, 1) == -1)
      || (l->port[0] && setenv ("port", l->port, 1) == -1)) {
    sb_error ("setenv: %s", strerror (errno));
    _exit (126);
  }
  execl ("/bin/sh", "sh", "-c", cmd, (char *) NULL);
  sb_error ("/bin/sh: %s", strerror (errno));
  _exit (127);
}

pid_t
captive_start (const char *cmd, const struct listener *l)
{
  pid_t pid;

  fflush (NULL);
  pid = fork ();
  if (pid == -1)
    sb_error ("fork: %s", strerror (errno));
  if (pid == 0)
    exec_command (cmd, l);
  return pid;
}
