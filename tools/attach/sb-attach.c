/* SPDX-License-Identifier: MIT */
/* sb-attach: tune the sockets of processes that are already running, as
 * libsockboost.so would have at connect and accept, for programs started
 * elsewhere or that LD_PRELOAD cannot reach (static and Go binaries).
 * Run as 'sockboost attach'; see sockboost(1).
 *
 * Each socket is duplicated with pidfd_getfd(2): the duplicate is the
 * target's own open socket, so setsockopt on it changes the target's
 * socket; it is taken from the target's own net_cls and net_prio
 * cgroups (common/net-class.h), so that the socket keeps its class.  The
 * target is never stopped or signalled.  This file reads the command
 * line and the environment; the work is in the other files here, the
 * rules in rules/.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "attach.h"
#include "tuning.h"

#define DEFAULT_INTERVAL_MS 100
#define MAX_INTERVAL_MS 3600000
/* '+': options end at the first PID; ':' first: missing values are told
 * apart from unknown options.
 */
#define SHORT_OPTIONS "+:vh"

static void
usage (void)
{
  printf (
"Usage: %s [OPTION...] PID...\n"
"Tune the sockets of running processes as libsockboost.so does at connect\n"
"and accept: a larger send buffer on unix stream sockets, TCP_NODELAY on\n"
"TCP sockets (on a listener, every later connection inherits it).  The\n"
"processes are not stopped or signalled.  Corking (NBD-aware MSG_MORE)\n"
"cannot be added from outside: for that, start the program under\n"
"'sockboost run'.\n"
"\n"
"  --watch            keep following the processes until they exit (or\n"
"                     SIGINT/SIGTERM), tuning sockets that appear later\n"
"  --interval MS      how often --watch looks for new sockets (default %d)\n"
"  --sndbuf SIZE      unix stream send buffer to request (bytes, K/M/G; 0 or\n"
"                     off disables); the kernel doubles it (default 2M)\n"
"  --no-nodelay       do not set TCP_NODELAY\n"
"  --dry-run          print what would change, change nothing\n"
"  -v, --verbose      also report the sockets left alone, and the CPU used\n"
"  -h, --help         show this help\n"
"\n"
"SOCKBOOST_SNDBUF, SOCKBOOST_FORCE and SOCKBOOST_NODELAY are read as the\n"
"library reads them; the options override them.  Needs ptrace rights over\n"
"each process (its user, or CAP_SYS_PTRACE) and Linux 5.6 or later.\n"
"Exit status: 0 when done, 1 on errors, 2 for a usage error.\n",
          ATTACH_PROGRAM, DEFAULT_INTERVAL_MS);
}

enum { OPT_WATCH = 256, OPT_INTERVAL, OPT_SNDBUF, OPT_NO_NODELAY,
       OPT_DRY_RUN };

static const struct option long_options[] = {
  { "watch", no_argument, NULL, OPT_WATCH },
  { "interval", required_argument, NULL, OPT_INTERVAL },
  { "sndbuf", required_argument, NULL, OPT_SNDBUF },
  { "no-nodelay", no_argument, NULL, OPT_NO_NODELAY },
  { "dry-run", no_argument, NULL, OPT_DRY_RUN },
  { "verbose", no_argument, NULL, 'v' },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

/* ARG as a process id, or a usage error. */
static pid_t
pid_arg (const char *arg)
{
  char why[SB_ARG_WHY_SIZE], shown[SB_ESCAPE_SIZE (32)];
  unsigned long n;

  if (sb_arg_count (arg, 10, 1, INT_MAX, &n, why, sizeof why) == -1)
    sb_usage_error ("'%s' is not a process id",
                    sb_escape_str (shown, sizeof shown, arg));
  return (pid_t) n;
}

/* Apply option OPT with ARG. */
static void
apply_option (struct attach_options *o, int opt, const char *arg,
              char **argv)
{
  char why[SB_ARG_WHY_SIZE];

  switch (opt) {
  case OPT_WATCH: o->watch = true; break;
  case OPT_INTERVAL:
    o->interval_ms = (int) sb_option_count ("--interval", arg, 1,
                                            MAX_INTERVAL_MS);
    break;
  case OPT_SNDBUF:
    sb_config_option (&o->config, "--sndbuf", "SOCKBOOST_SNDBUF", arg);
    break;
  case OPT_NO_NODELAY: o->config.nodelay = 0; break;
  case OPT_DRY_RUN: o->dry_run = true; break;
  case 'v': o->verbose++; break;
  case 'h': usage (); exit (0);
  default:
    sb_arg_getopt_complaint (opt, argv, SHORT_OPTIONS, why, sizeof why);
    sb_usage_error ("%s", why);
  }
}

static const char *
lookup_env (const char *name)
{
  return getenv (name);
}

/* The library's settings from the environment, with its parser: one
 * warning for each malformed variable, which keeps its default.
 */
static void
read_environment (struct attach_options *o)
{
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  char text[512];
  int n = sb_config_parse (&o->config, 0, lookup_env, w);

  for (int i = 0; i < n; i++)
    sb_error ("warning: %s",
              sb_config_warning_text (&w[i], text, sizeof text));
  o->config.wmem_max = sb_wmem_max (NULL);
}

/* Parse ARGV into O; return the index of the first PID. */
static int
parse_options (struct attach_options *o, int argc, char **argv)
{
  int opt;

  *o = (struct attach_options) { .interval_ms = DEFAULT_INTERVAL_MS };
  read_environment (o);
  opterr = 0;
  while ((opt = getopt_long (argc, argv, SHORT_OPTIONS, long_options,
                             NULL)) != -1)
    apply_option (o, opt, optarg, argv);
  if (optind == argc)
    sb_usage_error ("no process id given");
  return optind;
}

/* A target for each of the N process ids in PIDS, or NULL. */
static struct target *
targets (const struct attach_options *o, char **pids, size_t n)
{
  struct target *t = calloc (n, sizeof *t);

  if (t == NULL) {
    sb_error ("out of memory");
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    t[i] = (struct target) { .o = o, .pid = pid_arg (pids[i]), .pidfd = -1 };
  return t;
}

int
main (int argc, char **argv)
{
  struct attach_options o;
  struct sb_sndbuf_model dry_kernel;
  struct target *t;
  size_t n;
  bool ok = true;
  int first;

  sb_set_program_name (ATTACH_PROGRAM);
  first = parse_options (&o, argc, argv);
  n = (size_t) (argc - first);
  t = targets (&o, argv + first, n);
  if (t == NULL)
    return 1;
  if (o.dry_run) {
    if (sb_sndbuf_model_probe (&dry_kernel) == -1) {
      sb_error ("socketpair: %s", strerror (errno));
      return 1;
    }
    o.dry_kernel = &dry_kernel;
  }
  setvbuf (stdout, NULL, _IOLBF, 0);
  /* All or nothing: no process is touched if one cannot be. */
  for (size_t i = 0; i < n; i++)
    ok = target_open (&t[i]) == 0 && ok;
  if (ok)
    ok = attach_follow (t, n, &o);
  for (size_t i = 0; i < n; i++)
    target_free (&t[i]);
  free (t);
  return ok ? 0 : 1;
}
