/* SPDX-License-Identifier: MIT */
/* Command-line parsing for sbnbd-server. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "nbd-protocol.h"
#include "server.h"

#define DEFAULT_MAX_CONNECTIONS 128
#define DEFAULT_HANDSHAKE_TIMEOUT 10
/* ':' first: missing arguments are told apart from unknown options. */
#define SHORT_OPTIONS ":U:p:b:e:rvhV"

static void
usage (FILE *f)
{
  fprintf (f,
"Usage: %s [OPTIONS] -U SOCKET|-p PORT BACKEND\n"
"Serve BACKEND over NBD (fixed newstyle) until interrupted.\n"
"\n"
"BACKEND is FILE (a file or block device), memory:SIZE, null:SIZE or\n"
"pattern:SIZE; SIZE is in bytes or takes a K, M, G or T suffix.\n"
"\n"
"  -U, --unix PATH          listen on a unix socket ('-': private temporary)\n"
"  -p, --port PORT          listen on TCP PORT (0: the kernel picks)\n"
"  -b, --bind ADDR          TCP address to listen on (default 127.0.0.1)\n"
"  -e, --export-name NAME   export name (default \"\")\n"
"  -r, --read-only          refuse writes, trims and zeroes\n"
"      --socket-mode MODE   unix socket permissions, octal (default 0600)\n"
"      --max-connections N  concurrent clients (default %d); when full, the\n"
"                           oldest still in its handshake is closed for a\n"
"                           new one, else the new one is refused\n"
"      --handshake-timeout SECONDS\n"
"                           close a client that has not finished its\n"
"                           handshake in SECONDS (default %d)\n"
"      --pidfile FILE       write the pid to FILE once listening\n"
"      --run CMD            run CMD via /bin/sh with $uri set, then exit\n"
"                           with its status (default transport: -U -)\n"
"      --print-uri          print the export's URI on stdout once listening\n"
"                           (with -U - or -p 0 and neither this nor --run,\n"
"                           it goes to stderr)\n"
"      --split-replies      write read reply header and data separately\n"
"                           (naive server behaviour, for tests)\n"
"      --no-nodelay         leave Nagle's algorithm on for TCP clients\n"
"                           (naive server behaviour, for tests)\n"
"  -v, --verbose            log connections to stderr\n"
"  -h, --help               show this help\n"
"  -V, --version            show the version\n",
           PROGRAM, DEFAULT_MAX_CONNECTIONS, DEFAULT_HANDSHAKE_TIMEOUT);
}

static unsigned long
count_arg (const char *option, const char *arg, int base, unsigned long min,
           unsigned long max)
{
  char why[SB_ARG_WHY_SIZE], shown[ESCAPED_VALUE_SIZE];
  unsigned long n;

  if (sb_arg_count (arg, base, min, max, &n, why, sizeof why) == -1)
    sb_usage_error ("%s %s: %s", option,
                    sb_escape_str (shown, sizeof shown, arg), why);
  return n;
}

enum {
  OPT_SOCKET_MODE = 256, OPT_MAX_CONNECTIONS, OPT_PIDFILE, OPT_RUN,
  OPT_PRINT_URI, OPT_SPLIT_REPLIES, OPT_NO_NODELAY, OPT_HANDSHAKE_TIMEOUT,
};

static const struct option long_options[] = {
  { "unix", required_argument, NULL, 'U' },
  { "port", required_argument, NULL, 'p' },
  { "bind", required_argument, NULL, 'b' },
  { "export-name", required_argument, NULL, 'e' },
  { "read-only", no_argument, NULL, 'r' },
  { "verbose", no_argument, NULL, 'v' },
  { "help", no_argument, NULL, 'h' },
  { "version", no_argument, NULL, 'V' },
  { "socket-mode", required_argument, NULL, OPT_SOCKET_MODE },
  { "max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS },
  { "handshake-timeout", required_argument, NULL, OPT_HANDSHAKE_TIMEOUT },
  { "pidfile", required_argument, NULL, OPT_PIDFILE },
  { "run", required_argument, NULL, OPT_RUN },
  { "print-uri", no_argument, NULL, OPT_PRINT_URI },
  { "split-replies", no_argument, NULL, OPT_SPLIT_REPLIES },
  { "no-nodelay", no_argument, NULL, OPT_NO_NODELAY },
  { NULL, 0, NULL, 0 },
};

static void
apply_option (struct config *cfg, int opt, const char *arg, char **argv)
{
  char why[SB_ARG_WHY_SIZE];

  switch (opt) {
  case 'U': cfg->unix_path = arg; break;
  case 'p':
    cfg->kernel_port = count_arg ("-p", arg, 10, 0, 65535) == 0;
    cfg->port = arg;
    break;
  case 'b': cfg->bind_addr = arg; break;
  case 'e':
    if (strlen (arg) > NBD_MAX_STRING)
      sb_usage_error ("-e: export name longer than %d bytes", NBD_MAX_STRING);
    cfg->export_name = arg;
    break;
  case 'r': cfg->read_only = true; break;
  case 'v': cfg->verbose = true; break;
  case OPT_SOCKET_MODE:
    cfg->socket_mode = (mode_t) count_arg ("--socket-mode", arg, 8, 0, 0777);
    break;
  case OPT_MAX_CONNECTIONS:
    cfg->max_connections = (unsigned) count_arg ("--max-connections", arg,
                                                 10, 1, 65536);
    break;
  case OPT_HANDSHAKE_TIMEOUT:
    cfg->handshake_timeout = (unsigned) count_arg ("--handshake-timeout", arg,
                                                   10, 1, 3600);
    break;
  case OPT_PIDFILE: cfg->pidfile = arg; break;
  case OPT_RUN: cfg->run = arg; break;
  case OPT_PRINT_URI: cfg->print_uri = true; break;
  case OPT_SPLIT_REPLIES: cfg->split_replies = true; break;
  case OPT_NO_NODELAY: cfg->leave_nagle_on = true; break;
  case 'h': usage (stdout); exit (0);
  case 'V': printf ("%s %s\n", PROGRAM, SOCKBOOST_VERSION); exit (0);
  default:
    sb_arg_getopt_complaint (opt, argv, SHORT_OPTIONS, why, sizeof why);
    sb_usage_error ("%s", why);
  }
}

static void
check_config (struct config *cfg)
{
  if (cfg->unix_path != NULL && cfg->port != NULL)
    sb_usage_error ("-U and -p cannot be used together");
  if (cfg->unix_path == NULL && cfg->port == NULL) {
    if (cfg->run == NULL)
      sb_usage_error ("one of -U SOCKET or -p PORT is required");
    cfg->unix_path = "-";
  }
  if (cfg->bind_addr != NULL && cfg->port == NULL)
    sb_usage_error ("-b needs -p");
  if (cfg->unix_path != NULL && cfg->unix_path[0] == '\0')
    sb_usage_error ("-U: empty socket path");
}

/* Nobody could learn a private socket's path or a kernel-chosen port
 * without --run or --print-uri, so the URI then goes to stderr.
 */
static void
decide_uri_logging (struct config *cfg)
{
  bool hidden = (cfg->unix_path != NULL && strcmp (cfg->unix_path, "-") == 0)
    || (cfg->port != NULL && cfg->kernel_port);

  cfg->log_uri = cfg->verbose || (hidden && !cfg->run && !cfg->print_uri);
}

void
config_parse (struct config *cfg, int argc, char **argv)
{
  int opt;

  char why[SB_ARG_WHY_SIZE + ESCAPED_VALUE_SIZE];

  *cfg = (struct config) { .export_name = "", .socket_mode = 0600,
                           .max_connections = DEFAULT_MAX_CONNECTIONS,
                           .handshake_timeout = DEFAULT_HANDSHAKE_TIMEOUT };
  opterr = 0;
  while ((opt = getopt_long (argc, argv, SHORT_OPTIONS, long_options,
                             NULL)) != -1)
    apply_option (cfg, opt, optarg, argv);
  if (optind == argc)
    sb_usage_error ("no BACKEND given");
  if (optind != argc - 1)
    sb_usage_error ("expected one BACKEND, got %d arguments", argc - optind);
  check_config (cfg);
  if (backend_spec_parse (argv[optind], &cfg->backend, why, sizeof why) == -1)
    sb_usage_error ("%s", why);
  decide_uri_logging (cfg);
}
