/* SPDX-License-Identifier: MIT */
/* What the library costs on calls it does not speed up: COUNT 1-byte
 * write()s to /dev/null, or COUNT 1-byte send()s on a socketpair, timed.
 * The benchmark runs it with and without LD_PRELOAD, paired, and compares
 * medians; this program only measures one run.
 */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "clock.h"
#include "escape.h"
#include "report.h"

#define PROGRAM "sb-overhead-bench"
/* ':' first: a missing value is told apart from an unknown option. */
#define SHORT_OPTIONS ":h"

/* Sends between two drains: few enough that a default send buffer never
 * fills (each 1-byte skb is charged about 1 KiB), so no send ever blocks.
 */
#define SENDS_PER_DRAIN 64

struct options {
  const char *mode;             /* "devnull" or "socketpair" */
  uint64_t count;
  int json;
};

static void
usage (void)
{
  printf ("usage: " PROGRAM " [--count N] [--json] devnull|socketpair\n"
          "Times N (default 1000000) 1-byte write()s to /dev/null or\n"
          "send()s on a unix socketpair.\n");
  exit (0);
}

static void
parse_args (int argc, char **argv, struct options *o)
{
  static const struct option longopts[] = {
    { "count", required_argument, NULL, 'c' },
    { "json", no_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  char why[SB_ARG_WHY_SIZE], shown[SB_ESCAPE_SIZE (64)];
  int c;

  opterr = 0;
  *o = (struct options) { .count = 1000000 };
  while ((c = getopt_long (argc, argv, SHORT_OPTIONS, longopts, NULL)) != -1) {
    switch (c) {
    case 'c': o->count = sb_option_count ("--count", optarg, 1, ULONG_MAX);
      break;
    case 'j': o->json = 1; break;
    case 'h': usage (); break;
    default:
      sb_arg_getopt_complaint (c, argv, SHORT_OPTIONS, why, sizeof why);
      sb_usage_error ("%s", why);
    }
  }
  if (optind != argc - 1)
    sb_usage_error ("expected one mode, devnull or socketpair");
  o->mode = argv[optind];
  if (strcmp (o->mode, "devnull") != 0 && strcmp (o->mode, "socketpair") != 0)
    sb_usage_error ("unknown mode: %s",
                    sb_escape_str (shown, sizeof shown, o->mode));
}

static void
write_devnull (uint64_t count)
{
  int fd = open ("/dev/null", O_WRONLY | O_CLOEXEC);
  uint64_t i;

  if (fd == -1)
    sb_die ("open /dev/null");
  for (i = 0; i < count; i++)
    if (write (fd, "x", 1) != 1)
      sb_die ("write /dev/null");
  close (fd);
}

/* One thread sends and drains, so the figure holds no scheduler noise
 * from a second thread; one recv() takes all queued bytes at once.
 */
static void
send_socketpair (uint64_t count)
{
  char buf[SENDS_PER_DRAIN];
  int sv[2];
  uint64_t i;

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
    sb_die ("socketpair");
  for (i = 0; i < count; i++) {
    if (send (sv[0], "x", 1, MSG_NOSIGNAL) != 1)
      sb_die ("send");
    if ((i + 1) % SENDS_PER_DRAIN == 0 || i + 1 == count)
      if (recv (sv[1], buf, sizeof buf, 0) <= 0)
        sb_die ("recv");
  }
  close (sv[0]);
  close (sv[1]);
}

int
main (int argc, char **argv)
{
  struct options o;
  struct rusage ru;
  double t0, secs;

  parse_args (argc, argv, &o);
  t0 = sb_monotonic_seconds ();
  if (strcmp (o.mode, "devnull") == 0)
    write_devnull (o.count);
  else
    send_socketpair (o.count);
  secs = sb_monotonic_seconds () - t0;
  if (getrusage (RUSAGE_SELF, &ru) == -1)
    sb_die ("getrusage");
  if (o.json)
    printf ("{\"mode\": \"%s\", \"count\": %llu, \"seconds\": %.6f, "
            "\"ns_per_call\": %.1f, \"user\": %.3f, \"sys\": %.3f}\n",
            o.mode, (unsigned long long) o.count, secs,
            secs * 1e9 / (double) o.count, sb_timeval_seconds (ru.ru_utime),
            sb_timeval_seconds (ru.ru_stime));
  else
    printf ("%s: %llu calls in %.3f s, %.1f ns per call\n", o.mode,
            (unsigned long long) o.count, secs, secs * 1e9 / (double) o.count);
  return 0;
}
