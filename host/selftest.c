/* SPDX-License-Identifier: MIT */
/* enable's self-test (selftest.h): the parent's side. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cgroup.h"
#include "counts.h"
#include "load.h"
#include "selftest-child.h"

/* Longest the self-test's process may take: it makes two connections
 * on a private loopback.
 */
#define SELFTEST_TIMEOUT_MS 10000
/* The self-test's cgroup, followed by the loader's pid. */
#define SELFTEST_CGROUP "sockboost-selftest."

/* Fork the self-test's process into the cgroup open at CGROUP_FD and
 * read its report into R; BY_THREAD: its connections are made by a
 * thread of another name.
 */
static int
run_child (int cgroup_fd, int with_unix, int by_thread,
           struct sb_host_selftest *r, char *why, size_t why_len)
{
  struct pollfd pfd = { .events = POLLIN };
  int pipefd[2], procs_fd, status = -1;
  pid_t pid;

  procs_fd = openat (cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
  if (procs_fd == -1 || pipe2 (pipefd, O_CLOEXEC) == -1) {
    snprintf (why, why_len, "self-test: %s", strerror (errno));
    if (procs_fd >= 0)
      close (procs_fd);
    return -1;
  }
  pid = fork ();
  if (pid == 0)
    sb_host_selftest_child (procs_fd, pipefd[1], with_unix, by_thread);
  close (pipefd[1]);
  close (procs_fd);
  pfd.fd = pipefd[0];
  if (pid == -1)
    snprintf (why, why_len, "self-test: fork: %s", strerror (errno));
  else if (poll (&pfd, 1, SELFTEST_TIMEOUT_MS) != 1)
    snprintf (why, why_len, "self-test: no answer within %d s",
              SELFTEST_TIMEOUT_MS / 1000);
  else if (read (pipefd[0], r, sizeof *r) != (ssize_t) sizeof *r)
    snprintf (why, why_len, "self-test: its process failed");
  else
    status = 0;
  close (pipefd[0]);
  if (pid > 0) {
    kill (pid, SIGKILL);
    waitpid (pid, NULL, 0);
  }
  return status;
}

/* What the programs counted for the self-test's process (root's row of
 * the filter's one entry).
 */
static void
read_counts (const struct sb_host_instance *in,
             const struct sb_host_filter_spec *f, struct sb_host_counts *c)
{
  struct sb_host_count_key key = { .uid = 0 };

  sb_host_entry_of (f, 0, &key.entry);
  if (bpf_map_lookup_elem (sb_host_map_fd (in, SB_HOST_MAP_COUNTS), &key, c) != 0)
    memset (c, 0, sizeof *c);
}

/* Which parts IN has loaded and attached, and why not the others, in R;
 * the parts R's process is to try.
 */
static unsigned
note_parts (const struct sb_host_instance *in, unsigned attached,
            struct sb_host_selftest *r)
{
  r->parts = attached;
  memcpy (r->part_why, in->why, sizeof r->part_why);
  return attached;
}

int
sb_host_selftest (int parent_fd, const struct sb_host_settings *base,
                  unsigned parts, struct sb_host_selftest *r,
                  char *why, size_t why_len)
{
  /* Its sockets are new: every one below the most a request can get
   * is raised, and what it gets is the grant that enable measures.
   */
  struct sb_host_settings s = { .filter = SB_HOST_FILTER_PROGRAMS,
                                .sndbuf = base->sndbuf,
                                .sndbuf_granted = 2 * base->sndbuf,
                                .task_group_leader = base->task_group_leader,
                                .task_comm = base->task_comm };
  struct sb_host_filter_spec f;
  struct sb_host_instance in;
  char name[64];
  int cgroup_fd, status = -1;
  unsigned attached;

  memset (r, 0, sizeof *r);
  sb_host_parse_programs (SB_HOST_SELFTEST_NAME, &f, why, why_len);
  sb_host_first_bytes (&f, (uint64_t *) s.first_bytes);
  if (sb_host_load (&in, &s, &f, parts, NULL, why, why_len) == -1)
    return -1;
  sb_host_cgroup_remove_stale (parent_fd, SELFTEST_CGROUP);
  snprintf (name, sizeof name, SELFTEST_CGROUP "%d", (int) getpid ());
  cgroup_fd = sb_host_cgroup_make_child (parent_fd, name);
  if (cgroup_fd == -1)
    snprintf (why, why_len, "cannot make the self-test's cgroup: %s",
              strerror (errno));
  else {
    attached = sb_host_attach (&in, cgroup_fd);
    if (run_child (cgroup_fd, (attached & SB_HOST_PARTS_UNIX) != 0,
                   s.task_comm != 0, r, why, why_len) == 0) {
      note_parts (&in, attached, r);
      read_counts (&in, &f, &r->counts);
      status = 0;
    }
  }
  sb_host_unload (&in);
  if (cgroup_fd >= 0) {
    close (cgroup_fd);
    sb_host_cgroup_remove_child (parent_fd, name);
  }
  return status;
}
