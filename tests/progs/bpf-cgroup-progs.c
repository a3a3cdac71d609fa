/* SPDX-License-Identifier: MIT */
/* Test helper: the BPF programs attached to a cgroup, asked of the kernel
 * for every attach type it answers for (BPF_PROG_QUERY), so that the
 * tests see what bpftool of an older release does not name (the unix
 * socket hooks of Linux 6.7).  One line per program: "TYPE ID", sorted
 * by type.  Only the uapi header; no libbpf.
 *
 *   bpf-cgroup-progs CGROUP_DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* More than any kernel has: the query fails (EINVAL) beyond the last, and
 * for types that are not a cgroup's or not built in (ENODEV...).
 */
#define MAX_ATTACH_TYPE 128
#define MAX_PROGS 64

static int
query (int cgroup_fd, unsigned type, uint32_t ids[MAX_PROGS])
{
  union bpf_attr attr;

  memset (&attr, 0, sizeof attr);
  attr.query.target_fd = (uint32_t) cgroup_fd;
  attr.query.attach_type = type;
  attr.query.prog_ids = (uint64_t) (uintptr_t) ids;
  attr.query.prog_cnt = MAX_PROGS;
  if (syscall (SYS_bpf, BPF_PROG_QUERY, &attr, sizeof attr) == -1)
    return -1;
  return (int) attr.query.prog_cnt;
}

int
main (int argc, char **argv)
{
  uint32_t ids[MAX_PROGS];
  int fd, answered = 0;

  if (argc != 2) {
    fprintf (stderr, "usage: bpf-cgroup-progs CGROUP_DIR\n");
    return 2;
  }
  fd = open (argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd == -1) {
    perror (argv[1]);
    return 1;
  }
  for (unsigned type = 0; type < MAX_ATTACH_TYPE; type++) {
    int n = query (fd, type, ids);
    if (n == -1 && (errno == EPERM || errno == EBADF)) {
      perror ("BPF_PROG_QUERY");
      return 1;
    }
    answered += n >= 0;
    for (int i = 0; i < n && i < MAX_PROGS; i++)
      printf ("%u %u\n", type, ids[i]);
  }
  if (answered == 0) {
    fprintf (stderr, "bpf-cgroup-progs: the kernel answered no query\n");
    return 1;
  }
  return 0;
}
