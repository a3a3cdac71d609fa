/* SPDX-License-Identifier: MIT */
/* sb-host: `sockboost host enable|disable|status`, host mode's loader.
 * The kernel tunes every NBD connection of a cgroup (the whole host by
 * default): see host.h for the commands, sockboost(1) for the user's
 * view.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "escape.h"
#include "host.h"
#include "load.h"
#include "pins.h"
#include "report.h"
#include "settings.h"
#include "tuning.h"

#define SHORT_OPTIONS ":hv"

enum {
  OPT_CGROUP = 256, OPT_PROGRAMS, OPT_PORTS, OPT_ALL, OPT_SNDBUF, OPT_PIN_DIR,
  OPT_JSON,
};

static const struct option long_options[] = {
  { "cgroup", required_argument, NULL, OPT_CGROUP },
  { "programs", required_argument, NULL, OPT_PROGRAMS },
  { "ports", required_argument, NULL, OPT_PORTS },
  { "all", no_argument, NULL, OPT_ALL },
  { "sndbuf", required_argument, NULL, OPT_SNDBUF },
  { "pin-dir", required_argument, NULL, OPT_PIN_DIR },
  { "json", no_argument, NULL, OPT_JSON },
  { "verbose", no_argument, NULL, 'v' },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

static void
usage (void)
{
  printf (
"Usage: sockboost host enable [--cgroup PATH] [--programs LIST | --ports LIST\n"
"                             | --all] [--sndbuf SIZE] [--pin-dir DIR] [-v]\n"
"       sockboost host disable [--pin-dir DIR]\n"
"       sockboost host status [--json] [--pin-dir DIR]\n"
"Let the kernel tune every NBD connection of this host (or of one cgroup):\n"
"TCP_NODELAY on the TCP connections, and a bigger send buffer on the unix\n"
"stream sockets (Linux 6.7 and later), of the NBD programs, through BPF\n"
"programs attached to a cgroup v2 directory.  Nothing is loaded into the\n"
"programs; no corking.  Needs root.\n"
"\n"
"  enable     check what this kernel can do (a self-test in a private\n"
"             network namespace), then attach and pin the programs;\n"
"             run again to change the settings\n"
"  disable    detach them and remove their pins\n"
"  status     say what is attached, where, with which filter, since when,\n"
"             and how many sockets each program had tuned\n"
"\n"
"  --cgroup PATH    attach to this cgroup (absolute, or relative to the\n"
"                   cgroup v2 mount, e.g. machine.slice) instead of the\n"
"                   whole host\n"
"  --programs LIST  tune the sockets made by these programs: names as the\n"
"                   kernel keeps them (15 bytes), comma-separated, 'NAME*'\n"
"                   for a prefix (default: " SB_HOST_DEFAULT_PROGRAMS ")\n"
"  --ports LIST     tune the TCP sockets bound to, or connecting to, one of\n"
"                   these ports instead (no unix sockets)\n"
"  --all            tune every TCP connection and unix stream socket\n"
"  --sndbuf SIZE    unix stream send buffer to request, as 'sockboost run\n"
"                   --sndbuf' (default 2M; 0 or off leaves them alone)\n"
"  --pin-dir DIR    keep the pins in DIR, on a BPF file system (default\n"
"                   " SB_HOST_PIN_DIR_DEFAULT ")\n"
"  --json           status as one JSON object\n"
"  -v, --verbose    show libbpf's messages (twice: its debug messages)\n"
"  -h, --help       show this help\n"
"\n"
"Exit status: 0 done, 1 failed or host mode cannot run here, 2 usage error.\n"
"See sockboost(1).\n");
}

/* --sndbuf is SOCKBOOST_SNDBUF, read by the library's rules, which also
 * say what it requests.
 */
static void
parse_sndbuf (struct sb_config *c, const char *arg)
{
  char shown[SB_ESCAPE_SIZE (32)], expected[SB_EXPECTED_SIZE];

  if (sb_config_set (c, "SOCKBOOST_SNDBUF", arg, expected) == -1)
    sb_usage_error ("invalid --sndbuf '%s': expected %s",
                    sb_escape_str (shown, sizeof shown, arg), expected);
}

static const char *
no_variable (const char *name)
{
  (void) name;
  return NULL;
}

struct parsed {
  const char *command;
  struct sb_config config;      /* the library's settings: --sndbuf */
  int filters;                  /* how many of --programs, --ports, --all */
  int enable_only;              /* an option only enable takes, or 0 */
  int json;
  struct sb_host_options o;
};

static void
set_filter (struct parsed *p, int opt, const char *arg)
{
  char why[256];
  int r = 0;

  p->filters++;
  if (opt == OPT_PROGRAMS)
    r = sb_host_parse_programs (arg, &p->o.filter, why, sizeof why);
  else if (opt == OPT_PORTS)
    r = sb_host_parse_ports (arg, &p->o.filter, why, sizeof why);
  else
    p->o.filter = (struct sb_host_filter_spec) { .kind = SB_HOST_FILTER_ALL };
  if (r == -1)
    sb_usage_error ("invalid %s: %s", opt == OPT_PROGRAMS ? "--programs" :
                    "--ports", why);
}

static void
apply_option (struct parsed *p, int opt, const char *arg, char **argv)
{
  char why[SB_ARG_WHY_SIZE];

  switch (opt) {
  case OPT_CGROUP: p->o.cgroup = arg; p->enable_only = opt; break;
  case OPT_PROGRAMS: case OPT_PORTS: case OPT_ALL:
    set_filter (p, opt, arg);
    p->enable_only = opt;
    break;
  case OPT_SNDBUF: parse_sndbuf (&p->config, arg); p->enable_only = opt; break;
  case OPT_PIN_DIR: p->o.pin_dir = arg; break;
  case OPT_JSON: p->o.json = 1; break;
  case 'v': p->o.verbose++; break;
  case 'h': usage (); exit (0);
  default:
    sb_arg_getopt_complaint (opt, argv, SHORT_OPTIONS, why, sizeof why);
    sb_usage_error ("%s", why);
  }
}

static const char *
option_name (int opt)
{
  for (const struct option *o = long_options; o->name; o++)
    if (o->val == opt)
      return o->name;
  return "?";
}

static void
parse_args (int argc, char **argv, struct parsed *p)
{
  char shown[SB_ESCAPE_SIZE (32)], extra[SB_ESCAPE_SIZE (32)];
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  int opt;

  memset (p, 0, sizeof *p);
  sb_config_parse (&p->config, 0, no_variable, w);
  p->o.pin_dir = SB_HOST_PIN_DIR_DEFAULT;
  sb_host_parse_programs (SB_HOST_DEFAULT_PROGRAMS, &p->o.filter, shown, sizeof shown);
  opterr = 0;
  while ((opt = getopt_long (argc, argv, SHORT_OPTIONS, long_options, NULL)) != -1)
    apply_option (p, opt, optarg, argv);
  if (optind >= argc)
    sb_usage_error ("no command given (enable, disable or status)");
  p->command = argv[optind];
  sb_escape_str (shown, sizeof shown, p->command);
  if (strcmp (p->command, "enable") != 0 && strcmp (p->command, "disable") != 0 &&
      strcmp (p->command, "status") != 0)
    sb_usage_error ("unknown command '%s' (enable, disable or status)", shown);
  if (optind + 1 < argc)
    sb_usage_error ("%s: unexpected argument '%s'", shown,
                    sb_escape_str (extra, sizeof extra, argv[optind + 1]));
  if (p->filters > 1)
    sb_usage_error ("enable: --programs, --ports and --all exclude each other");
  if (p->enable_only && strcmp (p->command, "enable") != 0)
    sb_usage_error ("%s: --%s is an option of enable", shown,
                    option_name (p->enable_only));
  if (p->o.json && strcmp (p->command, "status") != 0)
    sb_usage_error ("%s: --json is an option of status", shown);
  p->o.sndbuf = p->config.sndbuf == 0 ? 0 :
    (uint32_t) sb_sndbuf_request (&p->config);
}

int
main (int argc, char **argv)
{
  struct parsed p;

  sb_set_program_name ("sockboost host");
  parse_args (argc, argv, &p);
  if (geteuid () != 0) {
    sb_error ("%s: needs root: host mode attaches BPF programs to a cgroup "
              "and keeps them under a root-only directory", p.command);
    return 1;
  }
  sb_host_libbpf_messages (p.o.verbose);
  if (strcmp (p.command, "enable") == 0)
    return sb_host_enable (&p.o);
  if (strcmp (p.command, "disable") == 0)
    return sb_host_disable (&p.o);
  return sb_host_status (&p.o);
}
