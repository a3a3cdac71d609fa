/* SPDX-License-Identifier: MIT */
/* The library's only output.  It must never disturb the host: the log file
 * is opened only when there is a first line to write, never through a
 * symbolic link at its name, and its descriptor is moved out of the way
 * (high number, close-on-exec) and dropped as soon as the host closes or
 * reuses that number: a hooked call says so, and before each line the
 * descriptor must still name the file opened (device and inode), since
 * the host can close it unseen (closefrom inside libc, a raw syscall).
 * Every line is one line: the values callers format into it are escaped
 * (common/escape.h), and what reaches the file is checked once more here.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "escape.h"
#include "log.h"
#include "real.h"

/* Where the log file goes: well above the numbers programs use. */
#define SB_LOG_FD_FLOOR 900

/* log_target: a descriptor, or one of these. */
enum { LOG_STDERR = -1, LOG_UNOPENED = -2 };

static _Atomic int log_level = SB_LOG_WARN;
static _Atomic int log_target = LOG_STDERR;
/* The file a log_target descriptor must name. */
static _Atomic dev_t log_dev;
static _Atomic ino_t log_ino;
/* SOCKBOOST_LOG_FILE made absolute at start-up ("" if that failed), and
 * as given, for messages.
 */
static char log_template[PATH_MAX];
static const char *log_file_given;

/* Copy FILE into OUT as an absolute name: a relative one is taken from
 * the directory the program started in, not the one it is in at its
 * first log line.  Return -1 if it does not fit.
 */
static int
make_absolute (const char *file, char *out, size_t size)
{
  size_t n = 0;

  if (file[0] != '/' && getcwd (out, size) != NULL) {
    n = strlen (out);
    if (n + 1 < size && (n == 0 || out[n - 1] != '/'))
      out[n++] = '/';
  }
  if (n + strlen (file) >= size)
    return -1;
  strcpy (out + n, file);
  return 0;
}

/* Expand %p in TEMPLATE into OUT; return -1 if it does not fit. */
static int
expand_path (const char *template, char *out, size_t size)
{
  size_t n = 0;
  for (const char *p = template; *p; p++) {
    int w;
    if (p[0] == '%' && p[1] == 'p') {
      w = snprintf (out + n, size - n, "%d", (int) getpid ());
      p++;
    }
    else
      w = snprintf (out + n, size - n, "%c", *p);
    if (w < 0 || (size_t) w >= size - n)
      return -1;
    n += (size_t) w;
  }
  return 0;
}

static void
close_real (int fd)
{
  sb_real_bind ();
  if (sb_real.close)
    sb_real.close (fd);
}

/* A FIFO or character device may be written if it is the user's own,
 * /dev/null, or /dev/tty (the process's own terminal, whoever owns the
 * node): another user's FIFO would hand them the log.
 */
static const char *
foreign_device (const struct stat *st)
{
  if (!S_ISCHR (st->st_mode) && !S_ISFIFO (st->st_mode))
    return NULL;
  if (st->st_uid == geteuid ()
      || (S_ISCHR (st->st_mode) && (st->st_rdev == makedev (1, 3)
                                    || st->st_rdev == makedev (5, 0))))
    return NULL;
  return S_ISFIFO (st->st_mode) ? "the FIFO belongs to another user"
    : "the device belongs to another user";
}

/* Why the file open on FD (its status in *ST) must not be written, or
 * NULL if it may: only a regular file of our own with no other name (no
 * hard link planted to someone else's file), or a FIFO or character
 * device that foreign_device allows.
 */
static const char *
unsuitable (int fd, struct stat *st)
{
  if (fstat (fd, st) == -1)
    return strerrordesc_np (errno);
  if (S_ISCHR (st->st_mode) || S_ISFIFO (st->st_mode))
    return foreign_device (st);
  if (!S_ISREG (st->st_mode))
    return "not a regular file, character device or FIFO";
  if (st->st_uid != geteuid ())
    return "the file belongs to another user";
  if (st->st_nlink != 1)
    return "the file has other hard links";
  return NULL;
}

/* Open the log file PATH for appending, or return -1 with *WHY set; its
 * device and inode go to log_dev and log_ino.  Another user's FIFO or
 * device is refused before it is opened (and checked again after).
 * O_NOFOLLOW: a symbolic link at that name is refused, never followed
 * (links in the directories above it are followed, as for any name the
 * user gives).  O_NONBLOCK: a FIFO without a reader fails at once instead
 * of stalling the program, and a full one drops lines instead of
 * blocking it.  Created mode 0600.
 */
static int
open_log_file (const char *path, const char **why)
{
  struct stat st;
  int fd, high;

  if (lstat (path, &st) == 0 && (*why = foreign_device (&st)) != NULL)
    return -1;
  fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW
             | O_NOCTTY | O_NONBLOCK, 0600);
  if (fd == -1) {
    *why = errno == ELOOP && lstat (path, &st) == 0 && S_ISLNK (st.st_mode)
      ? "it is a symbolic link, which is not followed"
      : strerrordesc_np (errno);
    return -1;
  }
  *why = unsuitable (fd, &st);
  if (*why) {
    close_real (fd);
    return -1;
  }
  atomic_store (&log_dev, st.st_dev);
  atomic_store (&log_ino, st.st_ino);
  high = fcntl (fd, F_DUPFD_CLOEXEC, SB_LOG_FD_FLOOR);
  if (high == -1)
    return fd;               /* low limit on descriptors: keep it where it is */
  close_real (fd);
  return high;
}

/* Format "sockboost[PROGRAM PID]: " and the message into one line, any
 * byte that is not printable ASCII replaced, and write it to FD.
 */
static __attribute__ ((format (printf, 2, 0))) void
write_line (int fd, const char *fmt, va_list ap)
{
  char line[1024], name[64];
  int n, m;

  n = snprintf (line, sizeof line, "sockboost[%s %d]: ",
                sb_escape_str (name, sizeof name,
                               program_invocation_short_name),
                (int) getpid ());
  if (n < 0 || (size_t) n >= sizeof line - 1)
    n = 0;
  m = vsnprintf (line + n, sizeof line - 1 - (size_t) n, fmt, ap);
  if (m < 0)
    m = 0;
  n += m;
  if ((size_t) n > sizeof line - 2)
    n = sizeof line - 2;
  for (int i = 0; i < n; i++)
    if ((unsigned char) line[i] < 0x20 || (unsigned char) line[i] >= 0x7f)
      line[i] = '?';
  line[n++] = '\n';
  sb_real_bind ();
  /* Best effort: there is nowhere else to report a failed log write. */
  if (sb_real.write)
    (void) sb_real.write (fd, line, (size_t) n);
}

static __attribute__ ((format (printf, 2, 3))) void
write_line_f (int fd, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  write_line (fd, fmt, ap);
  va_end (ap);
}

/* The first line: open the file now.  If that fails, say so once on
 * stderr and log there from then on.  Threads racing here may each open
 * the file; one descriptor wins, the others are closed.
 */
static int
open_lazily (void)
{
  char path[PATH_MAX], shown[512];
  const char *why = "the name is too long";
  int fd = -1, expected = LOG_UNOPENED;

  if (log_template[0] && expand_path (log_template, path, sizeof path) == 0)
    fd = open_log_file (path, &why);
  else
    strcpy (path, log_file_given);
  if (atomic_compare_exchange_strong (&log_target, &expected,
                                      fd >= 0 ? fd : LOG_STDERR)) {
    if (fd < 0)
      write_line_f (STDERR_FILENO, "cannot log to '%s': %s; logging to "
                    "stderr", sb_escape_str (shown, sizeof shown, path), why);
    return fd >= 0 ? fd : STDERR_FILENO;
  }
  if (fd >= 0)
    close_real (fd);
  return expected >= 0 ? expected : STDERR_FILENO;
}

/* Does FD still name the file the log opened? */
static bool
names_log_file (int fd)
{
  struct stat st;

  return fstat (fd, &st) == 0 && st.st_dev == atomic_load (&log_dev)
    && st.st_ino == atomic_load (&log_ino);
}

/* Where the next line goes.  A descriptor that names something else now
 * is the host's: forgotten (never closed), and the file opened again.
 */
static int
line_fd (void)
{
  int fd = atomic_load (&log_target);

  if (fd >= 0 && !names_log_file (fd)) {
    atomic_compare_exchange_strong (&log_target, &fd, LOG_UNOPENED);
    fd = atomic_load (&log_target);
  }
  if (fd == LOG_UNOPENED)
    return open_lazily ();
  return fd >= 0 ? fd : STDERR_FILENO;
}

void
sb_log_setup (int level, const char *file)
{
  atomic_store (&log_level, level);
  if (file == NULL || strcmp (file, "/dev/stderr") == 0)
    return;
  log_file_given = file;
  if (make_absolute (file, log_template, sizeof log_template) == -1)
    log_template[0] = '\0';
  atomic_store (&log_target, LOG_UNOPENED);
}

int
sb_log_enabled (int level)
{
  return level <= atomic_load_explicit (&log_level, memory_order_relaxed);
}

void
sb_log (int level, const char *fmt, ...)
{
  va_list ap;
  int saved = errno;

  if (!sb_log_enabled (level))
    return;
  va_start (ap, fmt);
  write_line (line_fd (), fmt, ap);
  va_end (ap);
  errno = saved;
}

/* The file is opened again (lazily) for the next line: what the user
 * asked for is a log file, not the program's stderr.
 */
bool
sb_log_fd_within (unsigned lo, unsigned hi)
{
  int fd = atomic_load (&log_target);

  return fd >= 0 && (unsigned) fd >= lo && (unsigned) fd <= hi;
}

void
sb_log_fds_gone (unsigned lo, unsigned hi)
{
  int fd = atomic_load (&log_target);
  if (fd >= 0 && (unsigned) fd >= lo && (unsigned) fd <= hi)
    atomic_compare_exchange_strong (&log_target, &fd, LOG_UNOPENED);
}
