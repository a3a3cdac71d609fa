/* SPDX-License-Identifier: MIT */
/* difftest: run seeded sequences of the library's hooked calls plain and
 * with the library, and compare what every call returned.
 *
 *   difftest [--seeds FIRST-LAST | --seed N] [--ops N] [--library PATH]
 *            [--env VAR=VALUE]... [--max-failures N] [--verbose]
 *   difftest --trace SEED [--ops N]     one run's trace, in this process's
 *                                       environment (add LD_PRELOAD to see
 *                                       the library's)
 *
 * Two workers run the seeds, one plain and one with LD_PRELOAD, each
 * seed in a fresh child process; this process compares their traces
 * seed by seed (design.c says what may differ).  A seed that differs is
 * printed with its first differing line and a command that replays it.
 * Exit status: 0 all seeds agree, 1 some differ, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../progs/close-range.h"
#include "difftest.h"
#include "difftest-ops.h"
#include "args.h"
#include "report.h"

#define PROGRAM "difftest"
/* ':' first: a missing value is told apart from an unknown option. */
#define SHORT_OPTIONS ":h"
#define TRACE_SIZE (1 << 20)
/* A sequence that takes longer than this is stuck: a hang is a defect. */
#define SEQUENCE_SECONDS 30
/* The most calls one sequence may make (--ops). */
#define MAX_OPS 100000

struct options {
  unsigned long first, last;
  unsigned ops;
  const char *library;
  const char *env[16];
  int nenv;
  unsigned max_failures;
  bool verbose;
};

static void
usage (void)
{
  printf ("usage: " PROGRAM " [--seeds FIRST-LAST | --seed N] [--ops N]\n"
          "                [--library PATH] [--env VAR=VALUE]...\n"
          "                [--max-failures N] [--verbose]\n"
          "       " PROGRAM " --trace SEED [--ops N]\n"
          "Runs each seed's sequence of hooked calls plain and with the\n"
          "library preloaded and compares what every call returned.\n");
  exit (0);
}

/* ---- One sequence, in a child of its own ---- */

struct shared {
  struct dt_source src;
  struct dt_world w;
};

/* Wait for the child PID, killing it if it takes longer than any
 * sequence should (a hang is a defect too).  Its status, or -1.
 */
static int
wait_bounded (pid_t pid, struct dt_trace *t)
{
  struct timespec limit = { SEQUENCE_SECONDS, 0 };
  sigset_t chld;
  int status;

  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  while (waitpid (pid, &status, WNOHANG) == 0) {
    if (sigtimedwait (&chld, NULL, &limit) == -1 && errno == EAGAIN) {
      kill (pid, SIGKILL);
      dt_trace_line (t, "sequence stuck: killed after %d s", SEQUENCE_SECONDS);
    }
  }
  return status;
}

/* Run SEED's sequence in a child; its trace is left in T. */
static void
run_seed (struct shared *sh, struct dt_trace *t, unsigned long seed,
          unsigned ops)
{
  sigset_t chld, old;
  int status = 0;
  pid_t pid;

  dt_trace_reset (t);
  fflush (NULL);
  /* SIGCHLD blocked in the parent only, so that sigtimedwait sees it. */
  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  sigprocmask (SIG_BLOCK, &chld, &old);
  pid = fork ();
  if (pid == 0) {
    sigprocmask (SIG_SETMASK, &old, NULL);
    dt_source_seed (&sh->src, seed);
    dt_world_init (&sh->w, &dt_libc_calls, &sh->src, t);
    dt_run (&sh->w, ops);
    dt_world_free (&sh->w);
    _exit (0);
  }
  if (pid == -1)
    dt_trace_line (t, "fork: %s", strerror (errno));
  else
    status = wait_bounded (pid, t);
  sigprocmask (SIG_SETMASK, &old, NULL);
  if (pid != -1 && WIFSIGNALED (status))
    dt_trace_line (t, "sequence killed by %s", sigabbrev_np (WTERMSIG (status)));
  if (dt_trace_overflowed (t))
    dt_trace_line (t, "trace overflowed");
}

/* The worker: every seed's trace on stdout, framed. */
static int
worker (unsigned long first, unsigned long last, unsigned ops)
{
  struct dt_trace t;
  struct shared *sh = mmap (NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);

  if (sh == MAP_FAILED || dt_trace_open (&t, TRACE_SIZE) == -1) {
    perror (PROGRAM ": worker memory");
    return 1;
  }
  for (unsigned long seed = first; seed <= last; seed++) {
    run_seed (sh, &t, seed, ops);
    printf ("seed %lu\n%send %lu\n", seed, dt_trace_text (&t), seed);
    fflush (stdout);
  }
  return 0;
}

/* ---- The driver ---- */

struct stream {
  int fd;
  pid_t pid;
  char *buf;
  size_t len, cap;
  bool eof;
};

/* Start a worker for the seeds, with LD_PRELOAD=LIBRARY (and ENV) if
 * LIBRARY is not NULL, or without LD_PRELOAD.
 */
static void
start_worker (struct stream *s, const struct options *o, const char *library)
{
  char first[32], last[32], ops[32];
  int p[2];

  snprintf (first, sizeof first, "%lu", o->first);
  snprintf (last, sizeof last, "%lu", o->last);
  snprintf (ops, sizeof ops, "%u", o->ops);
  if (pipe (p) == -1 || (s->pid = fork ()) == -1) {
    perror (PROGRAM ": starting a worker");
    exit (1);
  }
  if (s->pid == 0) {
    dup2 (p[1], 1);
    /* Both workers start with descriptors 0 to 2 only. */
    closefrom (3);
    unsetenv ("LD_PRELOAD");
    if (library) {
      setenv ("LD_PRELOAD", library, 1);
      for (int i = 0; i < o->nenv; i++)
        putenv ((char *) (uintptr_t) o->env[i]);
    }
    execl ("/proc/self/exe", PROGRAM, "--worker", first, last, ops,
           (char *) NULL);
    perror (PROGRAM ": exec");
    _exit (127);
  }
  close (p[1]);
  *s = (struct stream) { .fd = p[0], .pid = s->pid };
}

/* Read what is there from S. */
static void
fill (struct stream *s)
{
  ssize_t r;

  if (s->cap - s->len < 65536) {
    s->cap = s->cap * 2 + 65536;
    s->buf = realloc (s->buf, s->cap + 1);
    if (s->buf == NULL) {
      perror (PROGRAM);
      exit (1);
    }
  }
  r = read (s->fd, s->buf + s->len, s->cap - s->len);
  if (r <= 0)
    s->eof = true;
  else
    s->len += (size_t) r;
  s->buf[s->len] = '\0';
}

/* The trace of SEED if S holds all of it: its text's length in *LEN and
 * the length of the whole frame in *USED.  S is left as it was.
 */
static char *
find_trace (struct stream *s, unsigned long seed, size_t *len, size_t *used)
{
  char head[48], tail[48], *text, *end;

  if (s->buf == NULL)
    return NULL;
  snprintf (head, sizeof head, "seed %lu\n", seed);
  snprintf (tail, sizeof tail, "end %lu\n", seed);
  if (strncmp (s->buf, head, strlen (head)) != 0)
    return NULL;
  text = s->buf + strlen (head);
  for (end = strstr (text, tail); end; end = strstr (end + 1, tail))
    if (end == text || end[-1] == '\n')
      break;
  if (end == NULL)
    return NULL;
  *len = (size_t) (end - text);
  *used = (size_t) (end - s->buf) + strlen (tail);
  return text;
}

static void
drop (struct stream *s, size_t used)
{
  memmove (s->buf, s->buf + used, s->len - used + 1);
  s->len -= used;
}

/* The line number LINE (from 1) of TEXT, up to its newline. */
static void
print_line (const char *label, const char *text, long line)
{
  while (--line > 0 && text && *text)
    text = strchr (text, '\n') ? strchr (text, '\n') + 1 : "";
  printf ("  %-8s %.*s\n", label, (int) strcspn (text, "\n"), text);
}

/* S as one shell word. */
static void
print_word (const char *s)
{
  if (s[strspn (s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "0123456789/._-=:+,")] == '\0') {
    printf (" %s", s);
    return;
  }
  printf (" '");
  for (; *s; s++)
    printf (*s == '\'' ? "'\\''" : "%c", *s);
  printf ("'");
}

/* The one line that runs SEED again, both ways, and shows the traces. */
static void
print_replay (const struct options *o, unsigned long seed)
{
  char self[PATH_MAX], number[32];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);

  self[n > 0 ? n : 0] = '\0';
  printf ("  replay: ");
  print_word (n > 0 ? self : PROGRAM);
  snprintf (number, sizeof number, "%lu", seed);
  printf (" --seed %s --ops %u --verbose --library", number, o->ops);
  print_word (o->library);
  for (int i = 0; i < o->nenv; i++) {
    printf (" --env");
    print_word (o->env[i]);
  }
  printf ("\n");
}

static bool
timing_only (const char *plain, const char *boosted, long line)
{
  while (--line > 0 && *plain && *boosted) {
    plain = strchr (plain, '\n') ? strchr (plain, '\n') + 1 : "";
    boosted = strchr (boosted, '\n') ? strchr (boosted, '\n') + 1 : "";
  }
  return strstr (plain, "{late:") && strstr (boosted, "{late:")
    && strcspn (plain, "\n") > (size_t) (strstr (plain, "{late:") - plain);
}

static bool drive_seeds (const struct options *o, unsigned long first,
                         unsigned long last, bool report);

/* A wait that took too long may be a busy machine's doing: a stall the
 * library causes comes back when the seed runs again.
 */
static bool
stall_recurs (const struct options *o, unsigned long seed)
{
  for (int again = 0; again < 2; again++)
    if (drive_seeds (o, seed, seed, false))
      return true;
  return false;
}

/* Compare SEED's traces; print the difference (all of both traces when
 * verbose).  True if they agree; with RECHECK, a difference in timing
 * alone must come back to count.
 */
static bool
compare_seed (const struct options *o, unsigned long seed, const char *plain,
              const char *boosted, bool recheck)
{
  long line = dt_compare (plain, boosted);

  if (line < 0)
    return true;
  if (recheck && timing_only (plain, boosted, line)
      && !stall_recurs (o, seed)) {
    printf (PROGRAM ": seed %lu: a wait over %d ms once, not again: "
            "taken for the machine's load\n", seed, DT_LATE_MS);
    return true;
  }
  printf (PROGRAM ": seed %lu differs at line %ld:\n", seed, line);
  if (line > 1)
    print_line ("before", plain, line - 1);
  print_line ("plain", plain, line);
  print_line ("library", boosted, line);
  print_replay (o, seed);
  if (o->verbose)
    printf ("--- plain\n%s--- library\n%s---\n", plain, boosted);
  fflush (stdout);
  return false;
}

/* Wait for either worker to have something to read. */
static void
wait_any (struct stream s[2])
{
  struct pollfd p[2] = { { s[0].eof ? -1 : s[0].fd, POLLIN, 0 },
                         { s[1].eof ? -1 : s[1].fd, POLLIN, 0 } };

  if (poll (p, 2, -1) > 0)
    for (int i = 0; i < 2; i++)
      if (p[i].revents)
        fill (&s[i]);
}

/* Run seeds FIRST..LAST plain and with the library, comparing each as
 * both are done.  REPORT: the first run, which rechecks timing and
 * prints its summary.  True if any seed differs.
 */
static bool
drive_seeds (const struct options *o, unsigned long first,
             unsigned long last, bool report)
{
  struct options range = *o;
  struct stream s[2];
  unsigned long seed = first, failures = 0;

  range.first = first;
  range.last = last;
  start_worker (&s[0], &range, NULL);
  start_worker (&s[1], &range, o->library);
  while (seed <= last && failures < o->max_failures) {
    size_t len[2], used[2];
    char *t0 = find_trace (&s[0], seed, &len[0], &used[0]);
    char *t1 = find_trace (&s[1], seed, &len[1], &used[1]);
    if (t0 && t1) {
      t0[len[0]] = t1[len[1]] = '\0';
      if (report)
        failures += !compare_seed (o, seed, t0, t1, true);
      else
        failures += dt_compare (t0, t1) >= 0;
      drop (&s[0], used[0]);
      drop (&s[1], used[1]);
      seed++;
      continue;
    }
    if ((!t0 && s[0].eof) || (!t1 && s[1].eof)) {
      printf (PROGRAM ": a worker stopped before seed %lu\n", seed);
      failures++;
      break;
    }
    wait_any (s);
  }
  for (int i = 0; i < 2; i++) {
    kill (s[i].pid, SIGTERM);
    waitpid (s[i].pid, NULL, 0);
    close (s[i].fd);
    free (s[i].buf);
  }
  if (report)
    printf (PROGRAM ": %lu seeds, %u calls each at most: %lu differ\n",
            seed - first, o->ops, failures);
  return failures > 0;
}

/* ---- Options ---- */

static void
parse_seeds (struct options *o, const char *arg)
{
  char first[32];
  const char *dash = strchr (arg, '-');

  if (dash == NULL || (size_t) (dash - arg) >= sizeof first)
    sb_usage_error ("bad --seeds (FIRST-LAST)");
  memcpy (first, arg, (size_t) (dash - arg));
  first[dash - arg] = '\0';
  o->first = sb_option_count ("--seeds", first, 0, ULONG_MAX);
  o->last = sb_option_count ("--seeds", dash + 1, 0, ULONG_MAX);
  if (o->last < o->first)
    sb_usage_error ("bad --seeds: %lu-%lu ends before it starts", o->first,
                    o->last);
}

/* The library next to this program in the build tree. */
static const char *
default_library (void)
{
  static char path[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", path, sizeof path - 64);

  if (n <= 0)
    return NULL;
  path[n] = '\0';
  if (strstr (path, "/tests/difftest/") == NULL)
    return NULL;
  strcpy (strstr (path, "/tests/difftest/"), "/preload/libsockboost.so");
  return path;
}

int
main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "seeds", required_argument, NULL, 's' },
    { "seed", required_argument, NULL, 'n' },
    { "ops", required_argument, NULL, 'o' },
    { "library", required_argument, NULL, 'l' },
    { "env", required_argument, NULL, 'e' },
    { "max-failures", required_argument, NULL, 'm' },
    { "verbose", no_argument, NULL, 'v' },
    { "trace", required_argument, NULL, 't' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  struct options o = { .first = 1, .last = 100, .ops = 250,
                       .max_failures = 5 };
  long trace_seed = -1;
  char why[SB_ARG_WHY_SIZE];
  int c;

  if (argc == 5 && strcmp (argv[1], "--worker") == 0)
    return worker (sb_option_count ("--worker", argv[2], 0, ULONG_MAX),
                   sb_option_count ("--worker", argv[3], 0, ULONG_MAX),
                   (unsigned) sb_option_count ("--worker", argv[4], 1,
                                               MAX_OPS));
  opterr = 0;
  while ((c = getopt_long (argc, argv, SHORT_OPTIONS, longopts, NULL)) != -1) {
    switch (c) {
    case 's': parse_seeds (&o, optarg); break;
    case 'n':
      o.first = o.last = sb_option_count ("--seed", optarg, 0, ULONG_MAX);
      break;
    case 'o': o.ops = (unsigned) sb_option_count ("--ops", optarg, 1, MAX_OPS);
      break;
    case 'l': o.library = optarg; break;
    case 'e':
      if (!strchr (optarg, '=') || o.nenv == 16)
        sb_usage_error ("bad --env (VAR=VALUE, at most 16)");
      o.env[o.nenv++] = optarg;
      break;
    case 'm':
      o.max_failures = (unsigned) sb_option_count ("--max-failures", optarg,
                                                   0, UINT_MAX);
      break;
    case 'v': o.verbose = true; break;
    case 't':
      trace_seed = (long) sb_option_count ("--trace", optarg, 0, LONG_MAX);
      break;
    case 'h': usage (); break;
    default:
      sb_arg_getopt_complaint (c, argv, SHORT_OPTIONS, why, sizeof why);
      sb_usage_error ("%s", why);
    }
  }
  if (optind != argc)
    sb_usage_error ("unexpected argument");
  if (trace_seed >= 0) {
    struct dt_trace t;
    struct shared *sh = mmap (NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED || dt_trace_open (&t, TRACE_SIZE) == -1)
      return 1;
    run_seed (sh, &t, (unsigned long) trace_seed, o.ops);
    fputs (dt_trace_text (&t), stdout);
    return 0;
  }
  if (o.library == NULL)
    o.library = default_library ();
  /* A list (libasan first, for the sanitized build): the last is ours. */
  if (o.library == NULL || access (strrchr (o.library, ':')
                                   ? strrchr (o.library, ':') + 1
                                   : o.library, R_OK) != 0)
    sb_usage_error ("no library to preload: give --library PATH");
  if (o.max_failures == 0)
    o.max_failures = 1;
  return drive_seeds (&o, o.first, o.last, true) ? 1 : 0;
}
