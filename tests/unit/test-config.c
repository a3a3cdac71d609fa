/* SPDX-License-Identifier: MIT */
/* Unit tests of the environment parsing in preload/config.c. */
#include <stddef.h>
#include <string.h>

#include "tap.h"
#include "config.h"

static const char *const *env;

/* Look NAME up in the NAME=VALUE list ENV. */
static const char *
lookup (const char *name)
{
  size_t n = strlen (name);
  for (const char *const *e = env; *e; e++)
    if (strncmp (*e, name, n) == 0 && (*e)[n] == '=')
      return *e + n + 1;
  return NULL;
}

static int
parse (const char *const *list, struct sb_config *c,
       struct sb_config_warning *w)
{
  env = list;
  return sb_config_parse (c, lookup, w);
}

int
main (void)
{
  struct sb_config c;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  static const char *const none[] = { NULL };
  static const char *const good[] = {
    "SOCKBOOST_SNDBUF=4M", "SOCKBOOST_FORCE=off", "SOCKBOOST_NODELAY=0",
    "SOCKBOOST_CORK=off", "SOCKBOOST_SCOPE=nbd", "SOCKBOOST_DEBUG=3",
    "SOCKBOOST_STATS=1", "SOCKBOOST_LOG_FILE=/tmp/x.%p", NULL };
  static const char *const off[] = { "SOCKBOOST_SNDBUF=off", NULL };
  static const char *const bad_sizes[][2] = {
    { "SOCKBOOST_SNDBUF=abc", NULL }, { "SOCKBOOST_SNDBUF=-5", NULL },
    { "SOCKBOOST_SNDBUF=99999999999999", NULL }, { "SOCKBOOST_SNDBUF=2Q", NULL },
    { "SOCKBOOST_SNDBUF=2G", NULL } };
  static const char *const bad_words[] = {
    "SOCKBOOST_FORCE=yes", "SOCKBOOST_DEBUG=4", "SOCKBOOST_SCOPE=", NULL };

  TAP_OK (parse (none, &c, w) == 0, "empty environment: no warning");
  TAP_OK (c.sndbuf == 2097152 && c.force == SB_FORCE_AUTO && c.nodelay
          && c.cork && c.scope == SB_SCOPE_ALL && c.debug == 1 && !c.stats
          && c.log_file == NULL, "empty environment: the defaults");
  TAP_OK (parse (good, &c, w) == 0, "good values: no warning");
  TAP_OK (c.sndbuf == 4194304 && c.force == SB_FORCE_OFF && !c.nodelay
          && !c.cork && c.scope == SB_SCOPE_NBD && c.debug == 3 && c.stats
          && strcmp (c.log_file, "/tmp/x.%p") == 0, "good values: all read");
  TAP_OK (parse (off, &c, w) == 0 && c.sndbuf == 0, "SNDBUF=off disables");
  for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
    int n = parse (bad_sizes[i], &c, w);
    TAP_OK (n == 1 && strcmp (w[0].name, "SOCKBOOST_SNDBUF") == 0
            && strcmp (w[0].value, strchr (bad_sizes[i][0], '=') + 1) == 0
            && c.sndbuf == 2097152, "%s: one warning, default", bad_sizes[i][0]);
  }
  TAP_OK (parse (bad_words, &c, w) == 2 && c.force == SB_FORCE_AUTO
          && c.debug == 1 && strcmp (w[0].name, "SOCKBOOST_FORCE") == 0
          && strcmp (w[1].name, "SOCKBOOST_DEBUG") == 0,
          "bad words warn once each; empty means unset");
  return tap_done ();
}
