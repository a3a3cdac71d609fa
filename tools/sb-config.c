/* SPDX-License-Identifier: MIT */
/* sb-config: what libsockboost.so decides in this environment, asked of
 * the library's own code (preload/config.c, preload/tune-rules.c), so that
 * sockboost doctor, status and run never restate a rule.  Run by them;
 * see --help.
 *
 * The settings are parsed by sb_config_parse from this process's
 * SOCKBOOST_* variables; the send buffer is raised by sb_sndbuf_raise
 * against the model of the kernel's setsockopt in tools/model/, whose
 * facts come from the kernel itself unless given.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "args.h"
#include "config.h"
#include "escape.h"
#include "log.h"
#include "report.h"
#include "model/sndbuf-model.h"
#include "tune-rules.h"

#define PROGRAM "sb-config"

static struct sb_sndbuf_model kernel;
static bool settings_only;

static void
usage (void)
{
  printf (
"Usage: %s [OPTION...]\n"
"Print what libsockboost.so decides with this process's SOCKBOOST_*\n"
"variables, one 'KEY<tab>VALUE...' line each: the settings, the send\n"
"buffer request for a unix stream socket, the option it uses, whether\n"
"net.core.wmem_max clips it, the tb the socket ends with (what ss -xm\n"
"shows), and every warning the library prints.  Values are printable\n"
"ASCII without tabs.\n"
"\n"
"  --wmem-max BYTES      net.core.wmem_max to assume (default: this host's)\n"
"  --wmem-default BYTES  net.core.wmem_default to assume (default: this host's)\n"
"  --before TB           the socket's tb when the library sees it\n"
"                        (default: wmem_default, a new socket's)\n"
"  --program-asked BYTES the program set SO_SNDBUF to BYTES itself before\n"
"                        the library saw the socket (sets --before)\n"
"  --can-force yes|no    whether the program may use SO_SNDBUFFORCE\n"
"                        (default: whether this process may)\n"
"  --settings            only the settings and their warnings: no send\n"
"                        buffer decision, no socket made\n"
"  -h, --help            show this help\n",
          PROGRAM);
}

/* ARG of OPTION as a number from 0 to MAX. */
static long
parse_number (const char *option, const char *arg, unsigned long max)
{
  char shown[SB_ESCAPE_SIZE (32)], why[SB_ARG_WHY_SIZE];
  unsigned long v;

  if (sb_arg_count (arg, 10, 0, max, &v, why, sizeof why) == -1)
    sb_usage_error ("invalid %s '%s': %s", option,
                    sb_escape_str (shown, sizeof shown, arg), why);
  return (long) v;
}

static int
parse_yes_no (const char *option, const char *arg)
{
  char shown[SB_ESCAPE_SIZE (32)];

  if (strcmp (arg, "yes") == 0 || strcmp (arg, "no") == 0)
    return arg[0] == 'y';
  sb_usage_error ("invalid %s '%s': expected yes or no", option,
                  sb_escape_str (shown, sizeof shown, arg));
}

enum { OPT_WMEM_MAX = 256, OPT_WMEM_DEFAULT, OPT_BEFORE, OPT_PROGRAM_ASKED,
       OPT_CAN_FORCE, OPT_SETTINGS };

static const struct option long_options[] = {
  { "wmem-max", required_argument, NULL, OPT_WMEM_MAX },
  { "wmem-default", required_argument, NULL, OPT_WMEM_DEFAULT },
  { "before", required_argument, NULL, OPT_BEFORE },
  { "program-asked", required_argument, NULL, OPT_PROGRAM_ASKED },
  { "can-force", required_argument, NULL, OPT_CAN_FORCE },
  { "settings", no_argument, NULL, OPT_SETTINGS },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

/* Fill KERNEL from the host, then from the options; return the tb of
 * the socket when the library sees it, or -1 for a new socket's.
 */
static long
parse_options (int argc, char *argv[])
{
  long before = -1, asked = -1;
  long wmem_default = -1;
  int opt, can_force = -1;
  char why[SB_ARG_WHY_SIZE], shown[SB_ESCAPE_SIZE (64)];

  long wmem_max = sb_config_wmem_max ();
  opterr = 0;
  while ((opt = getopt_long (argc, argv, ":h", long_options, NULL)) != -1) {
    switch (opt) {
    case OPT_WMEM_MAX:
      wmem_max = parse_number ("--wmem-max", optarg, INT_MAX);
      break;
    case OPT_WMEM_DEFAULT:
      wmem_default = parse_number ("--wmem-default", optarg, INT_MAX);
      break;
    case OPT_BEFORE:
      before = parse_number ("--before", optarg, INT_MAX);
      break;
    case OPT_PROGRAM_ASKED:
      asked = parse_number ("--program-asked", optarg, INT_MAX / 2);
      break;
    case OPT_CAN_FORCE:
      can_force = parse_yes_no ("--can-force", optarg);
      break;
    case OPT_SETTINGS:
      settings_only = true;
      break;
    case 'h':
      usage ();
      exit (0);
    default:
      sb_arg_getopt_complaint (opt, argv, ":h", why, sizeof why);
      sb_usage_error ("%s", why);
    }
  }
  if (optind < argc)
    sb_usage_error ("unexpected argument '%s'",
                    sb_escape_str (shown, sizeof shown, argv[optind]));
  kernel.wmem_max = wmem_max;
  if (settings_only)
    return -1;
  if (sb_sndbuf_model_probe (&kernel) == -1)
    sb_die ("socketpair");
  kernel.wmem_max = wmem_max;
  if (wmem_default >= 0)
    kernel.wmem_default = (int) wmem_default;
  if (can_force >= 0)
    kernel.can_force = can_force;
  if (asked >= 0)
    before = sb_sndbuf_model_program_sets (&kernel, (int) asked);
  return before;
}

static const char *
lookup_env (const char *name)
{
  return getenv (name);
}

/* The settings, and a line for each malformed variable: "invalid NAME
 * VALUE EXPECTED" (for callers that name their own option), and "warning
 * TEXT" as the library prints it.
 */
static void
print_settings (const struct sb_config *c,
                const struct sb_config_warning *w, int nw)
{
  char text[512];

  printf ("version\t%s\n", SOCKBOOST_VERSION);
  printf ("settings\t%s\n", sb_config_describe (c, text, sizeof text));
  printf ("sndbuf\t%llu\nnodelay\t%d\ncork\t%d\nscope\t%s\n",
          (unsigned long long) c->sndbuf, c->nodelay, c->cork,
          c->scope == SB_SCOPE_NBD ? "nbd" : "all");
  /* The library's log: its level decides whether any warning is seen. */
  sb_log_setup (c->debug, c->log_file);
  printf ("warnings_printed\t%d\n", sb_log_enabled (SB_LOG_WARN));
  for (int i = 0; i < nw; i++) {
    printf ("invalid\t%s\t%s\t%s\n", w[i].name,
            sb_escape_str (text, sizeof text, w[i].value), w[i].expected);
    printf ("warning\t%s\n", sb_config_warning_text (&w[i], text, sizeof text));
  }
}

/* The library's decision for a unix stream socket of tb BEFORE. */
static void
print_sndbuf_decision (const struct sb_config *c, int before)
{
  char text[512];
  bool clipped;
  int option, tb;

  printf ("wmem_default\t%d\nwmem_max\t%ld\ncan_force\t%d\nbefore\t%d\n",
          kernel.wmem_default, kernel.wmem_max, kernel.can_force, before);
  option = sb_sndbuf_model_raise (&kernel, before, c, &tb, &clipped);
  printf ("request\t%lld\n", c->sndbuf ? sb_sndbuf_request (c) : 0);
  printf ("option\t%s\n", option == SO_SNDBUFFORCE ? "SO_SNDBUFFORCE"
          : option == SO_SNDBUF ? "SO_SNDBUF" : "none");
  printf ("clipped\t%d\n", clipped);
  printf ("tb\t%d\n", tb);
  if (clipped)
    printf ("warning\t%s\n", sb_sndbuf_clip_warning_text (c, text,
                                                          sizeof text));
}

int
main (int argc, char *argv[])
{
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  struct sb_config c;
  long before = parse_options (argc, argv);
  int nw = sb_config_parse (&c, 0, lookup_env, w);

  c.wmem_max = kernel.wmem_max;
  print_settings (&c, w, nw);
  if (!settings_only)
    print_sndbuf_decision (&c, before >= 0 ? (int) before
                         : kernel.wmem_default);
  if (fflush (stdout) == EOF || ferror (stdout)) {
    sb_error ("stdout: %s", strerror (errno));
    return 1;
  }
  return 0;
}
