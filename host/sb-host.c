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
#include "bpf-log.h"
#include "escape.h"
#include "host.h"
#include "libbpf-compat.h"
#include "load.h"
#include "nbd-programs.h"
#include "pins.h"
#include "report.h"
#include "settings.h"
#include "tuning.h"

#define SHORT_OPTIONS ":hv"

enum {
  OPT_CGROUP = 256, OPT_PROGRAMS, OPT_PORTS, OPT_ALL, OPT_SNDBUF, OPT_PIN_DIR,
  OPT_JSON, OPT_WATCHER, OPT_OBSERVE,
};

static const struct option long_options[] = {
  { "cgroup", required_argument, NULL, OPT_CGROUP },
  { "programs", required_argument, NULL, OPT_PROGRAMS },
  { "ports", required_argument, NULL, OPT_PORTS },
  { "all", no_argument, NULL, OPT_ALL },
  { "sndbuf", required_argument, NULL, OPT_SNDBUF },
  { "pin-dir", required_argument, NULL, OPT_PIN_DIR },
  { "json", no_argument, NULL, OPT_JSON },
  { "watcher", no_argument, NULL, OPT_WATCHER },
  { "observe", no_argument, NULL, OPT_OBSERVE },
  { "verbose", no_argument, NULL, 'v' },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

static void
usage (void)
{
  char programs[1024];
  const char *list = sb_nbd_program_list (programs, sizeof programs);

  printf (
"Usage: sockboost host enable [--cgroup PATH] [--programs LIST | --ports LIST\n"
"                             | --all] [--sndbuf SIZE] [--pin-dir DIR]\n"
"                             [--watcher | --observe] [-v]\n"
"       sockboost host disable [--pin-dir DIR]\n"
"       sockboost host status [--json] [--pin-dir DIR] [PID]\n"
"       sockboost host check [--cgroup PATH] [--sndbuf SIZE] [--watcher]\n"
"                            [--json]\n"
"       sockboost host watch [--pin-dir DIR]\n"
"Let the kernel tune every NBD connection of this host (or of one cgroup):\n"
"TCP_NODELAY on the TCP connections, and a bigger send buffer on the unix\n"
"stream sockets (Linux 6.7 and later), of the NBD programs, through BPF\n"
"programs attached to a cgroup v2 directory.  Nothing is loaded into the\n"
"programs; no corking.  It also counts the stalls of those TCP connections\n"
"(segments that waited for a delayed ACK), their time and the bytes, per\n"
"program and process.  Needs root.\n"
"\n"
"  enable     check what this kernel can do (a self-test in a private\n"
"             network namespace), then attach and pin the programs;\n"
"             run again to change the settings\n"
"  disable    detach them and remove their pins\n"
"  status     say what is attached, where, with which filter, since when,\n"
"             how many sockets each program had tuned, and the stalls\n"
"             counted per program and process; with PID, which\n"
"             sockets of that process host mode tuned\n"
"  check      run enable's self-test only: can host mode run here, and\n"
"             which parts; nothing is attached (exit 1 when it cannot)\n"
"  watch      the watcher, which enable starts where the kernel's BPF\n"
"             cannot set TCP_NODELAY (before Linux 6.1): it reads the\n"
"             events of its programs until SIGTERM\n"
"\n"
"  --cgroup PATH    attach to this cgroup (absolute, or relative to the\n"
"                   cgroup v2 mount, e.g. machine.slice) instead of the\n"
"                   whole host\n"
"  --programs LIST  tune the sockets made by these programs: names as the\n"
"                   kernel keeps them (15 bytes), comma-separated, 'NAME*'\n"
"                   for a prefix (default: %s)\n"
"  --ports LIST     tune the TCP sockets bound to, or connecting to, one of\n"
"                   these ports instead (no unix sockets)\n"
"  --all            tune every TCP connection and unix stream socket\n"
"  --sndbuf SIZE    unix stream send buffer to request, as 'sockboost run\n"
"                   --sndbuf' (default 2M; 0 or off leaves them alone)\n"
"  --pin-dir DIR    keep the pins in DIR, on a BPF file system (default\n"
"                   " SB_HOST_PIN_DIR_DEFAULT ")\n"
"  --watcher        TCP_NODELAY from the watcher even where the kernel's BPF\n"
"                   can set it (to compare, or to try the watcher)\n"
"  --observe        count the stalls only, change no socket: what this host\n"
"                   loses before the tuning is on (the tuning, if on, goes)\n"
"  --json           status or check as one JSON object\n"
"  -v, --verbose    show libbpf's messages (twice: its debug messages)\n"
"  -h, --help       show this help\n"
"\n"
"Exit status: 0 done, 1 failed or host mode cannot run here, 2 usage error.\n"
"See sockboost(1).\n",
          list ? list : "the NBD programs");
}

static const char *
no_variable (const char *name)
{
  (void) name;
  return NULL;
}

/* The commands, each with the options it takes (OPT_* bits), what it
 * does, and whether it takes a PID.
 */
#define BIT(opt) (1u << ((opt) - OPT_CGROUP))
#define FILTER_OPTIONS (BIT (OPT_PROGRAMS) | BIT (OPT_PORTS) | BIT (OPT_ALL))
struct command {
  const char *name;
  unsigned options;
  int (*run) (const struct sb_host_options *o);
  int takes_pid;
};
static const struct command commands[] = {
  { "enable", BIT (OPT_CGROUP) | FILTER_OPTIONS | BIT (OPT_SNDBUF) |
    BIT (OPT_PIN_DIR) | BIT (OPT_WATCHER) | BIT (OPT_OBSERVE), sb_host_enable,
    0 },
  { "disable", BIT (OPT_PIN_DIR), sb_host_disable, 0 },
  { "status", BIT (OPT_JSON) | BIT (OPT_PIN_DIR), sb_host_status, 1 },
  { "check", BIT (OPT_CGROUP) | BIT (OPT_SNDBUF) | BIT (OPT_JSON) |
    BIT (OPT_WATCHER),
    sb_host_check, 0 },
  { "watch", BIT (OPT_PIN_DIR), sb_host_watch, 0 },
};
#define COMMAND_NAMES "enable, disable, status, check or watch"

struct parsed {
  const struct command *command;
  struct sb_config config;      /* the library's settings: --sndbuf */
  int filters;                  /* how many of --programs, --ports, --all */
  unsigned seen;                /* the long options given (BIT) */
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

  if (opt >= OPT_CGROUP)
    p->seen |= BIT (opt);
  switch (opt) {
  case OPT_CGROUP: p->o.cgroup = arg; break;
  case OPT_PROGRAMS: case OPT_PORTS: case OPT_ALL: set_filter (p, opt, arg); break;
  case OPT_SNDBUF:
    sb_config_option (&p->config, "--sndbuf", "SOCKBOOST_SNDBUF", arg);
    break;
  case OPT_PIN_DIR: p->o.pin_dir = arg; break;
  case OPT_JSON: p->o.json = 1; break;
  case OPT_WATCHER: p->o.watcher = 1; break;
  case OPT_OBSERVE: p->o.observe = 1; break;
  case 'v': p->o.verbose++; break;
  case 'h': usage (); exit (0);
  default:
    sb_arg_getopt_complaint (opt, argv, SHORT_OPTIONS, why, sizeof why);
    sb_usage_error ("%s", why);
  }
}

static const struct command *
command_named (const char *name)
{
  char shown[SB_ESCAPE_SIZE (32)];

  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp (name, commands[i].name) == 0)
      return &commands[i];
  sb_usage_error ("unknown command '%s' (" COMMAND_NAMES ")",
                  sb_escape_str (shown, sizeof shown, name));
}

/* The first option given that COMMAND does not take. */
static void
check_options (const struct parsed *p)
{
  unsigned wrong = p->seen & ~p->command->options;

  for (const struct option *o = long_options; o->name; o++)
    if (o->val >= OPT_CGROUP && (wrong & BIT (o->val)))
      sb_usage_error ("%s: --%s is not an option of %s", p->command->name,
                      o->name, p->command->name);
  if (p->filters > 1)
    sb_usage_error ("enable: --programs, --ports and --all exclude each other");
  if ((p->seen & BIT (OPT_OBSERVE)) &&
      (p->seen & (BIT (OPT_WATCHER) | BIT (OPT_SNDBUF))))
    sb_usage_error ("enable: --observe changes no socket: --%s is the "
                    "tuning's", (p->seen & BIT (OPT_WATCHER)) ? "watcher" :
                    "sndbuf");
}

/* The operands after the command: a PID for status, nothing else. */
static void
parse_operands (int argc, char **argv, struct parsed *p)
{
  char shown[SB_ESCAPE_SIZE (32)], why[SB_ARG_WHY_SIZE];
  unsigned long pid;

  if (optind >= argc)
    return;
  sb_escape_str (shown, sizeof shown, argv[optind]);
  if (!p->command->takes_pid || optind + 1 < argc)
    sb_usage_error ("%s: unexpected argument '%s'", p->command->name,
                    sb_escape_str (shown, sizeof shown,
                                   argv[p->command->takes_pid ? optind + 1 : optind]));
  if (sb_arg_count (argv[optind], 10, 1, INT32_MAX, &pid, why, sizeof why) == -1)
    sb_usage_error ("%s: '%s' is not a process id", p->command->name, shown);
  p->o.pid = (pid_t) pid;
}

static void
parse_args (int argc, char **argv, struct parsed *p)
{
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  char why[256];
  int opt;

  memset (p, 0, sizeof *p);
  sb_config_parse (&p->config, 0, no_variable, w);
  p->o.pin_dir = SB_HOST_PIN_DIR_DEFAULT;
  if (sb_host_default_filter (&p->o.filter, why, sizeof why) == -1) {
    sb_error ("the default programs: %s", why);
    exit (1);
  }
  opterr = 0;
  while ((opt = getopt_long (argc, argv, SHORT_OPTIONS, long_options, NULL)) != -1)
    apply_option (p, opt, optarg, argv);
  if (optind >= argc)
    sb_usage_error ("no command given (" COMMAND_NAMES ")");
  p->command = command_named (argv[optind++]);
  check_options (p);
  parse_operands (argc, argv, p);
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
              "and keeps them under a root-only directory", p.command->name);
    return 1;
  }
  sb_host_libbpf_messages (p.o.verbose);
  sb_libbpf_setup ();
  if (p.o.pid != 0)
    return sb_host_status_pid (&p.o);
  return p.command->run (&p.o);
}
