/* SPDX-License-Identifier: MIT */
/* Starting, finding and stopping the watcher (watch-control.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "escape.h"
#include "pins.h"
#include "proc-sockets.h"
#include "watch-control.h"
#include "watch-load.h"

/* How long the watcher may take to start, and to stop once told. */
#define START_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS 5000

void
sb_watch_read_counts (int counts_fd, uint64_t c[SB_WATCH_NCOUNTS])
{
  for (__u32 i = 0; i < SB_WATCH_NCOUNTS; i++)
    if (counts_fd < 0 || bpf_map_lookup_elem (counts_fd, &i, &c[i]) != 0)
      c[i] = 0;
}

static __u32
map_id (int fd)
{
  struct bpf_map_info info;
  __u32 len = sizeof info;

  memset (&info, 0, sizeof info);
  return bpf_obj_get_info_by_fd (fd, &info, &len) == 0 ? info.id : 0;
}

/* Whether one of PID's descriptors is the BPF map ID: its fdinfo, which
 * the kernel writes, has the line "map_id:\tID".
 */
static int
holds_map (pid_t pid, __u32 id)
{
  char path[64], want[32], line[128];
  struct dirent *e;
  int found = 0;
  DIR *d;

  snprintf (path, sizeof path, "/proc/%d/fdinfo", (int) pid);
  snprintf (want, sizeof want, "map_id:\t%u\n", id);
  d = opendir (path);
  while (d != NULL && !found && (e = readdir (d)) != NULL) {
    FILE *f;
    int fd;

    if (e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    fd = openat (dirfd (d), e->d_name, O_RDONLY | O_CLOEXEC);
    if (fd == -1 || (f = fdopen (fd, "re")) == NULL) {
      if (fd >= 0)
        close (fd);
      continue;
    }
    while (!found && fgets (line, sizeof line, f) != NULL)
      found = strcmp (line, want) == 0;
    fclose (f);
  }
  if (d != NULL)
    closedir (d);
  return found;
}

int
sb_watch_find (int counts_fd, pid_t *pid)
{
  __u32 slot = SB_WATCH_COUNT_PID, id = map_id (counts_fd);
  uint64_t value = 0;
  int pidfd;

  if (id == 0 || bpf_map_lookup_elem (counts_fd, &slot, &value) != 0 ||
      value == 0 || value > INT32_MAX)
    return -1;
  pidfd = sb_pidfd_open ((pid_t) value);
  if (pidfd == -1)
    return -1;
  /* Asked after the pidfd was opened: it names that very process. */
  if (!holds_map ((pid_t) value, id)) {
    close (pidfd);
    return -1;
  }
  *pid = (pid_t) value;
  return pidfd;
}

static int
signal_pidfd (int pidfd, int sig)
{
  return (int) syscall (SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

/* Whether the process at PIDFD exits within MS milliseconds. */
static int
exits_within (int pidfd, int ms)
{
  struct pollfd p = { .fd = pidfd, .events = POLLIN };

  return poll (&p, 1, ms) == 1;
}

int
sb_watch_stop (int counts_fd, char *why, size_t why_len)
{
  pid_t pid;
  int pidfd = sb_watch_find (counts_fd, &pid), status = 0;

  if (pidfd == -1)
    return 0;
  if (signal_pidfd (pidfd, SIGTERM) == 0 && exits_within (pidfd, STOP_TIMEOUT_MS))
    ;
  else if (signal_pidfd (pidfd, SIGKILL) == -1 && errno != ESRCH) {
    snprintf (why, why_len, "cannot stop the watcher (pid %d): %s", (int) pid,
              strerror (errno));
    status = -1;
  }
  else if (!exits_within (pidfd, STOP_TIMEOUT_MS)) {
    snprintf (why, why_len, "the watcher (pid %d) did not stop", (int) pid);
    status = -1;
  }
  close (pidfd);
  return status;
}

/* ---- starting it -------------------------------------------------------- */

/* Close every descriptor from 3 up: the watcher keeps nothing of its
 * caller's (a test runner's pipe, a terminal), which would outlive it.
 */
static void
close_from_3 (void)
{
  struct dirent *e;
  DIR *d;

  if (syscall (SYS_close_range, 3, ~0U, 0) == 0)
    return;
  /* Before Linux 5.9. */
  d = opendir ("/proc/self/fd");
  while (d != NULL && (e = readdir (d)) != NULL) {
    int fd = atoi (e->d_name);
    if (fd >= 3 && fd != dirfd (d))
      close (fd);
  }
  if (d != NULL)
    closedir (d);
}

/* In the child: become the watcher, in a session of its own, its output
 * going to OUT until it says it is ready.
 */
static void
exec_watcher (const char *pin_dir, int out)
{
  int null = open ("/dev/null", O_RDWR | O_CLOEXEC);

  if (null == -1 || dup2 (null, 0) == -1 || dup2 (out, 1) == -1 ||
      dup2 (out, 2) == -1 || setsid () == -1 || chdir ("/") == -1)
    _exit (127);
  close_from_3 ();
  /* A second fork: the watcher is no session leader, so it never gets a
   * controlling terminal, and enable does not wait for it.
   */
  if (fork () != 0)
    _exit (0);
  execl ("/proc/self/exe", "sb-host", "watch", "--pin-dir", pin_dir,
         (char *) NULL);
  dprintf (2, "cannot run the watcher: %s\n", strerror (errno));
  _exit (127);
}

/* Its first line, read from FD within the start timeout. */
static int
first_line (int fd, char *line, size_t size)
{
  struct pollfd p = { .fd = fd, .events = POLLIN };
  size_t n = 0;

  while (n + 1 < size && poll (&p, 1, START_TIMEOUT_MS) == 1) {
    ssize_t r = read (fd, line + n, 1);
    if (r <= 0 || line[n] == '\n')
      break;
    n++;
  }
  line[n] = '\0';
  return n > 0 ? 0 : -1;
}

pid_t
sb_watch_spawn (const char *pin_dir, char *why, size_t why_len)
{
  char line[512], shown[SB_ESCAPE_SIZE (512)];
  int pipefd[2];
  long pid = -1;
  pid_t child;

  if (pipe2 (pipefd, O_CLOEXEC) == -1) {
    snprintf (why, why_len, "cannot start the watcher: %s", strerror (errno));
    return -1;
  }
  child = fork ();
  if (child == 0)
    exec_watcher (pin_dir, pipefd[1]);
  close (pipefd[1]);
  if (child == -1)
    snprintf (why, why_len, "cannot start the watcher: %s", strerror (errno));
  else {
    waitpid (child, NULL, 0);
    if (first_line (pipefd[0], line, sizeof line) == -1)
      snprintf (why, why_len, "the watcher did not start within %d s",
                START_TIMEOUT_MS / 1000);
    else if (sscanf (line, "watching: pid %ld", &pid) != 1 || pid <= 0) {
      pid = -1;
      snprintf (why, why_len, "the watcher could not start: %s",
                sb_escape_str (shown, sizeof shown, line));
    }
  }
  close (pipefd[0]);
  return (pid_t) pid;
}

/* ---- in a generation -------------------------------------------------------- */

static int
get_pin (const struct sb_host_pins *p, const char *gen)
{
  char path[PATH_MAX + 64];

  sb_host_pin_path (p, gen, SB_WATCH_PIN, path, sizeof path);
  return bpf_obj_get (path);
}

int
sb_watch_pin_counts (const struct sb_host_pins *p, const char *gen,
                     char *why, size_t why_len)
{
  struct sb_watch_reuse none = { -1, -1, -1, -1 };
  struct sb_watch_instance in;
  char path[PATH_MAX + 64];
  int status = 0;

  /* The array is the programs' own: loading them makes it. */
  if (sb_watch_load (&in, &none, why, why_len) == -1)
    return -1;
  sb_host_pin_path (p, gen, SB_WATCH_PIN, path, sizeof path);
  if (bpf_obj_pin (sb_watch_counts_fd (&in), path) != 0) {
    snprintf (why, why_len, "cannot pin the watcher's counts: %s",
              strerror (errno));
    status = -1;
  }
  sb_watch_unload (&in);
  return status;
}

int
sb_watch_stop_generation (const struct sb_host_pins *p, const char *gen,
                          char *why, size_t why_len)
{
  int fd = get_pin (p, gen), status;

  if (fd < 0)
    return 0;
  status = sb_watch_stop (fd, why, why_len);
  close (fd);
  return status;
}

void
sb_watch_state_read (const struct sb_host_pins *p, const char *gen,
                     struct sb_watch_state *ws)
{
  int fd = get_pin (p, gen), pidfd;

  memset (ws, 0, sizeof *ws);
  if (fd < 0)
    return;
  ws->present = 1;
  sb_watch_read_counts (fd, ws->counts);
  pidfd = sb_watch_find (fd, &ws->pid);
  ws->running = pidfd >= 0;
  if (pidfd >= 0)
    close (pidfd);
  close (fd);
}
