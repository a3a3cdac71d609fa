/* SPDX-License-Identifier: MIT */
/* The processes of a cgroup tree that the filter takes (cgroup-procs.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "cgroup-procs.h"
#include "proc-sockets.h"

/* Deeper and wider than any cgroup tree: bounds on the walk, whose
 * width users with a delegated subtree choose.
 */
#define MAX_DEPTH 32
#define MAX_CGROUPS 65536

int
sb_host_program_taken (const struct sb_host_settings *s, int programs_fd,
                       const char comm[SB_HOST_COMM_LEN],
                       struct sb_host_name_key *entry)
{
  struct sb_host_name_key key;
  unsigned char first = (unsigned char) comm[0];

  memset (entry, 0, sizeof *entry);
  if (s->filter != SB_HOST_FILTER_PROGRAMS)
    return 1;
  if (!(s->first_bytes[first >> 6] & (1ULL << (first & 63))))
    return 0;
  memset (&key, 0, sizeof key);
  key.prefixlen = SB_HOST_COMM_LEN * 8;
  memcpy (key.name, comm, sizeof key.name);
  return bpf_map_lookup_elem (programs_fd, &key, entry) == 0;
}

/* The name of process PID, zero-padded, as the kernel programs see it. */
static int
read_comm (pid_t pid, char comm[SB_HOST_COMM_LEN])
{
  char path[64];
  ssize_t n;
  int fd;

  snprintf (path, sizeof path, "/proc/%d/comm", (int) pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd == -1)
    return -1;
  memset (comm, 0, SB_HOST_COMM_LEN);
  n = read (fd, comm, SB_HOST_COMM_LEN - 1);
  close (fd);
  if (n <= 0)
    return -1;
  if (comm[n - 1] == '\n')
    comm[n - 1] = '\0';
  return 0;
}

/* The process at PIDFD is still alive: what was read of /proc/PID since
 * the pidfd was opened was its own.
 */
static int
alive (int pidfd)
{
  return syscall (SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

int
sb_host_take_process (pid_t pid, const struct sb_host_settings *s,
                      int programs_fd, sb_host_process_fn *fn, void *arg)
{
  struct sb_host_name_key entry;
  char comm[SB_HOST_COMM_LEN];
  int pidfd = sb_pidfd_open (pid), taken = 0;

  if (pidfd == -1)
    return 0;
  if (read_comm (pid, comm) == 0 && alive (pidfd) &&
      sb_host_program_taken (s, programs_fd, comm, &entry)) {
    fn (arg, pid, pidfd, comm);
    taken = 1;
  }
  close (pidfd);
  return taken;
}

struct walk {
  struct sb_host_proc *procs;
  size_t n, max;
  unsigned cgroups;             /* cgroups looked at */
};

static void
add (struct walk *w, pid_t pid)
{
  char path[32];
  struct stat st;

  snprintf (path, sizeof path, "/proc/%d", (int) pid);
  if (w->n < w->max && stat (path, &st) == 0)
    w->procs[w->n++] = (struct sb_host_proc) { .pid = pid,
                                               .uid = (uint32_t) st.st_uid };
}

static void
walk (struct walk *w, int dir_fd, int depth)
{
  int procs = openat (dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC), fd;
  struct dirent *e;
  FILE *f;
  DIR *d;
  long pid;

  w->cgroups++;
  if (procs >= 0 && (f = fdopen (procs, "re")) != NULL) {
    while (fscanf (f, "%ld", &pid) == 1)
      if (pid > 0)
        add (w, (pid_t) pid);
    fclose (f);
  } else if (procs >= 0)
    close (procs);
  if (depth == MAX_DEPTH || w->n == w->max || (fd = dup (dir_fd)) == -1)
    return;
  if ((d = fdopendir (fd)) == NULL) {
    close (fd);
    return;
  }
  while (w->cgroups < MAX_CGROUPS && (e = readdir (d)) != NULL) {
    int child;

    if (e->d_type != DT_DIR || e->d_name[0] == '.')
      continue;
    child = openat (dir_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child >= 0) {
      walk (w, child, depth + 1);
      close (child);
    }
  }
  closedir (d);
}

size_t
sb_host_cgroup_procs (int cgroup_fd, struct sb_host_proc *procs, size_t max)
{
  struct walk w = { .procs = procs, .max = max };

  walk (&w, cgroup_fd, 0);
  return w.n;
}
