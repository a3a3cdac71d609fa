/* SPDX-License-Identifier: MIT */
/* Test helper: a program any user could build and name qemu-nbd.  Asked
 * its version (--version or -V), it leaves a mark beside its own file,
 * ran-as-UID, naming the user it ran as, and prints a version;
 * otherwise it waits SECONDS (default 60), as a server would.  A tool
 * that must not run it proves it by the mark's absence.
 */
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
leave_mark (void)
{
  char exe[PATH_MAX], mark[PATH_MAX + 32];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  int fd;

  if (n <= 0)
    return;
  exe[n] = '\0';
  snprintf (mark, sizeof mark, "%s/ran-as-%u", dirname (exe),
            (unsigned) geteuid ());
  /* It may run as root in a directory another user owns: follow no link
   * planted there. */
  fd = open (mark, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd >= 0)
    close (fd);
}

int
main (int argc, char **argv)
{
  if (argc > 1 && (strcmp (argv[1], "--version") == 0 ||
                   strcmp (argv[1], "-V") == 0)) {
    leave_mark ();
    printf ("qemu-nbd 7.2.0\n");
    return 0;
  }
  sleep (argc > 1 ? (unsigned) atoi (argv[1]) : 60);
  return 0;
}
