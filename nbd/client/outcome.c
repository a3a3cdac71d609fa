/* SPDX-License-Identifier: MIT */
/* A transfer that did not complete: what is left on disk, what is said,
 * and how the process ends.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"

/* A regular FILE holds what was read without a gap and nothing after
 * it, so that its size tells how far the read got and it cannot pass
 * for a complete copy.
 */
static void
cut_file (struct job *j, uint64_t prefix)
{
  uint64_t total = j->end - j->start;

  if (prefix == total)
    return;
  if (ftruncate (j->file_fd, (off_t) prefix) == -1) {
    sb_error ("cutting %s to the %llu bytes read: %m",
              j->opt->shown_path, (unsigned long long) prefix);
    return;
  }
  sb_error ("%s holds the first %llu bytes, read without a gap "
            "(of %llu)", j->opt->shown_path, (unsigned long long) prefix,
            (unsigned long long) total);
}

/* End the process as the signal would have, so that a calling shell
 * sees it (a loop stops on ^C); 128 + SIG if the signal does not end it.
 */
static void __attribute__((noreturn))
die_by (int sig)
{
  sigset_t set;

  fflush (NULL);
  signal (sig, SIG_DFL);
  sigemptyset (&set);
  sigaddset (&set, sig);
  sigprocmask (SIG_UNBLOCK, &set, NULL);
  raise (sig);
  _exit (128 + sig);
}

void
outcome_incomplete (struct job *j)
{
  int sig = atomic_load (&j->interrupted);
  uint64_t prefix = job_done_prefix (j);

  if (atomic_load (&j->stdout_closed))
    die_by (SIGPIPE);
  if (sig != 0)
    sb_error ("%s interrupted by SIG%s after %llu of %llu bytes",
              operation_name (j->opt->op), sigabbrev_np (sig),
              (unsigned long long) (j->regular_file ? prefix
                                        : atomic_load (&j->bytes_done)),
                  (unsigned long long) (j->end - j->start));
  if (j->regular_file)
    cut_file (j, prefix);
  if (sig == 0)
    return;
  if (j->mismatch_offset != UINT64_MAX)
    report_mismatch (j);
  die_by (sig);
}

int
outcome_complete (struct job *j)
{
  if (ftruncate (j->file_fd, (off_t) (j->end - j->start)) == 0)
    return 0;
  sb_error ("truncate %s: %m", j->opt->shown_path);
  return -1;
}
