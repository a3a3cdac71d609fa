/* SPDX-License-Identifier: MIT */
/* sb-config: what libsockboost.so decides in this environment, asked of
 * the library's own rules (rules/), so that sockboost doctor, status and
 * run, and the tests of the man pages, never restate a rule.  Run by
 * them; see --help.
 *
 * The settings are parsed by sb_config_parse from this process's
 * SOCKBOOST_* variables; the send buffer is raised by sb_sndbuf_raise
 * against the model of the kernel's setsockopt (rules/sndbuf-model.c),
 * whose facts come from the kernel itself unless given.  It also
 * lists the NBD programs (common/nbd-programs.c) for doctor and status,
 * and reads the sizes the Python tools are given, with the one size
 * parser (common/parse-size.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "args.h"
#include "escape.h"
#include "nbd-programs.h"
#include "report.h"
#include "settings.h"
#include "sndbuf-model.h"
#include "tuning.h"

#define PROGRAM "sb-config"

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
"  --variables           only the variables the library reads, one\n"
"                        'variable<tab>NAME<tab>DEFAULT<tab>EXPECTED' line\n"
"                        each (DEFAULT empty when there is none)\n"
"  --programs            only the NBD programs, one\n"
"                        'program<tab>NAME<tab>KIND' line each: NAME a file\n"
"                        name or a prefix ending in '*', KIND the NBD code\n"
"                        it runs\n"
"  --size SIZE           only SIZE as bytes (at least 1), one 'size<tab>BYTES'\n"
"                        line; an invalid one is a usage error that says what\n"
"                        a size looks like\n"
"  --sndbuf-size SIZE    the same, for a send buffer to request (at most what\n"
"                        SOCKBOOST_SNDBUF takes)\n"
"  -h, --help            show this help\n",
          PROGRAM);
}

/* What the options ask; -1 for what the host decides. */
struct options {
  long wmem_max, wmem_default, before, asked;
  int can_force;
  bool settings_only, variables_only, programs_only;
  bool sized;                   /* a size was given: print it alone */
  uint64_t size;
};

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
       OPT_CAN_FORCE, OPT_SETTINGS, OPT_VARIABLES, OPT_PROGRAMS, OPT_SIZE,
       OPT_SNDBUF_SIZE };

static const struct option long_options[] = {
  { "wmem-max", required_argument, NULL, OPT_WMEM_MAX },
  { "wmem-default", required_argument, NULL, OPT_WMEM_DEFAULT },
  { "before", required_argument, NULL, OPT_BEFORE },
  { "program-asked", required_argument, NULL, OPT_PROGRAM_ASKED },
  { "can-force", required_argument, NULL, OPT_CAN_FORCE },
  { "settings", no_argument, NULL, OPT_SETTINGS },
  { "variables", no_argument, NULL, OPT_VARIABLES },
  { "programs", no_argument, NULL, OPT_PROGRAMS },
  { "size", required_argument, NULL, OPT_SIZE },
  { "sndbuf-size", required_argument, NULL, OPT_SNDBUF_SIZE },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

/* Apply option OPT with ARG to O. */
static void
apply_option (struct options *o, int opt, const char *arg, char **argv)
{
  char why[SB_ARG_WHY_SIZE];

  switch (opt) {
  case OPT_WMEM_MAX:
    o->wmem_max = (long) sb_option_count ("--wmem-max", arg, 0, INT_MAX);
    break;
  case OPT_WMEM_DEFAULT:
    o->wmem_default = (long) sb_option_count ("--wmem-default", arg, 0,
                                              INT_MAX);
    break;
  case OPT_BEFORE:
    o->before = (long) sb_option_count ("--before", arg, 0, INT_MAX);
    break;
  case OPT_PROGRAM_ASKED:
    o->asked = (long) sb_option_count ("--program-asked", arg, 0,
                                       INT_MAX / 2);
    break;
  case OPT_CAN_FORCE: o->can_force = parse_yes_no ("--can-force", arg); break;
  case OPT_SETTINGS: o->settings_only = true; break;
  case OPT_VARIABLES: o->variables_only = true; break;
  case OPT_PROGRAMS: o->programs_only = true; break;
  case OPT_SIZE:
    o->size = sb_option_size ("--size", arg, UINT64_MAX);
    o->sized = true;
    break;
  case OPT_SNDBUF_SIZE:
    o->size = sb_option_size ("--sndbuf-size", arg, SB_SNDBUF_MAX);
    o->sized = true;
    break;
  case 'h': usage (); exit (0);
  default:
    sb_arg_getopt_complaint (opt, argv, ":h", why, sizeof why);
    sb_usage_error ("%s", why);
  }
}

static void
parse_options (struct options *o, int argc, char *argv[])
{
  char shown[SB_ESCAPE_SIZE (64)];
  int opt;

  *o = (struct options) { .wmem_max = -1, .wmem_default = -1, .before = -1,
                          .asked = -1, .can_force = -1 };
  opterr = 0;
  while ((opt = getopt_long (argc, argv, ":h", long_options, NULL)) != -1)
    apply_option (o, opt, optarg, argv);
  if (optind < argc)
    sb_usage_error ("unexpected argument '%s'",
                    sb_escape_str (shown, sizeof shown, argv[optind]));
}

/* The kernel the decision is modelled on: this host's (asked of a
 * socketpair of our own), with what O says instead.
 */
static void
model_kernel (struct sb_sndbuf_model *kernel, const struct options *o)
{
  if (sb_sndbuf_model_probe (kernel) == -1)
    sb_die ("socketpair");
  if (o->wmem_max >= 0)
    kernel->wmem_max = o->wmem_max;
  if (o->wmem_default >= 0)
    kernel->wmem_default = (int) o->wmem_default;
  if (o->can_force >= 0)
    kernel->can_force = o->can_force;
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
  printf ("warnings_printed\t%d\n", sb_config_warns (c));
  for (int i = 0; i < nw; i++) {
    printf ("invalid\t%s\t%s\t%s\n", w[i].name,
            sb_escape_str (text, sizeof text, w[i].value), w[i].expected);
    printf ("warning\t%s\n", sb_config_warning_text (&w[i], text, sizeof text));
  }
}

/* The library's decision for a unix stream socket of tb BEFORE. */
static void
print_sndbuf_decision (struct sb_sndbuf_model *kernel,
                       const struct sb_config *c, int before)
{
  char text[512];
  bool clipped;
  int option, tb;

  printf ("wmem_default\t%d\nwmem_max\t%ld\ncan_force\t%d\nbefore\t%d\n",
          kernel->wmem_default, kernel->wmem_max, kernel->can_force, before);
  option = sb_sndbuf_model_raise (kernel, before, c, &tb, &clipped);
  printf ("request\t%lld\n", c->sndbuf ? sb_sndbuf_request (c) : 0);
  printf ("option\t%s\n", option == SO_SNDBUFFORCE ? "SO_SNDBUFFORCE"
          : option == SO_SNDBUF ? "SO_SNDBUF" : "none");
  printf ("clipped\t%d\n", clipped);
  printf ("tb\t%d\n", tb);
  if (clipped)
    printf ("warning\t%s\n", sb_sndbuf_clip_warning_text (c, text,
                                                          sizeof text));
}

static void
print_variables (void)
{
  char expected[SB_EXPECTED_SIZE];
  const char *name, *default_text;

  for (size_t i = 0; (name = sb_config_variable (i, &default_text,
                                                 expected)) != NULL; i++)
    printf ("variable\t%s\t%s\t%s\n", name, default_text, expected);
}

static void
print_programs (void)
{
  for (const struct sb_nbd_program *p = sb_nbd_programs; p->name; p++)
    printf ("program\t%s\t%s\n", p->name, p->kind);
}

/* The settings of this environment and, unless O asks only for them,
 * the send buffer decision.
 */
static void
print_decisions (const struct options *o)
{
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  struct sb_sndbuf_model kernel;
  struct sb_config c;
  int nw = sb_config_parse (&c, 0, lookup_env, w);
  int before;

  c.wmem_max = o->wmem_max >= 0 ? o->wmem_max : sb_wmem_max (NULL);
  print_settings (&c, w, nw);
  if (o->settings_only)
    return;
  model_kernel (&kernel, o);
  before = o->before >= 0 ? (int) o->before : kernel.wmem_default;
  if (o->asked >= 0)
    before = sb_sndbuf_model_program_sets (&kernel, (int) o->asked);
  print_sndbuf_decision (&kernel, &c, before);
}

int
main (int argc, char *argv[])
{
  struct options o;

  parse_options (&o, argc, argv);
  if (o.variables_only)
    print_variables ();
  else if (o.programs_only)
    print_programs ();
  else if (o.sized)
    printf ("size\t%llu\n", (unsigned long long) o.size);
  else
    print_decisions (&o);
  if (fflush (stdout) == EOF || ferror (stdout)) {
    sb_error ("stdout: %s", strerror (errno));
    return 1;
  }
  return 0;
}
