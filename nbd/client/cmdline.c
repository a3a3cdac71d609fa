/* SPDX-License-Identifier: MIT */
/* sbnbd-client command line. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "client.h"
#include "nbd-protocol.h"

/* ':' first: missing arguments are told apart from unknown options. */
#define SHORT_OPTIONS ":hqvV"

static const char usage_text[] =
  "Usage: " PROGRAM " [OPTION]... info URI\n"
  "       " PROGRAM " [OPTION]... read URI [FILE|-]\n"
  "       " PROGRAM " [OPTION]... write FILE|pattern|zero URI\n"
  "       " PROGRAM " [OPTION]... verify URI\n"
  "       " PROGRAM " [OPTION]... map URI\n"
  "Read, write or verify an NBD export as fast as the transport allows,\n"
  "or list its extents (offset, length, base:allocation type).\n"
  "URI is nbd://HOST[:PORT]/NAME or nbd+unix:///NAME?socket=PATH.\n"
  "read with no FILE discards the data; '-' writes it to stdout; holes\n"
  "the server reports are not read and stay holes in a regular FILE.\n"
  "write 'pattern' sends the sbnbd-server pattern:, 'zero' zeroes;\n"
  "verify checks the export against the pattern.\n"
  "\n"
  "  --request-size SIZE  bytes per request (default 2M, at most 32M)\n"
  "  --queue-depth N      requests in flight per connection (default 4)\n"
  "  --connections N      connections, if the server allows multi-conn\n"
  "  --offset SIZE        start at this byte of the export (default 0)\n"
  "  --length SIZE        transfer this many bytes (default: to the end)\n"
  "  --flush              send FLUSH after the last write\n"
  "  --progress           show a progress bar on stderr\n"
  "  --json               print the result as one JSON object on stdout\n"
  "                       (on stderr when the data goes to stdout)\n"
  "  -q, --quiet          no throughput summary\n"
  "  -v, --verbose        say what was negotiated and chosen, on stderr\n"
  "  --no-extended        do not ask for extended headers\n"
  "  --no-structured      do not ask for structured replies (nor extended\n"
  "                       headers, nor block status)\n"
  "  --no-nodelay         leave Nagle's algorithm on (naive, for tests)\n"
  "  --split-writes       send WRITE header and data in two write() calls\n"
  "                       (naive, for tests)\n"
  "  -h, --help           show this help\n"
  "  -V, --version        show the version\n";

enum {
  OPT_REQUEST_SIZE = 256, OPT_QUEUE_DEPTH, OPT_CONNECTIONS, OPT_OFFSET,
  OPT_LENGTH, OPT_FLUSH, OPT_PROGRESS, OPT_JSON, OPT_NO_STRUCTURED,
  OPT_NO_NODELAY, OPT_SPLIT_WRITES, OPT_NO_EXTENDED,
};

static const struct option long_options[] = {
  { "request-size", required_argument, NULL, OPT_REQUEST_SIZE },
  { "queue-depth", required_argument, NULL, OPT_QUEUE_DEPTH },
  { "connections", required_argument, NULL, OPT_CONNECTIONS },
  { "offset", required_argument, NULL, OPT_OFFSET },
  { "length", required_argument, NULL, OPT_LENGTH },
  { "flush", no_argument, NULL, OPT_FLUSH },
  { "progress", no_argument, NULL, OPT_PROGRESS },
  { "json", no_argument, NULL, OPT_JSON },
  { "quiet", no_argument, NULL, 'q' },
  { "verbose", no_argument, NULL, 'v' },
  { "no-structured", no_argument, NULL, OPT_NO_STRUCTURED },
  { "no-extended", no_argument, NULL, OPT_NO_EXTENDED },
  { "no-nodelay", no_argument, NULL, OPT_NO_NODELAY },
  { "split-writes", no_argument, NULL, OPT_SPLIT_WRITES },
  { "help", no_argument, NULL, 'h' },
  { "version", no_argument, NULL, 'V' },
  { NULL, 0, NULL, 0 },
};

static uint64_t
size_arg (const char *name, const char *text, uint64_t min, uint64_t max)
{
  char why[SB_ARG_WHY_SIZE], shown[ESCAPED_VALUE_SIZE];
  uint64_t v;

  if (sb_arg_size (text, min, max, &v, why, sizeof why) == -1)
    sb_usage_error ("--%s %s: %s", name,
                    sb_escape_str (shown, sizeof shown, text), why);
  return v;
}

static unsigned
count_arg (const char *name, const char *text, unsigned min, unsigned max)
{
  char why[SB_ARG_WHY_SIZE], shown[ESCAPED_VALUE_SIZE];
  unsigned long v;

  if (sb_arg_count (text, 10, min, max, &v, why, sizeof why) == -1)
    sb_usage_error ("--%s %s: %s", name,
                    sb_escape_str (shown, sizeof shown, text), why);
  return (unsigned) v;
}

static void
parse_option (struct options *o, int c, char **argv)
{
  char why[SB_ARG_WHY_SIZE];

  switch (c) {
  case OPT_REQUEST_SIZE:
    o->request_size = (uint32_t) size_arg ("request-size", optarg, 1,
                                           NBD_MAX_PAYLOAD);
    break;
  case OPT_QUEUE_DEPTH:
    o->queue_depth = count_arg ("queue-depth", optarg, 1, MAX_QUEUE_DEPTH);
    break;
  case OPT_CONNECTIONS:
    o->connections = count_arg ("connections", optarg, 1, MAX_CONNECTIONS);
    break;
  case OPT_OFFSET: o->offset = size_arg ("offset", optarg, 0, INT64_MAX); break;
  case OPT_LENGTH:
    o->length = size_arg ("length", optarg, 0, INT64_MAX);
    o->have_length = true;
    break;
  case OPT_FLUSH: o->flush = true; break;
  case OPT_PROGRESS: o->progress = true; break;
  case OPT_JSON: o->json = true; break;
  case 'q': o->quiet = true; break;
  case 'v': o->verbose = true; break;
  case OPT_NO_STRUCTURED: o->structured = false; break;
  case OPT_NO_EXTENDED: o->extended = false; break;
  case OPT_NO_NODELAY: o->nodelay = false; break;
  case OPT_SPLIT_WRITES: o->split_writes = true; break;
  case 'h': fputs (usage_text, stdout); exit (0);
  case 'V': printf ("%s %s\n", PROGRAM, SOCKBOOST_VERSION); exit (0);
  default:
    sb_arg_getopt_complaint (c, argv, SHORT_OPTIONS, why, sizeof why);
    sb_usage_error ("%s", why);
  }
}

static void
check_count (int argc, int want_min, int want_max, const char *cmd)
{
  if (argc < want_min || argc > want_max)
    sb_usage_error ("'%s' takes %s", cmd,
                    want_min == want_max && want_min == 1 ? "one URI"
                    : strcmp (cmd, "read") == 0 ? "URI and an optional FILE"
                    : "a source (FILE, pattern or zero) and a URI");
}

static void __attribute__((noreturn))
unknown_command (const char *cmd)
{
  char shown[ESCAPED_VALUE_SIZE];

  sb_usage_error ("unknown command '%s' (expected info, read, write, verify "
                  "or map)", sb_escape_str (shown, sizeof shown, cmd));
}

/* The subcommand and its operands: ARGV[0] is the subcommand. */
static void
parse_operands (struct options *o, int argc, char **argv)
{
  const char *cmd = argv[0];

  if (strcmp (cmd, "info") == 0 || strcmp (cmd, "verify") == 0
      || strcmp (cmd, "map") == 0) {
    check_count (argc - 1, 1, 1, cmd);
    o->op = cmd[0] == 'i' ? OP_INFO : cmd[0] == 'v' ? OP_VERIFY : OP_MAP;
    o->uri = argv[1];
  }
  else if (strcmp (cmd, "read") == 0) {
    check_count (argc - 1, 1, 2, cmd);
    o->op = OP_READ;
    o->uri = argv[1];
    o->path = argc > 2 ? argv[2] : NULL;
  }
  else if (strcmp (cmd, "write") == 0) {
    check_count (argc - 1, 2, 2, cmd);
    o->op = OP_WRITE;
    o->path = argv[1];
    o->uri = argv[2];
    o->source = strcmp (o->path, "pattern") == 0 ? SRC_PATTERN
      : strcmp (o->path, "zero") == 0 ? SRC_ZERO : SRC_FILE;
  }
  else
    unknown_command (cmd);
  if (o->path != NULL)
    sb_escape_str (o->shown_path, sizeof o->shown_path, o->path);
}

void
options_parse (struct options *o, int argc, char **argv)
{
  int c;

  memset (o, 0, sizeof *o);
  o->request_size = DEFAULT_REQUEST_SIZE;
  o->queue_depth = DEFAULT_QUEUE_DEPTH;
  o->connections = 1;
  o->nodelay = true;
  o->structured = true;
  o->extended = true;
  opterr = 0;
  while ((c = getopt_long (argc, argv, SHORT_OPTIONS, long_options, NULL))
         != -1)
    parse_option (o, c, argv);
  if (optind >= argc)
    sb_usage_error ("no command given");
  parse_operands (o, argc - optind, argv + optind);
}
